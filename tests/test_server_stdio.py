"""The stdio transport's guard: every line the MCP SDK cannot parse is answered with a JSON-RPC error
naming the problem (sent to the request's id), never dropped while the client waits. Driven over raw
pipes of a real `graphctx serve` subprocess, since a well-behaved client cannot send such lines."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path

import mcp_types as types
import pytest

from conftest import make_shop
from graphctx.server.stdio import refuse
from test_server import graphctx_command

INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": types.LATEST_PROTOCOL_VERSION, "capabilities": {},
                         "clientInfo": {"name": "raw", "version": "1"}}}


def nested(depth: int) -> str:
    return "[" * depth + '"x"' + "]" * depth


def deep_call(request_id: int | str, depth: int) -> str:
    return ('{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"search","arguments":{"query":%s}}}'
            % (json.dumps(request_id), nested(depth)))


class RawServer:
    """`graphctx serve` over stdio, spoken to line by line."""

    def __init__(self, root: Path):
        self.proc = subprocess.Popen([*graphctx_command(), "serve", "--repo", str(root)], cwd=root,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.replies: queue.Queue[dict] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.send(json.dumps(INITIALIZE))
        assert self.reply()["id"] == 0
        self.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.replies.put(json.loads(line))

    def send(self, line: str) -> None:
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def reply(self, timeout: float = 60) -> dict:
        return self.replies.get(timeout=timeout)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    raw = RawServer(make_shop(tmp_path_factory.mktemp("stdio") / "shop"))
    yield raw
    raw.close()


@pytest.mark.parametrize("line, request_id, code, words", [
    (deep_call(7, 250), 7, types.INVALID_REQUEST, "nested too deeply"),
    (deep_call("deep", 5_000_000), "deep", types.INVALID_REQUEST, "nested too deeply"),
    ('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{', 8, types.PARSE_ERROR, "not valid JSON"),
    ('{"id":9,"hello":"world"}', 9, types.INVALID_REQUEST, "not a JSON-RPC 2.0"),
    ("[" * 3_000_000, None, types.INVALID_REQUEST, "nested too deeply"),
    ("this is not json", None, types.PARSE_ERROR, "not valid JSON"),
])
def test_a_line_the_sdk_cannot_parse_is_answered_to_its_id(server, line, request_id, code, words):
    server.send(line)
    reply = server.reply()
    assert reply["id"] == request_id
    assert reply["error"]["code"] == code and words in reply["error"]["message"]
    server.send('{"jsonrpc":"2.0","id":"after","method":"ping"}')
    assert server.reply() == {"jsonrpc": "2.0", "id": "after", "result": {}}


def test_a_notification_the_server_cannot_read_gets_no_answer(server):
    server.send('{"jsonrpc":"2.0","method":"notifications/progress","params":%s}' % nested(400))
    server.send('{"jsonrpc":"2.0","id":"next","method":"ping"}')
    assert server.reply()["id"] == "next"


def test_nesting_the_sdk_reads_still_reaches_the_tool(server):
    server.send(deep_call(11, 20))
    reply = server.reply()
    assert reply["id"] == 11 and reply["result"]["isError"] is True
    assert "query" in reply["result"]["content"][0]["text"]


def test_refuse_lets_well_formed_messages_and_blank_lines_through():
    assert refuse(json.dumps(INITIALIZE)) is None
    assert refuse("\n") is None
    assert refuse(deep_call(1, 150)) is None
