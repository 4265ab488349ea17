"""The team store's own behaviour on a real PostgreSQL (a throwaway server, tests/pgserver.py),
beyond the repository contracts it passes with the files and memory: the versioned schema (migrated
once, a newer one refused), projects kept apart in one database, a second server's writes seen at the
next read, and each record version kept as history."""

from __future__ import annotations

import pytest

from conftest import make_shop

psycopg = pytest.importorskip("psycopg", reason="the team store's tests need psycopg: pip install -e '.[test]'")

from graphctx.errors import GraphctxError  # noqa: E402
from graphctx.project import Project  # noqa: E402
from graphctx.teamstore import schema  # noqa: E402


def test_the_schema_is_migrated_once_and_a_newer_one_is_refused(postgres_database):
    store = Project.open_team_store(postgres_database)
    assert store.migrated == (0, schema.VERSION)
    store.close()
    again = Project.open_team_store(postgres_database)
    assert again.migrated == (schema.VERSION, schema.VERSION)
    again.close()
    with psycopg.connect(postgres_database, autocommit=True) as conn:
        conn.execute("INSERT INTO graphctx_schema (version) VALUES (%s)", (schema.VERSION + 1,))
    with pytest.raises(GraphctxError, match="newer than this graphctx knows"):
        Project.open_team_store(postgres_database)
    with pytest.raises(GraphctxError, match="newer than this graphctx knows"):
        Project.open_team_store(postgres_database, migrate=False)


def test_a_schema_not_yet_migrated_is_refused_without_migrating(postgres_database):
    with pytest.raises(GraphctxError, match="graphctx store migrate"):
        Project.open_team_store(postgres_database, migrate=False)


def test_projects_share_a_database_and_nothing_else(postgres_database, tmp_path):
    root = make_shop(tmp_path / "shop", index=False)
    store = Project.open_team_store(postgres_database)
    api = Project(root, ephemeral=False, find=False, storage=store.project("api"))
    web = Project(root, ephemeral=False, find=False, storage=store.project("web"))
    try:
        api.remember(title="Pool size", body="ten", author="ann")
        api.work.tasks.create("fix the pool", by="ann")
        assert api.recall("pool").total == 1 and web.recall("pool").total == 0
        assert len(api.work.repo.tasks()) == 1 and web.work.repo.tasks() == []
    finally:
        api.close(), web.close(), store.close()


def test_another_servers_writes_are_seen_at_the_next_read_and_history_is_kept(postgres_database, tmp_path):
    root = make_shop(tmp_path / "shop", index=False)
    stores = [Project.open_team_store(postgres_database) for _ in range(2)]  # two servers
    one, two = (Project(root, ephemeral=False, find=False, storage=s.project("shop")) for s in stores)
    try:
        assert two.recall("pool").total == 0
        written = one.remember(title="Pool size", body="ten connections", author="ann")[0].record
        assert [h.id for h in two.recall("pool").hits] == [written.id]
        one.revise(written.id, 1, body="twenty connections", author="bob")
        assert "twenty" in two.record(written.id).body
        history = two.history(written.id)
        assert [entry.subject for entry in history] == ["updated (version 2)", "created (version 1)"]
        assert history[0].author == "bob" and "+twenty connections" in history[0].patch
        assert "-ten connections" in history[0].patch
        one.retract(written.id, 2, "moved to the config")
        assert two.recall("pool").total == 0
    finally:
        one.close(), two.close()
        for store in stores:
            store.close()


def test_a_write_rolled_back_with_its_transaction_leaves_no_trace(postgres_database, tmp_path):
    from graphctx.records.models import Knowledge
    from graphctx.records.repository import Filters

    store = Project.open_team_store(postgres_database)
    repo = store.project("shop").record_repositories(holds_ephemeral=False)["shared"]
    at = Knowledge(id="01JAAAAAAAAAAAAAAAAAAAAAAA", title="kept", created="2025-01-01T00:00:00Z",
                   updated="2025-01-01T00:00:00Z")
    try:
        repo.put(at, None)
        with pytest.raises(RuntimeError):
            with repo.transaction():
                repo.put(at.model_copy(update={"id": "01JBBBBBBBBBBBBBBBBBBBBBBB", "title": "rolled back"}), None)
                raise RuntimeError("the use case failed after writing")
        assert [h.record.title for h in repo.search(Filters(), "")] == ["kept"]
        assert repo.get("01JBBBBBBBBBBBBBBBBBBBBBBB") is None
        assert rows_of(postgres_database, "SELECT count(*) FROM record_history") == [(1,)]
    finally:
        repo.close(), store.close()


def rows_of(url: str, sql: str) -> list[tuple]:
    with psycopg.connect(url) as conn:
        return conn.execute(sql).fetchall()
