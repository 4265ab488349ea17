"""Git sync of the team's memory between two clones of one repository (a bare origin, as a team has):
a record revised in different sections on each side merges cleanly (its version moves past both,
which a line merge cannot do), the same section edited on both sides goes to the agent strategy
(conflicts, show, resolve, finalize), `--strategy ours` settles it by itself; the CLI and a real MCP
session."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from conftest import make_shop
from test_server_work import one, ok, refused
from test_skills import cli

BODY = "# Rounding\nRound half up.\n# Currency\nEuro only."


def git(root, *args):
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def identity(root, name):
    git(root, "config", "user.name", name)
    git(root, "config", "user.email", f"{name}@example.com")


@pytest.fixture
def clones(tmp_path):
    """(a, b, record id, record file): clone a wrote a two-section record and pushed it; b cloned after."""
    a = make_shop(tmp_path / "a")
    identity(a, "ann")
    git(a, "add", "-A")
    git(a, "commit", "-qm", "shop")
    git(tmp_path, "clone", "-q", "--bare", str(a), str(tmp_path / "origin.git"))
    git(a, "remote", "add", "origin", str(tmp_path / "origin.git"))
    git(a, "fetch", "-q", "origin")
    git(a, "branch", "-u", f"origin/{git(a, 'branch', '--show-current').strip()}")
    record = json.loads(cli(a, "remember", "--title", "Pricing rules", "--body", BODY, "--json").stdout)["record"]
    assert cli(a, "sync", "push").stdout.strip() == "pushed the team's memory (committed the changes first)"
    git(tmp_path, "clone", "-q", str(tmp_path / "origin.git"), str(tmp_path / "b"))
    b = tmp_path / "b"
    identity(b, "bob")
    return a, b, record["id"], record["path"]


def revise(root, record_id, version, old, new, agent):
    body = json.loads(cli(root, "recall", "--id", record_id, "--json").stdout)["body"]
    cli(root, "revise", record_id, "--version", str(version), "--set", f"body={body.replace(old, new)}", agent=agent)


def body_of(root, record_id):
    data = json.loads(cli(root, "recall", "--id", record_id, "--json").stdout)
    return data["body"], data["version"]


def test_two_clones_merge_sections_then_settle_a_conflict(clones):
    a, b, record_id, path = clones
    status = cli(b, "sync", "status").stdout
    assert "0 ahead, 0 behind" in status and "team memory: all committed" in status
    revise(a, record_id, 1, "Round half up.", "Round half to even.", "ann")
    cli(a, "sync", "push")
    revise(b, record_id, 1, "Euro only.", "Euro and dollar.", "bob")
    assert cli(b, "sync", "pull").stdout.strip() == "pulled and merged the team's memory"
    assert body_of(b, record_id) == ("# Rounding\nRound half to even.\n# Currency\nEuro and dollar.", 3)
    merge_base = git(b, "merge-base", "HEAD^1", "HEAD^2").strip()
    sides = []
    for name, rev in (("base", merge_base), ("ours", "HEAD^1"), ("theirs", "HEAD^2")):
        sides.append(b.parent / name)
        sides[-1].write_text(git(b, "show", f"{rev}:{path}"))
    line_merge = subprocess.run(["git", "merge-file", "-p", str(sides[1]), str(sides[0]), str(sides[2])],
                                capture_output=True, text=True)
    assert line_merge.returncode > 0  # git's own line merge conflicts on the version both sides wrote
    cli(b, "sync", "push")
    cli(a, "sync", "pull")
    assert body_of(a, record_id)[1] == 3
    # The same section on both sides: left to the agent.
    revise(a, record_id, 3, "Round half to even.", "Round down.", "ann")
    cli(a, "sync", "push")
    revise(b, record_id, 3, "Round half to even.", "Round up.", "bob")
    pulled = cli(b, "sync", "pull", code=1).stdout
    assert "1 conflicted file(s) left to resolve" in pulled and path in pulled
    assert cli(b, "sync", "conflicts").stdout.strip() == path
    shown = cli(b, "sync", "show", path).stdout
    assert shown.startswith(f"{path}: conflicting: section '# Rounding'")
    assert "section '# Currency': same on both sides" in shown and "--- theirs" in shown and "Round down." in shown
    status = cli(b, "sync", "status", "--json").stdout
    assert json.loads(status)["merging"] and json.loads(status)["conflicts"] == [path]
    assert "still conflicted" in cli(b, "sync", "finalize", code=2).stderr
    assert "<<<<<<< ours" in (b / path).read_text()
    assert "still has conflict markers" in cli(b, "sync", "resolve", path, "--content", str(b / path), code=2).stderr
    assert cli(b, "sync", "resolve", path, "--take", "theirs").stdout.strip() == f"resolved {path} (conflicts taken from theirs)"
    cli(b, "sync", "finalize")
    assert body_of(b, record_id) == ("# Rounding\nRound down.\n# Currency\nEuro and dollar.", 5)
    assert "not a conflicted file" in cli(b, "sync", "show", path, code=2).stderr
    assert "no merge is in progress" in cli(b, "sync", "finalize", code=2).stderr


def test_strategy_ours_settles_a_conflict_by_itself(clones):
    a, b, record_id, path = clones
    revise(a, record_id, 1, "Euro only.", "Pounds.", "ann")
    cli(a, "sync", "push")
    revise(b, record_id, 1, "Euro only.", "Yen.", "bob")
    assert cli(b, "sync", "pull", "--strategy", "ours").stdout.strip() == "pulled and merged the team's memory"
    assert body_of(b, record_id) == ("# Rounding\nRound half up.\n# Currency\nYen.", 3)
    assert git(b, "status", "--porcelain").strip() == ""


def test_sync_refuses_outside_git(tmp_path):
    root = make_shop(tmp_path / "shop")
    subprocess.run(["rm", "-rf", str(root / ".git")], check=True)
    assert "is not a git work tree" in cli(root, "sync", "status", code=2).stderr


def test_sync_over_mcp(clones, tmp_path):
    from graphctx.server import build_server

    a, b, record_id, path = clones
    revise(a, record_id, 1, "Round half up.", "Round down.", "ann")
    cli(a, "sync", "push")
    revise(b, record_id, 1, "Round half up.", "Round up.", "bob")
    cli(b, "index", "-q")
    server = build_server(b, watch=False)
    try:
        assert "1 behind" in ok(one(server, "bob", "sync", {"action": "status"}))
        assert path in ok(one(server, "bob", "sync", {"action": "pull"}))
        assert ok(one(server, "bob", "sync", {"action": "conflicts"})) == path
        shown = one(server, "bob", "sync", {"action": "show", "path": path, "format": "json"}).structured_content
        assert shown["conflicting"] == ["section '# Rounding'"] and "Round down." in shown["theirs"]
        resolved = re.sub(r"<<<<<<< ours\n.*?>>>>>>> theirs", "# Rounding\nRound to the cent.", shown["current"],
                          flags=re.S)
        assert ok(one(server, "bob", "sync", {"action": "resolve", "path": path, "content": resolved})) == f"resolved {path}"
        assert "merge committed" in ok(one(server, "bob", "sync", {"action": "finalize"}))
        assert "sync action=show needs path" in refused(one(server, "bob", "sync", {"action": "show"}))
        ok(one(server, "bob", "sync", {"action": "push"}))
    finally:
        server.graphctx_state.fresh.stop()
    cli(a, "sync", "pull")
    assert body_of(a, record_id)[0] == "# Rounding\nRound to the cent.\n# Currency\nEuro only."
