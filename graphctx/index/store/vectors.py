"""The SQL of the entity vectors table (graphctx/semantic/vectors.py keeps it): one row per file with
the content hash and model it was embedded with, a digest of its entities' ids (the ids themselves
are read from the entities table) and their vectors as one int8 blob. The table is created on first
use, so indexes written before it still open; the float16 table of earlier versions is dropped."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from graphctx.index.fulltext import unpack_bodies

TABLE = """CREATE TABLE IF NOT EXISTS entity_vector_rows (
    path TEXT PRIMARY KEY, hash TEXT NOT NULL, model TEXT NOT NULL,
    ids BLOB NOT NULL,  -- a digest of the file's embedded entity ids, in their stored order
    vectors BLOB NOT NULL  -- per entity a float32 scale, then per entity dim int8 components
)"""  # a rowid table: its blobs, often over a page, fill overflow pages; WITHOUT ROWID took a third more room
OLD_TABLE = "entity_vectors"  # ids as JSON and float16 vectors: twice the size


def ensure_table(conn: sqlite3.Connection) -> None:
    conn.execute(f"DROP TABLE IF EXISTS {OLD_TABLE}")
    conn.execute(TABLE)


def file_hashes(conn: sqlite3.Connection) -> dict[str, str]:
    return dict(conn.execute("SELECT path, hash FROM files"))


def stale(conn: sqlite3.Connection, model: str) -> dict[str, str]:
    """path -> content hash of each indexed file whose stored row is missing, of other bytes or of
    another model (one query: an edit's run asks it of every file)."""
    return dict(conn.execute("SELECT f.path, f.hash FROM files f LEFT JOIN entity_vector_rows v ON v.path = f.path"
                             " WHERE v.path IS NULL OR v.hash != f.hash OR v.model != ?", (model,)))


def stored_rows(conn: sqlite3.Connection) -> list[tuple[str, str, str, bytes, bytes]]:
    """(path, hash, model, ids digest, vectors) of every row; none on an index from before the table."""
    try:
        return conn.execute("SELECT path, hash, model, ids, vectors FROM entity_vector_rows").fetchall()
    except sqlite3.OperationalError:
        return []


def put(conn: sqlite3.Connection, rows: Iterable[tuple[str, str, str, bytes, bytes]]) -> None:
    conn.executemany("INSERT OR REPLACE INTO entity_vector_rows VALUES (?, ?, ?, ?, ?)", rows)


def entity_ids(conn: sqlite3.Connection, kinds: Sequence[str]) -> list[tuple[str, str]]:
    """(path, id) of every entity of these kinds, by path and line: the order vectors are stored in."""
    return conn.execute(f"SELECT path, id FROM entities WHERE kind IN ({','.join('?' * len(kinds))})"
                        " ORDER BY path, start_line, id", list(kinds)).fetchall()


def entity_texts(conn: sqlite3.Connection, paths: Sequence[str], kinds: Sequence[str]) -> list[tuple]:
    """(id, qualified name, path, signature, doc, body) of the entities of these kinds in these
    files, by path and line."""
    marks = ",".join("?" * len(paths))
    bodies: dict[str, str] = {}
    for (data,) in conn.execute(f"SELECT bodies FROM file_data WHERE path IN ({marks})", list(paths)):
        bodies.update(unpack_bodies(data))
    rows = conn.execute(
        f"SELECT id, qualified_name, path, signature, doc FROM entities WHERE path IN ({marks}) "
        f"AND kind IN ({','.join('?' * len(kinds))}) ORDER BY path, start_line, id", [*paths, *kinds]).fetchall()
    return [(*row, bodies.get(row[0], "")) for row in rows]
