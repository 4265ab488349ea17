"""The record tools over real MCP client sessions, in both of the SDK client's modes (in-process,
and JSON-RPC with the initialize handshake as hosts do it): remember -> recall -> the record in
get_context -> an edit and a re-index -> drifted in get_context and in session_init's stale list ->
a stale revision refused with the current record -> verify -> fresh again; decisions superseded in
one write; navigation of a long record; errors as isError results with suggestions; authorship
from the client's info (else the git user); session_init's record lists within its budget; keyed
upserts without a title and a key held by two records, as from the CLI."""

from __future__ import annotations

import subprocess

import pytest
from mcp import Client
from mcp_types import Implementation

from graphctx.index.indexer import index_repository
from graphctx.records import RecordStore, files, ids
from graphctx.server import build_server
from test_server import MODES, make_repo, run

CLIENT = Implementation(name="record-tester", version="2.0")


@pytest.fixture
def served(tmp_path):
    root = make_repo(tmp_path)
    server = build_server(root, watch=False)
    yield root, server
    server.graphctx_state.fresh.stop()


def session(server, mode, calls, client_info=CLIENT):
    """Run tool calls in one client session; each call is (name, args); returns the results."""
    async def go():
        async with Client(server, mode=mode, client_info=client_info) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return run(go)


def call(server, mode, name, args, client_info=CLIENT):
    return session(server, mode, [(name, args)], client_info)[0]


def text(result) -> str:
    assert len(result.content) == 1, result.content
    return result.content[0].text


def ok(result) -> str:
    assert not result.is_error, text(result)
    return text(result)


def written_id(result) -> str:
    """The id in `created knowledge <id> v1 'Title' (anchors fresh)`."""
    return ok(result).split()[2]


CONVENTION = {"title": "Validation rejects empty names", "body": "validate() raises ValueError on an empty name.",
              "type": "convention", "category": "shop.validation", "tags": ["errors"],
              "anchors": ["shop/service.py::validate"]}


@pytest.mark.parametrize("mode", MODES)
def test_remember_recall_context_drift_revise_verify(served, mode):
    root, server = served
    [wrote, found, context, init] = session(server, mode, [
        ("remember", {"entries": [CONVENTION]}),
        ("recall", {"query": "empty names"}),
        ("get_context", {"entity": "validate"}),
        ("session_init", {}),
    ])
    assert ok(wrote).startswith("created knowledge ") and ok(wrote).endswith("(anchors fresh)")
    record_id = written_id(wrote)
    assert f"{record_id} v1 convention shop.validation (anchors fresh): Validation rejects empty names" in ok(found)
    assert "on shop/service.py::validate" in ok(found) and "1 of 1 records" in ok(found)
    assert f"## record {record_id}" in ok(context)
    assert "Validation rejects empty names (anchors fresh" in ok(context)
    assert f"conventions: Validation rejects empty names ({record_id})" in ok(init)
    assert "stale records" not in ok(init)

    # The code under the record changes and is re-indexed: every answer says so, none hides it.
    service = root / "shop/service.py"
    service.write_text(service.read_text().replace('raise ValueError("empty name")', 'raise ValueError("no name")'))
    index_repository(root)
    [context, init, read] = session(server, mode, [
        ("get_context", {"entity": "validate"}),
        ("session_init", {}),
        ("recall", {"id": record_id}),
    ])
    assert "Validation rejects empty names (anchors drifted" in ok(context)
    assert "the code of shop/service.py::validate changed" in ok(context)
    stale_line = next(line for line in ok(init).splitlines() if line.startswith("note: stale records"))
    assert f"Validation rejects empty names ({record_id}, drifted)" in stale_line
    assert ok(read).startswith(f"{record_id} v1 convention shop.validation (anchors drifted): ")
    assert "shop/service.py::validate [drifted]" in ok(read) and "by record-tester/2.0" in ok(read)

    # Another agent revises first; a revision of the version read before is refused with the current record.
    [theirs, mine] = session(server, mode, [
        ("revise", {"id": record_id, "version": 1, "changes": {"body": "validate() raises ValueError('no name')."}}),
        ("revise", {"id": record_id, "version": 1, "changes": {"confidence": 0.5}}),
    ])
    assert ok(theirs).startswith(f"updated knowledge {record_id} v2 ")
    assert mine.is_error
    refused = text(mine)  # one text: the message, then the current record (no JSON copy beside it)
    assert f"record {record_id} is at version 2, not 1" in refused and "pass version=2" in refused
    assert f"current record:\n{record_id} v2 convention" in refused and "raises ValueError('no name')." in refused

    [verified, context, init, again] = session(server, mode, [
        ("verify", {"id": record_id}),
        ("get_context", {"entity": "validate"}),
        ("session_init", {}),
        ("recall", {"id": record_id, "format": "json"}),
    ])
    assert ok(verified) == f"updated knowledge {record_id} v3 'Validation rejects empty names' (anchors fresh)"
    assert "Validation rejects empty names (anchors fresh" in ok(context)
    assert "stale records" not in ok(init)
    record = again.structured_content
    assert ok(again).startswith(f"{record_id} v3 convention") and "structuredContent" in ok(again)
    assert record["staleness"]["state"] == "fresh" and record["version"] == 3
    assert record["author"] == "record-tester/2.0" and record["tags"] == ["errors"]


