"""The capabilities over one repository's index, one function each, for Project to offer: each takes
what it reads (the repository's GraphCache, its record store) and plain parameters, checks them, and
returns a model from graphctx.models; bad input raises a GraphctxError whose message says how to fix it."""

from __future__ import annotations

import functools
import importlib
import time
from pathlib import Path
from typing import TYPE_CHECKING

from graphctx.context import engine
from graphctx.context.intents import policy_for
from graphctx.context.policy import RankingPolicy, table_settings, with_overrides
from graphctx.errors import InvalidRequest, NoIndex
from graphctx.graph import lookup
from graphctx.graph.loader import GraphCache, current_generation
from graphctx.index import store
from graphctx.index.store import reads
from graphctx.index.root import find_root

if TYPE_CHECKING:
    from graphctx.models import EntityEdges, IndexStats, SearchAnswer
    from graphctx.export import Selection
    from graphctx.index.indexer import IndexResult, Progress
    from graphctx.index.keeper import TableKeeper

# Imported on first use, so that a context answer does not load the indexer, impact or export code.
LAZY = {"get_impact": "graphctx.context.impact", "session_init": "graphctx.context.session",
        "project_facts": "graphctx.context.facts"}


def __getattr__(name: str):
    if name not in LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(LAZY[name]), name)
    value = globals()[name] = value if name == "project_facts" else _on_current_generation(value)
    return value


def _on_current_generation(fn):
    """`fn`, computed again on the new generation's graph when the index moved while it read entity
    rows of an older one (they are read on demand: loader.current_generation)."""
    @functools.wraps(fn)
    def answered(*args, **kwargs):
        return current_generation(lambda: fn(*args, **kwargs))

    return answered


get_context, get_intent, get_path, get_file_context, rank_text, rank_text_features = map(_on_current_generation, (
    engine.get_context, engine.get_intent, engine.get_path, engine.get_file_context, engine.rank_text,
    engine.rank_text_features))


__all__ = [  # noqa: F822 - some names are read on first use (__getattr__ above)
    "find_root", "index", "refresh", "stats", "show", "search", "export",
    "get_context", "get_intent", "get_path", "get_file_context", "get_impact", "rank_text", "rank_text_features", "session_init", "project_facts",
    "RankingPolicy", "policy_for", "table_settings", "with_overrides",
]


def index(root: Path, *, full: bool = False, progress: Progress | None = None, verify: bool = False,
          keeper: TableKeeper | None = None) -> IndexResult:
    """Build or update the index; `verify` checks every page of an existing one first, `keeper` keeps
    the symbol table for the next run (see index_repository)."""
    from graphctx.index.indexer import index_repository

    return index_repository(root, full=full, progress=progress, verify=verify, keeper=keeper)


def refresh(root: Path, keeper: TableKeeper | None = None) -> IndexResult:
    """Bring an existing index up to date with the working tree (an incremental run)."""
    if not store.index_path(root.resolve()).exists():
        raise NoIndex(f"{root} has no index yet; run `graphctx index {root}` first")
    from graphctx.index.indexer import index_repository

    return index_repository(root, keeper=keeper)


def stats(graphs: GraphCache) -> IndexStats:
    from graphctx.index import skips  # (with pathspec: only stats reads the skipped files)
    from graphctx.models import IndexStats  # (pydantic's models load with the answers that are theirs)

    conn = graphs.connection()
    counts = reads.index_counts(conn)
    calls, resolved = counts["calls"], counts["calls_resolved"]
    indexed_at = store.get_meta(conn, "indexed_at")
    skipped = skips.stored(conn)
    skipped_reasons, skipped_languages = skips.tally(skipped)
    return IndexStats(
        root=str(graphs.root),
        generation=store.generation(conn),
        files=counts["files"],
        entities=counts["entities"],
        edges=counts["edges"],
        indexed_at=float(indexed_at) if indexed_at else None,
        age_seconds=round(time.time() - float(indexed_at), 1) if indexed_at else None,
        languages=counts["languages"],
        entity_kinds=counts["entity_kinds"],
        edge_kinds=counts["edge_kinds"],
        resolutions=counts["resolutions"],
        calls_resolved_share=round(resolved / calls, 4) if calls else 1.0,
        parse_errors=counts["parse_errors"],
        files_with_errors=counts["files_with_errors"],
        warnings=reads.warnings(conn),
        skipped=skipped_reasons,
        skipped_languages=skipped_languages,
        skipped_files=[(s.path, s.reason, s.detail) for s in skipped if s.reason in skips.PER_FILE],
    )


