"""The reads that load a graph and fill it on demand: the entity ids and the graph snapshot of one
generation, read together, then entity rows as answers reach them, each read checking that the
index is still at that generation."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from graphctx.index.store.reads import NODE_COLUMNS, _chunks, _in, snapshot_blobs
from graphctx.index.store.schema import generation


def graph_snapshot(conn: sqlite3.Connection) -> tuple[int, list[tuple], list[bytes], list[tuple], list[tuple]]:
    """(generation, (rowid, id) of every entity in rowid order, the packed graph snapshot of that
    generation (its base and patches; [] when there is none), edge rows between entities (source, target, kind,
    resolution, confidence codes; read only when there is no snapshot), file rows (path, language,
    size, mtime_ns, hash, lines, is_test)), read in one transaction so that they agree on a
    generation. Edges to external names stay in the store; the other entity columns are read on
    demand (entity_rows)."""
    conn.execute("BEGIN")
    try:
        current = generation(conn)
        entities = conn.execute("SELECT rowid, id FROM entities ORDER BY rowid").fetchall()
        blobs = snapshot_blobs(conn, current)
        edges = [] if blobs else conn.execute(
            "SELECT source, target, kind, resolution, confidence FROM edge_keys WHERE target > 0").fetchall()
        files = conn.execute("SELECT path, language, size, mtime_ns, hash, lines, is_test FROM files").fetchall()
    finally:
        conn.execute("COMMIT")
    return current, entities, blobs, edges, files


# A statement reads one snapshot of the database: guarded by this, its rows are those of the generation
# given, or none at all when the index has moved on (no transaction to open and close per read).
_AT_GENERATION = "coalesce(CAST((SELECT value FROM meta WHERE key='generation') AS INTEGER), 0) = ?"


def entity_rows(conn: sqlite3.Connection, at_generation: int, rowids: Sequence[int] | None = None,
                columns: Sequence[str] = NODE_COLUMNS) -> list[tuple]:
    """`columns` of the entities at `rowids` (every entity when None), in rowid order, as they are at
    generation `at_generation`; rows are missing when the index has moved on (a caller counts them)."""
    select = f"SELECT {', '.join(columns)} FROM entities WHERE {_AT_GENERATION}"
    if rowids is None:
        return conn.execute(f"{select} ORDER BY rowid", (at_generation,)).fetchall()
    found: list[tuple] = []
    for chunk in _chunks(rowids):
        found += conn.execute(f"{select} AND rowid IN ({_in(chunk)}) ORDER BY rowid", (at_generation, *chunk)).fetchall()
    return found
