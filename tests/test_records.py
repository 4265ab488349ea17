"""The records layer on real files, real git and real SQLite: round trips, staleness after real
edits and re-indexing, concurrent writers, bad input, upserts, superseding, search and navigation."""

from __future__ import annotations

import multiprocessing
import subprocess
from pathlib import Path

import pytest

from graphctx.index.indexer import index_repository
from graphctx.records import (
    BrokenRecordFile, Decision, InvalidRecord, Knowledge, RecordError, RecordNotFound, RecordStore, StaleVersion,
)
from graphctx.records import files, ids

APP = '''\
def add(a, b):
    """Add two numbers."""
    return a + b


def scale(value, factor):
    return value * factor


class Store:
    def get(self, key):
        return self.data[key]

    def put(self, key, value):
        self.data[key] = value
'''

UTIL = '''\
def helper():
    return 42
'''


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"):
        monkeypatch.setenv(name, "Tester")
    for name in ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"):
        monkeypatch.setenv(name, "tester@example.com")
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "app.py").write_text(APP)
    (root / "pkg" / "util.py").write_text(UTIL)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "initial")
    index_repository(root)
    return root


@pytest.fixture
def store(repo: Path):
    with RecordStore(repo, author="agent-1") as opened:
        yield opened


def edit(root: Path, path: str, old: str, new: str) -> None:
    target = root / path
    text = target.read_text()
    assert old in text, f"{old!r} not in {path}"
    target.write_text(text.replace(old, new))


def reindex(root: Path) -> None:
    index_repository(root)


# ---------------------------------------------------------------- round trips


def test_knowledge_round_trip_every_field(store: RecordStore, repo: Path):
    [result] = store.remember(
        title="Use WAL mode for SQLite", body="SQLite runs in **WAL** mode.\n\n## Why\n\nReaders never block.",
        type="convention", category="Infra.Database", key="sqlite-journal", confidence=0.75,
        tags=["SQLite", "storage", "sqlite"], refs=["https://sqlite.org/wal.html", "docs/storage.md"],
        anchors=["pkg/app.py::Store.get", "pkg/util.py"], author="agent-7",
    )
    assert result.action == "created"
    written = result.record
    assert ids.is_id(written.id) and written.version == 1 and written.scope == "shared"
    assert written.category == "infra.database" and written.tags == ["sqlite", "storage"]
    assert written.author == "agent-7" and written.confidence == 0.75 and written.key == "sqlite-journal"
    assert [a.entity for a in written.anchors] == ["pkg/app.py::Store.get", "pkg/util.py"]
    anchor = written.anchors[0]
    assert anchor.sig_hash and anchor.body_hash and anchor.generation == 1
    assert anchor.commit == git(repo, "rev-parse", "HEAD").strip()
    assert written.staleness.state == "fresh"

    path = repo / written.path
    assert path.parent == repo / ".graphctx" / "records" / "knowledge" and path.name.startswith(written.id)
    # The file alone holds the record: parse it back, and read it through a fresh store and index.
    from_file = files.read(repo, path, "shared")
    fields = set(Knowledge.model_fields) - {"staleness"}
    assert from_file.model_dump(include=fields) == written.model_dump(include=fields)
    (repo / ".graphctx" / "records.db").unlink()
    with RecordStore(repo) as other:
        got = other.get(written.id.lower())
    assert got.model_dump(include=fields) == written.model_dump(include=fields)
    text = path.read_text()
    assert text.startswith("---\nid: " + written.id) and "staleness" not in text and "scope" not in text


def test_decision_round_trip_every_field(store: RecordStore, repo: Path):
    old = store.decide("Keep data in JSON files", "JSON files in data/.").record
    result = store.decide(
        "Store data in SQLite", "Use one SQLite file with WAL.", context="JSON files corrupt on crash.\n\nWe need atomicity.",
        consequences="- one dependency less\n- a schema to migrate", status="accepted", supersedes=[old.id],
        tags=["storage"], anchors=["pkg/app.py::Store"], author="agent-2",
    )
    new = result.record
    assert isinstance(new, Decision) and result.changed == [old.id]
    assert (new.title, new.decision, new.status, new.supersedes, new.tags, new.author) == (
        "Store data in SQLite", "Use one SQLite file with WAL.", "accepted", [old.id], ["storage"], "agent-2")
    assert new.context == "JSON files corrupt on crash.\n\nWe need atomicity."
    assert new.consequences == "- one dependency less\n- a schema to migrate"
    text = (repo / new.path).read_text()
    assert "## Context\n\nJSON files corrupt on crash." in text and "superseded_by" not in text
    assert "/decisions/" in new.path
    fields = set(Decision.model_fields) - {"staleness"}
    assert store.get(new.id).model_dump(include=fields) == new.model_dump(include=fields)


