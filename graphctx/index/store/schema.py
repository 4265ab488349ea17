"""The shape of `index.db` and its health: the schema, the version check, connections and meta rows.
WAL keeps readers going while a run writes, and a run that dies before COMMIT leaves the previous
generation intact. An index file that cannot be used
(empty, of another schema version, incomplete, damaged, not SQLite at all) is diagnosed here in one
phrase, so that whoever opens it can rebuild it. Rows are written in a fixed order, so the same
tree always gives the same database: only the meta rows in CLOCK_KEYS record when it was built."""

from __future__ import annotations

import hashlib
import logging
import re
import sqlite3
from pathlib import Path

from graphctx.layout import index_path  # noqa: F401 - re-exported for the index's callers
from graphctx.models import EDGE_KINDS, RESOLUTIONS

log = logging.getLogger(__name__)

SCHEMA_VERSION = 16  # 3: body text in full-text search; bodies hashed without any whitespace; 4: skipped files;
# 5: a file's package and attribute types in their own columns; 6: integer edge rows, a contentless full-text
# index, compressed facts, the graph snapshot; 7: value flows in the facts; 8: routes, documents and sections,
# the `handles` edge kind; 9: routers and mounts in the facts, routes written as they are served; 10: a file's
# references keyed by its file_data rowid, not its path; 11: property accessors, attribute uses and lambdas in
# the facts; 12: an edge's maker, when the file whose resolution made it is not its source's; 13: the files
# each file's resolution consulted; 14: a partial index on the class hierarchy's edges (an edit's run reads them all);
# 15: a lambda named by its place among its definition's lambdas (`outer.<lambda1>`), not by its line;
# 16: which top-level definition of a file another file's resolution consulted
# The meta rows that say when a run happened: the only part of an index two builds of one tree do not share.
CLOCK_KEYS = ("indexed_at", "scanned_ns")
SQLITE_CORRUPT, SQLITE_NOTADB = 11, 26  # the primary result codes of a damaged file and of a file that is not SQLite
# The index folder is committed (records live there later); the database is not.
INDEX_GITIGNORE = "index.db\nindex.db-*\nprivate/\n"

