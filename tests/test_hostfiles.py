"""The hypothesize loop over a real MCP session (from a distilled synthesis record to a confirmed
hypothesis), and `graphctx export --format agents-md|claude-md|cursor-rules` from the CLI: the shared,
live conventions, accepted decisions, key knowledge and skills in a marked section regenerated in
place, private and retracted records left out."""

from __future__ import annotations

import json
import re

from conftest import make_shop
from test_review import remember
from test_server_work import ok, one, refused, server  # noqa: F401 - the server fixture
from test_skills import cli


def test_hypothesize_loop_from_synthesis_to_confirmed(server):  # noqa: F811
    first = remember(server, "Repo prints", "Repo._write prints the item", ["shop/models.py::Repo._write"])
    second = remember(server, "No storage yet", "Items are only printed, never stored")
    assert "is not a live synthesis record" in refused(one(server, "ann", "review", {
        "action": "hypothesize", "item_id": first, "title": "x", "body": "y"}))
    done = ok(one(server, "ann", "review", {"action": "distill", "record_ids": [first, second],
                                            "title": "Storage is a stub", "body": "Repo prints; nothing is stored."}))
    synthesis = re.search(r"into (\w+) ", done).group(1)
    listed = ok(one(server, "ann", "review", {"action": "hypotheses"})).splitlines()
    assert listed == ["1 synthesis record(s) to draw hypotheses from:", f"  {synthesis} Storage is a stub", "0 hypotheses:"]
    written = ok(one(server, "ann", "review", {
        "action": "hypothesize", "item_id": synthesis, "title": "Saving an item never touches the disk",
        "body": "Run create_item under strace and look for writes"}))
    hypothesis = written.split()[1]
    assert written == f"hypothesis {hypothesis} [open] Saving an item never touches the disk (from {synthesis})"
    assert ok(one(server, "ann", "review", {"action": "hypotheses", "status": "open"})).splitlines()[1:] == [
        "1 hypothesis (open):", f"  {hypothesis} [open] Saving an item never touches the disk"]
    assert "a verdict needs its evidence" in refused(one(server, "bob", "review", {
        "action": "judge", "item_id": hypothesis, "verdict": "confirmed", "reason": " "}))
    assert "is not a hypothesis" in refused(one(server, "bob", "review", {
        "action": "judge", "item_id": synthesis, "verdict": "confirmed", "reason": "seen"}))
    judged = ok(one(server, "bob", "review", {"action": "judge", "item_id": hypothesis, "verdict": "confirmed",
                                              "reason": "strace shows no write(2) calls"}))
    assert judged == f"hypothesis {hypothesis} [confirmed] Saving an item never touches the disk"
    record = server.graphctx_state.project.records.get(hypothesis)
    assert record.type == "hypothesis" and record.refs == [synthesis] and "status-confirmed" in record.tags
    assert re.search(r"## Evidence\n\n- \d{4}-\d\d-\d\d bob/1: confirmed: strace shows no write\(2\) calls$", record.body)
    log = ok(one(server, "ann", "review", {"action": "log"}))
    assert f"hypothesized {hypothesis}" in log and f"judged {hypothesis}" in log


def test_export_writes_the_team_memory_into_host_files(tmp_path):
    root = make_shop(tmp_path / "shop")
    assert cli(root, "export", "--format", "agents-md", code=1).stdout.startswith(f"wrote {root / 'AGENTS.md'} (nothing")
    cli(root, "remember", "--title", "Names are validated once", "--type", "convention",
        "--body", "Only validate() checks names.", "--anchor", "shop/service.py::validate")
    cli(root, "remember", "--title", "Local scratch", "--type", "convention", "--body", "mine only", "--scope", "private")
    gone = json.loads(cli(root, "remember", "--title", "Old rule", "--type", "convention", "--body", "x", "--json").stdout)
    cli(root, "revise", gone["record"]["id"], "--version", "1", "--retract", "--reason", "no longer true")
    cli(root, "decide", "--title", "Print is the store", "--decision", "Repo prints until a database is chosen")
    cli(root, "decide", "--title", "Use Redis", "--decision", "no", "--status", "rejected")
    cli(root, "remember", "--title", "Empty names raise", "--type", "pitfall", "--body", "validate raises ValueError")
    cli(root, "skills", "add", "-", "--name", "release", "--description", "Cut a release", stdin="1. Tag.")
    (root / "AGENTS.md").write_text("# Agents\n\nHand-written intro.\n", encoding="utf-8")
    wrote = cli(root, "export", "--format", "agents-md").stdout
    assert wrote.strip() == f"wrote {root / 'AGENTS.md'} (1 conventions, 1 decisions, 1 pitfalls, 1 skills)"
    text = (root / "AGENTS.md").read_text()
    assert text.startswith("# Agents\n\nHand-written intro.\n\n<!-- graphctx:begin")
    assert "- **Names are validated once** (shop/service.py::validate): Only validate() checks names." in text
    assert "- **Print is the store**: Repo prints until a database is chosen" in text
    assert "- `release`: Cut a release (.graphctx/skills/release/SKILL.md)" in text
    for left_out in ("Local scratch", "Old rule", "Use Redis"):
        assert left_out not in text
    assert cli(root, "export", "--format", "agents-md").stdout.startswith("unchanged:")
    (root / "AGENTS.md").write_text(text + "\n## Hand-written tail\n", encoding="utf-8")
    cli(root, "remember", "--title", "Run the shop tests", "--type", "how-to", "--body", "pytest tests")
    cli(root, "export", "--format", "agents-md")
    again = (root / "AGENTS.md").read_text()
    assert again.count("<!-- graphctx:begin") == 1 and again.endswith("## Hand-written tail\n")
    assert "### How-tos\n\n- **Run the shop tests**: pytest tests" in again
    cli(root, "export", "--format", "claude-md")
    assert (root / "CLAUDE.md").read_text().startswith("<!-- graphctx:begin")
    cli(root, "export", "--format", "cursor-rules")
    rule = (root / ".cursor" / "rules" / "graphctx.mdc").read_text()
    assert rule.startswith("---\ndescription: ") and "alwaysApply: true\n---\n" in rule and "Names are validated once" in rule
    assert "--around is for the graph formats" in cli(root, "export", "--format", "claude-md", "--around", "validate",
                                                       code=2).stderr