def test_decision_whose_text_looks_like_a_section_heading_round_trips(store: RecordStore, repo: Path):
    tricky = "First this.\n\n## Consequences\n\nnot really the consequences section"
    new = store.decide("Tricky", tricky, context="## Decision\n\ninside context").record
    again = files.read(repo, repo / new.path, "shared")
    assert (again.context, again.decision, again.consequences) == ("## Decision\n\ninside context", tricky, "")


def test_hand_written_record_without_id_loads(store: RecordStore, repo: Path):
    folder = repo / ".graphctx" / "records" / "knowledge"
    folder.mkdir(parents=True)
    (folder / "deploy-notes.md").write_text("---\ntitle: Deploy notes\ntype: how-to\ncreated: 2024-01-02T03:04:05Z\n"
                                            "updated: 2024-01-02 03:04:05\n---\nRun `make deploy`.\n")
    record = store.get("deploy-notes")
    assert record.title == "Deploy notes" and record.type == "how-to" and record.body == "Run `make deploy`."
    assert record.updated.tzinfo is not None
    assert store.recall("deploy").hits[0].id == "deploy-notes"


# ---------------------------------------------------------------- staleness after real edits


def anchored(store: RecordStore, entity: str) -> str:
    return store.remember(title=f"About {entity}", body="Some knowledge.", anchors=[entity])[0].record.id


def test_staleness_verdicts_after_edits_and_reindex(store: RecordStore, repo: Path):
    body_id = anchored(store, "pkg/app.py::add")
    sig_id = anchored(store, "pkg/app.py::scale")
    moved_id = anchored(store, "pkg/util.py::helper")
    gone_id = anchored(store, "pkg/app.py::Store.put")
    fresh_id = anchored(store, "pkg/app.py::Store.get")
    unbound_id = store.remember(title="Free note", body="No code.")[0].record.id

    edit(repo, "pkg/app.py", "return a + b", "return b + a")
    edit(repo, "pkg/app.py", "def scale(value, factor):", "def scale(value, factor=2):")
    edit(repo, "pkg/app.py", "    def put(self, key, value):\n        self.data[key] = value\n", "")
    git(repo, "mv", "pkg/util.py", "pkg/helpers.py")
    reindex(repo)

    states = {rid: store.get(rid).staleness for rid in (body_id, sig_id, moved_id, gone_id, fresh_id, unbound_id)}
    assert states[body_id].state == "drifted"
    assert states[sig_id].state == "contract-changed"
    assert states[moved_id].state == "moved"
    assert states[moved_id].anchors[0].candidates == ["pkg/helpers.py::helper"]
    assert "pkg/helpers.py::helper" in states[moved_id].message
    assert states[gone_id].state == "orphaned"
    assert states[fresh_id].state == "fresh"
    assert states[unbound_id].state == "unbound"
    # Staleness never hides a record.
    assert {h.id for h in store.recall("about", limit=50).hits} >= {body_id, sig_id, moved_id, gone_id}

    # verify re-stamps: drifted and moved become fresh (the move re-anchored), orphaned stays.
    for rid in (body_id, sig_id, moved_id):
        result = store.verify(rid)
        assert result.action == "updated" and result.record.staleness.state == "fresh"
    assert store.get(moved_id).anchors[0].entity == "pkg/helpers.py::helper"
    assert store.verify(gone_id).record.staleness.state == "orphaned"
    assert store.verify(fresh_id).action == "unchanged"


def test_function_moved_to_another_file_is_moved(store: RecordStore, repo: Path):
    rid = anchored(store, "pkg/app.py::scale")
    edit(repo, "pkg/app.py", "def scale(value, factor):\n    return value * factor\n", "")
    (repo / "pkg" / "util.py").write_text(UTIL + "\n\ndef scale(value, factor):\n    return value * factor\n")
    reindex(repo)
    staleness = store.get(rid).staleness
    assert staleness.state == "moved" and staleness.anchors[0].candidates == ["pkg/util.py::scale"]


def test_file_anchor_drifts_when_the_file_changes(store: RecordStore, repo: Path):
    rid = anchored(store, "pkg/util.py")
    edit(repo, "pkg/util.py", "42", "43")
    reindex(repo)
    assert store.get(rid).staleness.state == "drifted"


