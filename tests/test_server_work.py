"""The coordination tools over real MCP client sessions: tasks, runs, agents and session_end, each
action; their strict inputs (an unknown action or an argument the action does not take is refused
with the fix); session_init's scopes with resume after session_end; peers seen between two client
sessions of one server, in get_context and session_init, within the token budget."""

from __future__ import annotations

import json

import pytest
from mcp import Client
from mcp_types import Implementation

from graphctx.context.tokens import count
from graphctx.server import build_server
from test_server import MODES, make_repo, run


def agent(name: str) -> Implementation:
    return Implementation(name=name, version="1")


@pytest.fixture
def server(tmp_path):
    srv = build_server(make_repo(tmp_path), watch=False)
    yield srv
    srv.graphctx_state.fresh.stop()


def calls(server, who: str, steps: list[tuple[str, dict]], mode: str = "auto") -> list:
    async def go():
        async with Client(server, mode=mode, client_info=agent(who)) as client:
            return [await client.call_tool(name, args) for name, args in steps]

    return run(go)


def one(server, who: str, name: str, args: dict, mode: str = "auto"):
    return calls(server, who, [(name, args)], mode)[0]


def ok(result) -> str:
    assert not result.is_error, result.content[0].text
    return result.content[0].text


def refused(result) -> str:
    assert result.is_error, result.content[0].text
    return result.content[0].text


@pytest.mark.parametrize("mode", MODES)
def test_tasks_from_create_to_done(server, mode):
    created = ok(one(server, "ann", "tasks", {"action": "create", "title": "Validate names", "priority": 2,
                                              "entities": ["shop/service.py::validate"]}, mode))
    task_id = created.split()[1]
    dependent = one(server, "ann", "tasks", {"action": "create", "title": "Docs", "depends_on": [task_id],
                                             "format": "json"}, mode)
    docs_id = dependent.structured_content["id"]
    assert dependent.structured_content["depends_on"] == [task_id]
    assert "cannot be claimed until its dependencies are done" in refused(
        one(server, "bob", "tasks", {"action": "claim", "task_id": docs_id}, mode))
    listed = ok(one(server, "bob", "tasks", {"action": "list", "ready": True}, mode))
    assert listed.splitlines() == ["1 tasks", f"{task_id} [p2 pending] Validate names"]
    assert "claimed " + task_id in ok(one(server, "ann", "tasks", {"action": "claim", "task_id": task_id,
                                                                   "lease_seconds": 600}, mode))
    held = refused(one(server, "bob", "tasks", {"action": "claim", "task_id": task_id}, mode))
    assert held.startswith(f"task {task_id} is claimed by ann/1 until ")
    assert "cannot go from in_progress to pending" not in held
    assert "from in_progress it may go to done, failed, blocked, pending" in refused(
        one(server, "ann", "tasks", {"action": "transition", "task_id": task_id, "status": "in_progress"}, mode))
    mine = ok(one(server, "ann", "tasks", {"action": "list", "mine": True}, mode))
    assert f"{task_id} [p2 in_progress] Validate names (claimed by ann/1 until" in mine
    ok(one(server, "ann", "tasks", {"action": "update", "task_id": task_id, "description": "reject empty names"}, mode))
    ok(one(server, "ann", "tasks", {"action": "transition", "task_id": task_id, "status": "done", "reason": "merged"}, mode))
    shown = ok(one(server, "bob", "tasks", {"action": "get", "task_id": task_id}, mode))
    assert "reject empty names" in shown and "in_progress -> done by ann/1: merged" in shown
    ok(one(server, "bob", "tasks", {"action": "claim", "task_id": docs_id}, mode))
    assert "released" in ok(one(server, "bob", "tasks", {"action": "release", "task_id": docs_id}, mode))


def test_tasks_strict_inputs(server):
    assert "(did you mean 'claim'?)" in refused(one(server, "ann", "tasks", {"action": "clam", "task_id": "t-1"}))
    assert refused(one(server, "ann", "tasks", {"action": "list", "title": "x"})) == (
        "tasks action=list does not take title; it takes: entity, file, mine, ready, status")
    assert refused(one(server, "ann", "tasks", {"action": "claim"})) == "tasks action=claim needs task_id"
    assert "no task has the id 't-nope'" in refused(one(server, "ann", "tasks", {"action": "get", "task_id": "t-nope"}))
    assert "(did you mean 'task_id'?)" in refused(one(server, "ann", "tasks", {"action": "get", "taskid": "t-1"}))
    assert "priority must be between 1 and 5" in refused(
        one(server, "ann", "tasks", {"action": "create", "title": "x", "priority": 7}))
    assert "no task matches" in ok(one(server, "ann", "tasks", {"action": "list", "status": "failed"}))


