"""The RecordRepository contract, run against every storage backend: records in files (with the
derived records.db), records in memory and records in the team store's PostgreSQL (a throwaway
server, tests/pgserver.py). A new backend (a database) joins BACKENDS and must pass
the same tests unchanged: round trips, creation refused over an existing id, optimistic versions,
keys, search and filters, anchors and superseders, moving between scopes, concurrent writers that
lose nothing, and the record use cases running on it without a change."""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from graphctx.records import (
    Anchor, Decision, InvalidRecord, Knowledge, RecordNotFound, RecordRepository, RecordStore, StaleVersion,
)
from graphctx.records.file_repository import FileRepository
from graphctx.records.ids import new_id
from graphctx.records.memory_repository import MemoryRepository
from graphctx.records.repository import Filters

SCOPES = ("shared", "private")  # the scopes the contract writes; every backend under test keeps both


@dataclass(frozen=True)
class Backend:
    open: Callable[[Path], RecordRepository]  # a handle on the records kept at `where`
    across_processes: bool  # whether another process opening `where` sees the same records


STORE_URL = "store-url"  # for postgresql, the file in `where` naming the test's database


def postgres_repository(where: Path) -> RecordRepository:
    from graphctx.teamstore.storage import TeamStore

    store = TeamStore((where / STORE_URL).read_text(), max_connections=4)
    opened = store.project("demo").record_repositories(holds_ephemeral=False)["shared"]
    close = opened.close
    opened.close = lambda: (close(), store.close())  # this handle owns its connections
    return opened


BACKENDS = {
    "file": Backend(lambda where: FileRepository(where), across_processes=True),
    "memory": Backend(lambda where: MemoryRepository(SCOPES), across_processes=False),
    "postgresql": Backend(postgres_repository, across_processes=True),
}


@pytest.fixture(params=sorted(BACKENDS))
def backend(request) -> str:
    return request.param


@pytest.fixture
def where(tmp_path: Path, backend: str, request) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    if backend == "postgresql":
        (root / STORE_URL).write_text(request.getfixturevalue("postgres_database"))
    return root


@pytest.fixture
def repo(backend: str, where: Path):
    opened = BACKENDS[backend].open(where)
    yield opened
    opened.close()


T0 = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)


def knowledge(title: str, *, minutes: int = 0, **fields) -> Knowledge:
    stamp = T0 + timedelta(minutes=minutes)
    return Knowledge(id=new_id(), title=title, created=stamp, updated=stamp, **fields)


def decision(title: str, *, minutes: int = 0, **fields) -> Decision:
    stamp = T0 + timedelta(minutes=minutes)
    return Decision(id=new_id(), title=title, decision=fields.pop("decision", title), created=stamp, updated=stamp,
                    **fields)


def stored(record) -> dict:
    """What a repository must give back: every field but those derived on read."""
    return record.model_dump(exclude={"path", "staleness", "superseded_by"})


def test_declared_scopes_hold_the_contract_scopes(repo: RecordRepository):
    assert set(SCOPES) <= set(repo.scopes)


# ---------------------------------------------------------------- round trips and versions


def test_put_get_round_trip(repo: RecordRepository):
    note = knowledge("Pool size is ten", body="Ten connections.\n\n## Why\n\nMeasured.", type="convention",
                     category="infra.db", key="pool-size", confidence=0.75, tags=["db"], refs=["docs/db.md"],
                     anchors=[Anchor(entity="db/pool.py::Pool.acquire", sig_hash="s", body_hash="b", generation=3)],
                     author="agent-1")
    adr = decision("Use SQLite", context="We need atomic writes.", consequences="A schema to migrate.",
                   status="proposed", supersedes=[new_id()], scope="private")
    for record in (note, adr):
        assert stored(repo.put(record, None)) == stored(record)
        again = repo.get(record.id)
        assert type(again) is type(record) and stored(again) == stored(record)
    assert {r.id for r in repo.get_many([note.id, adr.id, new_id()])} == {note.id, adr.id}
    assert repo.get(new_id()) is None
    assert sorted(repo.names()) == sorted([(note.id, note.title), (adr.id, adr.title)])
    assert repo.problems() == []