def test_anchor_takes_the_hashes_the_agent_was_served(store: RecordStore, repo: Path):
    # The agent was served `add` before someone changed it; its note is about the old code.
    store.note_served([{"id": "pkg/app.py::add", "sig_hash": "sig-old", "body_hash": "body-old"}])
    rid = store.remember(title="add is commutative", body="x", anchors=["pkg/app.py::add"])[0].record.id
    record = store.get(rid)
    assert record.anchors[0].body_hash == "body-old" and record.staleness.state == "contract-changed"
    # Explicit hashes win too.
    given = {"entity": "pkg/app.py::scale", "sig_hash": "s", "body_hash": "b"}
    other = store.remember(title="scale", body="x", anchors=[given])[0].record
    assert other.anchors[0].sig_hash == "s" and other.staleness.state == "contract-changed"


def test_unknown_anchor_is_refused_with_suggestions(store: RecordStore):
    with pytest.raises(InvalidRecord) as caught:
        store.remember(title="x", body="y", anchors=["pkg/app.py::ad"])
    assert "no entity" in str(caught.value) and "pkg/app.py::add" in caught.value.suggestions
    # A unique qualified name is accepted and resolved to its id.
    record = store.remember(title="x", body="y", anchors=["Store.get"])[0].record
    assert record.anchors[0].entity == "pkg/app.py::Store.get"


def test_records_for_entities_and_paths(store: RecordStore, repo: Path):
    on_get = anchored(store, "pkg/app.py::Store.get")
    on_util = anchored(store, "pkg/util.py::helper")
    decision = store.decide("Keys are strings", "Store keys are str.", anchors=["pkg/app.py::Store.put"]).record.id
    found = store.records_for_entities(["pkg/app.py::Store.get"])
    assert [item.record.id for item in found] == [on_get]
    assert found[0].matched == ["pkg/app.py::Store.get"] and found[0].record.staleness.state == "fresh"
    by_file = store.records_for_entities(paths=["pkg/app.py"])
    assert [item.record.id for item in by_file] == [decision, on_get]  # accepted decisions first
    by_folder = {item.record.id for item in store.records_for_entities(paths=["pkg"])}
    assert by_folder == {on_get, on_util, decision}
    edit(repo, "pkg/util.py", "42", "41")
    reindex(repo)
    [item] = store.records_for_entities(["pkg/util.py::helper"])
    assert item.record.staleness.state == "drifted"


def test_check_lists_decisions_and_conventions_on_changed_code(store: RecordStore, repo: Path):
    decision = store.decide("add stays pure", "No side effects in add.", anchors=["pkg/app.py::add"]).record.id
    convention = store.remember(title="helper returns ints", body="x", type="convention",
                                anchors=["pkg/util.py::helper"])[0].record.id
    store.remember(title="a plain note", body="x", anchors=["pkg/app.py::add"])  # notes are not checked
    store.decide("proposal", "x", status="proposed", anchors=["pkg/app.py::add"])  # nor proposals
    assert store.check().items == [] and store.check(base_rev="HEAD").items == []
    base = git(repo, "rev-parse", "HEAD").strip()

    edit(repo, "pkg/app.py", "return a + b", "return a + b + 0")
    git(repo, "commit", "-qam", "change add")
    # Against base, even before re-indexing: the code of add differs between base and the working tree.
    report = store.check(base_rev=base)
    assert [(i.record.id, [c.change for c in i.changes]) for i in report.items] == [(decision, ["body"])]
    assert report.checked == 2
    edit(repo, "pkg/util.py", "def helper():", "def helper(x=1):")
    reindex(repo)
    report = store.check()
    assert {i.record.id: i.changes[0].change for i in report.items} == {decision: "drifted", convention: "contract-changed"}
    with pytest.raises(RecordError, match="cannot compare"):
        store.check(base_rev="no-such-rev")


# ---------------------------------------------------------------- concurrency


def _create_many(root: str, worker: int, count: int) -> list[str]:
    with RecordStore(root, author=f"worker-{worker}") as store:
        return [store.remember(title=f"note {worker}-{i}", body=f"from worker {worker}, write {i}",
                               tags=[f"w{worker}"])[0].record.id for i in range(count)]


def _increment(root: str, record_id: str, times: int) -> int:
    """Add `times` lines to a record's body, each by read-then-revise; returns the conflicts met."""
    conflicts = 0
    with RecordStore(root) as store:
        done = 0
        current = store.get(record_id)
        while done < times:
            try:
                current = store.revise(record_id, current.version, body=f"{current.body}\n- tick").record
                done += 1
            except StaleVersion as stale:
                conflicts += 1
                current = stale.current  # the refusal carries the current record: merge and retry
    return conflicts


