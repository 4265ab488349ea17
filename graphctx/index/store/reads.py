"""Every query that reads `index.db`: what an index run compares against, the snapshot a graph is
loaded from, full-text search, the counts of `stats` and the session packet, and the edge and
reference look-ups of `show` and impact. Callers get plain rows and values, never a cursor to
write SQL against."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from graphctx.index.store.schema import LINEAGE_CODES

_CHUNK = 500  # values per IN (...): SQLite caps the number of bound parameters
# The entity columns a loaded graph holds; signatures and docs (DETAIL_COLUMNS) are read on first use.
NODE_COLUMNS = (
    "id", "kind", "name", "qualified_name", "language", "path", "start_line", "end_line", "sig_hash", "body_hash", "parent",
)
DETAIL_COLUMNS = ("signature", "doc")
EDGE_COLUMNS = ("source", "target", "kind", "resolution", "confidence", "line")


def _in(values: Sequence) -> str:
    return ",".join("?" * len(values))


def _chunks(values: Sequence) -> Iterable[Sequence]:
    for i in range(0, len(values), _CHUNK):
        yield values[i:i + _CHUNK]


# ---- what an index run compares against

def file_stats(conn: sqlite3.Connection, paths: Sequence[str] | None = None) -> dict[str, tuple[int, int, str]]:
    """path -> (size, mtime_ns, content hash) of every indexed file, or of those among `paths`."""
    if paths is None:
        return {path: (size, mtime, digest) for path, size, mtime, digest in
                conn.execute("SELECT path, size, mtime_ns, hash FROM files")}
    return {path: (size, mtime, digest) for chunk in _chunks(paths) for path, size, mtime, digest in
            conn.execute(f"SELECT path, size, mtime_ns, hash FROM files WHERE path IN ({_in(chunk)})", chunk)}


def file_paths(conn: sqlite3.Connection) -> list[str]:
    """Every indexed file, in path order."""
    return [p for (p,) in conn.execute("SELECT path FROM files ORDER BY path")]


def file_facts(conn: sqlite3.Connection, path: str) -> bytes | None:
    """A file's parse facts as stored (compressed JSON, see index/parsed.py), None when it is not indexed."""
    row = conn.execute("SELECT facts FROM file_data WHERE path=?", (path,)).fetchone()
    return row[0] if row else None


def attribute_types(conn: sqlite3.Connection, path: str) -> str | None:
    """What a file's attributes hold as stored (JSON [scope, "self.x", type or flow source, line] rows)."""
    row = conn.execute("SELECT attribute_types FROM files WHERE path=?", (path,)).fetchone()
    return row[0] if row else None


def file_packages(conn: sqlite3.Connection) -> dict[str, tuple[str, str | None]]:
    """path -> (language, package declaration or None) of every indexed file."""
    return {path: (language, package) for path, language, package in
            conn.execute("SELECT path, language, package FROM files")}


def paths_with_edges_into(conn: sqlite3.Connection, rowids: Iterable[int]) -> set[str]:
    """The files whose resolution made an edge to an entity of these rowids: its source's file, or
    the file that made it elsewhere (its maker)."""
    found: set[str] = set()
    for chunk in _chunks(sorted(set(rowids))):
        found.update(path for (path,) in conn.execute(
            "SELECT DISTINCT coalesce(m.path, s.path) FROM edge_keys e JOIN entities s ON s.rowid = e.source"
            f" LEFT JOIN entities m ON m.rowid = e.maker WHERE e.target IN ({_in(chunk)})", chunk))
    return found


def paths_referring_to(conn: sqlite3.Connection, names: Iterable[str]) -> set[str]:
    """The files that refer to any of `names`."""
    out: set[str] = set()
    for chunk in _chunks(sorted(names)):
        out.update(p for (p,) in conn.execute(f"SELECT DISTINCT d.path FROM file_refs r JOIN file_data d"
                                              f" ON d.rowid = r.file WHERE r.name IN ({_in(chunk)})", chunk))
    return out


def definitions(conn: sqlite3.Connection) -> list[tuple[str, str, str, str, str, str]]:
    """(id, kind, name, qualified_name, path, language) of every entity but files, routes and documents: what
    names resolve to."""
    return conn.execute(
        "SELECT id, kind, name, qualified_name, path, language FROM entities"
        " WHERE kind NOT IN ('file', 'route', 'document', 'section')").fetchall()


