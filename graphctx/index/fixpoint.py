"""Answers to value-flow questions that ask themselves again, whichever file asks: each strongly
connected group of questions (a question that, followed far enough, asks itself) is worked out
again until its answers stop growing, the least fixed point, so every answer is remembered, and
whatever question led to it, the same. A work budget per top-level question, and a bound on how
deep questions nest, keep any answer finite: past them it is `unresolved` (empty), never a guess."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Hashable, Iterable

EMPTY: frozenset = frozenset()
MAX_DEPTH = 60  # questions open at once (the recursion's depth)
MAX_WORK = 20_000  # questions worked out for one top-level question before its answer is unresolved
MAX_ROUNDS = 12  # passes over one cycle before its answer is unresolved (union answers settle in a few)


class BudgetSpent(Exception):
    """The question under way asked more than its budget allows."""


@dataclass(slots=True)
class Frame:
    guard: Hashable
    depth: int
    low: int  # the outermost open question this answer depends on (itself when none further out)
    cyclic: bool = False  # asked again while open in this pass: its answer so far was used
    truncated: bool = False  # depends on an answer cut by the depth bound: not to be remembered


class FlowQuestions:
    """The open questions of one symbol table, their provisional answers, and counters a test or a
    profile can read: `asked` (questions worked out), `cycles`, `truncated` and `spent`. `unsettled`
    counts the answers handed out that are not final (a cycle's answer so far, a provisional or a
    truncated one), less those a final answer worked out while it was made: a caller that sees it
    unchanged across a computation built that computation on final answers only."""

    def __init__(self):
        self.open: dict[Hashable, int] = {}  # guard -> its frame's depth
        self.frames: list[Frame] = []
        self.so_far: dict[Hashable, frozenset] = {}  # a cycle's head -> its answer in the last pass
        # guard -> (answer, low, truncated, memo, key): answers inside a cycle whose head is still open
        self.provisional: dict[Hashable, tuple[frozenset, int, bool, dict, Hashable]] = {}
        self._by_low: dict[int, list[Hashable]] = {}  # low -> the provisional answers made with it, to settle them at once
        self.asked = 0
        self.cycles = 0
        self.truncated = 0
        self.spent = 0
        self.unsettled = 0
        # Bumped whenever a file's answers are dropped or the table they read changes: what is made
        # of answers of several files (flow.py's attribute flows) holds within one epoch.
        self.epoch = 0
        self._work = 0
        # One object for equal answers: most are alike (a sympy build's workers kept 197,000 answers,
        # 16,000 of them distinct), and each set costs 200 bytes or more.
        self._alike: dict[frozenset, frozenset] = {}

    def shared(self, found: Iterable) -> frozenset:
        """`found` as a frozenset, the same object as every equal one shared this run (EMPTY when empty)."""
        found = frozenset(found)
        return self._alike.setdefault(found, found) if found else EMPTY

    def new_run(self) -> None:
        """A run begins: the answers it shares start afresh (those of past runs need not stay alive)."""
        self._alike = {}

    def new_epoch(self) -> None:
        """Some file's answers were dropped, or the table they read changed: what was made of answers
        of several files no longer holds."""
        self.epoch += 1

    def not_final(self) -> None:
        """Something handed out that may still change (a call-site index while it is built, a function
        left out of a run): what is made of it is not to be kept."""
        self.unsettled += 1

    def mark(self) -> tuple[int, int]:
        """Where the counters stand: `settled_since` tells whether what was made since may be kept."""
        return self.unsettled, self.epoch

    def settled_since(self, mark: tuple[int, int]) -> bool:
        """Whether everything read since `mark` was final, in the same epoch: what was made of it may be kept."""
        return (self.unsettled, self.epoch) == mark

    def answer(self, guard: Hashable, memo: dict, key: Hashable, compute: Callable[..., frozenset], *args) -> frozenset:
        """The answer to `guard`, computed by `compute(*args)` (which may ask further questions) and
        kept in `memo[key]` once it no longer depends on a question still open."""
        depth = self.open.get(guard)
        if depth is not None:  # a cycle: its answer so far; its head works it out again until stable
            self.cycles += 1
            self.unsettled += 1
            self.frames[depth].cyclic = True
            self._depends(depth, False)
            return self.so_far.get(guard, EMPTY)
        held = self.provisional.get(guard)
        if held is not None:
            self.unsettled += 1
            self._depends(held[1], held[2])
            return held[0]
        if len(self.frames) >= MAX_DEPTH:
            self.truncated += 1
            self.unsettled += 1
            self._depends(0, True)
            return EMPTY
        if self.frames:
            return self._solve(guard, memo, key, compute, args)
        self._work = 0
        try:
            return self._solve(guard, memo, key, compute, args)
        except BudgetSpent:  # remembered as unresolved: asking again would spend the same again
            self.spent += 1
            memo[key] = EMPTY
            return EMPTY
        finally:
            self.open.clear()
            self.frames.clear()
            self.so_far.clear()
            self.provisional.clear()
            self._by_low.clear()

    def _solve(self, guard, memo, key, compute, args) -> frozenset:
        unsettled = self.unsettled
        depth = len(self.frames)
        frame = Frame(guard, depth, depth)
        self.frames.append(frame)
        self.open[guard] = depth
        try:
            for _ in range(MAX_ROUNDS):
                self._spend()
                frame.cyclic = False
                found = self.shared(compute(*args))
                if not frame.cyclic or self.so_far.get(guard, EMPTY) == found:
                    break
                self.so_far[guard] = found  # used by the next pass; what depended on it is asked again
                self._forget(depth)
            else:
                raise BudgetSpent(guard)
        finally:
            self.frames.pop()
            del self.open[guard]
            self.so_far.pop(guard, None)
        if frame.low < depth:  # inside a cycle headed further out: settled when that head is
            for member, held in self._release(depth):  # (and so are the answers that waited on this one)
                self._hold(member, (held[0], frame.low) + held[2:])
            self._hold(guard, (found, frame.low, frame.truncated, memo, key))
            self._depends(frame.low, frame.truncated)
            return found
        self._settle(depth)
        if frame.truncated:  # valid for the top-level question under way only
            self._hold(guard, (found, 0, True, memo, key))
            self._depends(0, True)
        else:
            memo[key] = found
            self.unsettled = unsettled  # (final: what it read that was not is settled with it)
        return found

    def _depends(self, low: int, truncated: bool) -> None:
        if self.frames:
            top = self.frames[-1]
            top.low = min(top.low, low)
            top.truncated = top.truncated or truncated

    def _spend(self) -> None:
        self.asked += 1
        self._work += 1
        if self._work > MAX_WORK:
            raise BudgetSpent()

    def _hold(self, guard: Hashable, held: tuple) -> None:
        self.unsettled += 1  # (an answer held is one not final: the question that made it hands it out)
        self.provisional[guard] = held
        self._by_low.setdefault(held[1], []).append(guard)

    def _release(self, depth: int) -> list[tuple]:
        """Take out the provisional answers made with a head at `depth` or deeper."""
        out = []
        if not self._by_low:  # (asked as each question settles: mostly none is held)
            return out
        for low in sorted(low for low in self._by_low if low >= depth):
            for guard in self._by_low.pop(low):
                held = self.provisional.get(guard)
                if held is not None and held[1] == low:  # (not one moved since to another low)
                    del self.provisional[guard]
                    out.append((guard, held))
        return out

    def _forget(self, depth: int) -> None:
        """Drop the answers that used a cycle head at `depth` or deeper: they are worked out again."""
        self._release(depth)

    def _settle(self, depth: int) -> None:
        """The head at `depth` is stable: the answers that waited on it are final."""
        for guard, (found, _, truncated, memo, key) in self._release(depth):
            if truncated:
                self._hold(guard, (found, 0, True, memo, key))
            else:
                memo[key] = found