def _context():
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def test_concurrent_writers_lose_nothing(repo: Path):
    workers, each = 4, 25
    with _context().Pool(workers) as pool:
        made = pool.starmap(_create_many, [(str(repo), w, each) for w in range(workers)])
    every = [rid for batch in made for rid in batch]
    assert len(set(every)) == workers * each
    assert not list((repo / ".graphctx" / "records").rglob(".*.tmp"))
    with RecordStore(repo) as store:
        page = store.recall("", limit=100)
        assert page.total == workers * each and {h.id for h in page.hits} == set(every)
        for w in range(workers):
            assert store.recall("", tags=[f"w{w}"], limit=100).total == each
        assert store.problems() == []


def test_concurrent_revisions_are_serialized_not_lost(repo: Path):
    with RecordStore(repo) as store:
        record_id = store.remember(title="counter", body="ticks:")[0].record.id
    workers, each = 4, 10
    with _context().Pool(workers) as pool:
        conflicts = pool.starmap(_increment, [(str(repo), record_id, each) for _ in range(workers)])
    with RecordStore(repo) as store:
        final = store.get(record_id)
    assert final.body.count("- tick") == workers * each
    assert final.version == 1 + workers * each
    assert sum(conflicts) >= 0  # how many collided depends on timing; none was lost


def test_stale_version_is_refused_with_the_current_record(store: RecordStore, repo: Path):
    record = store.remember(title="shared note", body="v1")[0].record
    with RecordStore(repo) as other:
        other.revise(record.id, record.version, body="v2 by the other agent")
    with pytest.raises(StaleVersion) as caught:
        store.revise(record.id, record.version, body="v2 by me")
    current = caught.value.current
    assert current.version == 2 and current.body == "v2 by the other agent"
    assert "version=2" in str(caught.value)
    assert store.revise(record.id, current.version, body=current.body + "\nand mine").record.version == 3


def test_ids_are_unique_and_time_sorted():
    made = [ids.new_id() for _ in range(2000)]
    assert made == sorted(made) and len(set(made)) == len(made)
    assert all(ids.is_id(i) for i in made)
    assert ids.created_at(made[0]) is not None


# ---------------------------------------------------------------- bad input


def test_unknown_id_suggests_close_ids_and_titles(store: RecordStore):
    record = store.remember(title="Database migrations run at startup", body="x")[0].record
    typo = record.id[:-1] + ("0" if record.id[-1] != "0" else "1")
    with pytest.raises(RecordNotFound) as caught:
        store.get(typo)
    assert any(s.startswith(record.id) for s in caught.value.suggestions)
    assert "did you mean" in str(caught.value)
    with pytest.raises(RecordNotFound) as by_title:
        store.get("database migrations")
    assert any(s.startswith(record.id) for s in by_title.value.suggestions)
    with pytest.raises(RecordNotFound):
        store.revise("01AAAAAAAAAAAAAAAAAAAAAAAA", 1, title="x")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda s: s.decide("t", "d", status="done"), "invalid status 'done': use one of proposed, accepted"),
        (lambda s: s.remember(title="t", body="b", type="rumour"), "invalid type 'rumour'"),
        (lambda s: s.remember(title="t", body="b", confidence=1.5), "confidence 1.5 is out of range"),
        (lambda s: s.remember(title="t", body="b", confidence="high"), "is not a number"),
        (lambda s: s.remember(title="t", body="b", category="Not A Category!"), "invalid category"),
        (lambda s: s.remember(title="  ", body="b"), "non-empty title"),
        (lambda s: s.remember(title="t", body="b", colour="red"), "no field 'colour'"),
        (lambda s: s.decide("t", ""), "needs the decision text"),
        (lambda s: s.remember(title="t", scope="public"), "invalid scope 'public'"),
        (lambda s: s.recall(status="open"), "invalid status 'open'"),
        (lambda s: s.recall(limit=0), "limit 0 is out of range"),
        (lambda s: s.recall(min_confidence=2), "min_confidence 2"),
    ],
)
def test_invalid_input_names_the_problem_and_the_fix(store: RecordStore, call, message):
    with pytest.raises(InvalidRecord) as caught:
        call(store)
    assert message in str(caught.value)


def test_revise_rejects_invalid_status_and_unknown_fields(store: RecordStore):
    decision = store.decide("d", "text").record
    with pytest.raises(InvalidRecord, match="invalid status 'finished'"):
        store.revise(decision.id, decision.version, status="finished")
    with pytest.raises(InvalidRecord, match="no field 'body'"):
        store.revise(decision.id, decision.version, body="x")
    assert store.get(decision.id).version == 1  # nothing was written


