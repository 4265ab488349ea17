"""Skills over a real MCP client session and the CLI in subprocesses: add (from SKILL.md front matter),
list, get, use, rate, flagging (2+ ratings averaging under 3) shown in session_init, proposals with a
diff accepted or rejected, refusals with the fix, exit statuses."""

from __future__ import annotations

import json
import os
import subprocess


from conftest import make_shop
from test_server import graphctx_command
from test_server_work import calls, ok, one, refused, server  # noqa: F401 - the server fixture

SKILL_MD = """---
name: release-checklist
description: Cut a release of the shop
---

# Steps

1. Run the tests.
2. Tag the commit.
"""


def cli(root, *args, agent="ann", code=0, stdin=None):
    env = {**os.environ, "GRAPHCTX_AGENT": agent}
    result = subprocess.run([*graphctx_command(), *args, "--repo", str(root)], capture_output=True, text=True,
                            env=env, input=stdin, timeout=120)
    assert result.returncode == code, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    return result


def test_skills_over_mcp_from_add_to_accepted_proposal(server):  # noqa: F811
    added = ok(one(server, "ann", "skills", {"action": "add", "content": SKILL_MD}))
    assert added == "added skill release-checklist"
    assert "skill release-checklist exists already" in refused(
        one(server, "bob", "skills", {"action": "add", "content": SKILL_MD}))
    assert "did you mean release-checklist?" in refused(one(server, "bob", "skills", {"action": "get", "name": "release-checklst"}))
    got = ok(one(server, "bob", "skills", {"action": "get", "name": "release-checklist"}))
    assert got.startswith("release-checklist: Cut a release of the shop (v1, used 0x)") and "2. Tag the commit." in got
    assert "used 1x" in ok(one(server, "bob", "skills", {"action": "use", "name": "release-checklist", "note": "v1.2"}))
    new = SKILL_MD.split("---\n", 2)[2].replace("2. Tag", "2. Update the changelog.\n3. Tag")
    proposed = ok(one(server, "bob", "skills", {"action": "propose", "name": "release-checklist", "content": new,
                                                "rationale": "the changelog was forgotten twice"}))
    proposal_id = proposed.split()[1]
    assert "[open] skill release-checklist by bob/1" in proposed and "(+2 -1 lines)" in proposed
    shown = ok(one(server, "ann", "skills", {"action": "proposals", "proposal_id": proposal_id}))
    assert "+2. Update the changelog." in shown and "-2. Tag the commit." in shown
    listed = ok(one(server, "ann", "skills", {"action": "list"}))
    assert listed.splitlines()[1].endswith("(v1, used 1x, 1 open proposal)")
    resolved = ok(one(server, "ann", "skills", {"action": "resolve", "proposal_id": proposal_id, "accept": True,
                                                "reason": "agreed"}))
    assert f"{proposal_id} [accepted by ann/1]" in resolved
    assert "Update the changelog" in ok(one(server, "bob", "skills", {"action": "get", "name": "release-checklist"}))
    assert "only an open proposal can be resolved" in refused(one(server, "ann", "skills", {
        "action": "resolve", "proposal_id": proposal_id, "accept": False}))
    data = one(server, "ann", "skills", {"action": "get", "name": "release-checklist", "format": "json"}).structured_content
    assert data["skill"]["version"] == 2 and data["uses"] == 0  # usage counts since the skill last changed
    assert "removed skill release-checklist (v2)" == ok(one(server, "ann", "skills", {"action": "remove",
                                                                                     "name": "release-checklist"}))


def test_skill_inputs_are_refused_with_the_fix(server):  # noqa: F811
    assert "skills action=get needs name" in refused(one(server, "ann", "skills", {"action": "get"}))
    assert "skills action=list does not take rating" in refused(one(server, "ann", "skills", {"action": "list", "rating": 3}))
    assert "use lower-case letters, digits and hyphens" in refused(one(server, "ann", "skills", {
        "action": "add", "name": "Bad Name", "description": "x", "content": "y"}))
    assert "needs a description" in refused(one(server, "ann", "skills", {"action": "add", "name": "x", "content": "# X"}))
    ok(one(server, "ann", "skills", {"action": "add", "name": "x", "description": "d", "content": "body"}))
    assert "changes nothing" in refused(one(server, "ann", "skills", {"action": "propose", "name": "x", "content": "body",
                                                                     "rationale": "r"}))