@pytest.mark.parametrize("mode", MODES)
def test_decide_and_supersede_in_one_write(served, mode):
    _, server = served
    first = call(server, mode, "decide", {
        "title": "Items are kept in memory", "decision": "A list in Repo.", "context": "A prototype.",
        "anchors": ["shop/models.py::Repo"]})
    first_id = written_id(first)
    [second, old, new, listed] = session(server, mode, [
        ("decide", {"title": "Items are stored in SQLite", "decision": "One table, written by Repo.save.",
                    "consequences": "Tests need a temporary database.", "supersedes": [first_id],
                    "anchors": ["shop/models.py::Repo.save"], "author": "architecture-review"}),
        ("recall", {"id": first_id}),
        ("recall", {"kind": "decision", "status": "accepted", "format": "json"}),
        ("recall", {"kind": "decision", "sort": "recent"}),
    ])
    second_id = written_id(second)
    assert ok(second).endswith(f"(anchors fresh); also changed {first_id}")
    assert ok(old).startswith(f"{first_id} v2 decision [superseded]") and f"superseded by: {second_id}" in ok(old)
    assert "## Context\n\nA prototype." in ok(old)
    hits = new.structured_content["hits"]
    assert [h["id"] for h in hits] == [second_id]  # the superseded one is no longer accepted
    lines = ok(listed).splitlines()  # newest first: the old one was updated (superseded) after the new one
    assert lines[:2] == [f"{first_id} v2 decision [superseded] (anchors fresh): Items are kept in memory",
                         "  on shop/models.py::Repo"]
    assert lines[2:] == [f"{second_id} v1 decision [accepted] (anchors fresh): Items are stored in SQLite",
                         "  on shop/models.py::Repo.save", "2 of 2 records"]
    [read] = session(server, mode, [("recall", {"id": second_id, "format": "json"})])
    assert read.structured_content["author"] == "architecture-review"  # given, so not the session's identity
    assert read.structured_content["supersedes"] == [first_id]


@pytest.mark.parametrize("mode", MODES)
def test_author_is_the_session_identity(served, mode):
    _, server = served
    [by_client] = session(server, mode, [("remember", {"entries": [{"title": "a", "body": "b"}]})],
                          client_info=Implementation(name="some-host", version="1.5"))
    [by_name] = session(server, mode, [("remember", {"entries": [{"title": "c", "body": "d"}], "agent_id": "planner-3"})],
                        client_info=Implementation(name="other-host", version="1.0"))
    [later] = session(server, mode, [("decide", {"title": "e", "decision": "f"})],
                      client_info=Implementation(name="other-host", version="1.0"))  # same session key: kept
    authors = session(server, mode, [("recall", {"id": written_id(r), "format": "json"}) for r in (by_client, by_name, later)])
    assert [a.structured_content["author"] for a in authors] == ["some-host/1.5", "planner-3", "planner-3"]