def test_broken_front_matter_names_the_file_and_others_still_load(store: RecordStore, repo: Path):
    good = store.remember(title="good record", body="fine")[0].record
    bad = store.remember(title="bad record", body="soon broken")[0].record
    bad_path = repo / bad.path
    bad_path.write_text(bad_path.read_text().replace("title: bad record", "title: [unclosed"))
    no_front = repo / ".graphctx" / "records" / "knowledge" / "loose.md"
    no_front.write_text("just text, no front matter\n")
    bad_value = store.remember(title="bad value", body="x")[0].record
    (repo / bad_value.path).write_text((repo / bad_value.path).read_text().replace("confidence: 1.0", "confidence: 7"))

    page = store.recall("record")
    assert [h.id for h in page.hits] == [good.id]
    problems = {p.path: p.message for p in store.problems()}
    assert set(problems) == {bad.path, bad_value.path, files.relative(repo, no_front)}
    assert "not valid YAML at line" in problems[bad.path] and bad.path in problems[bad.path]
    assert "no front matter" in problems[files.relative(repo, no_front)]
    assert "confidence 7 is out of range" in problems[bad_value.path]
    assert {p.path for p in page.problems} == set(problems)
    with pytest.raises(BrokenRecordFile) as caught:
        store.get(bad.id)
    assert caught.value.path == bad.path and bad.path in str(caught.value)
    with pytest.raises(BrokenRecordFile) as on_write:
        store.revise(bad.id, 1, title="fixed?")
    assert bad.path in str(on_write.value)

    # Fixing the file by hand brings it back.
    bad_path.write_text(bad_path.read_text().replace("title: [unclosed", "title: repaired record"))
    assert store.get(bad.id).title == "repaired record"
    assert bad.path not in {p.path for p in store.problems()}


def test_duplicate_ids_are_reported(store: RecordStore, repo: Path):
    record = store.remember(title="original", body="x")[0].record
    copy = repo / ".graphctx" / "records" / "knowledge" / f"{record.id}-copy.md"
    copy.write_text((repo / record.path).read_text())
    problems = store.problems()
    assert len(problems) == 1 and "is also the id of" in problems[0].message
    assert store.get(record.id).title == "original"


# ---------------------------------------------------------------- upsert, supersede, retract, scopes


def test_same_category_and_key_updates_the_record(store: RecordStore):
    first = store.remember(title="Deploy", body="make deploy", category="ops", key="deploy")[0]
    second = store.remember(category="ops", key="deploy", body="make release")[0]
    assert second.action == "updated" and second.record.id == first.record.id
    assert second.record.version == 2 and second.record.title == "Deploy" and second.record.body == "make release"
    assert store.remember(category="ops", key="deploy", body="make release")[0].action == "unchanged"
    other = store.remember(title="Deploy docs", body="mkdocs", category="docs", key="deploy")[0]
    assert other.action == "created" and other.record.id != first.record.id
    # In one call, a repeated key updates the record the call just wrote.
    batch = store.remember([{"title": "A", "body": "1", "category": "x", "key": "k"},
                            {"category": "x", "key": "k", "body": "2"},
                            {"title": "B", "body": "3"}])
    assert [r.action for r in batch] == ["created", "updated", "created"]
    assert batch[0].record.id == batch[1].record.id and batch[1].record.body == "2"
    # A new keyed record without a title takes one from its key.
    untitled = store.remember(category="x", key="new-key", body="no title")[0]
    assert untitled.action == "created" and untitled.record.title == "New key"
    with pytest.raises(InvalidRecord, match="needs a title, or a key"):
        store.remember(category="x", body="neither title nor key")


def test_a_bad_entry_writes_nothing(store: RecordStore, repo: Path):
    with pytest.raises(InvalidRecord, match="entry 2: field 'confidence'"):
        store.remember([{"title": "ok", "body": "x"}, {"title": "bad", "confidence": -1}])
    assert store.recall("").total == 0


def test_revise_cannot_take_a_used_key(store: RecordStore):
    store.remember(title="one", body="x", category="c", key="k1")
    two = store.remember(title="two", body="x", category="c", key="k2")[0].record
    with pytest.raises(InvalidRecord, match="already belongs to record"):
        store.revise(two.id, two.version, key="k1")


