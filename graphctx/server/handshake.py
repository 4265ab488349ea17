"""The stdio wire from a server's first moment, before the MCP SDK has loaded (it is the slowest
import of all): stdin is read on a thread into a queue, and an `initialize` request that opens the
session is answered at once with exactly what the SDK answers (tests compare the two field by
field), so a host sees the server ready while the SDK, the tools and the graph load; the first
`tools/list` and read tool calls after it are answered too (early.py). The SDK then reads every line
from the first, those answered included, so it holds the session state it would hold anyway; it
runs none of the requests answered already, and its answers to them are dropped (`Handover`), that
to `initialize` once compared with the one sent. This module imports nothing of the SDK."""

from __future__ import annotations

import json
import logging
import os
import queue
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from io import TextIOWrapper
from typing import Any

import pydantic_core

from graphctx.server.agents import Caller

log = logging.getLogger("graphctx.server")

# What graphctx's server says of itself in its `initialize` answer. The versions are the SDK's
# (mcp_types.version) and the capabilities what it derives from the tools, resources and prompts
# graphctx registers; they are copied here because reading them would load the SDK, and
# tests/test_server_handshake.py checks them against it.
NAME, TITLE = "graphctx", "graphctx code context"
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_HANDSHAKE_VERSION = HANDSHAKE_VERSIONS[-1]
EARLY_ANSWERS_ENV = "GRAPHCTX_EARLY_ANSWERS"  # "0": the SDK answers every request (the tests' reference)
EARLY_METHODS = ("tools/list", "tools/call")
MAX_EARLY_NESTING = 64  # levels of lists and objects answered early: far below what the SDK's parser refuses
CAPABILITIES = {"prompts": {"listChanged": False}, "resources": {"listChanged": False, "subscribe": False},
                "tools": {"listChanged": False}}


def server_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("graphctx")
    except PackageNotFoundError:
        return "0"


def initialize_result(params: dict[str, Any], instructions: str, version: str) -> dict[str, Any]:
    """The result the SDK gives an `initialize` request with these params: the client's protocol
    version when the SDK speaks it by handshake, else the newest one it does."""
    requested = params["protocolVersion"]
    return {
        "capabilities": json.loads(json.dumps(CAPABILITIES)),
        "instructions": instructions,
        "protocolVersion": requested if requested in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE_VERSION,
        "serverInfo": {"name": NAME, "title": TITLE, "version": version},
    }


def answerable(message: Any) -> bool:
    """Whether `message` is an `initialize` request whose answer is sure: the shape the SDK accepts
    with nothing it would refuse (a version string, capabilities of objects, a client's name and
    version). Anything else waits for the SDK, which answers it as it always does."""
    if not (isinstance(message, dict) and message.get("jsonrpc") == "2.0" and message.get("method") == "initialize"):
        return False
    request_id, params = message.get("id"), message.get("params")
    if isinstance(request_id, bool) or not isinstance(request_id, int | str) or not isinstance(params, dict):
        return False
    capabilities, client = params.get("capabilities"), params.get("clientInfo")
    return (set(params) <= {"protocolVersion", "capabilities", "clientInfo"}
            and isinstance(params.get("protocolVersion"), str)
            and isinstance(capabilities, dict) and all(isinstance(v, dict) for v in capabilities.values())
            and isinstance(client, dict) and set(client) <= {"name", "version", "title"}
            and all(isinstance(client.get(k), str) for k in ("name", "version"))
            and isinstance(client.get("title", ""), str))


def deeper(value: Any, levels: int) -> bool:
    """Whether `value` nests lists and objects more than `levels` deep."""
    frontier = [value]
    for _ in range(levels + 1):
        frontier = [child for item in frontier if isinstance(item, dict | list)
                    for child in (item.values() if isinstance(item, dict) else item)]
        if not frontier:
            return False
    return True