def test_creating_an_existing_id_is_refused(repo: RecordRepository):
    note = knowledge("once")
    repo.put(note, None)
    with pytest.raises(InvalidRecord, match="already exists"):
        repo.put(note.model_copy(update={"title": "twice"}), None)
    assert repo.get(note.id).title == "once"


def test_optimistic_version_conflict(repo: RecordRepository):
    note = knowledge("counter", body="v1")
    repo.put(note, None)
    repo.put(note.model_copy(update={"body": "v2", "version": 2}), expected_version=1)
    with pytest.raises(StaleVersion) as stale:
        repo.put(note.model_copy(update={"body": "lost update", "version": 2}), expected_version=1)
    assert stale.value.current.version == 2 and stale.value.current.body == "v2"
    assert repo.get(note.id).body == "v2"
    with pytest.raises(StaleVersion):
        repo.delete(note.id, expected_version=1)
    with pytest.raises(RecordNotFound):
        repo.put(knowledge("never stored", version=2), expected_version=1)
    repo.delete(note.id, expected_version=2)
    assert repo.get(note.id) is None
    with pytest.raises(RecordNotFound):
        repo.delete(note.id, expected_version=2)


def test_a_record_moves_between_scopes(repo: RecordRepository):
    note = knowledge("moving", scope="shared")
    repo.put(note, None)
    repo.put(note.model_copy(update={"scope": "private", "version": 2}), expected_version=1)
    repo.refresh()
    assert repo.get(note.id).scope == "private"
    assert [h.record.id for h in repo.search(Filters(scope="private"))] == [note.id]
    assert repo.count(Filters()) == 1


# ---------------------------------------------------------------- keys


def test_find_key_and_key_conflicts(repo: RecordRepository):
    first = knowledge("first", category="infra.db", key="pool", minutes=1)
    second = knowledge("second", category="infra.db", key="pool", minutes=2, retracted_at=T0)
    other_category = knowledge("elsewhere", category="infra.cache", key="pool")
    other_scope = knowledge("private one", category="infra.db", key="pool", scope="private")
    for record in (second, first, other_category, other_scope):
        repo.put(record, None)
    holders = repo.find_key("shared", "infra.db", "pool")
    assert [(h.id, h.retracted) for h in holders] == sorted([(first.id, False), (second.id, True)])
    assert repo.find_key("shared", "infra.db", "nothing") == []
    repo.refresh()
    assert repo.key_conflicts() == []
    repo.put(second.model_copy(update={"retracted_at": None, "version": 2}), expected_version=1)
    repo.refresh()
    [conflict] = repo.key_conflicts()
    assert (conflict.scope, conflict.category, conflict.key) == ("shared", "infra.db", "pool")
    assert conflict.ids == sorted([first.id, second.id])


# ---------------------------------------------------------------- search, anchors, superseders