def test_supersede_is_one_write_and_superseded_by_is_derived(store: RecordStore, repo: Path):
    old = store.decide("Use JSON", "JSON files.").record
    proposal = store.decide("Use SQLite", "SQLite.", status="proposed", supersedes=old.id)
    assert proposal.changed == [] and store.get(old.id).status == "accepted"  # a proposal retires nothing yet
    accepted = store.revise(proposal.record.id, proposal.record.version, status="accepted")
    assert accepted.changed == [old.id]
    now_old = store.get(old.id)
    assert now_old.status == "superseded" and now_old.superseded_by == [proposal.record.id]
    assert "superseded_by" not in (repo / now_old.path).read_text()
    assert [h.id for h in store.recall("", kind="decision", status="accepted").hits] == [proposal.record.id]
    assert [h.id for h in store.recall("", status="superseded").hits] == [old.id]
    with pytest.raises(InvalidRecord, match="cannot supersede itself"):
        store.revise(proposal.record.id, accepted.record.version, supersedes=[old.id, proposal.record.id])
    note = store.remember(title="n", body="x")[0].record
    with pytest.raises(InvalidRecord, match="knowledge record"):
        store.decide("d", "x", supersedes=[note.id])
    with pytest.raises(RecordNotFound, match="cannot supersede"):
        store.decide("d", "x", supersedes=["01AAAAAAAAAAAAAAAAAAAAAAAA"])
    private = store.decide("private call", "x", scope="private").record
    with pytest.raises(InvalidRecord, match="cannot supersede the shared decision"):
        store.decide("d", "x", supersedes=[old.id], scope="private")
    assert store.decide("shared call", "y", supersedes=[private.id]).changed == [private.id]


def test_retract_and_purge(store: RecordStore, repo: Path):
    record = store.remember(title="wrong fact", body="the earth is flat", type="fact")[0].record
    result = store.retract(record.id, record.version, "it is not")
    assert result.action == "retracted" and result.record.retracted and result.record.retracted_reason == "it is not"
    assert store.recall("earth").total == 0
    assert store.recall("earth", include_retracted=True).hits[0].retracted
    restored = store.revise(record.id, result.record.version, retracted=False).record
    assert not restored.retracted and store.recall("earth").total == 1
    with pytest.raises(StaleVersion):
        store.retract(record.id, 1)
    deleted = store.retract(record.id, restored.version, purge=True)
    assert deleted.action == "deleted" and not (repo / record.path).exists()
    with pytest.raises(RecordNotFound):
        store.get(record.id)


def test_scopes(store: RecordStore, repo: Path):
    shared = store.remember(title="shared thing", body="x")[0].record
    private = store.remember(title="private thing", body="x", scope="private")[0].record
    ephemeral = store.remember(title="ephemeral thing", body="x", scope="ephemeral")[0].record
    assert private.path.startswith(".graphctx/private/records/") and ephemeral.path is None
    assert {h.id for h in store.recall("thing").hits} == {shared.id, private.id, ephemeral.id}
    assert [h.id for h in store.recall("thing", scope="ephemeral").hits] == [ephemeral.id]
    ignored = subprocess.run(["git", "-C", str(repo), "check-ignore", "-q", private.path])
    assert ignored.returncode == 0
    assert subprocess.run(["git", "-C", str(repo), "check-ignore", "-q", shared.path]).returncode == 1
    gitignore = (repo / ".graphctx" / ".gitignore").read_text().splitlines()
    assert {"private/", "records.db*", "records.lock", "index.db"} <= set(gitignore)
    status = git(repo, "status", "--porcelain", "-uall")
    assert "records.db" not in status and "private" not in status
    with RecordStore(repo) as other:  # ephemeral records live only in their store
        assert {h.id for h in other.recall("thing").hits} == {shared.id, private.id}
    moved = store.revise(ephemeral.id, ephemeral.version, scope="shared").record
    assert moved.scope == "shared" and (repo / moved.path).exists()
    assert store.recall("thing", scope="ephemeral").total == 0


def test_store_without_graphctx_folder_reads_empty_and_writes_ephemeral_in_memory(tmp_path: Path):
    with RecordStore(tmp_path) as store:
        assert store.recall("anything").total == 0 and store.problems() == []
        store.remember(title="only here", body="x", scope="ephemeral")
        assert store.recall("here").total == 1
        assert not (tmp_path / ".graphctx").exists()
        with pytest.raises(InvalidRecord, match="no code index"):
            store.remember(title="t", body="b", anchors=["a.py::f"])


# ---------------------------------------------------------------- search, pagination, navigation