@pytest.mark.parametrize("mode", MODES)
def test_errors_are_error_results_with_suggestions(served, mode):
    _, server = served
    record_id = written_id(call(server, mode, "remember", {"entries": [CONVENTION]}))
    near = record_id[:-1] + ("0" if record_id[-1] != "0" else "1")
    results = session(server, mode, [
        ("recall", {"id": near}),
        ("revise", {"id": near, "version": 1, "changes": {"title": "x"}}),
        ("verify", {"id": "Validation rejects"}),
        ("decide", {"title": "t", "decision": "d", "status": "done"}),
        ("revise", {"id": record_id, "version": 1, "changes": {"status": "accepted"}}),
        ("revise", {"id": record_id, "version": 1, "changes": {"colour": "red"}}),
        ("revise", {"id": record_id, "version": 1}),
        ("revise", {"id": record_id, "version": 1, "retract": True, "changes": {"title": "x"}}),
        ("remember", {"entries": [{"title": "t", "body": "b", "confidence": 2}]}),
        ("remember", {"entries": [{"title": "t", "body": "b", "anchors": ["shop/service.py::validat"]}]}),
        ("remember", {"entries": [{"title": "t", "body": "b", "category": "Not A Category"}]}),
        ("decide", {"title": "t", "decision": "d", "supersedes": [record_id]}),
        ("recall", {"id": record_id, "view": "section"}),
        ("recall", {"view": "outline"}),
        ("recall", {"query": "x", "cursor": "garbage"}),
    ])
    assert all(r.is_error for r in results), [text(r) for r in results if not r.is_error]
    unknown, revise_unknown, by_title, status, wrong_field, extra, nothing, both, confidence, anchor, category, \
        supersede_knowledge, no_heading, no_id, cursor = map(text, results)
    assert f"no record with id {near!r}; did you mean one of these?" in unknown
    assert f"  - {record_id}  Validation rejects empty names" in unknown
    assert record_id in revise_unknown and record_id in by_title  # a title finds the id too
    assert "'accepted'" in status and "'deprecated'" in status  # the allowed values
    assert "knowledge records have no field 'status'" in wrong_field
    assert "colour" in extra
    assert "nothing to change" in nothing and "not both" in both
    assert "confidence" in confidence
    assert "no entity 'shop/service.py::validat'" in anchor and "shop/service.py::validate" in anchor
    assert "invalid category" in category
    assert "only decisions supersede decisions" in supersede_knowledge
    assert "needs `heading`" in no_heading and "needs `id`" in no_id
    assert "invalid cursor" in cursor
    # Nothing was written by the failed calls.
    listed = call(server, mode, "recall", {"sort": "recent"})
    assert ok(listed).endswith("1 of 1 records")


@pytest.mark.parametrize("mode", MODES)
def test_many_at_once_keys_pages_navigation_and_retraction(served, mode):
    root, server = served
    entries = [{"title": f"Pitfall {i}", "body": f"Pitfall number {i} about items.", "type": "pitfall",
                "category": "shop", "key": f"p{i}"} for i in range(5)]
    entries.append({"title": "Setup", "category": "infra.setup", "type": "how-to", "body": (
        "# Setup\n\nSteps.\n\n## Database\n\nRun the migrations.\n\n| step | command |\n|---|---|\n"
        "| migrate | make migrate |\n\n## Cache\n\nNone yet.")})
    [wrote, update, first, ephemeral] = session(server, mode, [
        ("remember", {"entries": entries}),
        ("remember", {"entries": [{"category": "shop", "key": "p0", "body": "Pitfall zero, rewritten."}]}),
        ("recall", {"query": "pitfall items", "type": "pitfall", "limit": 2}),
        ("remember", {"entries": [{"title": "Scratch note", "body": "only here", "anchors": ["shop/cli.py::main"]}],
                      "scope": "ephemeral"}),
    ])
    assert ok(ephemeral).startswith("created knowledge")
    assert len(ok(wrote).splitlines()) == 6 and all(line.startswith("created") for line in ok(wrote).splitlines())
    assert ok(update).startswith("updated knowledge") and "'Pitfall 0'" in ok(update)  # title kept
    assert "2 of 5 records; more with cursor=" in ok(first)
    cursor = ok(first).rsplit("cursor=", 1)[1]
    setup_id = ok(wrote).splitlines()[5].split()[2]
    pitfall_id = ok(wrote).splitlines()[0].split()[2]
    [second, outline, section, tables, history, context] = session(server, mode, [
        ("recall", {"query": "pitfall items", "type": "pitfall", "limit": 2, "cursor": cursor}),
        ("recall", {"id": setup_id, "view": "outline"}),
        ("recall", {"id": setup_id, "view": "section", "heading": "Setup > Database"}),
        ("recall", {"id": setup_id, "view": "tables", "format": "json"}),
        ("recall", {"id": setup_id, "view": "history"}),
        ("get_context", {"entity": "main"}),
    ])
    assert "4 of 5 records" not in ok(second) and "2 of 5 records; more with cursor=" in ok(second)
    assert not set(ok(first).split()) & {line.split()[0] for line in ok(second).splitlines() if line.startswith("01")}
    assert ok(outline) == "Setup (line 1)\n  Database (line 5)\n  Cache (line 13)"
    assert ok(section).startswith("## Database\n\nRun the migrations.") and "Cache" not in ok(section)
    assert tables.structured_content["tables"][0]["rows"] == [["migrate", "make migrate"]]
    assert ok(history).startswith("no history")
    assert "Scratch note (anchors fresh" in ok(context)  # the same store as the context answers

    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "PATH": "/usr/bin:/bin"}
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "Record the setup"], cwd=root, check=True, env=env)
    [history, retracted, gone, kept] = session(server, mode, [
        ("recall", {"id": setup_id, "view": "history"}),
        ("revise", {"id": pitfall_id, "version": 2, "retract": True, "reason": "no longer true"}),
        ("recall", {"query": "pitfall", "type": "pitfall", "limit": 10}),
        ("recall", {"id": pitfall_id}),
    ])
    assert "t: Record the setup" in ok(history) and "+## Database" in ok(history)
    assert ok(retracted).startswith(f"retracted knowledge {pitfall_id} v3")
    assert pitfall_id not in ok(gone) and "4 of 4 records" in ok(gone)
    assert "RETRACTED" in ok(kept) and "no longer true" in ok(kept)
    [restored] = session(server, mode, [("revise", {"id": pitfall_id, "version": 3, "changes": {"retracted": False}})])
    assert ok(restored).startswith(f"updated knowledge {pitfall_id} v4")


