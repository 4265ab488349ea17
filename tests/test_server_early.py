"""The first `tools/list` and read tool calls answered before the MCP SDK has loaded (server/early.py,
handshake.Wire): the packaged listing is the SDK server's, for every protocol version; over a real
`graphctx serve`, every early answer is byte for byte the one a server with the early path turned
off gives (GRAPHCTX_EARLY_ANSWERS=0: the SDK answers all), bad arguments included; the SDK then
takes the session over, answering the rest once and never a request answered already; and anything
unusual is left to the SDK. Refresh the listing after changing a tool's parameters or description:

    GRAPHCTX_WRITE_LISTING=1 python -m pytest tests/test_server_early.py -k listing
"""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import threading
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.message import SessionMessage

from conftest import make_shop
from graphctx import Project
from graphctx.server import early, handshake
from graphctx.server.app import build_server
from test_server import graphctx_command, stdio_params

VERSIONS = handshake.HANDSHAKE_VERSIONS


def initialize(version: str = types.LATEST_PROTOCOL_VERSION, request_id: int | str = 0) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call(request_id: int | str, name: str, arguments: dict | None = None) -> dict:
    params = {"name": name} if arguments is None else {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def listing(request_id: int | str) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/list"}


async def sdk_listings(server) -> dict[str, dict]:
    """What the SDK-built server lists, as it goes on the wire, by protocol version."""
    found = {}
    for version in VERSIONS:
        to_server, server_reads = anyio.create_memory_object_stream(10)
        server_writes, from_server = anyio.create_memory_object_stream(10)
        lowlevel = server._lowlevel_server
        async with anyio.create_task_group() as tg:
            tg.start_soon(lowlevel.run, server_reads, server_writes, lowlevel.create_initialization_options())
            for message in (initialize(version), INITIALIZED, listing(1)):
                await to_server.send(SessionMessage(types.jsonrpc_message_adapter.validate_python(message)))
            await from_server.receive()  # the initialize answer
            reply = await from_server.receive()
            tg.cancel_scope.cancel()
        found[version] = json.loads(reply.message.model_dump_json(by_alias=True, exclude_unset=True))["result"]
    return found


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> Path:
    root = make_shop(tmp_path_factory.mktemp("early") / "shop")
    Project(root).index()
    return root


def test_the_packaged_listing_is_the_sdk_servers(shop):
    server = build_server(shop, watch=False, start=False)
    sdk = anyio.run(sdk_listings, server)
    if os.environ.get("GRAPHCTX_WRITE_LISTING") == "1":  # the versions that list what the newest lists
        newest = sdk[handshake.LATEST_HANDSHAKE_VERSION]
        stored = {"versions": [version for version in VERSIONS if sdk[version] == newest], "result": newest}
        early.LISTING.write_text(json.dumps(stored, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    packaged = early.read_listing()
    refresh = "refresh it: GRAPHCTX_WRITE_LISTING=1 python -m pytest tests/test_server_early.py -k listing"
    assert list(packaged) == list(VERSIONS), refresh  # (a version left out is answered by the SDK alone)
    for version in packaged:
        # the order of keys too: the early answer sends them as they are in the file
        assert json.dumps(packaged[version]) == json.dumps(sdk[version]), f"{version}: {refresh}"


class Served:
    """`graphctx serve` over stdio: every line of a script sent at once, the answers read in order."""

    def __init__(self, root: Path, lines: list[dict | str], *, early_answers: bool = True):
        env = {**os.environ, handshake.EARLY_ANSWERS_ENV: "1" if early_answers else "0"}
        self.proc = subprocess.Popen([*graphctx_command(), "serve", "--repo", str(root)], cwd=root, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.replies: queue.Queue[bytes] = queue.Queue()
        self.stderr: queue.Queue[str] = queue.Queue()
        self.logged: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_reader.start()
        self.send(*lines)

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.replies.put(line)

    def _read_stderr(self) -> None:
        for line in self.proc.stderr:
            self.stderr.put(line.decode())

    def handed_over(self) -> list[str]:
        """Waits for the SDK to take the session over; returns the ids answered before it did."""
        while not early_ids("".join(self.logged)):
            self.logged.append(self.stderr.get(timeout=60))
        return early_ids("".join(self.logged))

    def send(self, *lines: dict | str) -> None:
        for line in lines:
            self.proc.stdin.write((line if isinstance(line, str) else json.dumps(line)).encode() + b"\n")
        self.proc.stdin.flush()

    def answers(self, count: int) -> dict[object, bytes]:
        """The next `count` answers, by id (as sent: the bytes)."""
        found = {}
        for _ in range(count):
            line = self.replies.get(timeout=60)
            found[json.loads(line)["id"]] = line
        return found

    def close(self) -> str:
        """Ends the session; returns the server's stderr. No answer may be left over."""
        self.proc.stdin.close()
        self.proc.wait(timeout=30)
        assert self.replies.empty(), self.replies.get()
        self._stderr_reader.join(timeout=30)
        while not self.stderr.empty():
            self.logged.append(self.stderr.get())
        return "".join(self.logged)


def early_ids(stderr: str) -> list[str]:
    line = next((line for line in stderr.splitlines() if "before the MCP SDK loaded (ids" in line), "")
    return line.rpartition("(ids ")[2].rstrip(")").split(", ") if line else []


BAD_CALLS = [
    call(20, "get_context", {"entity": "create_item", "bogus": 1}),  # an unknown parameter
    call(21, "get_context", {"entity": "create_item", "depth": "deep"}),  # a wrong type
    call(22, "get_context", {"depth": 99, "token_budget": 5}),  # out of bounds, twice
    call(23, "get_file_context", {}),  # a missing argument
    call(24, "get_file_context"),  # no arguments at all
    call(25, "get_context", {"entity": "create_item", "agent_id": "me\x07"}),  # a string its kind refuses
    call(26, "get_context", {"mode": "sideways"}),  # not one of the choices
    call(27, "search", {"query": "save", "limit": True, "kind": "nothing"}),
    call(28, "get_impact", {"files": "shop/models.py"}),
    call(29, "get_context", {"entity": "no_such_thing_anywhere"}),  # the tool's own error
]
GOOD_CALLS = [
    call(10, "get_context", {"entity": "create_item"}),
    call(11, "get_context", {"entity": "create_item", "format": "json", "depth": 1}),
    call(12, "get_context", {"mode": "path", "from_entity": "shop/cli.py::main", "to_entity": "Repo._write"}),
    call(13, "search", {"query": "save", "format": "json"}),
    call(14, "get_file_context", {"file": "shop/models.py"}),
    call(15, "get_impact", {"symbol": "Repo.save"}),
    call("sixteen", "session_init", {"token_budget": 800}),
]


def timeless(answer: bytes) -> bytes:
    """An answer less the index's age (session_init says how long ago it was built)."""
    return re.sub(rb"built \d+ \w+ ago", b"built a while ago", answer)


def script(version: str = types.LATEST_PROTOCOL_VERSION) -> list[dict]:
    return [initialize(version), INITIALIZED, listing(1), *GOOD_CALLS, *BAD_CALLS, listing(2)]


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"])
def test_early_answers_are_the_sdks_byte_for_byte(shop, version):
    lines = script(version)
    expected = sum("id" in line for line in lines)
    reference, served = Served(shop, lines, early_answers=False), Served(shop, lines)
    sdk, ours = reference.answers(expected), served.answers(expected)
    assert early_ids(reference.close()) == []
    answered_early = early_ids(served.close())
    assert "1" in answered_early and "10" in answered_early  # the first listing and the first call at least
    assert ours.keys() == sdk.keys()
    for request_id in sdk:
        assert timeless(ours[request_id]) == timeless(sdk[request_id]), request_id
    refused = json.loads(ours[20])["result"]
    assert refused["isError"] and "no argument 'bogus'" in refused["content"][0]["text"]


def test_the_sdk_takes_over_and_answers_the_rest_once(shop):
    served = Served(shop, [initialize(), INITIALIZED, listing(1), call(2, "get_context", {"entity": "create_item"})])
    first = served.answers(3)
    assert set(first) == {0, 1, 2}
    assert served.handed_over() == ["1", "2"]
    served.send(call(3, "get_context", {"entity": "Repo.save"}), listing(4), call(5, "get_context", {"bogus": 1}),
                {"jsonrpc": "2.0", "id": 6, "method": "resources/list"})
    # a request answered early is not answered again, whoever reads it now
    later = served.answers(4)
    assert set(later) == {3, 4, 5, 6}
    assert json.loads(later[4])["result"] == json.loads(first[1])["result"]
    assert "Repo.save" in json.loads(later[3])["result"]["content"][0]["text"]
    # and the SDK never ran it again: the session counts the bodies run, calls 2 and 3 (5 was refused)
    served.send({"jsonrpc": "2.0", "id": 7, "method": "resources/read", "params": {"uri": "graphctx://status"}})
    status = json.loads(json.loads(served.answers(1)[7])["result"]["contents"][0]["text"])
    assert [(session["label"], session["calls"]) for session in status["sessions"]] == [("raw/1", 2)]
    served.close()


@pytest.mark.parametrize("opening", [
    [listing(1), initialize(), INITIALIZED],  # a request before initialize
    [initialize(), INITIALIZED, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}],
    [initialize(), INITIALIZED, [listing(1)]],  # a batch
    [initialize(), INITIALIZED, {"jsonrpc": "2.0", "id": 1, "method": "no/such/method"}],
    [initialize(), INITIALIZED, initialize(request_id=1)],  # a second initialize
    [initialize(), INITIALIZED, {"jsonrpc": "2.0", "id": 1, "method": "ping"}],
    [initialize(), INITIALIZED, call(1, "recall", {"query": "x"})],  # a tool whose body needs the SDK
    [initialize(), INITIALIZED, {**listing(1), "params": {"cursor": "x"}}],
    [initialize(), INITIALIZED, call(1, "get_context", {"entity": "null"})],  # the SDK re-reads it as JSON
    [initialize(), INITIALIZED, call(1, "search", {"query": json.loads("[" * 100 + "]" * 100)})],  # deep nesting
])
def test_anything_unusual_is_left_to_the_sdk(shop, opening):
    lines = [*opening, call("after", "get_context", {"entity": "create_item"})]
    expected = sum(isinstance(line, list) or "id" in line for line in lines)
    reference, served = Served(shop, lines, early_answers=False), Served(shop, lines)
    sdk, ours = reference.answers(expected), served.answers(expected)
    reference.close()
    assert set(early_ids(served.close())) <= {"0"}  # nothing after the unusual message was answered early
    assert {key: timeless(value) for key, value in ours.items()} == \
        {key: timeless(value) for key, value in sdk.items()}


def test_a_real_client_gets_the_early_answers(shop):
    async def go():
        async with Client(stdio_params(shop), mode="legacy") as client:
            tools = await client.list_tools()
            first = await client.call_tool("get_context", {"entity": "create_item", "token_budget": 1500})
            second = await client.call_tool("search", {"query": "save"})
            bad = await client.call_tool("get_context", {"entity": "create_item", "depth": -1})
            return tools, first, second, bad

    tools, first, second, bad = anyio.run(go)
    assert "get_context" in {tool.name for tool in tools.tools}
    assert not first.is_error and first.content[0].text.startswith("# graphctx context: shop/service.py::create_item")
    assert not second.is_error and "Repo.save" in second.content[0].text
    assert bad.is_error and bad.content[0].text == "depth must be between 0 and 6; got -1"