def test_filters(store: RecordStore, repo: Path):
    store.remember([
        {"title": "pool size", "body": "db pool of 10", "category": "infra.database", "tags": ["db"], "confidence": 0.9},
        {"title": "cache ttl", "body": "60 s", "category": "infra.cache", "tags": ["cache"], "confidence": 0.4},
        {"title": "naming", "body": "snake_case", "type": "convention", "category": "style"},
        {"title": "add pitfall", "body": "overflow", "type": "pitfall", "anchors": ["pkg/app.py::add"]},
    ])
    store.decide("use postgres", "postgres for prod", status="rejected")

    def titles(**kw):
        return sorted(h.title for h in store.recall(limit=50, **kw).hits)

    assert titles(category="infra") == ["cache ttl", "pool size"]
    assert titles(category="infra.database") == ["pool size"]
    assert titles(tags=["db"]) == ["pool size"]
    assert titles(type="convention") == ["naming"]
    assert titles(kind="decision") == ["use postgres"]
    assert titles(status="rejected") == ["use postgres"]
    assert titles(min_confidence=0.5) == ["add pitfall", "naming", "pool size", "use postgres"]
    assert titles(entity="pkg/app.py::add") == ["add pitfall"]
    assert titles(entity="pkg/app.py") == ["add pitfall"]
    assert store.recall("pool").hits[0].title == "pool size"


def test_ranking_prefers_title_matches_and_identifier_parts(store: RecordStore):
    store.remember([{"title": "Something else", "body": "mentions the migration once"},
                    {"title": "Migration order", "body": "run the migration before start"},
                    {"title": "Unrelated", "body": "nothing"}])
    store.remember(title="Connection pool", body="see ConnectionPoolFactory for details")
    hits = store.recall("migration").hits
    assert [h.title for h in hits] == ["Migration order", "Something else"]
    assert "[migration]" in hits[0].snippet.lower()
    assert store.recall("factory").hits[0].title == "Connection pool"


def test_pagination_with_cursor(store: RecordStore):
    store.remember([{"title": f"item {i:02d}", "body": "paged"} for i in range(25)])
    seen, cursor, pages = [], None, 0
    while True:
        page = store.recall("paged", limit=10, cursor=cursor, sort="recent")
        pages += 1
        assert page.total == 25
        seen += [h.title for h in page.hits]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert pages == 3 and len(seen) == 25 and len(set(seen)) == 25
    assert seen == sorted(seen, reverse=True)  # recent first: written in order in one call
    first = store.recall("paged", limit=10)
    with pytest.raises(InvalidRecord, match="different search"):
        store.recall("other words", limit=10, cursor=first.next_cursor)
    with pytest.raises(InvalidRecord, match="invalid cursor"):
        store.recall("paged", cursor="not-a-cursor")


def test_outline_section_and_tables(store: RecordStore):
    body = """Intro line.

# Setup

Install it.

## Database

| setting | value |
|---------|:-----:|
| pool    | 10    |
| wal     | on \\| yes |

```
# not a heading
| not | a table |
|-----|---------|
```

## Cache

TTL 60.

Troubleshooting
---------------

| a | b |
|---|---|
"""
    record = store.remember(title="Runbook", body=body)[0].record
    outline = store.outline(record.id)
    assert [(h.level, h.title, h.path) for h in outline] == [
        (1, "Setup", "Setup"), (2, "Database", "Setup > Database"), (2, "Cache", "Setup > Cache"),
        (2, "Troubleshooting", "Setup > Troubleshooting")]
    section = store.section(record.id, "setup > database")
    assert section.text.startswith("## Database") and "TTL" not in section.text and "# not a heading" in section.text
    assert [t.header for t in section.tables] == [["setting", "value"]]
    assert section.tables[0].rows == [["pool", "10"], ["wal", "on | yes"]]
    assert section.tables[0].line == section.heading.line + 2
    whole = store.section(record.id, "Setup").text
    assert "## Cache" in whole and whole.endswith("|---|---|") and "Intro" not in whole
    assert store.section(record.id, f"#{outline[2].line}").heading.title == "Cache"
    assert len(store.tables(record.id)) == 2
    assert store.tables(record.id, "Troubleshooting")[0].rows == []
    with pytest.raises(RecordNotFound) as caught:
        store.section(record.id, "Deploy")
    assert "Setup > Cache" in caught.value.suggestions
    decision = store.decide("d", "the call", context="why").record
    assert [h.title for h in store.outline(decision.id)] == ["Context", "Decision", "Consequences"]
    assert store.section(decision.id, "Decision").text == "## Decision\n\nthe call"


def test_hand_edits_and_a_lost_index_are_picked_up(store: RecordStore, repo: Path):
    record = store.remember(title="original title", body="x")[0].record
    assert store.recall("original").total == 1
    path = repo / record.path
    path.write_text(path.read_text().replace("original title", "edited title"))
    assert store.recall("original").total == 0 and store.recall("edited").total == 1
    store.rebuild()
    assert store.get(record.id).title == "edited title"
    path.unlink()
    assert store.recall("edited").total == 0