@_on_current_generation
def show(graphs: GraphCache, entity: str, file: str | None = None) -> EntityEdges:
    """One entity with every edge into and out of it, external references included."""
    from graphctx.models import Edge, Entity, EntityEdges

    g = graphs.get()
    entity_id = lookup.resolve_entity(g, entity, file)
    outgoing, incoming = reads.edges_of(g.connection(), entity_id)
    return EntityEdges(
        entity=Entity(id=entity_id, **{k: v for k, v in g.entity(entity_id).items() if k in Entity.model_fields}),
        outgoing=[Edge(**e) for e in outgoing],
        incoming=[Edge(**e) for e in incoming],
    )


SEARCH_MODES = ("name", "semantic")


@_on_current_generation
def search(graphs: GraphCache, query: str, kind: str | None = None, limit: int = 20, mode: str = "name") -> SearchAnswer:
    """Entities for a query: by name and words (exact, prefix, full-text, fuzzy), or with mode
    "semantic" the functions, methods and classes whose embedding is nearest to the query's."""
    from graphctx.models import SearchAnswer, SearchHit

    if mode not in SEARCH_MODES:
        raise InvalidRequest(f"unknown search mode {mode!r}; use one of {', '.join(SEARCH_MODES)}")
    g = graphs.get()
    found = (_semantic_search(g, query, kind, limit) if mode == "semantic"
             else lookup.search(g, g.connection(), query, kind, limit))
    hits = []
    for entity_id, score, how in found:
        e = g.entity(entity_id)
        hits.append(SearchHit(id=entity_id, kind=e["kind"], path=e["path"], start_line=e["start_line"],
                              signature=e["signature"], score=score, match=how))
    return SearchAnswer(query=query, hits=hits, generation=g.generation)


@_on_current_generation
def export(graphs: GraphCache, fmt: str = "json", *, around: str | None = None, file: str | None = None, depth: int | None = None,
           edge_kinds: str | None = None, max_nodes: int | None = None, external: bool | None = None) -> tuple[Selection, str]:
    """The graph, or the neighbourhood of `around` out to `depth` hops (default 1), as node-link
    JSON, GraphML, a Mermaid flowchart or a self-contained HTML page; `edge_kinds` ("calls,inherits")
    limits the edges followed and shown, `max_nodes` overrides a picture's cap, `external` adds (or
    leaves out) the names outside the repository and the unresolved calls as `ext:` nodes."""
    from graphctx import export as exports

    if depth is not None and around is None:
        raise InvalidRequest("depth needs an entity to count hops from: pass --around ENTITY with --depth")
    if file is not None and around is None:
        raise InvalidRequest("file narrows the entity given with --around: pass --around ENTITY with --file")
    depth = 1 if depth is None else depth
    exports.check_options(fmt, depth, max_nodes)
    kinds = exports.parse_edge_kinds(edge_kinds)
    g = graphs.get()
    entity_id = lookup.resolve_entity(g, around, file) if around is not None else None
    return exports.export(g, fmt, around=entity_id, depth=depth, edge_kinds=kinds, max_nodes=max_nodes,
                          title=g.root.name, external=external)


def _semantic_search(g, query: str, kind: str | None, limit: int):
    from graphctx.context.semantic import semantic_search  # numpy and the model, only when asked for

    return semantic_search(g, query, kind, limit)
