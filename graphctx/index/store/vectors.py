"""The SQL of the entity vectors table (graphctx/semantic/vectors.py keeps it): one row per file with
the content hash and model it was embedded with, the entity ids and their vectors as one blob. The
table is created on first use, so indexes written before it still open."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from graphctx.index.fulltext import unpack_bodies

TABLE = """CREATE TABLE IF NOT EXISTS entity_vectors (
    path TEXT PRIMARY KEY, hash TEXT NOT NULL, model TEXT NOT NULL, ids TEXT NOT NULL, vectors BLOB NOT NULL
) WITHOUT ROWID"""


def ensure_table(conn: sqlite3.Connection) -> None:
    conn.execute(TABLE)


def file_hashes(conn: sqlite3.Connection) -> dict[str, str]:
    return dict(conn.execute("SELECT path, hash FROM files"))


def stored_keys(conn: sqlite3.Connection) -> dict[str, tuple[str, str]]:
    """path -> (content hash, model digest) of each stored row."""
    return {path: (digest, model) for path, digest, model in conn.execute("SELECT path, hash, model FROM entity_vectors")}


def stored_rows(conn: sqlite3.Connection) -> list[tuple[str, str, str, str, bytes]]:
    """(path, hash, model, ids as JSON, vectors) of every row; none on an index from before the table."""
    try:
        return conn.execute("SELECT path, hash, model, ids, vectors FROM entity_vectors").fetchall()
    except sqlite3.OperationalError:
        return []


def delete(conn: sqlite3.Connection, paths: Iterable[str]) -> None:
    conn.executemany("DELETE FROM entity_vectors WHERE path = ?", [(p,) for p in paths])


def put(conn: sqlite3.Connection, rows: Iterable[tuple[str, str, str, str, bytes]]) -> None:
    conn.executemany("INSERT OR REPLACE INTO entity_vectors VALUES (?, ?, ?, ?, ?)", rows)


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