def test_history_is_the_files_git_history(store: RecordStore, repo: Path):
    record = store.remember(title="tracked", body="v1")[0].record
    git(repo, "add", ".graphctx")
    git(repo, "commit", "-qm", "add record")
    store.revise(record.id, 1, body="v2")
    git(repo, "commit", "-qam", "revise record")
    history = store.history(record.id)
    assert [h.subject for h in history] == ["revise record", "add record"]
    assert "+v2" in history[0].patch and history[0].author == "Tester"
    assert store.history(record.id, patch=False, limit=1)[0].patch == ""
    ephemeral = store.remember(title="e", body="x", scope="ephemeral")[0].record
    with pytest.raises(RecordError, match="ephemeral"):
        store.history(ephemeral.id)


def test_overview_for_session_start(store: RecordStore, repo: Path):
    store.remember(title="use black", body="x", type="convention")
    store.decide("sqlite", "x", anchors=["pkg/app.py::add"])
    store.decide("maybe", "x", status="proposed")
    edit(repo, "pkg/app.py", "return a + b", "return a - b")
    reindex(repo)
    overview = store.overview()
    assert [h.title for h in overview.conventions] == ["use black"]
    assert [h.title for h in overview.decisions] == ["sqlite"]
    assert [(h.title, h.staleness.state) for h in overview.stale] == [("sqlite", "drifted")]
    assert overview.counts["records"] == 3


def test_verify_only_some_anchors_and_without_following_moves(store: RecordStore, repo: Path):
    record = store.remember(title="two anchors", body="x",
                            anchors=["pkg/app.py::add", "pkg/util.py::helper"])[0].record
    edit(repo, "pkg/app.py", "return a + b", "return a + b  # changed")
    git(repo, "mv", "pkg/util.py", "pkg/other.py")
    reindex(repo)
    assert store.get(record.id).staleness.state == "drifted"
    with pytest.raises(InvalidRecord, match="not anchored to pkg/app.py::scale"):
        store.verify(record.id, entities=["pkg/app.py::scale"])
    partly = store.verify(record.id, entities=["pkg/app.py::add"], version=record.version).record
    assert [a.state for a in partly.staleness.anchors] == ["fresh", "moved"]
    assert store.verify(record.id, follow_moves=False).action == "unchanged"
    assert store.verify(record.id).record.staleness.state == "fresh"
    with pytest.raises(StaleVersion):
        store.verify(record.id, version=1)


def test_served_entity_models_are_accepted(store: RecordStore):
    from graphctx.models import Entity

    served = Entity(id="pkg/app.py::scale", kind="function", name="scale", qualified_name="scale", language="python",
                    path="pkg/app.py", start_line=6, end_line=7, sig_hash="old-sig", body_hash="old-body")
    store.note_served([served])
    record = store.decide("scale doubles", "x", anchors=["pkg/app.py::scale"]).record
    assert record.anchors[0].sig_hash == "old-sig" and record.staleness.state == "contract-changed"


def test_inactive_decisions_are_left_out_of_anchored_lookups_unless_asked(store: RecordStore):
    old = store.decide("old way", "x", anchors=["pkg/app.py::add"]).record
    store.decide("rejected way", "x", status="rejected", anchors=["pkg/app.py::add"])
    new = store.decide("new way", "y", supersedes=[old.id], anchors=["pkg/app.py::add"]).record
    assert [i.record.id for i in store.records_for_entities(["pkg/app.py::add"])] == [new.id]
    every = store.records_for_entities(["pkg/app.py::add"], include_inactive=True)
    assert len(every) == 3


def test_ephemeral_decisions_supersede_only_ephemeral_ones(store: RecordStore):
    shared = store.decide("shared", "x").record
    with pytest.raises(InvalidRecord, match="ephemeral decision cannot supersede the shared"):
        store.decide("mine", "y", supersedes=[shared.id], scope="ephemeral")
    first = store.decide("draft 1", "x", scope="ephemeral").record
    second = store.decide("draft 2", "y", scope="ephemeral", supersedes=[first.id]).record
    assert store.get(first.id).status == "superseded" and store.get(first.id).superseded_by == [second.id]


def test_check_without_a_code_index_says_so(tmp_path: Path):
    with RecordStore(tmp_path) as store:
        store.decide("d", "x", anchors=[{"entity": "a.py::f", "sig_hash": "s", "body_hash": "b"}])
        report = store.check()
        assert report.items == [] and report.checked == 1 and "no code index" in report.notes[0]
        assert store.get(store.recall("").hits[0].id).staleness.state == "unknown"
