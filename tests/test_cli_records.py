"""The record commands end to end through the console script: write, search, read, revise with a
stale version, check with --strict after the anchored code changed, and a clear error for an unknown id;
keyed writes without a title, the git user as author, the ephemeral scope refused, an empty recall
(exit 1), and a key held by two records after a real git merge."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

GRAPHCTX = [sys.executable, "-m", "graphctx.cli.main"]


def run(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run([*GRAPHCTX, *args, "--repo", str(root)], capture_output=True, text=True)
    if check:
        assert result.returncode == 0, result.stderr
    return result


def test_record_commands(tmp_path):
    (tmp_path / "m.py").write_text("def f(x):\n    return x + 1\n")
    run(tmp_path, "index")
    out = run(tmp_path, "decide", "--title", "f adds one", "--decision", "callers rely on x+1", "--anchor", "m.py::f").stdout
    assert out.startswith("created decision") and "(anchors fresh)" in out
    record_id = out.split()[2]
    run(tmp_path, "remember", "--title", "Use f", "--body", "Always call f", "--type", "convention", "--anchor", "m.py::f")
    assert "Use f" in run(tmp_path, "recall", "call").stdout
    got = json.loads(run(tmp_path, "recall", "--id", record_id).stdout)
    assert got["decision"] == "callers rely on x+1" and got["version"] == 1
    assert "record" in run(tmp_path, "context", "f").stdout
    revised = run(tmp_path, "revise", record_id, "--version", "1", "--set", "status=deprecated").stdout
    assert revised.startswith("updated") and " v2 " in revised
    stale = run(tmp_path, "revise", record_id, "--version", "1", "--set", "title=x", check=False)
    assert stale.returncode == 2 and "Traceback" not in stale.stderr
    assert run(tmp_path, "check", "--strict").returncode == 0
    (tmp_path / "m.py").write_text("def f(x):\n    return x + 2\n")
    run(tmp_path, "index")
    failed = run(tmp_path, "check", "--strict", check=False)
    assert failed.returncode == 1 and "Use f" in failed.stdout
    unknown = run(tmp_path, "recall", "--id", "nope", check=False)
    assert unknown.returncode == 2 and "no record" in unknown.stderr and "Traceback" not in unknown.stderr


# ---------------------------------------------------------------- keyed writes, authorship, scopes, conflicts

POOL = "class Pool:\n    def acquire(self):\n        return self.free.pop()\n\n    def release(self, conn):\n        self.free.append(conn)\n"


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def cli(root: Path, *args: str, code: int = 0) -> subprocess.CompletedProcess:
    """The console script without $GRAPHCTX_AUTHOR (so the git user signs), expecting exit status `code`."""
    env = {name: value for name, value in os.environ.items() if name != "GRAPHCTX_AUTHOR"}
    result = subprocess.run([*GRAPHCTX, *args, "--repo", str(root)], capture_output=True, text=True, env=env)
    assert result.returncode == code, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    return result


@pytest.fixture
def pool_repo(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "db").mkdir(parents=True)
    (root / "db" / "pool.py").write_text(POOL)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Ada Lovelace")
    git(root, "config", "user.email", "ada@example.com")
    cli(root, "index")
    git(root, "add", ".")
    git(root, "commit", "-qm", "initial")
    return root


def test_keyed_remember_needs_no_title_keeps_the_rest_and_is_signed_by_the_git_user(pool_repo: Path):
    wrote = cli(pool_repo, "remember", "--title", "Pool size is ten", "--body", "ten", "--type", "convention",
                "--category", "infra.db", "--key", "pool-size", "--confidence", "0.8", "--tag", "db",
                "--anchor", "db/pool.py::Pool.acquire").stdout
    record_id = wrote.split()[2]
    updated = cli(pool_repo, "remember", "--category", "infra.db", "--key", "pool-size", "--body", "twenty").stdout
    assert updated.startswith(f"updated knowledge {record_id} v2 'Pool size is ten' (anchors fresh)")
    record = json.loads(cli(pool_repo, "recall", "--id", record_id).stdout)
    assert (record["title"], record["type"], record["confidence"], record["tags"], record["body"]) == (
        "Pool size is ten", "convention", 0.8, ["db"], "twenty")
    assert [a["entity"] for a in record["anchors"]] == ["db/pool.py::Pool.acquire"]
    assert record["author"] == "Ada Lovelace"
    created = json.loads(cli(pool_repo, "remember", "--category", "infra.db", "--key", "idle-timeout",
                             "--body", "300 s", "--json").stdout)
    assert created["action"] == "created" and created["record"]["title"] == "Idle timeout"
    named = json.loads(cli(pool_repo, "decide", "--title", "t", "--decision", "d", "--author", "review-board",
                           "--json").stdout)
    assert named["record"]["author"] == "review-board"
    neither = cli(pool_repo, "remember", "--body", "no title, no key", code=2)
    assert "needs a title, or a key" in neither.stderr


def test_the_ephemeral_scope_is_refused_with_the_reason(pool_repo: Path):
    for command in (["remember", "--title", "t", "--body", "b"], ["decide", "--title", "t", "--decision", "d"]):
        refused = cli(pool_repo, *command, "--scope", "ephemeral", code=2)
        assert "this process ends with its command, so the record would vanish at once" in refused.stderr
    kept = cli(pool_repo, "remember", "--title", "t", "--body", "b", "--scope", "private").stdout.split()[2]
    moved = cli(pool_repo, "revise", kept, "--version", "1", "--set", "scope=ephemeral", code=2)
    assert "would vanish" in moved.stderr
    assert cli(pool_repo, "recall", "--id", kept).stdout.count('"scope": "private"') == 1


def test_an_empty_recall_says_so_and_exits_1(pool_repo: Path):
    assert cli(pool_repo, "recall", "anything", code=1).stdout.startswith("no record matches")
    cli(pool_repo, "remember", "--title", "Pool size", "--body", "ten")
    assert "Pool size" in cli(pool_repo, "recall", "pool").stdout
    assert cli(pool_repo, "recall", "unrelated", code=1).stdout.startswith("no record matches")
    empty = json.loads(cli(pool_repo, "recall", "pool", "--kind", "decision", "--json", code=1).stdout)
    assert empty["hits"] == [] and empty["total"] == 0


def branch_with_record(root: Path, branch: str, body: str) -> str:
    git(root, "checkout", "-q", "-b", branch, "main")
    record_id = cli(root, "remember", "--title", f"Pool size from {branch}", "--body", body, "--category", "infra.db",
                    "--key", "pool-size", "--anchor", "db/pool.py::Pool.acquire").stdout.split()[2]
    git(root, "add", ".graphctx")
    git(root, "commit", "-qm", f"pool size on {branch}")
    return record_id


def test_a_key_held_by_two_records_after_a_merge(pool_repo: Path):
    first = branch_with_record(pool_repo, "ten", "ten")
    second = branch_with_record(pool_repo, "twenty", "twenty")
    git(pool_repo, "checkout", "-q", "ten")
    git(pool_repo, "merge", "-q", "--no-edit", "twenty")
    both = f"records {first} and {second} both have key 'pool-size' in category 'infra.db'"

    found = cli(pool_repo, "recall", "pool size")
    assert {line.split()[0] for line in found.stdout.splitlines()} == {first, second}
    assert f"warning: {both}" in found.stderr and "retract one of them" in found.stderr
    page = json.loads(cli(pool_repo, "recall", "pool size", "--json").stdout)
    assert [c["ids"] for c in page["conflicts"]] == [[first, second]]
    assert both in cli(pool_repo, "recall", "--id", second).stderr

    checked = cli(pool_repo, "check", "--strict", code=1).stdout
    assert f"conflict: {both}" in checked and "1 key(s) held by several records" in checked
    assert json.loads(cli(pool_repo, "check", "--json").stdout)["conflicts"][0]["ids"] == [first, second]

    refused = cli(pool_repo, "remember", "--category", "infra.db", "--key", "pool-size", "--body", "thirty", code=2)
    assert f"held by 2 records, {first} and {second}" in refused.stderr and "will not pick one" in refused.stderr

    cli(pool_repo, "revise", first, "--version", "1", "--retract", "--reason", "twenty won")
    assert "conflict" not in cli(pool_repo, "check", "--strict").stdout
    updated = cli(pool_repo, "remember", "--category", "infra.db", "--key", "pool-size", "--body", "thirty").stdout
    assert updated.startswith(f"updated knowledge {second} v2")
    restore = cli(pool_repo, "revise", first, "--version", "2", "--set", "retracted=false", code=2)
    assert f"already belongs to record {second}" in restore.stderr
