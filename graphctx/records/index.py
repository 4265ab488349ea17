"""The search index of records in SQLite: FTS5 over titles, bodies and fields, plus anchor, tag and
supersedes tables, and the queries the repositories answer from it (search, count, keys, anchors,
superseders). In memory it is where the memory repository keeps its records; on disk
(`.graphctx/records.db`) it is what the file repository derives from the record files (file_index.py
keeps it in step with them)."""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from pydantic import TypeAdapter

from graphctx.text import words
from graphctx.records import files
from graphctx.records.answers import KeyConflict
from graphctx.records.keys import KeyHolder, conflict
from graphctx.records.models import KIND_MODELS, Record
from graphctx.records.repository import Filters, Hit, Superseder
from graphctx.records.staleness import entity_file
from graphctx.records.vocabulary import ENACTED

SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE files (
    path TEXT PRIMARY KEY, scope TEXT NOT NULL, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL,
    inode INTEGER NOT NULL, record_id TEXT
) WITHOUT ROWID;
CREATE TABLE records (
    rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, scope TEXT NOT NULL, path TEXT,
    title TEXT NOT NULL, type TEXT, category TEXT, key TEXT, stored_status TEXT, status TEXT,
    confidence REAL, updated TEXT NOT NULL, retracted INTEGER NOT NULL, data TEXT NOT NULL
);
CREATE INDEX records_key ON records(scope, category, key);
CREATE INDEX records_updated ON records(updated);
CREATE TABLE tags (record_id TEXT NOT NULL, tag TEXT NOT NULL);
CREATE INDEX tags_tag ON tags(tag);
CREATE INDEX tags_record ON tags(record_id);
CREATE TABLE anchors (record_id TEXT NOT NULL, entity TEXT NOT NULL, file TEXT NOT NULL);
CREATE INDEX anchors_entity ON anchors(entity);
CREATE INDEX anchors_file ON anchors(file);
CREATE INDEX anchors_record ON anchors(record_id);
CREATE TABLE supersedes (record_id TEXT NOT NULL, target TEXT NOT NULL);
CREATE INDEX supersedes_target ON supersedes(target);
CREATE INDEX supersedes_record ON supersedes(record_id);
CREATE TABLE problems (path TEXT PRIMARY KEY, message TEXT NOT NULL) WITHOUT ROWID;
CREATE VIRTUAL TABLE records_fts USING fts5(title, body, fields, tokenize = 'unicode61 remove_diacritics 2');
"""
# bm25 weights of the FTS columns: a word in the title counts most.
WEIGHTS = (5.0, 1.0, 2.0)

RECORD = TypeAdapter(Record)
_WORD = re.compile(r"\w+")
# The kinds whose status a superseding record changes on read.
_SUPERSEDABLE = ",".join(f"'{kind}'" for kind, model in KIND_MODELS.items() if model.SUPERSEDABLE)


def time_key(record: Record) -> str:
    return files.format_time(record.updated)


def terms(*texts: str) -> list[str]:
    """Lowercase words of any script, plus the parts of identifiers (snake_case, CamelCase, dotted)."""
    out: list[str] = []
    for text in texts:
        for token in _WORD.findall(text or ""):
            for word in (token.lower(), *words(token).split()):
                if word not in out:
                    out.append(word)
    return out


def fts_query(text: str) -> str | None:
    """A safe FTS5 expression from free text: every word quoted, any may match, longer ones as
    prefixes; bm25 ranks the records matching more of them first."""
    found = [f'"{word}"*' if len(word) >= 3 else f'"{word}"' for word in terms(text)]
    return " OR ".join(found) if found else None


class RecordIndex:
    """One records database: a file (shared and private scopes) or memory (the ephemeral scope)."""

    def __init__(self, db_path: Path | None):
        self.db_path = db_path
        self._lock = threading.RLock()
        self.conn = self._open()

    # ---- opening

    def _open(self) -> sqlite3.Connection:
        if self.db_path is None:
            conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            self._create(conn)
            return conn
        try:
            return self._open_file()
        except sqlite3.DatabaseError:
            # Unreadable (corrupt, or not a database): it is derived, so start it again from the files.
            for suffix in ("", "-wal", "-shm"):
                try:
                    os.unlink(f"{self.db_path}{suffix}")
                except FileNotFoundError:
                    pass
            return self._open_file()

    def _open_file(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.db_path, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("PRAGMA busy_timeout=10000")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            if self._version(conn) != SCHEMA_VERSION:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    if self._version(conn) != SCHEMA_VERSION:  # another process may have just built it
                        self._create(conn)
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
        except BaseException:
            conn.close()
            raise
        return conn

    @staticmethod
    def _version(conn: sqlite3.Connection) -> int | None:
        try:
            row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        except sqlite3.OperationalError:
            return None
        return int(row[0]) if row else None

    @staticmethod
    def _create(conn: sqlite3.Connection) -> None:
        names = [n for (n,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
            " AND name NOT LIKE 'records_fts_%'")]
        for name in names:
            conn.execute(f'DROP TABLE IF EXISTS "{name}"')
        for statement in SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute("INSERT INTO meta(key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))

    def close(self) -> None:
        with self._lock:
            self.conn.close()

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """One write transaction on the database, taken at once (other processes wait for it)."""
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise

    # ---- writes

    def put(self, record: Record) -> None:
        with self._lock:
            self._delete(record.id)
            self._insert(record)
            self._derive_status()

    def drop(self, record_id: str) -> None:
        with self._lock:
            self._delete(record_id)
            self._derive_status()

    # ---- rows

    def _insert(self, record: Record) -> None:
        listed = record.listed_fields()
        cursor = self.conn.execute(
            "INSERT INTO records(id, kind, scope, path, title, type, category, key, stored_status, status,"
            " confidence, updated, retracted, data) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (record.id, record.kind, record.scope, record.path, record.title, listed.get("type"),
             listed.get("category"), listed.get("key"), listed.get("status"), listed.get("status"),
             listed.get("confidence"), time_key(record), int(record.retracted),
             record.model_dump_json(exclude={"staleness"})),
        )
        rowid = cursor.lastrowid
        self.conn.execute("INSERT INTO records_fts(rowid, title, body, fields) VALUES (?,?,?,?)",
                          (rowid, record.title, record.markdown(), _field_words(record)))
        self.conn.executemany("INSERT INTO tags(record_id, tag) VALUES (?,?)", [(record.id, t) for t in record.tags])
        self.conn.executemany("INSERT INTO anchors(record_id, entity, file) VALUES (?,?,?)",
                              [(record.id, a.entity, entity_file(a.entity)) for a in record.anchors])
        self.conn.executemany("INSERT INTO supersedes(record_id, target) VALUES (?,?)",
                              [(record.id, t) for t in record.replaces()])

    def _delete(self, record_id: str) -> None:
        row = self.conn.execute("SELECT rowid FROM records WHERE id=?", (record_id,)).fetchone()
        if row is None:
            return
        self.conn.execute("DELETE FROM records_fts WHERE rowid=?", (row[0],))
        self.conn.execute("DELETE FROM records WHERE rowid=?", (row[0],))
        for table in ("tags", "anchors", "supersedes"):
            self.conn.execute(f"DELETE FROM {table} WHERE record_id=?", (record_id,))

    def _derive_status(self) -> None:
        # A decision listed in `supersedes` by one that was enacted reads as superseded, whatever
        # its own file says; so filters on status agree with what get() shows.
        enacted = ",".join(f"'{s}'" for s in ENACTED)
        self.conn.execute(
            "UPDATE records SET status = CASE WHEN EXISTS (SELECT 1 FROM supersedes s JOIN records r"
            " ON r.id = s.record_id WHERE s.target = records.id AND r.retracted = 0"
            f" AND r.stored_status IN ({enacted})) THEN 'superseded' ELSE stored_status END"
            f" WHERE kind IN ({_SUPERSEDABLE})"
        )

    def _meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def _set_meta(self, **values: str) -> None:
        self.conn.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", list(values.items()))

    # ---- reads

    def get(self, record_id: str) -> Record | None:
        with self._lock:
            row = self.conn.execute("SELECT data FROM records WHERE id=?", (record_id,)).fetchone()
        return RECORD.validate_json(row[0]) if row else None

    def get_many(self, record_ids: Sequence[str]) -> list[Record]:
        out = []
        with self._lock:
            for i in range(0, len(record_ids), 500):
                chunk = record_ids[i:i + 500]
                rows = self.conn.execute(
                    f"SELECT data FROM records WHERE id IN ({','.join('?' * len(chunk))})", chunk).fetchall()
                out.extend(RECORD.validate_json(data) for (data,) in rows)
        return out

    def names(self) -> list[tuple[str, str]]:
        """(id, title) of every record, for did-you-mean."""
        with self._lock:
            return self.conn.execute("SELECT id, title FROM records").fetchall()

    def key_holders(self, scope: str, category: str, key: str) -> list[KeyHolder]:
        """The records holding a key, oldest first (ids sort by creation time); after a git merge
        there may be more than one."""
        with self._lock:
            rows = self.conn.execute("SELECT id, title, retracted FROM records WHERE scope=? AND category=? AND key=?"
                                     " ORDER BY id", (scope, category, key)).fetchall()
        return [KeyHolder(rid, title, bool(retracted)) for rid, title, retracted in rows]

    def key_conflicts(self) -> list[KeyConflict]:
        """Every key held by more than one live record of a scope and category."""
        with self._lock:
            rows = self.conn.execute(
                "SELECT scope, category, key, group_concat(id, char(31)) FROM records"
                " WHERE key IS NOT NULL AND retracted=0 GROUP BY scope, category, key HAVING count(*) > 1"
                " ORDER BY scope, category, key").fetchall()
        return [conflict(scope, category, key, sorted(ids.split('\x1f'))) for scope, category, key, ids in rows]

    def superseders(self, record_id: str) -> list[Superseder]:
        """The records that list `record_id` in `supersedes`, with their stored status."""
        with self._lock:
            rows = self.conn.execute(
                "SELECT r.id, r.stored_status, r.retracted FROM supersedes s JOIN records r ON r.id = s.record_id"
                " WHERE s.target=? ORDER BY r.id", (record_id,)).fetchall()
        return [Superseder(rid, status, bool(retracted)) for rid, status, retracted in rows]

    def search(self, filters: Filters, text: str = "", sort: str = "relevance", limit: int | None = 10) -> list[Hit]:
        """The first `limit` matches (None: all), best (or newest) first."""
        query = fts_query(text) if text else None
        where, params = _where(filters)
        if query:
            sql = (f"SELECT r.data, -bm25(records_fts, {', '.join(map(str, WEIGHTS))}),"
                   " snippet(records_fts, 1, '[', ']', '…', 16)"
                   " FROM records r JOIN records_fts ON records_fts.rowid = r.rowid"
                   f" WHERE records_fts MATCH ? {where}")
            params = [query, *params]
            order = "2 DESC, r.updated DESC, r.id DESC" if sort == "relevance" else "r.updated DESC, r.id DESC"
        else:
            sql = f"SELECT r.data, NULL, '' FROM records r WHERE 1=1 {where}"
            order = "r.updated DESC, r.id DESC"
        with self._lock:
            rows = self.conn.execute(f"{sql} ORDER BY {order} LIMIT ?", [*params, -1 if limit is None else limit]).fetchall()
        return [Hit(RECORD.validate_json(data), score, snippet or "") for data, score, snippet in rows]

    def count(self, filters: Filters, text: str = "") -> int:
        query = fts_query(text) if text else None
        where, params = _where(filters)
        if query:
            sql = (f"SELECT count(*) FROM records r JOIN records_fts ON records_fts.rowid = r.rowid"
                   f" WHERE records_fts MATCH ? {where}")
            params = [query, *params]
        else:
            sql = f"SELECT count(*) FROM records r WHERE 1=1 {where}"
        with self._lock:
            return self.conn.execute(sql, params).fetchone()[0]

    def anchored(self, entity_ids: Sequence[str], paths: Sequence[str]) -> dict[str, list[str]]:
        """record id -> the anchored entities that are among `entity_ids` or in the files or folders `paths`."""
        out: dict[str, list[str]] = {}
        clauses, params = [], []
        if entity_ids:
            clauses.append(f"entity IN ({','.join('?' * len(entity_ids))})")
            params += list(entity_ids)
        for path in paths:
            path = path.strip().strip("/")
            if not path:
                continue
            clauses.append("(file = ? OR file LIKE ? ESCAPE '\\')")
            params += [path, _like(path) + "/%"]
        if not clauses:
            return out
        with self._lock:
            rows = self.conn.execute(
                f"SELECT record_id, entity FROM anchors WHERE {' OR '.join(clauses)} ORDER BY record_id, entity", params)
            for record_id, entity in rows:
                out.setdefault(record_id, []).append(entity)
        return out


def _field_words(record: Record) -> str:
    """The searchable words of a record besides its title and body: identifiers split into words."""
    parts = [*record.tags, record.author, *(a.entity for a in record.anchors), record.title, *record.field_words()]
    # The body's compound identifiers in parts, so 'factory' finds ConnectionPoolFactory; the
    # body itself is already indexed word by word.
    compound = [token for token in _WORD.findall(record.markdown()) if len(words(token).split()) > 1]
    return " ".join(terms(*parts, *compound))


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _where(f: Filters) -> tuple[str, list]:
    clauses, params = [], []
    if f.kind:
        clauses.append("r.kind = ?")
        params.append(f.kind)
    if f.type:
        clauses.append("r.type = ?")
        params.append(f.type)
    if f.category:
        clauses.append("(r.category = ? OR r.category LIKE ? ESCAPE '\\')")
        params += [f.category, _like(f.category) + ".%"]
    if f.status:
        clauses.append("r.status = ?")
        params.append(f.status)
    for tag in f.tags:
        clauses.append("EXISTS (SELECT 1 FROM tags t WHERE t.record_id = r.id AND t.tag = ?)")
        params.append(tag)
    if f.entity:
        target = f.entity.strip()
        clauses.append("EXISTS (SELECT 1 FROM anchors a WHERE a.record_id = r.id AND (a.entity = ? OR a.file = ?"
                       " OR a.file LIKE ? ESCAPE '\\'))")
        params += [target, target, _like(target.strip("/")) + "/%"]
    if f.min_confidence is not None:
        clauses.append("(r.confidence IS NULL OR r.confidence >= ?)")
        params.append(f.min_confidence)
    if f.scope:
        clauses.append("r.scope = ?")
        params.append(f.scope)
    if not f.include_retracted:
        clauses.append("r.retracted = 0")
    return "".join(f" AND {c}" for c in clauses), params
