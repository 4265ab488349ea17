"""A project's view of the team store: the database (opened once per process and shared by every
project a server hosts) and, per project key, its work repository and record repositories, in the
shapes WorkStore and RecordStore take. The ephemeral scope stays in the serving process's memory."""

from __future__ import annotations

import re
import threading
from pathlib import Path

from graphctx.errors import GraphctxError
from graphctx.records.memory_repository import MemoryRepository
from graphctx.records.repository import RecordRepository
from graphctx.teamstore import schema
from graphctx.teamstore.database import Database, shown

PROJECT_KEY = re.compile(r"[a-z0-9][a-z0-9_.-]{0,62}")


def check_project_key(key: str) -> str:
    if not PROJECT_KEY.fullmatch(key or ""):
        raise GraphctxError(f"a project key is 1-63 lower-case letters, digits, '.', '_' or '-', starting with a letter "
                            f"or digit; got {key!r}")
    return key


class TeamStore:
    """The PostgreSQL store at `url`, its schema migrated (`migrate=True`, as a server starts) or
    required to be current."""

    def __init__(self, url: str, *, migrate: bool = True, max_connections: int | None = None):
        self.db = Database(url, **({"max_size": max_connections} if max_connections else {}))
        try:
            if migrate:
                self.migrated = schema.migrate(self.db)
            else:
                schema.require_current(self.db)
                self.migrated = (schema.VERSION, schema.VERSION)
        except BaseException:
            self.db.close()
            raise
        self._lock = threading.Lock()
        self._open: dict[str, ProjectStorage] = {}

    @property
    def where(self) -> str:
        return shown(self.db.url)

    def project(self, key: str) -> ProjectStorage:
        with self._lock:
            if key not in self._open:
                self._open[key] = ProjectStorage(self, check_project_key(key))
            return self._open[key]

    def reachable(self) -> bool:
        return self.db.reachable()

    def close(self) -> None:
        self.db.close()


class ProjectStorage:
    """One project's repositories in the team store."""

    def __init__(self, store: TeamStore, key: str):
        self.store = store
        self.key = key

    def work_repository(self):
        from graphctx.teamstore.work import PostgresWorkRepository

        return PostgresWorkRepository(self.store.db, self.key)

    def record_repositories(self, *, holds_ephemeral: bool = True) -> dict[str, RecordRepository]:
        from graphctx.teamstore.records import PostgresRecordRepository

        in_database = PostgresRecordRepository(self.store.db, self.key)
        by_scope: dict[str, RecordRepository] = {scope: in_database for scope in in_database.scopes}
        if holds_ephemeral:
            by_scope["ephemeral"] = MemoryRepository()
        return by_scope

    def transfer(self, root: Path, direction: str) -> dict[str, int]:
        """Copy the repository at `root`'s records and coordination between its `.graphctx/` files and this
        project: direction "into-store" or "out-of-store". Returns what was written, by kind."""
        from graphctx.teamstore.transfer import transfer

        return transfer(root, self, direction)
