"""Value flow's answers do not depend on the order its questions are asked in: an answer remembered
from an earlier question is reused only where a fresh computation would find it too (its height fits
in the depth left), so an answer asked at any depth, whatever was asked before, equals the one a
fresh FlowQuestions with nothing remembered finds asked that alone at that depth. The programs are
generated: chains and trees deeper than the depth bound, cycles, and values made of answers (as
flow.py makes a target's values) kept beside them."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphctx.index.fixpoint import MAX_DEPTH, FlowQuestions


class Program:
    """Question n holds n and what its children hold. A child in `made` is read as a value made of
    answers (not itself a question): its own children's answers, kept with `mark` and `keep`.
    ("pad", d, n) asks n at depth d."""

    def __init__(self, children: dict[int, list[int]], made: set[int]):
        self.children, self.made = children, made
        self.questions, self.memo, self.kept = FlowQuestions(), {}, {}

    def ask(self, question) -> frozenset:
        found = self.questions.recall(self.memo, question)
        if found is not None:
            return found
        return self.questions.answer(question, self.memo, question, self._compute, question)

    def _compute(self, question) -> set:
        if isinstance(question, tuple):
            _, depth, n = question
            return set(self.ask(("pad", depth - 1, n) if depth > 1 else n))
        out = {question}
        for child in self.children[question]:
            out |= self._made(child) if child in self.made else self.ask(child)
        return out

    def _made(self, n: int):
        found = self.questions.recall(self.kept, n)
        if found is not None:
            return found
        mark = self.questions.mark()
        out = {n}.union(*(self.ask(child) for child in self.children[n]))
        return self.questions.keep(self.kept, n, out, mark)


@st.composite
def programs(draw, cyclic: bool):
    size = draw(st.integers(2, 2 * MAX_DEPTH + 20))
    breaks = draw(st.sets(st.integers(0, size - 1), max_size=4))  # where the long chain 0 -> 1 -> ... stops
    children: dict[int, list[int]] = {}
    for n in range(size):
        low = 0 if cyclic else n + 1
        more = draw(st.lists(st.integers(low, size - 1), max_size=2)) if low < size else []
        children[n] = ([n + 1] if n + 1 < size and n not in breaks else []) + more
    made = draw(st.sets(st.integers(0, size - 1), max_size=size // 4))
    asked = draw(st.lists(st.tuples(st.integers(0, MAX_DEPTH + 5), st.integers(0, size - 1)), min_size=2, max_size=10))
    return children, made, asked


def _question(depth: int, n: int):
    return ("pad", depth, n) if depth else n


def _assert_each_answer_is_a_fresh_one(children, made, asked) -> None:
    program = Program(children, made)
    for depth, n in asked:
        fresh = Program(children, made).ask(_question(depth, n))
        assert program.ask(_question(depth, n)) == fresh, (depth, n)


EXAMPLES = settings(max_examples=int(os.environ.get("GRAPHCTX_PROPERTY_EXAMPLES", "60")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@EXAMPLES
@given(program=programs(cyclic=False))
def test_an_answer_is_the_fresh_one_whatever_was_asked_before(program):
    _assert_each_answer_is_a_fresh_one(*program)


@EXAMPLES
@given(program=programs(cyclic=True))
def test_an_answer_in_a_cycle_is_the_fresh_one_whatever_was_asked_before(program):
    _assert_each_answer_is_a_fresh_one(*program)


def test_a_chain_longer_than_the_bound_is_cut_at_the_same_place_whichever_end_is_asked_first():
    children = {n: [n + 1] for n in range(2 * MAX_DEPTH)} | {2 * MAX_DEPTH: []}
    for made in (set(), {MAX_DEPTH // 2}):
        _assert_each_answer_is_a_fresh_one(children, made, [(0, MAX_DEPTH), (0, 0), (3, MAX_DEPTH // 2), (0, 1)])
        _assert_each_answer_is_a_fresh_one(children, made, [(0, 0), (0, MAX_DEPTH), (10, 5), (0, 0)])
