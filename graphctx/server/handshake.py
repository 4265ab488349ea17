"""The stdio wire from a server's first moment, before the MCP SDK has loaded (it is the slowest
import of all): stdin is read on a thread into a queue, and an `initialize` request that opens the
session is answered at once with exactly what the SDK answers (tests compare the two field by
field), so a host sees the server ready while the SDK, the tools and the graph load. The SDK then
reads every line from the first, that `initialize` included, so it holds the session state it would
hold anyway; its own answer to that request is dropped (`Handover`), once compared with the one sent.
This module imports nothing of the SDK."""

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

log = logging.getLogger("graphctx.server")

# What graphctx's server says of itself in its `initialize` answer. The versions are the SDK's
# (mcp_types.version) and the capabilities what it derives from the tools, resources and prompts
# graphctx registers; they are copied here because reading them would load the SDK, and
# tests/test_server_handshake.py checks them against it.
NAME, TITLE = "graphctx", "graphctx code context"
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_HANDSHAKE_VERSION = HANDSHAKE_VERSIONS[-1]
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


class Wire:
    """The server's stdin, claimed at once (fd 0 then reads the null device, so no child process or
    library reads protocol bytes) and read line by line on a thread. `offer(instructions)` lets an
    opening `initialize` be answered here; `handover()` ends that before the SDK takes stdout over.
    Iterating it (async) gives the lines, the answered `initialize` included, for the SDK's transport."""

    def __init__(self) -> None:
        self._fd = sys.stdin.fileno()
        self._out = sys.stdout.fileno()
        self._wire = os.dup(self._fd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, self._fd)
        os.close(null)
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._lock = threading.Lock()
        self._opening: dict | None = None  # an answerable `initialize`, first on the wire, not answered yet
        self._instructions: str | None = None
        self._closed = False  # offered nothing, or handed over: the SDK answers from now on
        self.answered: dict | None = None  # the `initialize` answer sent, for the SDK's to be dropped
        self.version = server_version()
        threading.Thread(target=self._read, name="graphctx-stdin", daemon=True).start()

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
        first = True
        try:
            for line in source:
                if first and line.strip():
                    first = False
                    self._consider(line)
                self._lines.put(line)
        except (OSError, ValueError):
            pass  # the wire broke: the end of input, as for EOF
        finally:
            self._lines.put(None)

    def _consider(self, line: str) -> None:
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            return
        if answerable(message):
            with self._lock:
                self._opening = message
                self._answer()

    def offer(self, instructions: str | None) -> None:
        """The server's instructions are known (its index is usable): an opening `initialize` can be
        answered here. None: it cannot (the index is being built); the SDK answers it."""
        with self._lock:
            self._instructions = instructions
            self._closed = self._closed or instructions is None
            self._answer()

    def handover(self) -> None:
        """From now on the SDK answers everything (it is about to write on stdout)."""
        with self._lock:
            self._closed = True

    def _answer(self) -> None:  # (under the lock)
        if self._opening is None or self._instructions is None or self._closed:
            return
        request, self._opening = self._opening, None
        response = {"jsonrpc": "2.0", "id": request["id"],
                    "result": initialize_result(request["params"], self._instructions, self.version)}
        data = (json.dumps(response, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        while data:
            data = data[os.write(self._out, data):]
        self.answered = response
        log.debug("answered initialize before the MCP SDK loaded")

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
    """The transport's write stream, less the SDK's answer to the `initialize` the wire answered
    already; that answer is compared with the one sent, and a difference is logged (the tests
    keep there being none)."""

    def __init__(self, stream: Any, answered: dict | None):
        self.stream = stream
        self.answered = answered

    async def send(self, message: Any) -> None:
        sent = self.answered
        if sent is not None and getattr(message.message, "id", None) == sent["id"]:
            self.answered = None
            own = json.loads(message.message.model_dump_json(by_alias=True, exclude_unset=True))
            if own != sent:
                ours, theirs = sent.get("result", {}), own.get("result") or own.get("error") or {}
                log.warning("the initialize answer sent before the MCP SDK loaded differs from the SDK's in %s",
                            ", ".join(sorted(k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k))))
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
