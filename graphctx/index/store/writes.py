"""Every statement that changes `index.db`: an index run's transaction, and the rows of files,
entities, full-text bodies, references, edges, warnings and skips it writes. The indexer decides
what to write; this module is the only one that knows how."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from graphctx.index.fulltext import fts_row, unpack_bodies

# An entity row's columns, in the order index/parsed.py makes them.
ENTITY_COLUMNS = ("id", "kind", "name", "qualified_name", "language", "path", "start_line", "end_line", "signature", "doc",
                  "sig_hash", "body_hash", "parent")

# Emptied by a full rebuild, file by file by an incremental one (skips and meta are replaced whole).
FILE_TABLES = ("entities", "edge_keys", "externals", "file_refs", "consulted", "warnings", "files", "file_data",
               "graph_snapshot")


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
    conn.execute("INSERT INTO entities_fts(entities_fts) VALUES ('delete-all')")
    for table in FILE_TABLES:
        conn.execute(f"DELETE FROM {table}")


def delete_files(conn: sqlite3.Connection, paths: Iterable[str]) -> None:
    """Drop files with their entities, full-text rows, edges they made, reference names and vectors.
    The full-text index keeps no text: each row is removed with the text it was indexed with, the
    entity's words, signature and doc, and the body stored with the file."""
    rows = [(p,) for p in paths]
    for (path,) in rows:
        stored = conn.execute("SELECT bodies FROM file_data WHERE path=?", (path,)).fetchone()
        bodies = unpack_bodies(stored[0]) if stored else {}
        entities = conn.execute(f"SELECT rowid, {', '.join(ENTITY_COLUMNS)} FROM entities WHERE path=?", (path,))
        conn.executemany(
            "INSERT INTO entities_fts(entities_fts, rowid, words, signature, doc, body) VALUES ('delete', ?, ?, ?, ?, ?)",
            [(row[0], *fts_row(row[1:], bodies.get(row[1], ""))) for row in entities.fetchall()],
        )
    delete_edges_from(conn, [path for (path,) in rows])
    conn.executemany("DELETE FROM entities WHERE path=?", rows)
    conn.executemany("DELETE FROM file_refs WHERE file = (SELECT rowid FROM file_data WHERE path=?)", rows)
    conn.executemany("DELETE FROM warnings WHERE path=?", rows)
    conn.executemany("DELETE FROM files WHERE path=?", rows)
    conn.executemany("DELETE FROM file_data WHERE path=?", rows)
    conn.executemany("DELETE FROM entity_vector_rows WHERE path=?", rows)  # (a rewritten file's comes with it)


def delete_routes(conn: sqlite3.Connection, path: str) -> dict[str, int]:
    """Drop a file's route entities with their full-text rows (a route has no body), before the file
    is resolved again and writes them as they are now served; id -> rowid of those dropped."""
    rows = conn.execute(f"SELECT rowid, {', '.join(ENTITY_COLUMNS)} FROM entities WHERE path=? AND kind='route'",
                        (path,)).fetchall()
    conn.executemany(
        "INSERT INTO entities_fts(entities_fts, rowid, words, signature, doc, body) VALUES ('delete', ?, ?, ?, ?, ?)",
        [(row[0], *fts_row(row[1:], "")) for row in rows],
    )
    conn.executemany("DELETE FROM entities WHERE rowid=?", [(row[0],) for row in rows])
    return {row[1]: row[0] for row in rows}


def update_file_stat(conn: sqlite3.Connection, path: str, size: int, mtime_ns: int) -> None:
    """A file touched with the same content: only its stat is new."""
    conn.execute("UPDATE files SET size=?, mtime_ns=? WHERE path=?", (size, mtime_ns, path))


def insert_file(conn: sqlite3.Connection, *, path: str, language: str, size: int, mtime_ns: int, hash: str,
                lines: int, error_count: int, is_test: bool, package: str | None, attribute_types: str,
                facts: bytes, bodies: bytes) -> None:
    """One parsed file; `attribute_types` is JSON, `facts` and `bodies` compressed JSON (index/parsed.py)."""
    conn.execute(
        "INSERT INTO files(path, language, size, mtime_ns, hash, lines, error_count, is_test, package, attribute_types)"
        " VALUES (?,?,?,?,?,?,?,?,?,?)",
        (path, language, size, mtime_ns, hash, lines, error_count, int(is_test), package, attribute_types),
    )
    conn.execute("INSERT INTO file_data(path, facts, bodies) VALUES (?, ?, ?)", (path, facts, bodies))