# Edges are integer rows (edge_keys; the view `edges` names them): source and target are entity rowids, a negative target the rowid of a name
# outside the repository (`externals`); kind and resolution are positions in the vocabularies of
# models.py (the `edge_kinds` and `resolutions` tables name them for SQL). An edge was made by the file
# of its source, unless `maker` names another (the rowid of its file entity): a function handed to another
# file's function that calls it, a method of a type declared elsewhere. Resolving a file again replaces
# the edges it made, so `maker` says which those are; the partial index keeps the few such rows. The
# full-text index keeps no copy of the text it indexes (content=''): an entity's
# words, signature and doc are its row's, and its body is kept once, compressed, in `file_data.bodies`,
# which is what removing the entity from the index takes. `graph_snapshot` holds the graph of the
# generation in `meta` as integer arrays (graph/snapshot.py), written in the same transaction.
# The edge kinds of the class hierarchy, as codes (the partial index on them, and the queries that use it, name the
# codes themselves: SQLite uses a partial index only for a query whose condition repeats the index's).
LINEAGE_CODES = ", ".join(str(EDGE_KINDS.index(kind)) for kind in ("inherits", "implements"))
SCHEMA = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE files (
    path TEXT PRIMARY KEY, language TEXT NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    hash TEXT NOT NULL, lines INTEGER NOT NULL, error_count INTEGER NOT NULL, is_test INTEGER NOT NULL,
    calls INTEGER NOT NULL DEFAULT 0, calls_resolved INTEGER NOT NULL DEFAULT 0,  -- call sites, externals excluded
    package TEXT,  -- the package declaration (Go, Java), NULL when none: module naming reads it without the facts
    attribute_types TEXT NOT NULL DEFAULT '[]'  -- JSON [scope, "self.x", type, line] rows: attributes' evident types
) WITHOUT ROWID;
CREATE TABLE file_data (  -- apart from files, so that a run's stat of every file reads small rows
    rowid INTEGER PRIMARY KEY,  -- the file's number while it stays unchanged: file_refs name files by it
    path TEXT NOT NULL, facts BLOB NOT NULL, bodies BLOB NOT NULL  -- zlib-compressed JSON
);
CREATE UNIQUE INDEX file_data_path ON file_data(path);
CREATE TABLE entities (
    rowid INTEGER PRIMARY KEY, id TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
    qualified_name TEXT NOT NULL, language TEXT NOT NULL, path TEXT NOT NULL,
    start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, signature TEXT NOT NULL, doc TEXT NOT NULL,
    sig_hash TEXT NOT NULL, body_hash TEXT NOT NULL, parent TEXT
);
CREATE UNIQUE INDEX entities_id ON entities(id);
CREATE INDEX entities_path ON entities(path);
CREATE INDEX entities_name ON entities(name);
CREATE INDEX entities_body_hash ON entities(body_hash);
CREATE TABLE externals (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL);
CREATE UNIQUE INDEX externals_id ON externals(id);
CREATE TABLE edge_keys (
    source INTEGER NOT NULL, target INTEGER NOT NULL, kind INTEGER NOT NULL, resolution INTEGER NOT NULL,
    confidence REAL NOT NULL, line INTEGER NOT NULL, maker INTEGER
);
CREATE INDEX edge_keys_source ON edge_keys(source);
CREATE INDEX edge_keys_maker ON edge_keys(maker) WHERE maker IS NOT NULL;
CREATE INDEX edge_keys_target ON edge_keys(target);
CREATE INDEX edge_keys_lineage ON edge_keys(kind) WHERE kind IN ({LINEAGE_CODES});
CREATE TABLE edge_kinds (code INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE resolutions (code INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE file_refs (name TEXT NOT NULL, file INTEGER NOT NULL, PRIMARY KEY (name, file)) WITHOUT ROWID;
CREATE INDEX file_refs_file ON file_refs(file);
CREATE TABLE consulted (  -- file entity rowids: the scope of `file` was read resolving `reader` (or answering its questions),
    -- the answers of its top-level definition `scope` ("" its module level, "*" any)
    file INTEGER NOT NULL, reader INTEGER NOT NULL, scope TEXT NOT NULL, PRIMARY KEY (file, reader, scope)
) WITHOUT ROWID;
CREATE TABLE warnings (path TEXT NOT NULL, message TEXT NOT NULL);
CREATE TABLE skipped (path TEXT PRIMARY KEY, reason TEXT NOT NULL, detail TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE graph_snapshot (generation INTEGER NOT NULL, data BLOB NOT NULL);
CREATE VIRTUAL TABLE entities_fts USING fts5(
    words, signature, doc, body, content = '', tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIEW edges AS  -- the edges by id and name, as people and tests read them (slow to filter by target)
    SELECT s.id AS source, coalesce(t.id, x.id) AS target, k.name AS kind, r.name AS resolution,
           e.confidence AS confidence, e.line AS line, s.path AS origin
    FROM edge_keys e JOIN entities s ON s.rowid = e.source
    LEFT JOIN entities t ON e.target > 0 AND t.rowid = e.target
    LEFT JOIN externals x ON e.target < 0 AND x.rowid = -e.target
    JOIN edge_kinds k ON k.code = e.kind JOIN resolutions r ON r.code = e.resolution;
"""
# What a full build creates after loading the rows: one sort per index instead of a B-tree kept in order row by row.
BULK_INDEXES = ("entities_id", "entities_path", "entities_name", "entities_body_hash", "edge_keys_source",
                "edge_keys_target", "edge_keys_maker", "edge_keys_lineage", "file_refs_file", "externals_id")


def content_hash(data: bytes) -> str:
    """The hash a file's content is indexed under: a run re-parses a file only when it changes."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


TABLES = frozenset(re.findall(r"CREATE (?:VIRTUAL )?TABLE (\w+)", SCHEMA))


class IndexMissing(Exception):
    """There is no index for this repository yet."""


def index_files(db_path: Path) -> list[Path]:
    """The database with its write-ahead log and shared-memory files: what an index is on disk."""
    return [db_path.with_name(db_path.name + suffix) for suffix in ("", "-wal", "-shm", "-journal")]


def remove(db_path: Path) -> None:
    """Delete an unusable index, log included, so that the next connection starts an empty one. Only
    index.db and its companions: records live in their own files beside it and are never touched."""
    for path in index_files(db_path):
        path.unlink(missing_ok=True)


def is_damage(exc: sqlite3.DatabaseError) -> bool:
    """Whether an error says the file itself is broken (rebuild it), not that a statement failed."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (SQLITE_CORRUPT, SQLITE_NOTADB)


def diagnose(conn: sqlite3.Connection, *, thorough: bool = False) -> str | None:
    """Why the index behind `conn` cannot be used as it is, as a phrase to follow its file name, or
    None when it can. `thorough` also runs PRAGMA quick_check: it reads every page (about 4 ms a MB),
    so it is for `graphctx index` and a server's start, not for every query."""
    try:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        version = schema_version(conn) if "meta" in tables else None
        if version is None:
            return "holds no finished index (a first build was stopped midway)"
        if version != SCHEMA_VERSION:
            return f"was written by another graphctx version (schema {version}, this one uses {SCHEMA_VERSION})"
        missing = sorted(TABLES - tables)
        if missing:
            return f"lacks the table{'s' if len(missing) > 1 else ''} {', '.join(missing)}"
        if thorough:
            verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
            if verdict != "ok":
                return f"is damaged (quick_check: {verdict.splitlines()[0]})"
    except sqlite3.DatabaseError as exc:
        if not is_damage(exc):  # busy, locked, no permission: the file may be fine, so it is not for us to judge
            raise
        return damage(exc)
    return None


def damage(exc: sqlite3.DatabaseError) -> str:
    """The phrase `diagnose` gives an error that `is_damage`."""
    kind = "is not a SQLite database" if exc.sqlite_errorcode & 0xFF == SQLITE_NOTADB else "is damaged"
    return f"{kind} ({exc})"


def usable(db_path: Path, thorough: bool = True) -> bool:
    """Whether the index file exists and passes `diagnose` (the thorough one by default)."""
    try:
        conn = connect(db_path, readonly=True)
    except IndexMissing:
        return False
    try:
        return diagnose(conn, thorough=thorough) is None
    finally:
        conn.close()


def needs_new_file(problem: str | None) -> bool:
    """Whether a diagnosed index must be deleted to be rebuilt: a damaged file or not SQLite at all.
    The other problems are rebuilt inside a run's transaction, so a killed rebuild keeps what was there."""
    return problem is not None and problem.startswith(("is damaged", "is not a SQLite database"))


def connect(db_path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """A connection in autocommit mode (runs open their own transaction), WAL, with a busy timeout."""
    if readonly:
        if not db_path.exists():
            raise IndexMissing(f"no index at {db_path}; run `graphctx index` first")
        conn = _read_only(db_path)
        if _awaits_recovery(conn):  # a killed writer's hot journal: only a writer may roll it back
            conn.close()
            _recover(db_path)
            conn = _read_only(db_path)
    else:
        db_path.parent.mkdir(parents=True, exist_ok=True)
        ignore = db_path.parent / ".gitignore"
        if not ignore.exists():
            ignore.write_text(INDEX_GITIGNORE)
        conn = sqlite3.connect(db_path, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA busy_timeout=10000")
    return conn


def _read_only(db_path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, isolation_level=None, check_same_thread=False)


def _awaits_recovery(conn: sqlite3.Connection) -> bool:
    """Whether reading needs a writer first: a run killed before its database went to WAL leaves a
    rollback journal that must be rolled back before anyone reads (SQLITE_READONLY_ROLLBACK and kin)."""
    try:
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
    except sqlite3.DatabaseError as exc:  # damage and the like are `diagnose`'s to report, later
        return exc.sqlite_errorcode & 0xFF == sqlite3.SQLITE_READONLY
    return False


def _recover(db_path: Path) -> None:
    """Open the file as a writer once, which rolls a hot journal back to the last committed state (what
    any SQLite reader with write access does on its own); a reader that cannot write gets the error."""
    try:
        writer = sqlite3.connect(db_path, isolation_level=None)
        try:
            writer.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        finally:
            writer.close()
    except sqlite3.DatabaseError:
        pass  # not ours to mend here: the read that follows reports it


def schema_version(conn: sqlite3.Connection) -> int | None:
    """The schema version of an existing index, or None for an empty database."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    except sqlite3.OperationalError:
        return None
    return int(row[0]) if row else None


def ensure_schema(conn: sqlite3.Connection) -> bool:
    """Create the schema inside the caller's transaction, or rebuild it when `diagnose` finds it
    unusable (another schema version, a killed first build's empty file, missing tables); True
    when the index starts empty. The caller says why (see `diagnose`)."""
    if diagnose(conn) is None:
        return False
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'view'").fetchall():
        conn.execute(f'DROP VIEW IF EXISTS "{name}"')
    # Virtual tables first: dropping one drops its shadow tables, and a shadow left alone goes after.
    for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        " ORDER BY sql NOT LIKE 'CREATE VIRTUAL%', name"
    ).fetchall():
        conn.execute(f'DROP TABLE IF EXISTS "{name}"')
    # executescript() would COMMIT the caller's transaction: run the statements one by one.
    for statement in SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.executemany("INSERT INTO edge_kinds(code, name) VALUES (?, ?)", enumerate(EDGE_KINDS))
    conn.executemany("INSERT INTO resolutions(code, name) VALUES (?, ?)", enumerate(RESOLUTIONS))
    set_meta(conn, schema_version=SCHEMA_VERSION, generation=0)
    return True


def get_meta(conn: sqlite3.Connection, key: str, default: str | None = None) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    return row[0] if row else default


def set_meta(conn: sqlite3.Connection, **values) -> None:
    conn.executemany(
        "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
        [(key, str(value)) for key, value in values.items()],
    )


def generation(conn: sqlite3.Connection) -> int:
    """The number of committed index runs that changed something: readers reload when it moves."""
    return int(get_meta(conn, "generation", "0"))
