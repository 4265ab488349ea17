"""Which files each file's resolution consulted: pairs of file entity rowids (a file's entity keeps
its rowid while the file lives, rewritten or not). A file's resolution reads the scopes of other
files (what a function there returns, what a class there assigns to an attribute), which read others
in turn; when an edit changes what a file offers, the files that consulted it, directly or through
others, are resolved again. Each pair says which top-level definition's answers were read (the
scope), so that an edit changing only what one function answers resolves again the files that read
that function's answers, and those that consulted them. Pairs only accumulate (a rewritten file's
old reads stay, which can only resolve more again), but for deleted files."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

ANY_SCOPE = "*"  # a read that did not say which definition's answers


def top_scope(qualified: str) -> str:
    """The top-level definition a scope is inside (`Class.method` -> `Class`; "" the module): what a
    file consulting another is known to have read there (index/scope.py FileScope._home). An edit
    whose answers change only in other top-level definitions does not reach it (sameanswers.py)."""
    return qualified.split(".", 1)[0]


def insert(conn: sqlite3.Connection, rows: Iterable[tuple[int | None, int | None, str]]) -> None:
    """(file, reader) rowids of file entities and the top-level scope of `file` read, added to those
    stored; a row missing a file (a path that is no file of the index) is dropped."""
    conn.executemany("INSERT OR IGNORE INTO consulted (file, reader, scope) VALUES (?, ?, ?)",
                     sorted(row for row in rows if None not in row))


def delete(conn: sqlite3.Connection, rowids: Iterable[int]) -> None:
    """Forget what the files of these file entity rowids consulted and were consulted by (deleted files)."""
    rows = [(rowid,) for rowid in sorted(set(rowids))]
    conn.executemany("DELETE FROM consulted WHERE file = ?", rows)
    conn.executemany("DELETE FROM consulted WHERE reader = ?", rows)


def readers(conn: sqlite3.Connection, rowids: Iterable[int]) -> set[str]:
    """The paths of the files whose resolution consulted, directly or through the files it
    consulted, a file of these file entity rowids (those files too, while they are in the index)."""
    seeds = sorted(set(rowids))
    if not seeds:
        return set()
    return {path for (path,) in conn.execute(
        "WITH RECURSIVE reached(file) AS (SELECT value FROM json_each(?)"
        " UNION SELECT c.reader FROM consulted c JOIN reached ON c.file = reached.file)"
        " SELECT e.path FROM reached JOIN entities e ON e.rowid = reached.file", (json.dumps(seeds),))}


def askers(conn: sqlite3.Connection, scopes: dict[str, set[str]]) -> set[str]:
    """The paths of the files whose resolution read, of each file given (a path), the answers of one
    of its top-level scopes given, or of any it did not say."""
    return {reader for path, names in sorted(scopes.items()) for (reader,) in conn.execute(
        "SELECT DISTINCT r.path FROM entities f JOIN consulted c ON c.file = f.rowid JOIN entities r ON r.rowid = c.reader"
        " WHERE f.kind = 'file' AND f.id = ? AND c.scope IN (SELECT value FROM json_each(?))",
        (path, json.dumps(sorted({*names, ANY_SCOPE}))))}


def scopes_asked(conn: sqlite3.Connection, path: str) -> set[str]:
    """The top-level scopes of the file at `path` whose answers another file's resolution read
    (ANY_SCOPE: one that did not say which)."""
    return {scope for (scope,) in conn.execute(
        "SELECT DISTINCT c.scope FROM entities f JOIN consulted c ON c.file = f.rowid"
        " WHERE f.kind = 'file' AND f.id = ?", (path,))}


def file_rowids(conn: sqlite3.Connection, paths: Iterable[str]) -> dict[str, int]:
    """path -> the rowid of its file entity (a file's entity id is its path), for the files indexed."""
    return dict(conn.execute("SELECT id, rowid FROM entities WHERE kind = 'file' AND id IN (SELECT value FROM json_each(?))",
                             (json.dumps(sorted(set(paths))),)))
