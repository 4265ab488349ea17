"""Definitions read by key, in rowid order (the order of `reads.definitions`, which reads them all):
what a symbol table read on demand (index/lazysymbols.py) asks, one indexed lookup per question."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

Row = tuple[str, str, str, str, str, str]  # (id, kind, name, qualified_name, path, language)

_COLUMNS = "id, kind, name, qualified_name, path, language"
_DEFINITION = "kind NOT IN ('file', 'route', 'document', 'section')"  # as reads.definitions
_CHUNK = 500  # values bound per statement, far below SQLite's limit


def with_ids(conn: sqlite3.Connection, ids: Sequence[str]) -> list[Row]:
    return _in(conn, "id", ids)


def at(conn: sqlite3.Connection, path: str) -> list[Row]:
    return _where(conn, "path = ?", (path,))


def at_paths(conn: sqlite3.Connection, paths: Sequence[str]) -> list[Row]:
    """The definitions of every file of `paths`, in rowid order."""
    return _in(conn, "path", paths)


def named(conn: sqlite3.Connection, name: str, methods: bool | None = None) -> list[Row]:
    """The definitions called `name`: methods only, all but methods, or (None) all."""
    kind = {True: " AND kind = 'method'", False: " AND kind <> 'method'", None: ""}[methods]
    return _where(conn, "name = ?" + kind, (name,))


def named_as(conn: sqlite3.Connection, name: str, qualified_names: Sequence[str]) -> list[Row]:
    """The definitions called `name` whose qualified name is one of `qualified_names`."""
    marks = ",".join("?" * len(qualified_names))
    return _where(conn, f"name = ? AND qualified_name IN ({marks})", (name, *qualified_names))


def names_defined(conn: sqlite3.Connection, names: Sequence[str]) -> set[str]:
    """Which of `names` some definition bears."""
    found: set[str] = set()
    for start in range(0, len(names), _CHUNK):
        chunk = names[start:start + _CHUNK]
        found.update(n for (n,) in conn.execute(
            f"SELECT DISTINCT name FROM entities WHERE name IN ({','.join('?' * len(chunk))}) AND {_DEFINITION}", chunk))
    return found


def _in(conn: sqlite3.Connection, column: str, values: Sequence[str]) -> list[Row]:
    rows: list[tuple] = []
    for start in range(0, len(values), _CHUNK):
        chunk = tuple(values[start:start + _CHUNK])
        rows += conn.execute(f"SELECT rowid, {_COLUMNS} FROM entities WHERE {column} IN ({','.join('?' * len(chunk))})"
                             f" AND {_DEFINITION}", chunk)
    return [row[1:] for row in sorted(rows)]


def _where(conn: sqlite3.Connection, condition: str, values: tuple) -> list[Row]:
    return conn.execute(f"SELECT {_COLUMNS} FROM entities WHERE {condition} AND {_DEFINITION} ORDER BY rowid", values).fetchall()
