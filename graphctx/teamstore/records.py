"""RecordRepository on PostgreSQL: the shared and private records of one project, each write a
transaction under the project's records lock (so versions are checked and sequence numbers handed
out in commit order), every version kept in record_history. Searches run on a local mirror (the
same RecordIndex the files are searched through, in memory) that `refresh` brings up to date with
the rows written since it last looked, by any server; `get` and `find_key` read the database."""

from __future__ import annotations

import difflib
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from psycopg.types.json import Jsonb

from graphctx.errors import quote
from graphctx.records.answers import HistoryEntry, KeyConflict, Problem
from graphctx.records.errors import InvalidRecord, RecordNotFound, StaleVersion
from graphctx.records.index import RECORD, RecordIndex
from graphctx.records.keys import KeyHolder
from graphctx.records.models import Record
from graphctx.records.repository import Filters, Hit, Superseder
from graphctx.records.vocabulary import Sort
from graphctx.teamstore.database import Database

SCOPES = ("shared", "private")
STORED_EXCLUDE = {"path", "staleness", "superseded_by"}  # derived on read, never stored


def stored_data(record: Record) -> dict:
    return record.model_dump(mode="json", exclude=STORED_EXCLUDE)


class PostgresRecordRepository:
    scopes = SCOPES

    def __init__(self, db: Database, project: str):
        self.db = db
        self.project = project
        self.lock = f"graphctx:records:{project}"
        self._mirror_lock = threading.RLock()
        self._mirror = RecordIndex(None)
        self._seen = 0  # the highest sequence number the mirror holds
        self._writes = threading.local()  # this thread's transaction: its depth, whether it wrote to the mirror
        self.refresh()

    # ---- the mirror

    def refresh(self) -> None:
        with self._mirror_lock, self.db.connection() as conn:
            rows = conn.execute("SELECT id, deleted, seq, data::text FROM records WHERE project=%s AND seq > %s ORDER BY seq",
                                (self.project, self._seen)).fetchall()
            for record_id, deleted, seq, data in rows:
                if deleted:
                    self._mirror.drop(record_id)
                else:
                    self._mirror.put(RECORD.validate_json(data))
                self._seen = max(self._seen, seq)

    def rebuild(self) -> None:
        with self._mirror_lock:
            self._mirror.close()
            self._mirror, self._seen = RecordIndex(None), 0
            self.refresh()

    def close(self) -> None:
        with self._mirror_lock:
            self._mirror.close()

    # ---- reads of what is stored now

    def get(self, record_id: str) -> Record | None:
        with self.db.connection() as conn:
            row = conn.execute("SELECT data::text FROM records WHERE project=%s AND id=%s AND NOT deleted",
                               (self.project, record_id)).fetchone()
        return RECORD.validate_json(row[0]) if row else None

    def find_key(self, scope: str, category: str, key: str) -> list[KeyHolder]:
        with self.db.connection() as conn:
            rows = conn.execute("SELECT id, data->>'title', data->>'retracted_at' IS NOT NULL FROM records"
                                " WHERE project=%s AND scope=%s AND category=%s AND key=%s AND NOT deleted ORDER BY id",
                                (self.project, scope, category, key)).fetchall()
        return [KeyHolder(record_id, title, retracted) for record_id, title, retracted in rows]

    def history(self, record_id: str, *, patch: bool = True, limit: int | None = None) -> list[HistoryEntry]:
        with self.db.connection() as conn:
            rows = conn.execute("SELECT seq, version, action, author, at, data FROM record_history"
                                " WHERE project=%s AND id=%s ORDER BY seq", (self.project, record_id)).fetchall()
        entries, before = [], ""
        for seq, version, action, author, at, data in rows:
            text = RECORD.validate_python(data).markdown() if data is not None else ""
            diff = "".join(difflib.unified_diff(before.splitlines(True), text.splitlines(True), "before", "after"))
            entries.append(HistoryEntry(commit=f"v{version}.{seq}", author=author, date=at.isoformat(),
                                        subject=f"{action} (version {version})", patch=diff if patch else ""))
            before = text
        entries.reverse()
        return entries[:limit] if limit is not None else entries

    # ---- reads of the mirror (as of the last refresh, and this repository's own writes)

    def get_many(self, record_ids: Sequence[str]) -> list[Record]:
        return self._mirror.get_many(record_ids)

    def search(self, filters: Filters, text: str = "", sort: Sort = "relevance", limit: int | None = 10) -> list[Hit]:
        return self._mirror.search(filters, text, sort, limit)

    def count(self, filters: Filters, text: str = "") -> int:
        return self._mirror.count(filters, text)

    def key_conflicts(self) -> list[KeyConflict]:
        return self._mirror.key_conflicts()

    def anchored(self, entity_ids: Sequence[str], code_paths: Sequence[str]) -> dict[str, list[str]]:
        return self._mirror.anchored(entity_ids, code_paths)

    def superseders(self, record_id: str) -> list[Superseder]:
        return self._mirror.superseders(record_id)

    def names(self) -> list[tuple[str, str]]:
        return self._mirror.names()

    def problems(self) -> list[Problem]:
        return []  # rows are checked on the way in, so every stored record reads

    # ---- writes

    @contextmanager
    def transaction(self) -> Iterator[None]:
        outer = not getattr(self._writes, "depth", 0)
        if outer:
            self._writes.mirrored = False
        self._writes.depth = getattr(self._writes, "depth", 0) + 1
        try:
            with self.db.transaction(self.lock):
                yield
        except BaseException:
            if outer and self._writes.mirrored:
                self.rebuild()  # the mirror holds writes that were rolled back
            raise
        finally:
            self._writes.depth -= 1

    def put(self, record: Record, expected_version: int | None) -> Record:
        if record.scope not in self.scopes:
            raise InvalidRecord(f"record {record.id} is {record.scope}; the team store keeps {' and '.join(self.scopes)}")
        stored = record.model_copy(update={"path": None, "staleness": None, "superseded_by": []})
        listed = stored.listed_fields()
        data = stored_data(stored)
        with self.db.transaction(self.lock) as conn:
            self._expect(conn, record.id, expected_version)
            seq = conn.execute("SELECT nextval('record_seq')").fetchone()[0]
            conn.execute("INSERT INTO records (project, id, scope, category, key, version, deleted, seq, data)"
                         " VALUES (%s, %s, %s, %s, %s, %s, false, %s, %s) ON CONFLICT (project, id) DO UPDATE SET"
                         " scope=excluded.scope, category=excluded.category, key=excluded.key,"
                         " version=excluded.version, deleted=false, seq=excluded.seq, data=excluded.data",
                         (self.project, record.id, record.scope, listed.get("category"), listed.get("key"),
                          record.version, seq, Jsonb(data)))
            self._log(conn, record.id, seq, record.version, "created" if expected_version is None else "updated",
                      record.author, data)
        with self._mirror_lock:
            self._mirror.put(stored)
            self._writes.mirrored = True
        return stored

    def delete(self, record_id: str, expected_version: int) -> None:
        with self.db.transaction(self.lock) as conn:
            self._expect(conn, record_id, expected_version)
            seq = conn.execute("SELECT nextval('record_seq')").fetchone()[0]
            conn.execute("UPDATE records SET deleted=true, data=NULL, seq=%s WHERE project=%s AND id=%s",
                         (seq, self.project, record_id))
            self._log(conn, record_id, seq, expected_version, "deleted", "", None)
        with self._mirror_lock:
            self._mirror.drop(record_id)
            self._writes.mirrored = True

    def _log(self, conn, record_id: str, seq: int, version: int, action: str, author: str, data: dict | None) -> None:
        conn.execute("INSERT INTO record_history (project, id, seq, version, action, author, data)"
                     " VALUES (%s, %s, %s, %s, %s, %s, %s)",
                     (self.project, record_id, seq, version, action, author, None if data is None else Jsonb(data)))

    def _expect(self, conn, record_id: str, expected_version: int | None) -> None:
        row = conn.execute("SELECT data FROM records WHERE project=%s AND id=%s AND NOT deleted",
                           (self.project, record_id)).fetchone()
        current = RECORD.validate_python(row[0]) if row else None
        if expected_version is None:
            if current is not None:
                raise InvalidRecord(f"record {record_id} already exists (version {current.version}); pass its version"
                                    " to replace it")
        elif current is None:
            raise RecordNotFound(f"no record with id {quote(record_id)} to replace; it may have been deleted")
        elif current.version != expected_version:
            raise StaleVersion(record_id, expected_version, current)
