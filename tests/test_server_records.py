"""The record tools over real MCP client sessions (in-process and with the JSON-RPC handshake):
remember, recall, records in context answers and session_init, staleness after an edit, refused
stale revisions, verify, supersede, and authorship from the client's identity."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from graphctx.index.indexer import index_repository
from graphctx.server import build_server
from test_server import MODES, make_repo, run


@pytest.fixture
def served(tmp_path):
    root = make_repo(tmp_path)
    server = build_server(root, watch=False)
    yield root, server
    server.graphctx_state.fresh.stop()


def session(server, mode, calls):
    """Run tool calls in one client session; each call is (name, args); returns the results."""
    async def go():
        async with Client(server, mode=mode) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return run(go)


@pytest.mark.parametrize("mode", MODES)
def test_records_round_trip_and_staleness(served, mode):
    root, server = served
    [wrote, found, context] = session(server, mode, [
        ("remember", {"entries": [{"title": "Validation rejects empty names", "body": "validate() raises ValueError.",
                                   "type": "convention", "category": "shop", "anchors": ["shop/service.py::validate"]}]}),
        ("recall", {"query": "empty names"}),
        ("get_context", {"entity": "validate"}),
    ])
    assert not wrote.is_error and wrote.content[0].text.startswith("created knowledge")
    record_id = wrote.content[0].text.split()[2]
    assert record_id in found.content[0].text
    assert "Validation rejects empty names (anchors fresh" in context.content[0].text

    service = root / "shop/service.py"
    service.write_text(service.read_text().replace("empty name", "no name"))
    index_repository(root)
    [context, init, record, stale, verified, again] = session(server, mode, [
        ("get_context", {"entity": "validate"}),
        ("session_init", {}),
        ("recall", {"id": record_id}),
        ("revise", {"id": record_id, "version": 5, "changes": {"title": "x"}}),
        ("verify", {"id": record_id}),
        ("get_context", {"entity": "validate"}),
    ])
    assert "(anchors drifted" in context.content[0].text
    assert "stale records" in init.content[0].text and record_id in init.content[0].text
    current = json.loads(record.content[0].text)
    assert current["staleness"]["state"] == "drifted" and current["version"] == 1
    assert stale.is_error and "version" in stale.content[0].text and record_id in stale.content[1].text
    assert not verified.is_error and "(anchors fresh)" in verified.content[0].text
    assert "(anchors fresh" in again.content[0].text


def test_decisions_supersede_and_carry_the_author(served):
    _, server = served
    [first] = session(server, "legacy", [("decide", {"title": "Items are stored in memory", "decision": "a list",
                                                      "anchors": ["shop/models.py::Repo"]})])
    first_id = first.content[0].text.split()[2]
    [second, old] = session(server, "legacy", [
        ("decide", {"title": "Items are stored in SQLite", "decision": "one table", "supersedes": [first_id],
                    "agent_id": "planner"}),
        ("recall", {"id": first_id}),
    ])
    assert f"also changed {first_id}" in second.content[0].text
    old = json.loads(old.content[0].text)
    assert old["status"] == "superseded" and old["superseded_by"] == [second.content[0].text.split()[2]]
    [new] = session(server, "legacy", [("recall", {"id": second.content[0].text.split()[2]})])
    assert json.loads(new.content[0].text)["author"] == "planner"
    assert old["author"] and old["author"] != "unknown"  # the client's name, from the handshake


def test_record_errors_are_error_results(served):
    _, server = served
    [unknown, bad, empty] = session(server, "auto", [
        ("recall", {"id": "01NOTAREALID"}),
        ("remember", {"entries": [{"title": "t", "body": "b", "confidence": 2}]}),
        ("revise", {"id": "01NOTAREALID", "version": 1}),
    ])
    assert unknown.is_error and "no record" in unknown.content[0].text
    assert bad.is_error
    assert empty.is_error and "changes" in empty.content[0].text