def test_search_ranks_filters_sorts_and_counts(repo: RecordRepository):
    records = [
        knowledge("Migration order", body="run the migration before start", category="infra.db", tags=["db"],
                  confidence=0.9, minutes=1),
        knowledge("Something else", body="mentions the migration once", category="infra.cache", confidence=0.4,
                  minutes=2),
        knowledge("Connection pool", body="see ConnectionPoolFactory", type="pitfall", category="infra.db.pool",
                  minutes=3, anchors=[Anchor(entity="db/pool.py::Pool.acquire")]),
        knowledge("Old news", body="the migration of last year", retracted_at=T0, minutes=4),
        decision("Keep migrations in SQL", status="rejected", minutes=5, scope="private",
                 anchors=[Anchor(entity="db/migrate.py")]),
    ]
    for record in records:
        repo.put(record, None)
    repo.refresh()
    migration, something, pool, old, rejected = records

    hits = repo.search(Filters(), "migration")
    assert hits[0].record.id == migration.id  # a word in the title counts most
    assert {h.record.id for h in hits} == {migration.id, something.id, rejected.id}  # retracted ones left out
    assert hits[0].score is not None and "[migration]" in hits[0].snippet.lower()
    assert repo.count(Filters(), "migration") == 3
    assert [h.record.id for h in repo.search(Filters(), "factory")] == [pool.id]  # identifier parts are words

    def ids(filters: Filters, text: str = "", **kw) -> list[str]:
        return [h.record.id for h in repo.search(filters, text, limit=None, **kw)]

    assert ids(Filters(), sort="recent") == [rejected.id, pool.id, something.id, migration.id]
    assert ids(Filters(include_retracted=True)) == [rejected.id, old.id, pool.id, something.id, migration.id]
    assert ids(Filters(kind="decision")) == [rejected.id]
    assert ids(Filters(status="rejected")) == [rejected.id]
    assert ids(Filters(type="pitfall")) == [pool.id]
    assert ids(Filters(category="infra.db")) == [pool.id, migration.id]  # sub-categories too, newest first
    assert ids(Filters(tags=["db"])) == [migration.id]
    assert ids(Filters(min_confidence=0.5)) == [rejected.id, pool.id, migration.id]  # decisions pass
    assert ids(Filters(entity="db/pool.py::Pool.acquire")) == ids(Filters(entity="db/pool.py")) == [pool.id]
    assert ids(Filters(entity="db")) == [rejected.id, pool.id]  # a folder: every anchor in it
    assert ids(Filters(scope="private")) == [rejected.id]
    assert ids(Filters(kind="decision"), "pool") == []
    assert len(repo.search(Filters(), limit=2)) == 2 and repo.count(Filters()) == 4


def test_anchored_records_and_superseders(repo: RecordRepository):
    on_method = knowledge("acquire pops", anchors=[Anchor(entity="db/pool.py::Pool.acquire"),
                                                   Anchor(entity="db/pool.py::Pool.release")])
    on_file = knowledge("pool module", anchors=[Anchor(entity="db/pool.py")])
    elsewhere = knowledge("cache", anchors=[Anchor(entity="cache/lru.py::LRU.get")])
    old = decision("Pool of five", minutes=1)
    new = decision("Pool of ten", minutes=2, supersedes=[old.id])
    withdrawn = decision("Pool of twenty", minutes=3, supersedes=[old.id], retracted_at=T0)
    for record in (on_method, on_file, elsewhere, old, new, withdrawn):
        repo.put(record, None)
    repo.refresh()
    assert repo.anchored(["db/pool.py::Pool.acquire"], []) == {on_method.id: ["db/pool.py::Pool.acquire"]}
    by_path = repo.anchored([], ["db"])
    assert by_path == {on_method.id: ["db/pool.py::Pool.acquire", "db/pool.py::Pool.release"],
                       on_file.id: ["db/pool.py"]}
    assert repo.anchored([], ["db/pool"]) == {}  # a folder is matched whole, not as a prefix
    assert sorted(repo.superseders(old.id)) == sorted([(new.id, "accepted", False), (withdrawn.id, "accepted", True)])
    assert repo.superseders(new.id) == []
    # A record superseded by an enacted, live record reads as superseded in searches.
    assert [h.record.id for h in repo.search(Filters(status="superseded"))] == [old.id]
    repo.put(new.model_copy(update={"status": "proposed", "version": 2}), expected_version=1)
    repo.refresh()
    assert repo.search(Filters(status="superseded")) == []


# ---------------------------------------------------------------- concurrent writers


