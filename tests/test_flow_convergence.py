"""Value flow that feeds back into itself converges: every question of a cycle is worked out to a
fixed point and remembered, derived external names stay short, a work budget ends a runaway
question as unresolved, and the edges do not depend on the hash seed."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

from conftest import call_edges, query_index, write_tree
from graphctx.index import store
from graphctx.index.fixpoint import EMPTY, MAX_DEPTH, FlowQuestions
from graphctx.index.flowpaths import MAX_EXTERNAL_PARTS, MAX_VALUES
from graphctx.index.indexer import index_repository
from graphctx.index.keeper import TableKeeper

# methods returning self-typed values in loops, `x = x.ring` in a loop on an external value,
# mutually recursive functions passing a value through, chains of attribute assignment
RINGS = 'import sympyish\n\n\nclass Ring:\n    def __init__(self, base):\n        self.base = base\n        self.ring = self\n\n    def extend(self):\n        return Ring(self)\n\n    def lift(self):\n        return self.base.lift()\n\n    def close(self):\n        pass\n\n\nclass Field(Ring):\n    def to_ring(self):\n        return self.ring.to_field().to_ring()\n\n    def to_field(self):\n        return self.to_ring().to_field()\n\n\ndef tower(r, n):\n    while n:\n        r = r.extend().ring\n        r = r.base\n        n -= 1\n    r.close()\n    return r\n\n\ndef ping(x, n):\n    return pong(x, n - 1) if n else x\n\n\ndef pong(x, n):\n    return ping(x, n)\n\n\ndef external_loop(expr):\n    x = sympyish.eval(expr)\n    for _ in range(10):\n        x = x.ring.domain\n        x = x.ring\n    return x.subs()\n\n\ndef chained():\n    a = Ring(None)\n    a.base.next = a\n    a.base.next.base.next.close()\n    ping(tower(Field(a), 3), 5).close()\n'


def index_with_questions(root: Path) -> FlowQuestions:
    keeper = TableKeeper()
    result = index_repository(root, full=True, workers=1, keeper=keeper)
    return keeper.take(store.index_path(root), result.generation).table.flow


def test_cyclic_value_flow_is_bounded_and_found_through_the_cycle(tmp_path):
    root = write_tree(tmp_path / "repo", {"rings.py": RINGS})
    questions = index_with_questions(root)
    edges = call_edges(root)
    assert questions.cycles > 0  # the program does feed values back
    assert questions.spent == 0 and questions.truncated == 0
    assert questions.asked < 400  # each question worked out a few times at most, not once per path to it
    externals = [target for _, target, resolution in edges if resolution == "external"]
    assert externals and all(len(t[len("ext:"):].split(".")) <= MAX_EXTERNAL_PARTS for t in externals)
    # what only the loop's second pass brings: `x.ring` of the value the first pass made
    assert ("rings.py::external_loop", "ext:sympyish.eval.ring.subs", "external") in edges
    assert ("rings.py::tower", "rings.py::Ring.close", "inferred") in edges
    assert ("rings.py::chained", "rings.py::Ring.close", "inferred") in edges


def test_more_loop_statements_cost_questions_in_proportion(tmp_path):
    """Twice the statements feeding `x` back into itself: about twice the questions, not their power."""
    def program(steps: int) -> str:
        loop = "".join(f"        x = x.a{i}.b{i}\n        x = x.c{i}\n" for i in range(steps))
        return f"import lib\n\n\ndef f():\n    x = lib.make()\n    while x:\n{loop}    return x.done()\n"
    asked = []
    for steps in (10, 20):
        root = write_tree(tmp_path / f"repo{steps}", {"m.py": program(steps)})
        questions = index_with_questions(root)
        assert questions.spent == 0
        asked.append(questions.asked)
    assert asked[1] < 3 * asked[0]


def test_a_cycle_settles_to_the_same_answers_whichever_question_comes_first():
    seeds = {"a": {1}, "b": {2}, "c": {3}}
    edges = {"a": ["b"], "b": ["c", "a"], "c": ["a"]}  # one strongly connected group

    def solve(first: str) -> dict[str, frozenset]:
        questions, memo = FlowQuestions(), {}

        def ask(name: str) -> frozenset:
            if name in memo:
                return memo[name]
            return questions.answer(name, memo, name, lambda: set(seeds[name]).union(*(ask(n) for n in edges[name])))
        ask(first)
        return memo

    answers = [solve(first) for first in "abc"]
    assert all(memo == {"a": {1, 2, 3}, "b": {1, 2, 3}, "c": {1, 2, 3}} for memo in answers)


def test_a_cycle_entered_through_a_question_that_waited_on_a_finished_one_settles_whole():
    """0 -> 1 -> 2 -> 3 -> 4 -> 1 and 2 -> 0: one group. 3 and 4 wait on 1, which ends waiting on 0;
    so must they, or asked again from 0 (3 is 0's child too) they settle early, without 0's answer."""
    edges = {0: [1, 1, 3], 1: [2, 4, 1], 2: [3, 0], 3: [4], 4: [1]}
    for order in itertools.permutations(edges):
        questions, memo = FlowQuestions(), {}

        def ask(name: int) -> frozenset:
            if name in memo:
                return memo[name]
            return questions.answer(name, memo, name, lambda: {name}.union(*(ask(n) for n in edges[name])))
        assert all(ask(name) == set(edges) for name in order), order
        assert memo == dict.fromkeys(edges, set(edges)), order


def test_a_question_past_the_budget_is_unresolved_and_remembered():
    questions, memo = FlowQuestions(), {}

    def ask(n: int) -> frozenset:  # every question asks two new ones, 40 levels down: a tree too big to walk
        if n in memo:
            return memo[n]
        return questions.answer(n, memo, n, lambda: {n} | (ask(2 * n) | ask(2 * n + 1) if n < 2 ** 40 else EMPTY))

    assert ask(1) == EMPTY and memo[1] == EMPTY
    assert questions.spent == 1 and questions.truncated == 0
    asked = questions.asked
    assert ask(1) == EMPTY and questions.asked == asked


def test_questions_nested_past_the_depth_bound_are_not_remembered():
    questions, memo = FlowQuestions(), {}

    def ask(n: int) -> frozenset:  # a chain longer than the depth bound
        if n in memo:
            return memo[n]
        return questions.answer(n, memo, n, lambda: {n} | (ask(n + 1) if n < 10 * MAX_DEPTH else EMPTY))

    found = ask(0)
    assert found == frozenset(range(MAX_DEPTH)) and questions.truncated == 1
    assert not memo  # a cut answer depends on where the question started
    assert not questions.provisional and not questions.frames


def test_the_same_tree_gives_the_same_edges_whatever_the_hash_seed(tmp_path):
    root = write_tree(tmp_path / "repo", {"rings.py": RINGS, "more.py": RINGS.replace("Ring", "Loop")})
    built = []
    for seed in ("0", "31337"):
        store.remove(store.index_path(root))
        run = subprocess.run([sys.executable, "-m", "graphctx.cli.main", "index", "-q", str(root)], cwd=tmp_path,
                             capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": seed})
        assert run.returncode == 0, run.stderr
        built.append(call_edges(root))
    assert built[0] == built[1] and len(built[0]) > 30


def test_a_call_on_a_value_a_loop_rewrote_many_ways_names_no_flood_of_externals(tmp_path):
    methods = [f"m{i}" for i in range(8)]
    loop = "".join(f"        e = e.{m}()\n" for m in methods)
    program = f"def f():\n    e = dict()\n    while e:\n{loop}    e.done()\n"
    root = write_tree(tmp_path / "repo", {"m.py": program})
    index_repository(root, full=True, workers=1)
    per_line = query_index(root, "SELECT line, count(*) FROM edges WHERE kind = 'calls' GROUP BY line")
    assert per_line and max(count for _, count in per_line) <= 16


def test_a_parameter_every_caller_feeds_differently_holds_anything(tmp_path):
    """Past MAX_VALUES values a path may hold anything: what is read off it is unknown too, and a
    method called on it is resolved by its name (a guess, labelled so), not `inferred` from a union
    of a hundred classes. One class having the method is no evidence that it is the one."""
    classes = "".join(f"class K{i}:\n    def run(self):\n        pass\n\n\n" for i in range(MAX_VALUES + 5))
    feeds = "".join(f"    use(K{i}())\n" for i in range(MAX_VALUES + 5))
    program = (f"{classes}class Special:\n    def special(self):\n        pass\n\n\n"
               f"def use(x):\n    x.special()\n\n\n"
               f"def main():\n{feeds}    use(Special())\n")
    root = write_tree(tmp_path / "repo", {"m.py": program})
    index_repository(root, full=True, workers=1)
    calls = {(s, t): r for s, t, r in call_edges(root)}
    assert calls[("m.py::use", "m.py::Special.special")] not in ("inferred", "exact")


def test_element_paths_stop_at_a_few_subscripts(tmp_path):
    """A function that returns elements of its own results (a recursive converter) spells out ever
    longer element paths (`conv()[][1]['k'][]...`); past MAX_SUBSCRIPTS levels a path holds nothing
    known, so the questions stay few, and a callee that deep is unresolved, never guessed."""
    program = ("def leaf():\n    pass\n\n\n"
               "def conv(a):\n    if a:\n        return [conv(x) for x in a[0]]\n    return {'k': [a, conv(a[1])]}\n\n\n"
               "def main(data):\n    conv(data)[0][1]['k'][0]()\n    table = {'a': [[{'b': [leaf]}]]}\n"
               "    table['a'][0][0]['b'][0]()\n    shallow = {'a': [leaf]}\n    shallow['a'][0]()\n")
    root = write_tree(tmp_path / "repo", {"m.py": program})
    questions = index_with_questions(root)
    assert questions.spent == 0 and questions.asked < 300
    found = query_index(root, "SELECT resolution, line FROM edges WHERE target = 'm.py::leaf' AND kind = 'calls'")
    assert found == [("inferred", 16)]  # two levels deep (line 16) found; five levels deep (line 14) not guessed
