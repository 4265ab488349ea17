"""The review loop end to end over a real MCP session and the CLI: stale records (their code changed
and was indexed), near-identical duplicates and unused records (written long ago, served by no
answer) come up one at a time with their evidence; keep, verify, retract, merge and rewrite act on
the records and leave the queue; distill merges records into one synthesis naming its originals."""

from __future__ import annotations

import json
import re

from test_server_work import calls, ok, one, refused, server  # noqa: F401 - the server fixture
from test_skills import cli

SAME = "validate raises ValueError when the name is empty, so every caller must catch it"


def remember(server, title, body, anchors=()):  # noqa: F811
    text = ok(one(server, "ann", "remember", {"entries": [{"title": title, "body": body, "anchors": list(anchors)}]}))
    return re.search(r"knowledge (\w+) v1", text).group(1)


def test_review_loop_end_to_end(server):  # noqa: F811
    assert ok(one(server, "ann", "review", {"action": "next"})).endswith("nothing to review")
    first = remember(server, "validate rejects empty names", SAME, ["shop/service.py::validate"])
    second = remember(server, "empty names are refused", SAME + ".", ["shop/service.py::validate"])
    other = remember(server, "Repo prints", "Repo._write prints the item; there is no real storage yet")
    root = server.graphctx_state.root
    service = root / "shop" / "service.py"
    service.write_text(service.read_text().replace("if not name:", "if not name or not name.strip():"))
    server.graphctx_state.project.refresh()
    queue = ok(one(server, "ann", "review", {"action": "queue"})).splitlines()
    assert queue[0] == "review queue: 3 items (2 stale, 1 duplicate); 0 decided so far"
    dup = f"dup:{first}+{second}"
    assert queue[1:] == [f"{second} [stale] empty names are refused", f"{first} [stale] validate rejects empty names",
                         f"{dup} [duplicate] validate rejects empty names | empty names are refused"]
    shown = ok(one(server, "ann", "review", {"action": "next"}))
    assert "drifted: the code of shop/service.py::validate changed" in shown and "decide: keep, verify, retract, rewrite" in shown
    assert "a stale item is decided with keep, verify, retract, rewrite" in refused(one(server, "ann", "review", {
        "action": "decide", "item_id": second, "decision": "merge"}))
    verified = ok(one(server, "ann", "review", {"action": "decide", "item_id": second, "decision": "verify"}))
    assert verified.startswith(f"verified {second} (v2)") and f"next: {first} [stale]" in verified
    kept = ok(one(server, "bob", "review", {"action": "decide", "item_id": first, "decision": "keep", "reason": "holds"}))
    assert kept.startswith(f"kept {first}") and f"next: dup:{first}+" in kept
    merged = ok(one(server, "ann", "review", {"action": "decide", "item_id": f"dup:{first}+{second}", "decision": "merge",
                                              "reason": "same fact"}))
    # The merge wrote the kept record anew, so its drift (kept at v1) is up for review again.
    assert merged.startswith(f"merged {second} into {first} (v2)") and f"next: {first} [stale]" in merged
    assert "the queue is empty" in ok(one(server, "ann", "review", {"action": "decide", "item_id": first,
                                                                    "decision": "verify"}))
    records = server.graphctx_state.project.records
    assert records.get(second).retracted_reason == f"merged into {first}" and records.get(first).refs == [second]
    assert ok(one(server, "ann", "review", {"action": "queue"})).endswith("nothing to review")
    assert "is not in the review queue" in refused(one(server, "ann", "review", {"action": "decide", "item_id": first,
                                                                                "decision": "keep"}))
    # distill: two records into one synthesis naming them
    third = remember(server, "Repo has no storage", "Items are only printed by Repo._write")
    done = ok(one(server, "ann", "review", {"action": "distill", "record_ids": [other, third], "title": "Storage is a stub",
                                            "body": "Repo prints items; a real store is still to come."}))
    synthesis = re.search(r"into (\w+) ", done).group(1)
    made = records.get(synthesis)
    assert made.refs == [other, third] and "synthesis" in made.tags and made.author == "ann/1"
    assert records.get(third).retracted_reason == f"distilled into {synthesis}"
    log = ok(one(server, "ann", "review", {"action": "log"})).splitlines()
    assert [line.split(" ", 3)[3].rsplit(": ", 1)[0] for line in log] == [
        f"decided {second}", f"decided {first}", f"decided dup:{first}+{second}", f"decided {first}",
        f"distilled {synthesis}"]
    assert "distill merges two or more records" in refused(one(server, "ann", "review", {
        "action": "distill", "record_ids": [first], "title": "t", "body": "b"}))


def test_unused_records_come_up_until_an_answer_serves_them(tmp_path):
    from conftest import make_shop

    root = make_shop(tmp_path / "shop")
    assert cli(root, "review", "queue", code=1).stdout.startswith("review queue: 0 items")
    written = json.loads(cli(root, "remember", "--title", "validate is strict", "--body", "it refuses blank names",
                             "--anchor", "shop/service.py::validate", "--json").stdout)
    record_id = written["record"]["id"]
    path = next((root / ".graphctx" / "records").rglob(f"{record_id}*.md"))
    path.write_text(re.sub(r"(created|updated): \S+", r"\1: 2025-01-02T03:04:05.000Z", path.read_text()))
    shown = cli(root, "review", "next").stdout
    assert shown.startswith(f"{record_id} [unused] validate is strict") and "no answer served it" in shown
    assert json.loads(cli(root, "review", "queue", "--json").stdout)["counts"]["unused"] == 1
    cli(root, "context", "validate", "--agent", "ann")  # an answer carries the record anchored to validate
    assert cli(root, "review", "queue", code=1).stdout.startswith("review queue: 0 items")
    cli(root, "review", "decide", record_id, "keep", code=2)
    assert "no review decision yet" in cli(root, "review", "log", code=1).stderr
