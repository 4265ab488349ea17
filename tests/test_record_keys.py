"""Keyed writes, authorship and scopes of the records library, on real files, git and SQLite: a keyed
upsert without a title keeps the record's title and anchors, a write that names no author is signed
by the git user, a one-shot store refuses the ephemeral scope, and two records holding one key after
a real git merge of two branches are reported by recall and check and refused by a keyed write."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from graphctx.index.indexer import index_repository
from graphctx.records import InvalidRecord, RecordStore
from graphctx.records.keys import title_from_key

APP = '''\
class Pool:
    def acquire(self):
        return self.free.pop()

    def release(self, conn):
        self.free.append(conn)
'''


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("GRAPHCTX_AUTHOR", raising=False)
    root = tmp_path / "project"
    (root / "db").mkdir(parents=True)
    (root / "db" / "pool.py").write_text(APP)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Ada Lovelace")
    git(root, "config", "user.email", "ada@example.com")
    index_repository(root)
    git(root, "add", ".")
    git(root, "commit", "-qm", "initial")
    return root


def test_keyed_upsert_without_title_keeps_title_anchors_and_unnamed_fields(repo: Path):
    with RecordStore(repo) as store:
        first = store.remember(title="Pool size is ten", body="ten connections", type="convention",
                               category="infra.db", key="pool-size", confidence=0.8,
                               anchors=["db/pool.py::Pool.acquire"])[0].record
        update = store.remember(category="infra.db", key="pool-size", body="twenty connections")[0]
        assert update.action == "updated" and update.record.id == first.id and update.record.version == 2
        kept = store.get(first.id)
        assert (kept.title, kept.type, kept.confidence, kept.body) == (
            "Pool size is ten", "convention", 0.8, "twenty connections")
        assert kept.anchors == first.anchors and kept.staleness.state == "fresh"
        moved = store.remember(category="infra.db", key="pool-size", anchors=["db/pool.py::Pool.release"])[0].record
        assert [a.entity for a in moved.anchors] == ["db/pool.py::Pool.release"] and moved.body == "twenty connections"
        created = store.remember(category="infra.db", key="max_idle.seconds", body="300")[0]
        assert created.action == "created" and created.record.title == "Max idle seconds"


@pytest.mark.parametrize(("key", "title"), [
    ("pool-size", "Pool size"), ("db_pool.max", "Db pool max"), ("HTTP-timeout", "HTTP timeout"), ("x", "X"),
])
def test_title_from_key(key: str, title: str):
    assert title_from_key(key) == title


def test_a_write_naming_no_author_is_signed_by_the_git_user(repo: Path, monkeypatch: pytest.MonkeyPatch):
    with RecordStore(repo) as store:
        note = store.remember(title="n", body="b")[0].record
        decision = store.decide("d", "decided")
        named = store.remember(title="m", body="b", author="reviewer")[0].record
    assert (note.author, decision.record.author, named.author) == ("Ada Lovelace", "Ada Lovelace", "reviewer")
    monkeypatch.setenv("GRAPHCTX_AUTHOR", "nightly-bot")
    with RecordStore(repo) as store:
        assert store.remember(title="o", body="b")[0].record.author == "nightly-bot"
    with RecordStore(repo, author="agent-9") as store:
        assert store.decide("e", "decided").record.author == "agent-9"


def test_a_one_shot_store_refuses_the_ephemeral_scope(repo: Path):
    with RecordStore(repo, holds_ephemeral=False) as store:
        kept = store.remember(title="kept", body="b", scope="private")[0].record
        attempts = [
            lambda: store.remember(title="gone", body="b", scope="ephemeral"),
            lambda: store.remember([{"title": "gone", "body": "b", "scope": "ephemeral"}]),
            lambda: store.decide("gone", "decided", scope="ephemeral"),
            lambda: store.revise(kept.id, kept.version, scope="ephemeral"),
        ]
        for attempt in attempts:
            with pytest.raises(InvalidRecord, match="would vanish at once; use scope 'private'"):
                attempt()
        assert [h.id for h in store.recall("").hits] == [kept.id]
        assert store.get(kept.id).scope == "private"


def branch_with_record(root: Path, branch: str, body: str) -> str:
    """On a new branch from main, remember the pool-size key and commit it; returns the record's id."""
    git(root, "checkout", "-q", "-b", branch, "main")
    with RecordStore(root) as store:
        result = store.remember(title=f"Pool size from {branch}", body=body, category="infra.db", key="pool-size")[0]
    assert result.action == "created"
    git(root, "add", ".graphctx")
    git(root, "commit", "-qm", f"pool size on {branch}")
    return result.record.id


@pytest.fixture
def merged(repo: Path) -> tuple[Path, str, str]:
    """Two branches that each created the record for one key, merged: two files, one key."""
    first = branch_with_record(repo, "ten", "ten connections")
    second = branch_with_record(repo, "twenty", "twenty connections")
    git(repo, "checkout", "-q", "ten")
    git(repo, "merge", "-q", "--no-edit", "twenty")
    return repo, first, second


def test_a_key_held_by_two_records_after_a_merge_is_reported_and_never_picked(merged):
    repo, first, second = merged
    with RecordStore(repo) as store:
        page = store.recall("pool size")
        assert {h.id for h in page.hits} == {first, second}
        [conflict] = page.conflicts
        assert (conflict.scope, conflict.category, conflict.key, conflict.ids) == (
            "shared", "infra.db", "pool-size", [first, second])
        assert f"records {first} and {second} both have key 'pool-size'" in conflict.message
        assert "retract one of them, or revise one to another key or category" in conflict.message
        assert store.check().conflicts == [conflict]
        assert store.conflicts([second]) == [conflict] and store.recall("", category="other").conflicts == []
        with pytest.raises(InvalidRecord, match=f"held by 2 records, {first} and {second}") as refused:
            store.remember(category="infra.db", key="pool-size", body="thirty connections")
        assert "a keyed write will not pick one" in str(refused.value)
        assert f"{first}  Pool size from ten" in refused.value.suggestions
        assert {store.get(i).body for i in (first, second)} == {"ten connections", "twenty connections"}

        # Editing one without moving its key is allowed; retracting one resolves the conflict.
        older = store.get(first)
        store.revise(first, older.version, title="Pool size (ten, superseded)")
        store.retract(first, older.version + 1, "twenty won the review")
        assert store.conflicts() == [] and store.check().conflicts == []
        update = store.remember(category="infra.db", key="pool-size", body="thirty connections")[0]
        assert update.action == "updated" and update.record.id == second
        # Restoring the retracted one would make two holders again: refused with the holder's id.
        retracted = store.get(first)
        with pytest.raises(InvalidRecord, match=f"already belongs to record {second}"):
            store.revise(first, retracted.version, retracted=False)


def test_a_key_held_only_by_retracted_records_is_not_picked_either(merged):
    repo, first, second = merged
    with RecordStore(repo) as store:
        for record_id in (first, second):
            store.retract(record_id, store.get(record_id).version)
        assert store.conflicts() == []
        with pytest.raises(InvalidRecord, match=f"held only by the retracted records {first} and {second}"):
            store.remember(category="infra.db", key="pool-size", body="thirty")
        store.revise(second, store.get(second).version, retracted=False)
        restored = store.remember(category="infra.db", key="pool-size", body="thirty")[0]
        assert restored.record.id == second and restored.record.body == "thirty"