class Wire:
    """The server's stdin, claimed at once (fd 0 then reads the null device, so no child process or
    library reads protocol bytes) and read line by line on a thread. Until `handover()`, the requests
    that open a session are answered here, in order, on a thread of their own: an `initialize` once
    `offer(instructions)` says what it answers, then `tools/list` and calls of the read tools once
    `serve(tools)` gives an early.EarlyTools; the first message it cannot answer ends that, and the
    SDK answers it and all that follows. Iterating the wire (async) gives every line, those answered
    included, for the SDK's transport; `taken` names the requests answered here, for the SDK to skip."""

    def __init__(self) -> None:
        self._fd = sys.stdin.fileno()
        self._out = sys.stdout.fileno()
        self._wire = os.dup(self._fd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, self._fd)
        os.close(null)
        self._lines: queue.Queue[str | None] = queue.Queue()  # every line, for the SDK
        self._early: queue.Queue[str | None] = queue.Queue()  # the lines read before the handover
        self._state = threading.Condition()
        self._instructions: str | None = None
        self._offered = False
        self._tools: Any = None  # an early.EarlyTools once served
        self._closed = os.environ.get(EARLY_ANSWERS_ENV) == "0"  # from now on the SDK answers
        self._busy = False  # a request is being answered here (the handover waits for it)
        self._handed_over = False
        self._session: dict | None = None  # the params of the `initialize` answered here
        self.answered: dict | None = None  # the `initialize` answer sent, for the SDK's to be dropped
        self.taken: dict[int | str, str] = {}  # id -> method of the other requests answered here
        self.version = server_version()
        threading.Thread(target=self._read, name="graphctx-stdin", daemon=True).start()
        threading.Thread(target=self._answer_early, name="graphctx-early", daemon=True).start()

    @classmethod
    @contextmanager
    def claimed(cls, wanted: bool = True) -> Iterator[Wire | None]:
        """A wire claimed for the block, fd 0 pointed back at it afterwards; None when not `wanted`
        or when stdin is no real descriptor."""
        wire = cls() if wanted and cls.claimable() else None
        try:
            yield wire
        finally:
            if wire is not None:
                wire.close()

    @staticmethod
    def claimable() -> bool:
        """Whether stdin and stdout are real descriptors (not so when embedded, as in some tests)."""
        try:
            sys.stdin.fileno(), sys.stdout.fileno()
        except (AttributeError, OSError, ValueError):
            return False
        return True

    def _read(self) -> None:
        # The descriptor stays open: this thread may still be blocked on it when the transport ends.
        source = TextIOWrapper(os.fdopen(self._wire, "rb", closefd=False), encoding="utf-8", errors="replace")
        try:
            for line in source:
                self._lines.put(line)
                with self._state:
                    if not self._closed:
                        self._early.put(line)
        except (OSError, ValueError):
            pass  # the wire broke: the end of input, as for EOF
        finally:
            self._lines.put(None)
            self._early.put(None)

    def _answer_early(self) -> None:
        opening = True
        while (line := self._early.get()) is not None:
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except (ValueError, RecursionError):
                message = None
            if not (self._open_session(message) if opening else self._answer(message)):
                break
            opening = False
        with self._state:
            self._closed = True  # the SDK answers the rest
            self._state.notify_all()

    def _open_session(self, message: Any) -> bool:
        if not answerable(message):
            return False
        with self._state:
            self._state.wait_for(lambda: self._offered or self._closed)
            if self._closed or self._instructions is None:
                return False
            response = {"jsonrpc": "2.0", "id": message["id"],
                        "result": initialize_result(message["params"], self._instructions, self.version)}
            self._send(response)
            self.answered, self._session = response, message["params"]
        log.debug("answered initialize before the MCP SDK loaded")
        return True

    def _answer(self, message: Any) -> bool:
        """Answer a request after the opening `initialize` (the `initialized` notification needs no
        answer); False when it is the SDK's to answer."""
        if message == {"jsonrpc": "2.0", "method": "notifications/initialized"}:
            return True
        if not (isinstance(message, dict) and message.get("jsonrpc") == "2.0"
                and message.get("method") in EARLY_METHODS and set(message) <= {"jsonrpc", "id", "method", "params"}):
            return False
        if deeper(message, MAX_EARLY_NESTING):  # the SDK's parser may refuse it: the transport's guard answers that
            return False
        request_id, method = message.get("id"), message["method"]
        if isinstance(request_id, bool) or not isinstance(request_id, int | str) or request_id in self.taken \
                or request_id == self.answered["id"]:
            return False
        with self._state:
            self._state.wait_for(lambda: self._tools is not None or self._closed)
            if self._closed:
                return False
            self._busy, tools, session = True, self._tools, self._session
        try:
            client = session["clientInfo"]
            caller = Caller(client["name"], client["version"])
            result = tools.answer(method, message.get("params"), caller, self.answered["result"]["protocolVersion"])
        except Exception:  # not answered: the SDK answers it, as it would have
            log.exception("graphctx: could not answer %s before the MCP SDK loaded", method)
            result = None
        try:
            if result is not None:
                self._send({"jsonrpc": "2.0", "id": request_id, "result": result})
                log.debug("answered %s before the MCP SDK loaded", method)
            return result is not None
        finally:
            with self._state:
                if result is not None:
                    self.taken[request_id] = method
                self._busy = False
                self._state.notify_all()

    def _send(self, response: dict) -> None:
        # As the SDK writes it: pydantic's JSON, compact, UTF-8 as is.
        data = pydantic_core.to_json(response) + b"\n"
        while data:
            data = data[os.write(self._out, data):]

    def offer(self, instructions: str | None) -> None:
        """The server's instructions are known (its index is usable): an opening `initialize` can be
        answered here. None: it cannot (the index is being built); the SDK answers it."""
        with self._state:
            self._instructions, self._offered = instructions, True
            self._closed = self._closed or instructions is None
            self._state.notify_all()

    def serve(self, tools: Any) -> None:
        """`tools` (an early.EarlyTools) answers tools/list and the read tools' calls until the handover."""
        with self._state:
            self._tools = tools
            self._state.notify_all()

    def settled(self, idle: float) -> None:
        """Wait until the SDK's import would delay no early answer: a tool call has been answered here,
        or nothing more will be, or `idle` seconds passed with no request being answered."""
        with self._state:
            self._state.wait_for(lambda: self._closed or "tools/call" in self.taken.values(), timeout=idle)
            self._state.wait_for(lambda: not self._busy)

    def handover(self) -> None:
        """From now on the SDK answers everything (it is about to write on stdout); a request being
        answered here is answered first."""
        with self._state:
            first, self._closed, self._handed_over = not self._handed_over, True, True
            self._state.notify_all()
            self._state.wait_for(lambda: not self._busy)
        if first and self.taken:
            log.info("answered %d requests before the MCP SDK loaded (ids %s)", len(self.taken),
                     ", ".join(map(str, self.taken)))

    def close(self) -> None:
        """Point fd 0 back at the wire."""
        self.handover()
        os.dup2(self._wire, self._fd)

    def __aiter__(self) -> Wire:
        return self

    async def __anext__(self) -> str:
        import anyio

        line = await anyio.to_thread.run_sync(self._lines.get, abandon_on_cancel=True)
        if line is None:
            self._lines.put(None)  # (a second reader ends too)
            raise StopAsyncIteration
        return line