def edges_outside(conn: sqlite3.Connection) -> list[tuple[str, str, str, str, float]]:
    """(source, target, kind, resolution, confidence) of every edge to a name outside the repository
    or a call left unresolved (an `ext:` target), in a fixed order."""
    return conn.execute("SELECT source, target, kind, resolution, confidence FROM edges WHERE target LIKE 'ext:%'"
                        " ORDER BY source, target, kind").fetchall()


def inheritance_names(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(subclass name, base name) of every inherits and implements edge between repository entities
    (an external base has a negative target, which no entity rowid is: `e.target > 0` would only
    lead SQLite through the target index, one table lookup per edge, slower than a scan)."""
    return conn.execute(
        "SELECT s.name, t.name FROM edge_keys e JOIN entities s ON s.rowid = e.source"
        " JOIN entities t ON t.rowid = e.target"
        f" WHERE e.kind IN ({LINEAGE_CODES})").fetchall()


def inheritance_edges(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """(source, target, origin) of every inherits and implements edge, by id."""
    return conn.execute(
        "SELECT s.id, coalesce(t.id, x.id), s.path FROM edge_keys e JOIN entities s ON s.rowid = e.source"
        " LEFT JOIN entities t ON e.target > 0 AND t.rowid = e.target"
        " LEFT JOIN externals x ON e.target < 0 AND x.rowid = -e.target"
        f" WHERE e.kind IN ({LINEAGE_CODES})").fetchall()


def inheritance_rows(conn: sqlite3.Connection) -> list[tuple[str, str, str, str, str | None]]:
    """(source, target, origin, source name, target name) of every inherits and implements edge, by
    id: inheritance_edges and, where the target is a repository entity (a name), inheritance_names,
    in one scan of the edges."""
    return conn.execute(
        "SELECT s.id, coalesce(t.id, x.id), s.path, s.name, t.name FROM edge_keys e"
        " JOIN entities s ON s.rowid = e.source"
        " LEFT JOIN entities t ON e.target > 0 AND t.rowid = e.target"
        " LEFT JOIN externals x ON e.target < 0 AND x.rowid = -e.target"
        f" WHERE e.kind IN ({LINEAGE_CODES})").fetchall()


def entity_keys(conn: sqlite3.Connection, paths: Sequence[str] | None = None) -> dict[str, int]:
    """id -> rowid of every entity, or of those in `paths`."""
    if paths is None:
        return dict(conn.execute("SELECT id, rowid FROM entities"))
    out: dict[str, int] = {}
    for chunk in _chunks(list(paths)):
        out.update(conn.execute(f"SELECT id, rowid FROM entities WHERE path IN ({_in(chunk)})", chunk))
    return out


def row_key(conn: sqlite3.Connection, key_id: str, external: bool) -> int | None:
    """The rowid of one entity, or of one name outside the repository, by id; None when there is none."""
    row = conn.execute(f"SELECT rowid FROM {'externals' if external else 'entities'} WHERE id=?", (key_id,)).fetchone()
    return row[0] if row else None


def external_keys(conn: sqlite3.Connection) -> dict[str, int]:
    """`ext:` id -> rowid of every name outside the repository that an edge points at."""
    return dict(conn.execute("SELECT id, rowid FROM externals"))


def graph_arrays(conn: sqlite3.Connection) -> tuple[list[int], list[tuple]]:
    """(every entity rowid, every edge between entities as (source, target, kind, resolution,
    confidence) codes): what a graph snapshot is built from when there is none to start from."""
    return ([r for (r,) in conn.execute("SELECT rowid FROM entities")],
            conn.execute("SELECT source, target, kind, resolution, confidence FROM edge_keys WHERE target > 0").fetchall())


def snapshot_sizes(conn: sqlite3.Connection) -> list[tuple[int, int]]:
    """(generation, bytes) of the stored graph snapshot's base and patches, in order, without reading
    them: what an edit decides between one more patch and a new base by."""
    return conn.execute("SELECT generation, length(data) FROM graph_snapshot ORDER BY generation").fetchall()


def snapshot_blobs(conn: sqlite3.Connection, current: int) -> list[bytes]:
    """The stored graph snapshot of generation `current` (its base, then its patches), or [] when
    what is stored is not a whole chain up to that generation."""
    chain = conn.execute("SELECT generation, data FROM graph_snapshot ORDER BY generation").fetchall()
    return [data for _, data in chain] if snapshot_chain_ends(chain, current) else []


def snapshot_chain_ends(chain: Sequence[tuple[int, object]], current: int) -> bool:
    """Whether (generation, ...) rows of a snapshot, in order, are a base and one patch per generation
    after it, up to `current`."""
    return bool(chain) and [g for g, _ in chain] == list(range(current - len(chain) + 1, current + 1))


def run_counts(conn: sqlite3.Connection) -> tuple[int, int, int, int, int, int]:
    """(files, entities, edges, parse errors, call sites, call sites resolved): an index run's summary."""
    files, errors, calls, resolved = conn.execute(
        "SELECT count(*), coalesce(sum(error_count), 0), coalesce(sum(calls), 0), coalesce(sum(calls_resolved), 0)"
        " FROM files").fetchone()
    entities = conn.execute("SELECT count(*) FROM entities").fetchone()[0]
    edges = conn.execute("SELECT count(*) FROM edge_keys").fetchone()[0]
    return files, entities, edges, errors, calls, resolved


# ---- the graph

def entity_details(conn: sqlite3.Connection, entity_id: str) -> tuple[str, str]:
    """(signature, doc) of an entity; empty strings for one that is gone."""
    row = conn.execute(f"SELECT {', '.join(DETAIL_COLUMNS)} FROM entities WHERE id=?", (entity_id,)).fetchone()
    return tuple(row) if row else ("", "")


def entities_details(conn: sqlite3.Connection, entity_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
    """{id: (signature, doc)} of the entities among `entity_ids` that exist, in a few queries."""
    found: dict[str, tuple[str, str]] = {}
    for start in range(0, len(entity_ids), 500):
        chunk = entity_ids[start:start + 500]
        found.update((row[0], tuple(row[1:])) for row in conn.execute(
            f"SELECT id, {', '.join(DETAIL_COLUMNS)} FROM entities WHERE id IN ({', '.join('?' * len(chunk))})", chunk))
    return found


def full_text(conn: sqlite3.Connection, match: str, weights: Sequence[float], kind: str | None,
              limit: int) -> list[tuple[str, float]]:
    """(id, BM25 score: more negative is better) of the entities an FTS5 `match` expression finds,
    best first; `weights` weigh the columns (words, signature, doc, body), `kind` filters."""
    if kind is None:  # the best `limit` rows are picked before the join, which then reads only those ids
        return conn.execute(
            f"SELECT e.id, f.s FROM (SELECT rowid, bm25(entities_fts, {_in(weights)}) AS s FROM entities_fts"
            " WHERE entities_fts MATCH ? ORDER BY s LIMIT ?) f JOIN entities e ON e.rowid = f.rowid ORDER BY f.s",
            (*weights, match, limit),
        ).fetchall()
    return conn.execute(
        f"SELECT e.id, bm25(entities_fts, {_in(weights)}) AS s FROM entities_fts f JOIN entities e ON e.rowid = f.rowid"
        " WHERE entities_fts MATCH ? AND (? IS NULL OR e.kind = ?) ORDER BY s LIMIT ?",
        (*weights, match, kind, kind, limit),
    ).fetchall()


# ---- stats, show and the session packet

def index_counts(conn: sqlite3.Connection) -> dict:
    """The numbers `graphctx stats` shows, by name."""
    grouped = lambda sql: dict(conn.execute(sql).fetchall())  # noqa: E731
    files, entities, edges, errors, calls, resolved = run_counts(conn)
    return {
        "files": files, "entities": entities, "edges": edges, "parse_errors": errors,
        "calls": calls, "calls_resolved": resolved,
        "files_with_errors": conn.execute("SELECT count(*) FROM files WHERE error_count > 0").fetchone()[0],
        "languages": grouped("SELECT language, count(*) FROM files GROUP BY language"),
        "entity_kinds": grouped("SELECT kind, count(*) FROM entities GROUP BY kind"),
        "edge_kinds": grouped("SELECT k.name, count(*) FROM edge_keys e JOIN edge_kinds k ON k.code = e.kind GROUP BY e.kind"),
        "resolutions": grouped("SELECT r.name, count(*) FROM edge_keys e JOIN resolutions r ON r.code = e.resolution"
                               " WHERE e.kind = (SELECT code FROM edge_kinds WHERE name = 'calls') GROUP BY e.resolution"),
    }


def warnings_of_unindexed(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(path, message) of the warnings about paths that are no indexed file, sorted: those a run states anew."""
    return sorted(conn.execute("SELECT path, message FROM warnings WHERE path NOT IN (SELECT path FROM files)"))


def warnings(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    return conn.execute("SELECT path, message FROM warnings ORDER BY path").fetchall()


def _edge_key(conn: sqlite3.Connection, entity_id: str) -> int | None:
    """The integer an edge row names an entity by: its rowid, minus the rowid of an external name."""
    row = conn.execute("SELECT rowid FROM entities WHERE id=?", (entity_id,)).fetchone()
    if row is None:
        row = conn.execute("SELECT -rowid FROM externals WHERE id=?", (entity_id,)).fetchone()
    return row[0] if row else None


# The edge rows by id and name (the schema's view `edges`, spelled out), for a WHERE on e.source or e.target.
_EDGES_NAMED = (
    "SELECT s.id, coalesce(t.id, x.id), k.name, r.name, e.confidence, e.line FROM edge_keys e"
    " JOIN entities s ON s.rowid = e.source LEFT JOIN entities t ON e.target > 0 AND t.rowid = e.target"
    " LEFT JOIN externals x ON e.target < 0 AND x.rowid = -e.target"
    " JOIN edge_kinds k ON k.code = e.kind JOIN resolutions r ON r.code = e.resolution"
)


def edges_of(conn: sqlite3.Connection, entity_id: str) -> tuple[list[dict], list[dict]]:
    """(outgoing, incoming) edges of an entity as dicts of EDGE_COLUMNS, external ones included."""
    as_dict = lambda rows: [dict(zip(EDGE_COLUMNS, row)) for row in rows]  # noqa: E731
    key = _edge_key(conn, entity_id)
    if key is None:
        return [], []
    return (as_dict(sorted(conn.execute(f"{_EDGES_NAMED} WHERE e.source = ?", (key,)), key=lambda r: (r[2], r[1] or ""))),
            as_dict(sorted(conn.execute(f"{_EDGES_NAMED} WHERE e.target = ?", (key,)), key=lambda r: (r[2], r[0]))))


def size_counts(conn: sqlite3.Connection) -> tuple[int, int, int, dict[str, int]]:
    """(files, entities other than files, edges, files by language): the session packet's figures."""
    count = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
    return (count("SELECT count(*) FROM files"), count("SELECT count(*) FROM entities WHERE kind != 'file'"),
            count("SELECT count(*) FROM edge_keys"),
            dict(conn.execute("SELECT language, count(*) FROM files GROUP BY language").fetchall()))


def test_flags(conn: sqlite3.Connection) -> dict[str, bool]:
    """path -> whether it is a test file, for every indexed file."""
    return {path: bool(test) for path, test in conn.execute("SELECT path, is_test FROM files")}


def named_functions(conn: sqlite3.Connection, name: str) -> list[tuple[str, str]]:
    """(id, path) of the functions and methods called `name`."""
    return conn.execute(
        "SELECT id, path FROM entities WHERE name = ? AND kind IN ('function', 'method')", (name,)).fetchall()


def entity_at(conn: sqlite3.Connection, path: str, qualified_name: str) -> str | None:
    """The id of the entity with this qualified name in this file, if indexed."""
    row = conn.execute("SELECT id FROM entities WHERE path=? AND qualified_name=?", (path, qualified_name)).fetchone()
    return row[0] if row else None


# ---- what impact and removed entities need

def edges_to_names(conn: sqlite3.Connection, kinds: Sequence[str], exact: str, like: str) -> list[tuple[str, str]]:
    """(source, target) of edges of `kinds` whose target is `exact` or matches the LIKE pattern `like`."""
    return conn.execute(
        f"SELECT source, target FROM edges WHERE kind IN ({_in(kinds)}) AND (target = ? OR target LIKE ?)",
        (*kinds, exact, like),
    ).fetchall()


def edges_into(conn: sqlite3.Connection, target: str, kinds: Sequence[str]) -> list[tuple[str, int]]:
    """(source, line) of the edges of `kinds` into `target`."""
    key = _edge_key(conn, target)
    if key is None:
        return []
    return conn.execute(
        f"SELECT s.id, e.line FROM edge_keys e JOIN entities s ON s.rowid = e.source WHERE e.target = ?"
        f" AND e.kind IN (SELECT code FROM edge_kinds WHERE name IN ({_in(kinds)}))", (key, *kinds)).fetchall()


def paths_naming(conn: sqlite3.Connection, name: str) -> set[str]:
    """The files that refer to `name`."""
    return {p for (p,) in conn.execute("SELECT d.path FROM file_refs r JOIN file_data d ON d.rowid = r.file"
                                       " WHERE r.name=?", (name,))}


# ---- skipped files

def skipped(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """(path, reason, detail) of every file the last run skipped, in path order."""
    return conn.execute("SELECT path, reason, detail FROM skipped ORDER BY path").fetchall()


def skipped_matching(conn: sqlite3.Connection, suffix: str) -> list[tuple[str, str, str]]:
    """The skips whose path is `suffix` or ends with `/suffix`."""
    return conn.execute(
        "SELECT path, reason, detail FROM skipped WHERE path = ? OR path LIKE ? ESCAPE '\\'",
        (suffix, "%/" + like_escape(suffix)),
    ).fetchall()


def like_escape(text: str) -> str:
    """`text` with LIKE's wildcards escaped (with ESCAPE '\\')."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


# ---- code facts for records: an entity's current hashes (a file's is its content hash)

_CODE_COLUMNS = (
    "e.id, e.kind, e.name, e.path, e.sig_hash,"
    " CASE WHEN e.kind = 'file' THEN coalesce(f.hash, '') ELSE e.body_hash END"
)


def _code_rows(conn: sqlite3.Connection, where: str, params: Sequence) -> list[tuple]:
    return conn.execute(
        f"SELECT {_CODE_COLUMNS} FROM entities e LEFT JOIN files f ON f.path = e.path WHERE {where}", tuple(params),
    ).fetchall()


def code_entities(conn: sqlite3.Connection, ids: Sequence[str]) -> list[tuple]:
    """(id, kind, name, path, sig_hash, body_hash) of the entities with these ids."""
    rows: list[tuple] = []
    for chunk in _chunks(list(ids)):
        rows += _code_rows(conn, f"e.id IN ({_in(chunk)})", chunk)
    return rows


def code_entities_with_body(conn: sqlite3.Connection, body_hash: str, exclude: str) -> list[tuple]:
    """Entities (and files, by content hash) other than `exclude` whose code hashes to `body_hash`."""
    return (_code_rows(conn, "e.body_hash = ? AND e.kind != 'file' AND e.id != ?", (body_hash, exclude))
            + _code_rows(conn, "e.kind = 'file' AND f.hash = ? AND e.id != ?", (body_hash, exclude)))


def code_entities_named(conn: sqlite3.Connection, name: str) -> list[tuple]:
    """Entities whose qualified name or name is `name`."""
    return _code_rows(conn, "e.qualified_name = ? OR e.name = ?", (name, name))


def code_entities_id_ending(conn: sqlite3.Connection, suffix: str) -> list[tuple]:
    return _code_rows(conn, "e.id LIKE ? ESCAPE '\\'", ("%" + like_escape(suffix),))


def code_entities_name_containing(conn: sqlite3.Connection, part: str) -> list[tuple]:
    return _code_rows(conn, "e.name LIKE ? ESCAPE '\\'", ("%" + like_escape(part) + "%",))


def full_text_fields(conn: sqlite3.Connection, match: str, columns: int, limit: int) -> list[tuple]:
    """(id, one BM25 score per full-text column, each column weighed alone) of the entities a `match`
    finds, best first by all columns together: the learned ranker's per-field text features."""
    alone = ", ".join(f"bm25(entities_fts, {', '.join('1.0' if j == i else '0.0' for j in range(columns))})"
                      for i in range(columns))
    return conn.execute(
        f"SELECT e.id, {alone} FROM entities_fts f JOIN entities e ON e.rowid = f.rowid"
        " WHERE entities_fts MATCH ? ORDER BY rank LIMIT ?",
        (match, limit),
    ).fetchall()
