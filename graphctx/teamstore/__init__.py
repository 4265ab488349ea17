"""The team store: records and coordination kept in PostgreSQL for a team server, behind the same
repository protocols as the files (graphctx.records.repository, graphctx.coord.repository). psycopg
is an optional dependency (`pip install 'graphctx[team]'`), imported only when a store is opened."""