def insert_entities(conn: sqlite3.Connection, rowids: list[int], rows: list[tuple], texts: list[tuple]) -> None:
    """Rows are ENTITY_COLUMNS, written under `rowids`, with their full-text rows (words, signature, doc, body)."""
    conn.executemany(
        f"INSERT INTO entities(rowid, {', '.join(ENTITY_COLUMNS)}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [(rowid, *row) for rowid, row in zip(rowids, rows)],
    )
    conn.executemany(
        "INSERT INTO entities_fts(rowid, words, signature, doc, body) VALUES (?, ?, ?, ?, ?)",
        [(rowid, *text) for rowid, text in zip(rowids, texts)],
    )


def insert_file_refs(conn: sqlite3.Connection, path: str, names: Iterable[str]) -> None:
    """The names a file refers to: who must be re-resolved when a name's meaning changes. The file is
    named by its file_data rowid (written first), a few bytes where its path would take dozens twice."""
    (file,) = conn.execute("SELECT rowid FROM file_data WHERE path=?", (path,)).fetchone()
    conn.executemany("INSERT OR IGNORE INTO file_refs(name, file) VALUES (?, ?)", [(n, file) for n in names])


def delete_edges_from(conn: sqlite3.Connection, makers: Iterable[str]) -> None:
    """Drop the edges these files' resolution made, before they are resolved again: those from their
    own entities (no maker named) and those from other files' entities that name them as maker. The
    edges other files made from their entities stay: those files' resolution did not change."""
    rows = [(p,) for p in makers]
    conn.executemany("DELETE FROM edge_keys WHERE maker = (SELECT rowid FROM entities WHERE id=?)", rows)
    conn.executemany("DELETE FROM edge_keys WHERE source IN (SELECT rowid FROM entities WHERE path=?) AND maker IS NULL", rows)


def insert_externals(conn: sqlite3.Connection, rows: Iterable[tuple[int, str]]) -> None:
    """(rowid, `ext:` id) of names outside the repository that edges point at."""
    conn.executemany("INSERT INTO externals(rowid, id) VALUES (?, ?)", rows)


def insert_edges(conn: sqlite3.Connection, rows: Iterable[tuple]) -> None:
    """Rows are (source rowid, target rowid or minus an external's, kind code, resolution code, confidence, line,
    maker's file rowid or None: see rows.EdgeRow)."""
    conn.executemany("INSERT INTO edge_keys(source, target, kind, resolution, confidence, line, maker)"
                     " VALUES (?,?,?,?,?,?,?)", rows)


def set_call_counts(conn: sqlite3.Connection, path: str, calls: int, resolved: int) -> None:
    conn.execute("UPDATE files SET calls=?, calls_resolved=? WHERE path=?", (calls, resolved, path))


def drop_indexes(conn: sqlite3.Connection, names: Iterable[str]) -> list[str]:
    """Drop these indexes and return the statements that build them again: a bulk load writes every
    row first and then builds each index once, a sort, instead of keeping a B-tree in order row by
    row (the DDL is part of the run's transaction like everything else)."""
    names = list(names)
    deferred = conn.execute(
        f"SELECT name, sql FROM sqlite_master WHERE type='index' AND sql IS NOT NULL AND name IN ({','.join('?' * len(names))})"
        " ORDER BY name", names).fetchall()
    for name, _ in deferred:
        conn.execute(f'DROP INDEX "{name}"')
    return [sql for _, sql in deferred]


def create_indexes(conn: sqlite3.Connection, statements: Iterable[str]) -> None:
    for sql in statements:
        conn.execute(sql)


def write_snapshot(conn: sqlite3.Connection, generation: int, blob: bytes) -> None:
    """The graph snapshot of `generation`, a new base replacing the previous one and its patches in
    the same transaction."""
    conn.execute("DELETE FROM graph_snapshot")
    conn.execute("INSERT INTO graph_snapshot(generation, data) VALUES (?, ?)", (generation, blob))


def append_snapshot_patch(conn: sqlite3.Connection, generation: int, blob: bytes) -> None:
    """What `generation` changed in the graph snapshot of the generation before it, kept beside it."""
    conn.execute("INSERT INTO graph_snapshot(generation, data) VALUES (?, ?)", (generation, blob))


def replace_warnings(conn: sqlite3.Connection, warnings: Iterable[tuple[str, str]], kept: set[str]) -> None:
    """This run's warnings for every path but the `kept` files (indexed before and not read again,
    whose warnings stay); warnings of files no longer indexed go."""
    conn.execute("DELETE FROM warnings WHERE path NOT IN (SELECT path FROM files)")
    conn.executemany("INSERT INTO warnings(path, message) VALUES (?, ?)", sorted(w for w in warnings if w[0] not in kept))


def replace_skips(conn: sqlite3.Connection, rows: Iterable[tuple[str, str, str]]) -> None:
    """Replace the stored (path, reason, detail) skips with this run's: every run sees every skipped file again."""
    conn.execute("DELETE FROM skipped")
    conn.executemany("INSERT OR REPLACE INTO skipped(path, reason, detail) VALUES (?, ?, ?)", rows)
