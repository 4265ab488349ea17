"""What a probe found: every attempt ends as ok, failed (a wrong answer or a broken promise), lost
(something that should exist does not: a record, an answer, the last good index) or crashed (a
process died or printed a traceback), with the first problems kept word for word. Also the rules
an error message must follow to count as a clear one."""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass, field

OUTCOMES = ("ok", "failed", "lost", "crashed")
MAX_PROBLEMS = 25  # examples kept per probe: enough to see the pattern, short enough to read
MAX_PROBLEM_CHARS = 400
MAX_ERROR_CHARS = 2000  # an error longer than this is a dump, not a sentence

TRACEBACK = "Traceback (most recent call last)"
# What leaks from inside: our own "internal error" results, a traceback, a pydantic dump or its URL.
_INTERNAL = re.compile(r"internal error|Traceback \(most recent call last\)|errors\.pydantic\.dev|pydantic_core"
                       r"|\d+ validation errors? for \w+|For further information visit", re.IGNORECASE)


@dataclass
class Tally:
    probe: str
    outcomes: Counter = field(default_factory=Counter)
    notes: Counter = field(default_factory=Counter)  # named counts that are not outcomes ("error results", ...)
    problems: list[str] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # checks this machine cannot make, with the reason

    def add(self, outcome: str, problem: str | None = None) -> None:
        """Count one attempt; a problem is kept (shortened) when the outcome is not ok."""
        if outcome not in OUTCOMES:
            raise ValueError(f"unknown outcome {outcome!r}; use one of {OUTCOMES}")
        self.outcomes[outcome] += 1
        if outcome != "ok" and problem and len(self.problems) < MAX_PROBLEMS:
            self.problems.append(shorten(problem))

    def merge(self, other: Tally) -> None:
        self.outcomes.update(other.outcomes)
        self.notes.update(other.notes)
        self.problems.extend(other.problems[: max(0, MAX_PROBLEMS - len(self.problems))])
        self.latencies_ms.extend(other.latencies_ms)
        self.skipped.extend(s for s in other.skipped if s not in self.skipped)

    @property
    def tried(self) -> int:
        return sum(self.outcomes.values())

    @property
    def bad(self) -> int:
        return self.outcomes["failed"] + self.outcomes["lost"] + self.outcomes["crashed"]

    @property
    def passed(self) -> bool:
        return self.tried > 0 and self.bad == 0

    def line(self) -> str:
        counts = f"tried {self.tried:>5}  " + "  ".join(f"{name} {self.outcomes[name]:>5}"
                                                      for name in ("failed", "lost", "crashed"))
        extra = ", ".join(f"{name} {value}" for name, value in sorted(self.notes.items()))
        if self.latencies_ms:
            extra = ", ".join(filter(None, [extra, latency_summary(self.latencies_ms)]))
        return f"{self.probe:<26} {counts}" + (f"   ({extra})" if extra else "")

    def report(self) -> str:
        """The counts line, then the problems and the skipped checks, one per line."""
        lines = [self.line()]
        lines += [f"    - {p}" for p in self.problems]
        if self.bad > len(self.problems):
            lines.append(f"    ... and {self.bad - len(self.problems)} more")
        lines += [f"    skipped: {s}" for s in self.skipped]
        return "\n".join(lines)


def latency_summary(latencies_ms: list[float]) -> str:
    ordered = sorted(latencies_ms)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return f"p50 {statistics.median(ordered):.0f} ms, p95 {p95:.0f} ms"


def shorten(text: str, limit: int = MAX_PROBLEM_CHARS) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def unclear_error(text: str) -> str | None:
    """Why an error message is not a clear sentence (None when it is): it must start with a letter,
    carry no traceback, no internal error and no pydantic dump, and stay under MAX_ERROR_CHARS."""
    if not text or not text.strip():
        return "empty error message"
    if _INTERNAL.search(text):
        return "internal error, traceback or pydantic dump"
    if len(text) > MAX_ERROR_CHARS:
        return f"error of {len(text):,} characters (over {MAX_ERROR_CHARS:,})"
    if not text.lstrip()[0].isalpha():
        return f"error does not start with a letter: {text[:40]!r}"
    return None


def is_internal(text: str) -> bool:
    return bool(_INTERNAL.search(text or ""))
