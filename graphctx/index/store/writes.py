"""Every statement that changes `index.db`: an index run's transaction, and the rows of files,
entities, full-text bodies, references, edges, warnings and skips it writes. The indexer decides
what to write; this module is the only one that knows how."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable

from graphctx.models import CLASS_KINDS
from graphctx.text import camel_pieces, words

# Emptied by a full rebuild, file by file by an incremental one (skips and meta are replaced whole).
FILE_TABLES = ("entities_fts", "entities", "edges", "file_refs", "warnings", "files")


def begin_run(conn: sqlite3.Connection) -> None:
    """Open an index run's one write transaction, taking the write lock at once."""
    conn.execute("BEGIN IMMEDIATE")


def commit(conn: sqlite3.Connection) -> None:
    conn.execute("COMMIT")


def rollback(conn: sqlite3.Connection) -> None:
    """Undo the open transaction; a damaged file may refuse even that, and the transaction then
    dies with the connection."""
    try:
        conn.execute("ROLLBACK")
    except sqlite3.Error:
        pass


def clear_files(conn: sqlite3.Connection) -> None:
    """Empty every per-file table: a full rebuild starts from nothing, faster than file by file."""
    for table in FILE_TABLES:
        conn.execute(f"DELETE FROM {table}")


def delete_files(conn: sqlite3.Connection, paths: Iterable[str]) -> None:
    """Drop files with their entities, full-text rows, edges they produced and their reference names."""
    rows = [(p,) for p in paths]
    conn.executemany("DELETE FROM entities_fts WHERE rowid IN (SELECT rowid FROM entities WHERE path=?)", rows)
    conn.executemany("DELETE FROM entities WHERE path=?", rows)
    conn.executemany("DELETE FROM edges WHERE origin=?", rows)
    conn.executemany("DELETE FROM file_refs WHERE path=?", rows)
    conn.executemany("DELETE FROM warnings WHERE path=?", rows)
    conn.executemany("DELETE FROM files WHERE path=?", rows)


def update_file_stat(conn: sqlite3.Connection, path: str, size: int, mtime_ns: int) -> None:
    """A file touched with the same content: only its stat is new."""
    conn.execute("UPDATE files SET size=?, mtime_ns=? WHERE path=?", (size, mtime_ns, path))


def insert_file(conn: sqlite3.Connection, *, path: str, language: str, size: int, mtime_ns: int, hash: str,
                lines: int, error_count: int, is_test: bool, package: str | None, attribute_types: str,
                facts: str) -> None:
    """One parsed file; `attribute_types` and `facts` are JSON."""
    conn.execute(
        "INSERT INTO files(path, language, size, mtime_ns, hash, lines, error_count, is_test, package, attribute_types,"
        " facts) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        (path, language, size, mtime_ns, hash, lines, error_count, int(is_test), package, attribute_types, facts),
    )


def insert_entities(conn: sqlite3.Connection, rows: list[tuple]) -> None:
    """Rows are (id, kind, name, qualified_name, language, path, start, end, signature, doc, sig_hash, body_hash, parent)."""
    conn.executemany(
        "INSERT INTO entities(id, kind, name, qualified_name, language, path, start_line, end_line,"
        " signature, doc, sig_hash, body_hash, parent) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        rows,
    )
    conn.executemany(
        "INSERT INTO entities_fts(rowid, words, signature, doc, body)"
        " SELECT rowid, ?, signature, doc, '' FROM entities WHERE id=?",
        [(words(row[3], row[5]), row[0]) for row in rows],
    )


_CAMEL = re.compile(r"\b[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*\b")