class Handover:
    """The transport's write stream, less the SDK's answers to the requests the wire answered
    already (its `taken` ones and the opening `initialize`, whose answers the SDK's middleware below
    keeps from running again). The SDK's answer to that `initialize` is compared with the one sent,
    and a difference is logged (the tests keep there being none)."""

    def __init__(self, stream: Any, answered: dict | None, taken: dict[int | str, str] | None = None):
        self.stream = stream
        self.answered = answered
        self.taken = dict(taken or {})

    async def skip_taken(self, ctx: Any, call_next: Any) -> Any:
        """An SDK middleware: a request answered on the wire is not run again (its answer is dropped)."""
        if ctx.method != "initialize" and ctx.request_id in self.taken:
            return {}
        return await call_next(ctx)

    async def send(self, message: Any) -> None:
        sent, reply = self.answered, message.message
        request_id = getattr(reply, "id", None) if getattr(reply, "method", None) is None else None
        if sent is not None and request_id == sent["id"]:
            self.answered = None
            own = json.loads(reply.model_dump_json(by_alias=True, exclude_unset=True))
            if own != sent:
                ours, theirs = sent.get("result", {}), own.get("result") or own.get("error") or {}
                log.warning("the initialize answer sent before the MCP SDK loaded differs from the SDK's in %s",
                            ", ".join(sorted(k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k))))
            return
        if request_id is not None and self.taken.pop(request_id, None) is not None:
            return
        await self.stream.send(message)

    async def aclose(self) -> None:
        await self.stream.aclose()

    async def __aenter__(self) -> Handover:
        await self.stream.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> bool | None:
        return await self.stream.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)
