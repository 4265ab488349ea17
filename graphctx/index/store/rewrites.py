"""What an incremental run reads of a file before it rewrites it, to keep what the edit leaves as
it was (index/appended.py): the edges the file made and its call counts."""

from __future__ import annotations

import sqlite3


def edges_made_by(conn: sqlite3.Connection, path: str) -> list[tuple[str, str, str, str, float, int]]:
    """(source, target, kind, resolution, confidence, line) by id of the edges whose source is in `path`."""
    return conn.execute(
        "SELECT s.id, coalesce(t.id, x.id), k.name, r.name, e.confidence, e.line FROM entities s"
        " JOIN edge_keys e ON e.source = s.rowid"
        " LEFT JOIN entities t ON e.target > 0 AND t.rowid = e.target"
        " LEFT JOIN externals x ON e.target < 0 AND x.rowid = -e.target"
        " JOIN edge_kinds k ON k.code = e.kind JOIN resolutions r ON r.code = e.resolution"
        " WHERE s.path = ?", (path,)).fetchall()


def call_counts(conn: sqlite3.Connection, path: str) -> tuple[int, int]:
    """(call sites, call sites resolved) of one file, (0, 0) when it is not indexed."""
    row = conn.execute("SELECT calls, calls_resolved FROM files WHERE path=?", (path,)).fetchone()
    return (row[0], row[1]) if row else (0, 0)