def test_poorly_rated_skill_is_flagged_in_session_init(server):  # noqa: F811
    ok(one(server, "ann", "skills", {"action": "add", "content": SKILL_MD}))
    ok(one(server, "ann", "skills", {"action": "add", "name": "good-one", "description": "works", "content": "Do it."}))
    steps = [("skills", {"action": "rate", "name": "release-checklist", "rating": 2, "comment": "misses the changelog"}),
             ("skills", {"action": "rate", "name": "good-one", "rating": 5})]
    calls(server, "bob", steps)
    assert "no skill is flagged" in ok(one(server, "ann", "skills", {"action": "list", "flagged": True}))
    one_rating = ok(one(server, "carol", "session_init", {"scope": "standard", "agent_id": "carol"}))
    assert "flagged skill" not in one_rating  # one rating is not enough to flag
    rated = ok(one(server, "carol", "skills", {"action": "rate", "name": "release-checklist", "rating": 3}))
    assert "FLAGGED" in rated and "rated 2.5 by 2" in rated
    packet = ok(one(server, "dave", "session_init", {"scope": "standard", "agent_id": "dave"}))
    assert "flagged skill: release-checklist FLAGGED: Cut a release of the shop" in packet
    assert "good-one" not in packet
    assert "rating 2 by bob/1: misses the changelog" in ok(one(server, "ann", "skills", {"action": "get",
                                                                                          "name": "release-checklist"}))


def test_skills_cli(tmp_path):
    root = make_shop(tmp_path / "shop")
    skill_file = tmp_path / "SKILL.md"
    skill_file.write_text(SKILL_MD, encoding="utf-8")
    assert cli(root, "skills", "list", code=1).stderr.startswith("no skill yet")
    assert cli(root, "skills", "add", str(skill_file)).stdout.strip() == "added skill release-checklist"
    assert (root / ".graphctx" / "skills" / "release-checklist" / "SKILL.md").read_text().startswith("---\nname: release-checklist\n")
    assert "exists already" in cli(root, "skills", "add", str(skill_file), code=2).stderr
    assert "2. Tag the commit." in cli(root, "skills", "get", "release-checklist").stdout
    assert "did you mean release-checklist?" in cli(root, "skills", "get", "release", code=2).stderr
    cli(root, "skills", "use", "release-checklist")
    cli(root, "skills", "rate", "release-checklist", "1", "--comment", "wrong order", agent="bob")
    cli(root, "skills", "rate", "release-checklist", "2", agent="carol")
    cli(root, "skills", "rate", "release-checklist", "7", code=2)
    flagged = json.loads(cli(root, "skills", "list", "--flagged", "--json").stdout)
    assert [(f["skill"]["name"], f["flagged"], f["average"], f["uses"]) for f in flagged] == [("release-checklist", True, 1.5, 1)]
    proposal = json.loads(cli(root, "skills", "propose", "release-checklist", "-", "--rationale", "order fixed", "--json",
                              stdin="1. Tag.\n2. Run the tests.\n", agent="bob").stdout)
    assert proposal["status"] == "open" and proposal["base_version"] == 1
    assert "-1. Run the tests." in cli(root, "skills", "show-proposal", proposal["id"]).stdout
    cli(root, "skills", "resolve", proposal["id"], "--reject", "--reason", "tests first", agent="ann")
    assert cli(root, "skills", "proposals", code=1).stderr.startswith("no proposal")
    rejected = cli(root, "skills", "proposals", "--status", "rejected").stdout
    assert f"{proposal['id']} [rejected by ann]" in rejected
    session = cli(root, "session", "--agent", "dave").stdout
    assert "flagged skill: release-checklist FLAGGED" in session
    cli(root, "skills", "remove", "release-checklist")
    assert not (root / ".graphctx" / "skills" / "release-checklist").exists()
    assert "a skill needs a description" in cli(root, "skills", "add", "-", "--name", "x", stdin="body", code=2).stderr
