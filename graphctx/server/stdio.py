"""The stdio transport with a guard in front of the MCP SDK's parser.

The SDK drops a line it cannot parse (invalid JSON, JSON nested deeper than its parser's limit of
about 190 levels, or JSON that is not a JSON-RPC message) without answering, so the client waits for
ever. The guard reads each line first: a line the SDK would drop is answered here with a JSON-RPC
error that names the problem, sent to the id the request carried (or to `null` when no id can be
read, as JSON-RPC asks); every other line goes on to the SDK unchanged. The lines come from the
wire `graphctx serve` claimed before loading the SDK (handshake.py), which may have answered the
opening requests already: the SDK reads them too, but does not run or answer them again."""

from __future__ import annotations

import json
import logging
import re
import sys
from io import TextIOWrapper
from typing import Any

import anyio
import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from graphctx.server.handshake import Handover, Wire

log = logging.getLogger("graphctx.server")

# The id of a request the guard cannot parse, read from the members before it. Bounded at every step,
# so a many-megabyte line costs no more than its first few hundred characters.
_SIMPLE_VALUE = r'(?:"(?:[^"\\]|\\.){0,256}"|-?\d{1,20}(?:\.\d{1,20})?|true|false|null)'
_LEADING_ID = re.compile(
    r'\A\s*\{(?:\s*"(?:[^"\\]|\\.){0,64}"\s*:\s*' + _SIMPLE_VALUE + r'\s*,){0,8}'
    r'\s*"id"\s*:\s*(-?\d{1,20}|"(?:[^"\\]|\\.){0,256}")')


async def run_stdio(server: MCPServer, wire: Wire | None = None) -> None:
    """Serve `server` over the process's stdin and stdout until stdin closes. `wire` is the stdin
    `graphctx serve` claimed before loading the SDK (it may have answered `initialize` already)."""
    if wire is None and Wire.claimable():
        with Wire.claimed() as claimed:
            return await run_stdio(server, claimed)
    if wire is not None:
        wire.handover()
        source: Any = wire
    else:  # not a real descriptor (embedded use): read it where it is
        source = anyio.wrap_file(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    lines = GuardedLines(source)
    async with stdio_server(stdin=lines) as (read_stream, write_stream):  # the SDK claims stdout
        lines.answers = write_stream
        # What MCPServer.run_stdio_async does, with the guarded stdin in place of the raw one, and
        # the requests the wire answered already neither run again nor answered twice.
        lowlevel = server._lowlevel_server
        handover = Handover(write_stream, wire.answered if wire else None, wire.taken if wire else None)
        if handover.taken:
            lowlevel.middleware.append(handover.skip_taken)
        await lowlevel.run(read_stream, handover, lowlevel.create_initialization_options())


class GuardedLines:
    """The lines of stdin, less those the SDK would drop; those are answered on `answers`."""

    def __init__(self, source: Any):
        self.source = source
        self.answers: Any = None  # the transport's write stream, set once the transport runs

    def __aiter__(self) -> GuardedLines:
        return self

    async def __anext__(self) -> str:
        async for line in self.source:
            refusal = refuse(line)
            if refusal is None:
                return line
            log.warning("refused a message: %s", refusal.error.message)
            await self.answers.send(SessionMessage(refusal))
        raise StopAsyncIteration


def refuse(line: str) -> types.JSONRPCError | None:
    """The error answering `line` when the SDK cannot parse it, or None when it can (blank lines, which
    the SDK skips as well, are let through)."""
    if not line.strip():
        return None
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        return None
    except ValidationError as error:
        problem = error.errors()[0]
    if "recursion limit" in problem.get("msg", ""):
        code, message = types.INVALID_REQUEST, (
            "the message is nested too deeply for the server to read (more than about 190 levels of "
            "lists and objects); send arguments with less nesting")
    elif problem.get("type") == "json_invalid":
        code, message = types.PARSE_ERROR, (
            f"the message is not valid JSON ({problem.get('msg', 'invalid JSON')}); send one JSON-RPC "
            "message per line")
    else:
        code, message = types.INVALID_REQUEST, (
            'the message is not a JSON-RPC 2.0 request, notification or response; it needs "jsonrpc": '
            '"2.0" and a "method" (with an "id" for a request)')
    request_id, is_notification = _request_id(line)
    if is_notification:
        log.warning("ignored a notification the server cannot read: %s", message)
        return None
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


def _request_id(line: str) -> tuple[int | str | None, bool]:
    """The id a line carries (None when there is none to read) and whether it is a notification (a
    method and no id: JSON-RPC answers those with nothing, even on error)."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        found = _LEADING_ID.match(line)
        return (json.loads(found.group(1)) if found else None), False
    if not isinstance(message, dict):
        return None, False
    request_id = message.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        return None, "id" not in message and isinstance(message.get("method"), str)
    return request_id, False
