"""Runs the server's work off its event loop: every tool call, resource read and prompt on a thread
of a bounded pool, under a deadline. Python threads cannot be killed, so the deadline is kept in
two ways: the work checks it in its long loops (graphctx.deadline) and stops itself, and the server
answers at the deadline whatever the thread is doing. A thread still busy then keeps its place in
the pool until it reaches its next check, so stray work never holds more than the pool's threads,
and later calls wait for a free one within their own deadline. A write that has started is never
abandoned: the server waits for it, so no answer says "stopped" about a write that happened."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import anyio

from graphctx import deadline
from graphctx.deadline import Deadline
from graphctx.errors import DeadlineExceeded

T = TypeVar("T")
Advice = str | Callable[[], str]  # how to ask for less, said when a call is stopped

DEFAULT_DEADLINE = 30.0  # seconds a call may take (serve --deadline)
POOL_SIZE = 8  # calls worked on at once; the rest wait their turn


class Workers:
    def __init__(self, seconds: float = DEFAULT_DEADLINE, size: int = POOL_SIZE):
        self.seconds = seconds
        self.size = size
        self._pool = ThreadPoolExecutor(max_workers=size, thread_name_prefix="graphctx-call")
        self._lock = threading.Lock()
        self._limits: set[Deadline] = set()  # of the calls submitted and not finished
        self.busy = 0  # threads working on a call now, abandoned ones included

    def wrap(self, fn: Callable[..., T], what: str, advice: Advice, refuse: Callable[[DeadlineExceeded], Any], *,
             writes: bool = False) -> Callable[..., Awaitable[T]]:
        """An async function with `fn`'s name, signature and annotations (the SDK builds the schema from
        them) that runs `fn` through `run`; a call stopped at its deadline answers `refuse(error)`."""

        @functools.wraps(fn)
        async def call(*args: Any, **kwargs: Any) -> T:
            try:
                return await self.run(what, advice, functools.partial(fn, *args, **kwargs), writes=writes)
            except DeadlineExceeded as exc:
                return refuse(exc)

        return call

    async def run(self, what: str, advice: Advice, work: Callable[[], T], *, writes: bool = False) -> T:
        """`work()` on a pool thread, with a Deadline `what` took too long and `advice` on asking for less.
        Raises DeadlineExceeded at the deadline (reads), or when a write had not started by then."""
        limit = Deadline(self.seconds, what, advice)
        started = threading.Event()
        with self._lock:
            self._limits.add(limit)

        def job() -> T:
            started.set()
            with self._lock:
                self.busy += 1
            try:
                with deadline.applied(limit):
                    limit.check()  # it waited its whole time for a thread: do not start it now
                    return work()
            finally:
                with self._lock:
                    self.busy -= 1
                    self._limits.discard(limit)

        # The SDK's transports run on asyncio, so the pool's future is awaited as an asyncio one.
        future = self._pool.submit(contextvars.copy_context().run, job)
        waiting = asyncio.wrap_future(future)
        try:
            with anyio.move_on_after(max(limit.remaining(), 0.0)):
                return await (asyncio.shield(waiting) if writes else waiting)
            limit.stop()  # the work ends at its next check
            future.cancel()  # and never starts if it is still waiting for a thread
            if writes and started.is_set():
                return await waiting  # a write under way is seen through, never cut off unseen
        finally:
            if not future.done():  # the caller went away (a cancelled request)
                limit.stop()
                future.cancel()
            if future.cancelled():  # never started, so no thread will drop it
                with self._lock:
                    self._limits.discard(limit)
        busy = self.busy
        if not started.is_set() and busy >= self.size:
            calls = "1 earlier call is" if busy == 1 else f"{busy} earlier calls are"
            raise DeadlineExceeded(f"{what} waited {self.seconds:g} s for a free worker and was not started: "
                                   f"{calls} still finishing; retry in a moment")
        raise limit.error()

    def shutdown(self) -> None:
        """Stop every call in progress (each ends at its next deadline check) and drop those waiting."""
        with self._lock:
            for limit in self._limits:
                limit.stop()
        self._pool.shutdown(wait=False, cancel_futures=True)
