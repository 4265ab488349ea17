"""The SQLite index at `<repo>/.graphctx/index.db`, and the only code that speaks SQL to it: its
schema and health (`schema.py`), the queries that read it (`reads.py`; `graph_reads.py`, what a
loaded graph reads; `definitions.py`, by key), the statements an index run writes with
(`writes.py`), and the files each file's resolution consulted (`consulted.py`). Rows are written in a fixed order, so the same tree always gives the same database:
only the meta rows in CLOCK_KEYS record when it was built."""

from graphctx.index.store import reads, writes
from graphctx.index.store.schema import (
    BULK_INDEXES, CLOCK_KEYS, INDEX_GITIGNORE, SCHEMA, SCHEMA_VERSION, TABLES, IndexMissing, connect, content_hash,
    damage, diagnose, ensure_schema, generation, get_meta, index_files, index_path, is_damage, needs_new_file, remove,
    schema_version, set_meta, usable,
)
from graphctx.index.store.writes import delete_files, insert_entities

__all__ = [
    "BULK_INDEXES", "CLOCK_KEYS", "INDEX_GITIGNORE", "SCHEMA", "SCHEMA_VERSION", "TABLES", "IndexMissing", "connect", "content_hash",
    "damage", "delete_files", "diagnose", "ensure_schema", "generation", "get_meta", "index_files",
    "index_path", "insert_entities", "is_damage", "needs_new_file", "reads", "remove", "schema_version", "set_meta",
    "usable", "writes",
]