def _bump(repo: RecordRepository, record_id: str, times: int, locked: bool) -> int:
    """Add `times` ticks to a record's body, each a read then a versioned write: inside a transaction,
    or optimistically (retrying on StaleVersion). Returns the conflicts met."""
    conflicts = done = 0
    while done < times:
        try:
            if locked:
                with repo.transaction():
                    current = repo.get(record_id)
                    repo.put(current.model_copy(update={"body": current.body + "\n- tick",
                                                        "version": current.version + 1}), current.version)
            else:
                current = repo.get(record_id)
                repo.put(current.model_copy(update={"body": current.body + "\n- tick",
                                                    "version": current.version + 1}), current.version)
            done += 1
        except StaleVersion:
            conflicts += 1
    return conflicts


def _create(repo: RecordRepository, worker: int, count: int) -> list[str]:
    made = [knowledge(f"note {worker}-{i}", tags=[f"w{worker}"]) for i in range(count)]
    for record in made:
        repo.put(record, None)
    return [record.id for record in made]


def _in_process(name: str, where: str, job: str, *args):
    opened = BACKENDS[name].open(Path(where))
    try:
        return {"bump": _bump, "create": _create}[job](opened, *args)
    finally:
        opened.close()


def test_concurrent_writers_lose_nothing(backend: str, repo: RecordRepository, where: Path):
    counter = knowledge("counter", body="ticks:")
    repo.put(counter, None)
    workers, each, creates = 4, 8, 10
    jobs = [("bump", counter.id, each, w % 2 == 0) for w in range(workers)] + \
           [("create", w, creates) for w in range(workers)]
    if BACKENDS[backend].across_processes:  # other processes, each with its own handle on the same records
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        with context.Pool(len(jobs)) as pool:
            answers = pool.starmap(_in_process, [(backend, str(where), *job) for job in jobs])
    else:  # threads sharing the one store
        answers = [None] * len(jobs)

        def run(i: int, job: str, *args) -> None:
            answers[i] = {"bump": _bump, "create": _create}[job](repo, *args)

        threads = [threading.Thread(target=run, args=(i, *job)) for i, job in enumerate(jobs)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    repo.refresh()
    final = repo.get(counter.id)
    assert final.body.count("- tick") == workers * each and final.version == 1 + workers * each
    created = [record_id for batch in answers[workers:] for record_id in batch]
    assert len(set(created)) == workers * creates
    assert repo.count(Filters()) == 1 + workers * creates
    for w in range(workers):
        assert repo.count(Filters(tags=[f"w{w}"])) == creates


# ---------------------------------------------------------------- the use cases over the backend


def test_the_record_use_cases_run_on_the_backend(repo: RecordRepository, where: Path):
    with RecordStore(where, author="agent-1", repositories={scope: repo for scope in SCOPES}) as store:
        pool = store.remember(title="Pool size", body="ten", category="infra.db", key="pool-size")[0].record
        assert store.remember(category="infra.db", key="pool-size", body="twenty")[0].record.id == pool.id
        old = store.decide("Pool of ten", "ten connections").record
        with pytest.raises(InvalidRecord, match="private decision cannot supersede the shared decision"):
            store.decide("Pool of twenty", "twenty connections", supersedes=[old.id], scope="private")
        new = store.decide("Pool of twenty", "twenty connections", supersedes=[old.id])
        assert new.changed == [old.id]
        read = store.get(old.id)
        assert read.status == "superseded" and read.superseded_by == [new.record.id]
        assert [h.id for h in store.recall("connections", kind="decision", status="accepted").hits] == [new.record.id]
        revised = store.revise(pool.id, 2, tags=["db"]).record
        with pytest.raises(StaleVersion):
            store.revise(pool.id, 2, tags=["stale"])
        assert store.retract(pool.id, revised.version, "moved to config").record.retracted
        assert store.recall("pool", kind="knowledge").total == 0
        with pytest.raises(InvalidRecord, match="scope 'ephemeral'"):
            store.remember(title="scratch", body="x", scope="ephemeral")  # no repository keeps it here
