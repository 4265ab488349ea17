"""The library API: the functions the CLI and the MCP server call, one per capability. Each takes
a repository root and plain parameters, checks them, and returns a model from graphctx.models;
bad input raises a GraphctxError whose message says how to fix it."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import networkx as nx

from graphctx.context.engine import get_context, get_file_context, get_impact, get_intent, get_path, rank_text
from graphctx.context.session import session_init
from graphctx.errors import InvalidRequest
from graphctx.graph import lookup
from graphctx.graph.loader import GRAPHS, CodeGraph
from graphctx.index import skips, store
from graphctx.index.indexer import IndexResult, Progress, index_repository
from graphctx.models import Edge, Entity, EntityEdges, IndexStats, SearchAnswer, SearchHit


__all__ = [
    "find_root", "index", "graph", "stats", "show", "search", "export",
    "get_context", "get_intent", "get_path", "get_file_context", "get_impact", "rank_text", "session_init",
]


def find_root(start: Path | str | None = None) -> Path:
    """The repository containing `start` (default: the current folder): the git top level, or the
    nearest folder holding a .graphctx index, or `start` itself."""
    here = Path(start or ".").resolve()
    if not here.exists():
        raise InvalidRequest(f"{here} does not exist; pass --repo with the repository's folder")
    if here.is_file():
        here = here.parent
    top = subprocess.run(["git", "-C", str(here), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if top.returncode == 0 and top.stdout.strip():
        return Path(top.stdout.strip())
    for folder in (here, *here.parents):
        if (folder / store.INDEX_DIR / store.INDEX_FILE).exists():
            return folder
    return here


def index(root: Path, *, full: bool = False, progress: Progress | None = None) -> IndexResult:
    return index_repository(root, full=full, progress=progress)


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
    conn = _conn(root)
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
    for entity_id, score, how in lookup.search(g, _conn(root), query, kind, limit):
        e = g.entity(entity_id)
        hits.append(SearchHit(id=entity_id, kind=e["kind"], path=e["path"], start_line=e["start_line"],
                              signature=e["signature"], score=score, match=how))
    return SearchAnswer(query=query, hits=hits, generation=g.generation)


def export(root: Path, fmt: str = "json") -> str:
    """The graph as networkx node-link JSON or GraphML text."""
    g = graph(root).graph
    keep = ("kind", "name", "qualified_name", "language", "path", "start_line", "end_line")
    out = nx.MultiDiGraph()
    out.add_nodes_from((n, {k: d[k] for k in keep}) for n, d in g.nodes(data=True))
    out.add_edges_from(
        (s, t, k, {"kind": d["kind"], "resolution": d["resolution"], "confidence": d["confidence"]})
        for s, t, k, d in g.edges(keys=True, data=True)
    )
    if fmt == "json":
        return json.dumps(nx.node_link_data(out, edges="edges"), indent=1)
    if fmt == "graphml":
        return "\n".join(nx.generate_graphml(out))
    raise InvalidRequest(f"unknown export format {fmt!r}: use json or graphml")


def _conn(root: Path):
    return GRAPHS.connection(root.resolve())

