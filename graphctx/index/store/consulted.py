"""Which files each file's resolution consulted: pairs of file entity rowids (a file's entity keeps
its rowid while the file lives, rewritten or not). A file's resolution reads the scopes of other
files (what a function there returns, what a class there assigns to an attribute), which read others
in turn; when an edit changes what a file offers, the files that consulted it, directly or through
others, are resolved again. Pairs only accumulate (a rewritten file's old reads stay, which can only
resolve more again), but for deleted files."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable


def insert(conn: sqlite3.Connection, pairs: Iterable[tuple[int | None, int | None]]) -> None:
    """(file, reader) rowids of file entities, added to those stored; a pair missing one (a path
    that is no file of the index) is dropped."""
    conn.executemany("INSERT OR IGNORE INTO consulted (file, reader) VALUES (?, ?)",
                     sorted(pair for pair in pairs if None not in pair))


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


def file_rowids(conn: sqlite3.Connection, paths: Iterable[str]) -> dict[str, int]:
    """path -> the rowid of its file entity (a file's entity id is its path), for the files indexed."""
    return dict(conn.execute("SELECT id, rowid FROM entities WHERE kind = 'file' AND id IN (SELECT value FROM json_each(?))",
                             (json.dumps(sorted(set(paths))),)))
