"""What an incremental run reads of a file before it rewrites it, to keep what the edit leaves as
it was (index/appended.py): the edges the file made and its call counts; and the edges the graph
snapshot's patch keeps from entities whose edges other files' resolution made."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

CHUNK = 500  # rowids per statement (SQLite's variable limit)


def edges_made_by(conn: sqlite3.Connection, path: str) -> list[tuple[str, str, str, str, float, int]]:
    """(source, target, kind, resolution, confidence, line) by id of the edges the resolution of `path`
    made: from its entities (those another file's resolution made from there excepted), and those
    naming it as maker."""
    select = ("SELECT s.id, coalesce(t.id, x.id), k.name, r.name, e.confidence, e.line FROM edge_keys e"
              " JOIN entities s ON s.rowid = e.source"
              " LEFT JOIN entities t ON e.target > 0 AND t.rowid = e.target"
              " LEFT JOIN externals x ON e.target < 0 AND x.rowid = -e.target"
              " JOIN edge_kinds k ON k.code = e.kind JOIN resolutions r ON r.code = e.resolution")
    return conn.execute(f"{select} WHERE s.path = ? AND e.maker IS NULL UNION ALL"
                        f" {select} WHERE e.maker = (SELECT rowid FROM entities WHERE id = ?)", (path, path)).fetchall()


def call_counts(conn: sqlite3.Connection, path: str) -> tuple[int, int]:
    """(call sites, call sites resolved) of one file, (0, 0) when it is not indexed."""
    row = conn.execute("SELECT calls, calls_resolved FROM files WHERE path=?", (path,)).fetchone()
    return (row[0], row[1]) if row else (0, 0)


def sources_made_by(conn: sqlite3.Connection, makers: Iterable[str]) -> set[int]:
    """The rowids of the entities of other files that these files' resolution made edges from."""
    out: set[int] = set()
    for path in makers:
        out.update(source for (source,) in conn.execute(
            "SELECT source FROM edge_keys WHERE maker = (SELECT rowid FROM entities WHERE id = ?)", (path,)))
    return out


def rows_between_entities(conn: sqlite3.Connection, sources: Sequence[int], *,
                          made_elsewhere: bool) -> list[tuple[int, int, int, int, float, int, int | None]]:
    """The edge rows (rows.EdgeRow) from these entities to entities; only those another file's
    resolution made from them when `made_elsewhere`."""
    condition = " AND maker IS NOT NULL" if made_elsewhere else ""
    out = []
    for start in range(0, len(sources), CHUNK):
        chunk = sources[start:start + CHUNK]
        out += conn.execute("SELECT source, target, kind, resolution, confidence, line, maker FROM edge_keys"
                            f" WHERE source IN ({','.join('?' * len(chunk))}) AND target > 0{condition}", chunk).fetchall()
    return out