def index_bodies(conn: sqlite3.Connection, path: str, text: str) -> None:
    """Fill the full-text `body` column of a file's entities with their source text, so free text
    (an issue, a task) matches the words used inside a function and not only its name and doc.
    A class gets its own lines (header, doc, attributes), not its members' bodies; the FTS tokenizer
    splits snake_case, and CamelCase names are added split into their words."""
    lines = text.splitlines()
    entities = conn.execute(
        "SELECT rowid, id, kind, start_line, end_line, parent FROM entities WHERE path=? AND kind != 'file'", (path,)
    ).fetchall()
    members: dict[str, list[tuple[int, int]]] = {}
    for _, _, _, start, end, parent in entities:
        if parent:
            members.setdefault(parent, []).append((start, end))
    updates = []
    for rowid, entity_id, kind, start, end, _ in entities:
        own = range(start, end + 1)
        if kind in CLASS_KINDS and entity_id in members:
            skip = {line for a, b in members[entity_id] for line in range(a, b + 1)}
            own = [line for line in own if line not in skip]
        body = "\n".join(lines[i - 1] for i in own if 0 < i <= len(lines))
        camel = " ".join(p for name in dict.fromkeys(_CAMEL.findall(body)) for p in camel_pieces(name))
        updates.append((f"{body}\n{camel}" if camel else body, rowid))
    conn.executemany("UPDATE entities_fts SET body=? WHERE rowid=?", updates)


def insert_file_refs(conn: sqlite3.Connection, path: str, names: Iterable[str]) -> None:
    """The names a file refers to: who must be re-resolved when a name's meaning changes."""
    conn.executemany("INSERT OR IGNORE INTO file_refs(name, path) VALUES (?, ?)", [(n, path) for n in names])


def delete_edges_from(conn: sqlite3.Connection, origins: Iterable[str]) -> None:
    """Drop the edges these files produced, before they are resolved again."""
    conn.executemany("DELETE FROM edges WHERE origin=?", [(p,) for p in origins])


def insert_edges(conn: sqlite3.Connection, origin: str, edges: Iterable[tuple]) -> None:
    """Edges are (source, target, kind, resolution, confidence, line), all produced by `origin`."""
    conn.executemany(
        "INSERT INTO edges(source, target, kind, resolution, confidence, line, origin) VALUES (?,?,?,?,?,?,?)",
        [(*edge, origin) for edge in edges],
    )


def set_call_counts(conn: sqlite3.Connection, path: str, calls: int, resolved: int) -> None:
    conn.execute("UPDATE files SET calls=?, calls_resolved=? WHERE path=?", (calls, resolved, path))


def drop_edge_indexes(conn: sqlite3.Connection) -> list[str]:
    """Drop the indexes on edges and return the statements that build them again: writing every edge
    and then building each index once is much cheaper than keeping it up to date row by row (the DDL
    is part of the run's transaction like everything else)."""
    deferred = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type='index' AND tbl_name='edges' AND sql IS NOT NULL"
    ).fetchall()
    for name, _ in deferred:
        conn.execute(f'DROP INDEX "{name}"')
    return [sql for _, sql in deferred]


def create_indexes(conn: sqlite3.Connection, statements: Iterable[str]) -> None:
    for sql in statements:
        conn.execute(sql)


def replace_warnings(conn: sqlite3.Connection, warnings: Iterable[tuple[str, str]], kept: set[str]) -> None:
    """This run's warnings for every path but the `kept` files (indexed before and not read again,
    whose warnings stay); warnings of files no longer indexed go."""
    conn.execute("DELETE FROM warnings WHERE path NOT IN (SELECT path FROM files)")
    conn.executemany("INSERT INTO warnings(path, message) VALUES (?, ?)", sorted(w for w in warnings if w[0] not in kept))


def replace_skips(conn: sqlite3.Connection, rows: Iterable[tuple[str, str, str]]) -> None:
    """Replace the stored (path, reason, detail) skips with this run's: every run sees every skipped file again."""
    conn.execute("DELETE FROM skipped")
    conn.executemany("INSERT OR REPLACE INTO skipped(path, reason, detail) VALUES (?, ?, ?)", rows)