def test_runs_start_fail_end_and_are_never_rewritten(server):
    root = server.graphctx_state.root
    started = one(server, "ann", "runs", {"action": "start", "ticket": "#17"})
    run_id = ok(started).split()[0]
    failed, ended, again, listed, wrong = calls(server, "ann", [
        ("runs", {"action": "fail", "run_id": run_id, "error": "tests failed"}),
        ("runs", {"action": "end", "run_id": run_id, "outcome": "success", "summary": "fixed", "tokens": 5000,
                  "files_touched": ["shop/service.py"], "branch": "fix/names", "head": "abc123"}),
        ("runs", {"action": "end", "run_id": run_id, "outcome": "failure"}),
        ("runs", {"action": "list", "format": "json"}),
        ("runs", {"action": "start", "outcome": "success"}),
    ])
    assert "1 failure" in ok(failed)
    text = ok(ended)
    assert "[success" in text and "summary: fixed" in text and "tokens: 5,000" in text
    assert "git: branch fix/names, head abc123" in text and "files touched: shop/service.py" in text
    assert "runs are never rewritten" in refused(again)
    [data] = listed.structured_content["runs"]
    assert (data["id"], data["outcome"], data["ticket"], len(data["failures"])) == (run_id, "success", "#17", 1)
    assert refused(wrong) == "runs action=start does not take outcome; it takes: task_id, ticket"
    events = [json.loads(line)["kind"] for path in (root / ".graphctx" / "runs").glob("*.jsonl")
              for line in path.read_text().splitlines()]
    assert events == ["start", "failure", "end"]


def test_agents_register_board_and_identity(server):
    registered, listed, checked_in, board, checked_out = calls(server, "host-client", [
        ("agents", {"action": "register", "name": "reviewer", "capabilities": ["review", "python"], "model": "m-1"}),
        ("agents", {"action": "list"}),
        ("agents", {"action": "check_in", "issue": "#17", "note": "reviewing"}),
        ("agents", {"action": "board"}),
        ("agents", {"action": "check_out"}),
    ])
    assert ok(registered).startswith("registered reviewer (m-1) can: review, python")
    assert ok(listed).splitlines()[1].startswith("reviewer (m-1)")
    assert ok(checked_in).startswith("reviewer checked in") and "issue #17: reviewing" in ok(checked_in)
    assert "reviewer checked in" in ok(board)  # the registered name is the session's identity
    assert ok(checked_out).startswith("reviewer checked out")
    assert "agents action=list does not take name" in refused(one(server, "x", "agents", {"action": "list", "name": "y"}))


def peers_line(answer: str) -> str:
    """The answer's peers line (it sits among the closing lines, beside what was omitted)."""
    return next((line for line in answer.splitlines() if line.startswith("peers: ")), "")


def test_peers_between_two_sessions_within_the_budget(server):
    task_id = ok(one(server, "ann", "tasks", {"action": "create", "title": "Orders",
                                              "entities": ["shop/service.py::create_item"]})).split()[1]
    ok(one(server, "ann", "tasks", {"action": "claim", "task_id": task_id}))
    answer = ok(one(server, "bob", "get_context", {"entity": "create_item", "token_budget": 600}))
    assert count(answer) <= 600
    peers = peers_line(answer)
    assert peers.startswith(f"peers: ann/1 (claim {task_id}, ") and "shop/service.py::create_item" in peers
    as_json = one(server, "bob", "get_context", {"entity": "create_item", "format": "json"})
    assert as_json.structured_content["peers"][0]["agent"] == "ann/1"
    # bob was served create_item's neighbourhood: ann now sees bob there, through the context he read
    mine = ok(one(server, "ann", "get_context", {"entity": "validate", "token_budget": 800}))
    assert "bob/1 (context, " in peers_line(mine)
    listed = ok(one(server, "carl", "agents", {"action": "peers", "entities": ["shop/service.py::create_item"]}))
    assert {line.split()[0] for line in listed.splitlines()[1:]} == {"ann/1", "bob/1"}
    session = ok(one(server, "carl", "session_init", {"token_budget": 1000}))  # activity: the team section opens it
    assert session.startswith("## Your work (carl/1, scope standard)") and "peers: " in session
    assert count(session) <= 1000


@pytest.mark.parametrize("scope", ["quick", "standard", "resume", "full"])
def test_session_init_scopes_fit_the_budget(server, scope):
    ok(one(server, "ann", "tasks", {"action": "create", "title": "Anything"}))
    for budget in (100, 300, 2000):
        text = ok(one(server, "ann", "session_init", {"scope": scope, "token_budget": budget}))
        assert count(text) <= budget and text.startswith(f"## Your work (ann/1, scope {scope})")
        assert ("# graphctx session" in text) == (budget > 100)  # the code packet, where it has room
        tiny = one(server, "ann", "session_init", {"scope": scope, "token_budget": budget, "format": "json"})
        assert not tiny.is_error and tiny.structured_content["work"]["scope"] == scope
    data = one(server, "ann", "session_init", {"scope": scope, "format": "json", "token_budget": 2000}).structured_content
    assert data["work"]["scope"] == scope and data["mode"] == "session"


def test_session_end_then_resume(server):
    task_id = ok(one(server, "ann", "tasks", {"action": "create", "title": "Cart totals"})).split()[1]
    ended = ok(one(server, "ann", "session_end", {"summary": "totals half done", "current_task": task_id,
                                                   "blockers": ["waiting for the pricing API"],
                                                   "learned": ["cart totals are computed on read"]}))
    assert "session of ann/1 ended" in ended and "learned (records): " in ended
    record_id = ended.split("learned (records): ")[1].strip()
    resumed = ok(one(server, "ann", "session_init", {"scope": "resume", "token_budget": 3000}))
    assert "session of ann/1 ended" in resumed and "totals half done" in resumed
    assert f"current task: {task_id}" in resumed and "blocker: waiting for the pricing API" in resumed
    assert "changed since your last session: unknown (git cannot tell here" in resumed  # not a git repository
    recalled = ok(one(server, "bob", "recall", {"id": record_id}))
    assert "cart totals are computed on read" in recalled
    assert "no task has the id" in refused(one(server, "ann", "session_end", {"current_task": "t-zzzz"}))