def test_session_init_lists_records_within_its_budget(served):
    _, server = served
    long = " and ".join(["a convention with a rather long title"] * 4)
    entries = [{"title": f"{i}: {long}", "body": "x", "type": "convention", "category": "shop"} for i in range(30)]
    call(server, "auto", "remember", {"entries": entries})
    results = session(server, "auto", [("session_init", {"token_budget": b, "format": "json"}) for b in (100, 300, 1000, 4000)])
    for budget, result in zip((100, 300, 1000, 4000), results, strict=True):
        answer = result.structured_content
        assert answer["tokens_used"] <= budget
    notes = results[-1].structured_content["notes"]
    conventions = next(n for n in notes if n.startswith("conventions"))
    assert conventions.startswith("conventions (8 of 30; recall(type=convention) for all): ")
    assert conventions.count("(01") == 8 and "…" in conventions  # capped, titles clipped
    assert any(n.startswith("30 knowledge and decision records") for n in notes)
    assert any(item["relation"] == "central" for item in results[-1].structured_content["items"])  # room for the map


@pytest.mark.parametrize("mode", MODES)
def test_keyed_upsert_git_author_and_a_key_held_by_two_records(served, mode, monkeypatch):
    """As from the CLI: a keyed write needs no title and keeps title and anchors; a client with no
    name writes as the git user; a second record file for the same key (what merging a branch that
    also created it brings) is reported by recall and refused by a keyed write, naming both ids."""
    root, server = served
    monkeypatch.delenv("GRAPHCTX_AUTHOR", raising=False)
    subprocess.run(["git", "-C", str(root), "config", "user.name", "Ada Lovelace"], check=True)
    nameless = Implementation(name="", version="")
    entry = {"title": "Names are validated", "body": "validate() first", "category": "shop", "key": "names",
             "anchors": ["shop/service.py::validate"]}
    [created, updated, new_key] = session(server, mode, [
        ("remember", {"entries": [entry]}),
        ("remember", {"entries": [{"category": "shop", "key": "names", "body": "validate() always"}]}),
        ("remember", {"entries": [{"category": "shop", "key": "price-rounding", "body": "round half even"}]}),
    ], client_info=nameless)
    first = written_id(created)
    assert ok(updated).startswith(f"updated knowledge {first} v2 'Names are validated' (anchors fresh)")
    assert "'Price rounding'" in ok(new_key)
    [read] = session(server, mode, [("recall", {"id": first, "format": "json"})], client_info=nameless)
    assert read.structured_content["author"] == "Ada Lovelace"
    assert [a["entity"] for a in read.structured_content["anchors"]] == ["shop/service.py::validate"]

    store = RecordStore(root)
    twin = store.get(first).model_copy(update={"id": ids.new_id(), "title": "Names are checked", "version": 1})
    files.write_atomic(files.new_path(root, twin), files.render(twin))  # the file the other branch committed
    [found, as_json, one, refused] = session(server, mode, [
        ("recall", {"query": "names"}),
        ("recall", {"query": "names", "format": "json"}),
        ("recall", {"id": twin.id}),
        ("remember", {"entries": [{"category": "shop", "key": "names", "body": "validate() twice"}]}),
    ])
    both = f"conflict: records {first} and {twin.id} both have key 'names' in category 'shop' (shared)"
    assert both in ok(found) and both in ok(one) and both in text(as_json)
    assert as_json.structured_content["conflicts"][0]["ids"] == [first, twin.id]
    assert refused.is_error and f"held by 2 records, {first} and {twin.id}" in text(refused)
    assert f"{twin.id}  Names are checked" in text(refused)
