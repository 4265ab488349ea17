"""The `initialize` answer a stdio server sends before the MCP SDK has loaded (server/handshake.py):
field by field the answer the SDK itself gives the same request, for every protocol version a
client may offer; sent without the SDK loaded; sent once (the SDK's own answer to the replayed
request is dropped), after which the session works as any other; and an `initialize` the early
answer cannot vouch for is left to the SDK, which answers it as it always has."""

from __future__ import annotations

import json
import subprocess
import sys

import anyio
import mcp_types as types
import pytest
from mcp.shared.message import SessionMessage
from mcp_types import version as sdk_versions

from conftest import make_shop
from graphctx import Project
from graphctx.server import handshake
from graphctx.server.app import build_server
from graphctx.server.instructions import build_instructions
from test_server import graphctx_command
from test_server_stdio import RawServer


def initialize(request_id: int | str = 0, version: str = types.LATEST_PROTOCOL_VERSION, **params) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"},
                       **params}}


async def sdk_answer(server, request: dict) -> dict:
    """What the SDK's own stdio loop answers `request`, as it goes on the wire."""
    to_server, server_reads = anyio.create_memory_object_stream(10)
    server_writes, from_server = anyio.create_memory_object_stream(10)
    lowlevel = server._lowlevel_server
    async with anyio.create_task_group() as tg:
        tg.start_soon(lowlevel.run, server_reads, server_writes, lowlevel.create_initialization_options())
        await to_server.send(SessionMessage(types.jsonrpc_message_adapter.validate_python(request)))
        reply = await from_server.receive()
        tg.cancel_scope.cancel()
    return json.loads(reply.message.model_dump_json(by_alias=True, exclude_unset=True))


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = make_shop(tmp_path_factory.mktemp("handshake") / "shop")
    project = Project(root)
    server = build_server(root, watch=False, start=False, project=project)
    yield root, server, build_instructions(project.facts())
    project.close()


def test_the_copied_protocol_versions_are_the_sdks():
    assert handshake.HANDSHAKE_VERSIONS == sdk_versions.HANDSHAKE_PROTOCOL_VERSIONS
    assert handshake.LATEST_HANDSHAKE_VERSION == sdk_versions.LATEST_HANDSHAKE_VERSION


@pytest.mark.parametrize("request_", [
    initialize(),
    initialize(7, "2024-11-05"),
    initialize("a", "2025-06-18", capabilities={"roots": {"listChanged": True}, "sampling": {}}),
    initialize(8, "2099-01-01"),  # a version the SDK does not speak: it counter-offers its newest
    initialize(9, types.LATEST_PROTOCOL_VERSION, clientInfo={"name": "host", "version": "2", "title": "A host"}),
])
def test_the_early_answer_is_the_sdks_field_by_field(served, request_):
    _, server, instructions = served
    assert handshake.answerable(request_)
    sdk = anyio.run(sdk_answer, server, request_)
    early = {"jsonrpc": "2.0", "id": request_["id"],
             "result": handshake.initialize_result(request_["params"], instructions, handshake.server_version())}
    assert early.keys() == sdk.keys() and early["id"] == sdk["id"]
    assert early["result"].keys() == sdk["result"].keys()
    for field in sdk["result"]:
        assert early["result"][field] == sdk["result"][field], field
    assert server.instructions == instructions


@pytest.mark.parametrize("message", [
    initialize(clientInfo={"name": "raw"}),  # no version: the SDK refuses it
    initialize(capabilities={"roots": True}),
    initialize(protocolVersion=20250618),
    {**initialize(), "id": True},
    {**initialize(), "jsonrpc": "1.0"},
    {"jsonrpc": "2.0", "id": 1, "method": "ping"},
    {"jsonrpc": "2.0", "method": "initialize", "params": initialize()["params"]},  # a notification
])
def test_what_the_early_answer_cannot_vouch_for_is_left_to_the_sdk(message):
    assert not handshake.answerable(message)


def test_the_early_answer_is_sent_before_the_sdk_is_loaded(tmp_path):
    script = ("import sys, anyio\n"
              "from graphctx.server.handshake import Wire\n"
              "wire = Wire()\n"
              "wire.offer('the instructions')\n"
              "line = anyio.run(wire.__anext__)\n"  # the initialize, still there for the SDK to read
              "print(repr(line.strip()[:30]), wire.answered is not None, 'mcp' in sys.modules, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", script], input=json.dumps(initialize(3)) + "\n",
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["id"] == 3 and answer["result"]["instructions"] == "the instructions"
    assert answer["result"]["serverInfo"]["name"] == "graphctx"
    assert done.stderr.split()[-2:] == ["True", "False"]  # answered, and the SDK never imported


def test_a_server_answers_initialize_once_then_serves_the_session(served):
    root, server, instructions = served
    raw = RawServer(root)  # sends initialize (id 0) and reads its one answer
    try:
        raw.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        listed = raw.reply()
        assert listed["id"] == 1, listed  # the SDK's second answer to id 0 never came
        assert "get_context" in {tool["name"] for tool in listed["result"]["tools"]}
        raw.send(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                             "params": {"name": "get_context", "arguments": {"entity": "create_item"}}}))
        called = raw.reply()
        assert called["id"] == 2 and not called["result"].get("isError")
        assert "create_item" in called["result"]["content"][0]["text"]
        assert raw.replies.empty()
    finally:
        raw.close()


def test_an_initialize_the_sdk_refuses_is_refused_by_the_sdk(served):
    root, _, _ = served
    proc = subprocess.Popen([*graphctx_command(), "serve", "--repo", str(root)], cwd=root, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        proc.stdin.write((json.dumps(initialize(5, clientInfo={"name": "raw"})) + "\n").encode())
        proc.stdin.flush()
        reply = json.loads(proc.stdout.readline())
        assert reply["id"] == 5 and reply["error"]["code"] == types.INVALID_PARAMS, reply
        proc.stdin.write((json.dumps(initialize(6)) + "\n").encode())  # a good one after it: the SDK answers it
        proc.stdin.flush()
        again = json.loads(proc.stdout.readline())
        assert again["id"] == 6 and again["result"]["serverInfo"]["name"] == "graphctx"
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)


def test_the_sdks_own_answer_is_dropped_once_and_a_difference_is_logged(caplog):
    sent = {"jsonrpc": "2.0", "id": 4, "result": handshake.initialize_result(
        initialize()["params"], "the instructions", handshake.server_version())}

    def response(result: dict) -> SessionMessage:
        return SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=4, result=result))

    async def drive(sdk_result: dict) -> list:
        writes, reads = anyio.create_memory_object_stream(10)
        handover = handshake.Handover(writes, sent)
        await handover.send(response(sdk_result))  # the SDK's answer to the replayed initialize
        await handover.send(response({"later": True}))  # another answer to the same id goes through
        writes.close()
        return [message.message.result async for message in reads]

    assert anyio.run(drive, sent["result"]) == [{"later": True}]
    assert "differs" not in caplog.text
    assert anyio.run(drive, {**sent["result"], "instructions": "other"}) == [{"later": True}]
    assert "differs from the SDK's in instructions" in caplog.text
