"""The library API: the functions the CLI and the MCP server call, one per capability. Each takes
a repository root and plain parameters, checks them, and returns a model from graphctx.models;
bad input raises a GraphctxError whose message says how to fix it."""

from __future__ import annotations

import time
from pathlib import Path

from graphctx import export as exports
from graphctx.context.engine import get_context, get_file_context, get_intent, get_path, rank_text
from graphctx.context.impact import get_impact
from graphctx.context.intents import policy_for
from graphctx.context.policy import RankingPolicy, with_overrides
from graphctx.context.session import session_init
from graphctx.errors import InvalidRequest, NoIndex
from graphctx.export import Selection
from graphctx.graph import lookup
from graphctx.graph.loader import GRAPHS, CodeGraph
from graphctx.index import skips, store
from graphctx.index.indexer import IndexResult, Progress, index_repository
from graphctx.index.root import find_root
from graphctx.models import Edge, Entity, EntityEdges, IndexStats, SearchAnswer, SearchHit


__all__ = [
    "find_root", "index", "refresh", "graph", "stats", "show", "search", "export",
    "get_context", "get_intent", "get_path", "get_file_context", "get_impact", "rank_text", "session_init",
    "RankingPolicy", "policy_for", "with_overrides",
]


def index(root: Path, *, full: bool = False, progress: Progress | None = None, verify: bool = False) -> IndexResult:
    """Build or update the index; `verify` checks every page of an existing one first (see index_repository)."""
    return index_repository(root, full=full, progress=progress, verify=verify)


def refresh(root: Path) -> IndexResult:
    """Bring an existing index up to date with the working tree (an incremental run)."""
    if not store.index_path(root.resolve()).exists():
        raise NoIndex(f"{root} has no index yet; run `graphctx index {root}` first")
    return index_repository(root)


def graph(root: Path) -> CodeGraph:
    return GRAPHS.get(root)


def stats(root: Path) -> IndexStats:
    conn = _conn(root)
    counts = lambda sql: dict(conn.execute(sql).fetchall())  # noqa: E731
    resolutions = counts("SELECT resolution, count(*) FROM edges WHERE kind='calls' GROUP BY resolution")
    calls, resolved = conn.execute("SELECT coalesce(sum(calls), 0), coalesce(sum(calls_resolved), 0) FROM files").fetchone()
    indexed_at = store.get_meta(conn, "indexed_at")
    skipped = skips.stored(conn)
    skipped_reasons, skipped_languages = skips.tally(skipped)
    return IndexStats(
        root=str(root),
        generation=store.generation(conn),
        files=conn.execute("SELECT count(*) FROM files").fetchone()[0],
        entities=conn.execute("SELECT count(*) FROM entities").fetchone()[0],
        edges=conn.execute("SELECT count(*) FROM edges").fetchone()[0],
        indexed_at=float(indexed_at) if indexed_at else None,
        age_seconds=round(time.time() - float(indexed_at), 1) if indexed_at else None,
        languages=counts("SELECT language, count(*) FROM files GROUP BY language"),
        entity_kinds=counts("SELECT kind, count(*) FROM entities GROUP BY kind"),
        edge_kinds=counts("SELECT kind, count(*) FROM edges GROUP BY kind"),
        resolutions=resolutions,
        calls_resolved_share=round(resolved / calls, 4) if calls else 1.0,
        parse_errors=conn.execute("SELECT coalesce(sum(error_count), 0) FROM files").fetchone()[0],
        files_with_errors=conn.execute("SELECT count(*) FROM files WHERE error_count > 0").fetchone()[0],
        warnings=conn.execute("SELECT path, message FROM warnings ORDER BY path").fetchall(),
        skipped=skipped_reasons,
        skipped_languages=skipped_languages,
        skipped_files=[(s.path, s.reason, s.detail) for s in skipped if s.reason in skips.PER_FILE],
    )


def show(root: Path, entity: str, file: str | None = None) -> EntityEdges:
    """One entity with every edge into and out of it, external references included."""
    g = graph(root)
    entity_id = lookup.resolve_entity(g, entity, file)
    conn = g.connection()
    columns = "source, target, kind, resolution, confidence, line"
    edge = lambda row: Edge(**dict(zip(columns.split(", "), row)))  # noqa: E731
    return EntityEdges(
        entity=Entity(id=entity_id, **{k: v for k, v in g.entity(entity_id).items() if k in Entity.model_fields}),
        outgoing=[edge(r) for r in conn.execute(f"SELECT {columns} FROM edges WHERE source=? ORDER BY kind, target", (entity_id,))],
        incoming=[edge(r) for r in conn.execute(f"SELECT {columns} FROM edges WHERE target=? ORDER BY kind, source", (entity_id,))],
    )


def search(root: Path, query: str, kind: str | None = None, limit: int = 20) -> SearchAnswer:
    g = graph(root)
    hits = []
    for entity_id, score, how in lookup.search(g, g.connection(), query, kind, limit):
        e = g.entity(entity_id)
        hits.append(SearchHit(id=entity_id, kind=e["kind"], path=e["path"], start_line=e["start_line"],
                              signature=e["signature"], score=score, match=how))
    return SearchAnswer(query=query, hits=hits, generation=g.generation)


def export(root: Path, fmt: str = "json", *, around: str | None = None, file: str | None = None, depth: int | None = None,
           edge_kinds: str | None = None, max_nodes: int | None = None, external: bool | None = None) -> tuple[Selection, str]:
    """The graph, or the neighbourhood of `around` out to `depth` hops (default 1), as node-link
    JSON, GraphML, a Mermaid flowchart or a self-contained HTML page; `edge_kinds` ("calls,inherits")
    limits the edges followed and shown, `max_nodes` overrides a picture's cap, `external` adds (or
    leaves out) the names outside the repository and the unresolved calls as `ext:` nodes."""
    if depth is not None and around is None:
        raise InvalidRequest("depth needs an entity to count hops from: pass --around ENTITY with --depth")
    if file is not None and around is None:
        raise InvalidRequest("file narrows the entity given with --around: pass --around ENTITY with --file")
    depth = 1 if depth is None else depth
    exports.check_options(fmt, depth, max_nodes)
    kinds = exports.parse_edge_kinds(edge_kinds)
    g = graph(root)
    entity_id = lookup.resolve_entity(g, around, file) if around is not None else None
    return exports.export(g, fmt, around=entity_id, depth=depth, edge_kinds=kinds, max_nodes=max_nodes,
                          title=root.resolve().name, external=external)


def _conn(root: Path):
    return GRAPHS.connection(root.resolve())

