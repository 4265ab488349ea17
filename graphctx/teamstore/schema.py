"""The team store's schema, versioned: each migration is a list of statements applied in one
transaction under the migration lock, so servers starting together migrate once, and a database
newer than this graphctx is refused rather than misread. Every table is keyed by project, so one
database serves every project of a team server."""

from __future__ import annotations

from graphctx.teamstore.database import Database, StoreError

MIGRATION_LOCK = "graphctx:migrate"

MIGRATIONS: list[list[str]] = [
    [  # 1: coordination and records
        "CREATE TABLE work_tasks (project text NOT NULL, id text NOT NULL, version integer NOT NULL,"
        " data jsonb NOT NULL, PRIMARY KEY (project, id))",
        "CREATE TABLE work_claims (project text NOT NULL, task_id text NOT NULL, data jsonb NOT NULL,"
        " PRIMARY KEY (project, task_id))",
        "CREATE TABLE work_agents (project text NOT NULL, name text NOT NULL, data jsonb NOT NULL,"
        " PRIMARY KEY (project, name))",
        "CREATE TABLE work_events (seq bigserial PRIMARY KEY, project text NOT NULL, stream text NOT NULL,"
        " agent text NOT NULL, at timestamptz NOT NULL, data jsonb NOT NULL)",
        "CREATE INDEX work_events_by_stream ON work_events (project, stream, at)",
        "CREATE SEQUENCE record_seq",
        # A deleted record keeps its row (deleted, data NULL) so other servers' mirrors see it go.
        "CREATE TABLE records (project text NOT NULL, id text NOT NULL, scope text NOT NULL, category text,"
        " key text, version integer NOT NULL, deleted boolean NOT NULL DEFAULT false, seq bigint NOT NULL,"
        " data jsonb, PRIMARY KEY (project, id))",
        "CREATE INDEX records_by_key ON records (project, scope, category, key)",
        "CREATE INDEX records_by_seq ON records (project, seq)",
        "CREATE TABLE record_history (project text NOT NULL, id text NOT NULL, seq bigint NOT NULL,"
        " version integer NOT NULL, action text NOT NULL, author text NOT NULL, at timestamptz NOT NULL DEFAULT now(),"
        " data jsonb, PRIMARY KEY (project, id, seq))",
    ],
    [  # 2: skills, skill proposals and the learned ranking weights: versioned documents of a project
        "CREATE TABLE work_documents (project text NOT NULL, kind text NOT NULL, id text NOT NULL,"
        " version integer NOT NULL, data jsonb NOT NULL, PRIMARY KEY (project, kind, id))",
    ],
]
VERSION = len(MIGRATIONS)


def version(db: Database) -> int:
    """The schema version of the database (0: none yet)."""
    with db.connection() as conn:
        exists = conn.execute("SELECT to_regclass('graphctx_schema') IS NOT NULL").fetchone()[0]
        if not exists:
            return 0
        row = conn.execute("SELECT max(version) FROM graphctx_schema").fetchone()
    return row[0] or 0


def migrate(db: Database) -> tuple[int, int]:
    """Bring the schema to VERSION; returns (version before, version after)."""
    with db.transaction(MIGRATION_LOCK) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS graphctx_schema (version integer PRIMARY KEY,"
                     " applied_at timestamptz NOT NULL DEFAULT now())")
        before = conn.execute("SELECT coalesce(max(version), 0) FROM graphctx_schema").fetchone()[0]
        if before > VERSION:
            raise StoreError(f"the store's schema is version {before}, newer than this graphctx knows ({VERSION}); "
                             "upgrade graphctx on this machine")
        for number in range(before + 1, VERSION + 1):
            for statement in MIGRATIONS[number - 1]:
                conn.execute(statement)
            conn.execute("INSERT INTO graphctx_schema (version) VALUES (%s)", (number,))
    return before, VERSION


def require_current(db: Database) -> None:
    """Refuse a database whose schema is not this graphctx's (run `graphctx store migrate`)."""
    found = version(db)
    if found != VERSION:
        raise StoreError(f"the store's schema is version {found}, this graphctx needs {VERSION}; run: graphctx store "
                         "migrate --store URL" if found < VERSION else
                         f"the store's schema is version {found}, newer than this graphctx knows ({VERSION}); "
                         "upgrade graphctx on this machine")
