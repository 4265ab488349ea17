"""A time limit on one request, honoured where the work is. A server sets a Deadline for the call it
runs (`applied`); the long loops of ranking, packing and search call `check()`, which raises
DeadlineExceeded once the time is up or the server has stopped waiting, so the work itself stops
instead of running on unseen. Without a deadline (the CLI, the library) `check()` costs one
context-variable read and never raises."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from graphctx.errors import DeadlineExceeded


class Deadline:
    """`seconds` from now for the request `what`; `advice` says how to ask for less (a function when
    the advice depends on what is happening when the time is up)."""

    def __init__(self, seconds: float, what: str, advice: str | Callable[[], str]):
        self.seconds = seconds
        self.what = what
        self.advice = advice
        self.expires = time.monotonic() + seconds
        self._stopped = False

    def remaining(self) -> float:
        return self.expires - time.monotonic()

    def expired(self) -> bool:
        return self._stopped or time.monotonic() >= self.expires

    def stop(self) -> None:
        """The caller stopped waiting (the time is up, or the request was cancelled): the work ends at
        its next check."""
        self._stopped = True

    def error(self) -> DeadlineExceeded:
        advice = self.advice() if callable(self.advice) else self.advice
        return DeadlineExceeded(f"{self.what} took longer than {_duration(self.seconds)} and was stopped; {advice}")

    def check(self) -> None:
        if self.expired():
            raise self.error()


_current: ContextVar[Deadline | None] = ContextVar("graphctx_deadline", default=None)


@contextmanager
def applied(deadline: Deadline) -> Iterator[Deadline]:
    """Run the enclosed work (in this thread or context) under `deadline`."""
    token = _current.set(deadline)
    try:
        yield deadline
    finally:
        _current.reset(token)


def check() -> None:
    """Raise DeadlineExceeded when the current request's deadline has passed; nothing otherwise."""
    deadline = _current.get()
    if deadline is not None and deadline.expired():
        raise deadline.error()


def _duration(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:g} s"
    return f"{seconds * 1000:.3g} ms"
