"""The code embedding inside answers: semantic search (the entities nearest to a query) and the
similarity of free text to each candidate, which the blend for free text may add (blend.semantic)."""

from __future__ import annotations

import numpy as np

from graphctx.errors import InvalidRequest
from graphctx.graph import lookup
from graphctx.graph.loader import CodeGraph
from graphctx.models import FUNCTION_KINDS
from graphctx.semantic import search as nearby
from graphctx.semantic.vectors import KINDS


def semantic_search(g: CodeGraph, query: str, kind: str | None, limit: int) -> list[tuple[str, float, str]]:
    """(id, cosine, "semantic") of the `limit` functions, methods and classes nearest to the query."""
    query = (query or "").strip()
    if not query:
        raise InvalidRequest("query is empty: describe what the code does, in words")
    if not 1 <= limit <= 500:
        raise InvalidRequest(f"limit {limit} is out of range: use 1 to 500")
    kind = lookup.check_kind(kind)
    if kind and kind not in KINDS:
        raise InvalidRequest(f"semantic search finds {', '.join(KINDS)}; drop kind {kind!r} or search by name")
    nodes = g.graph.nodes

    def keep(entity_id: str) -> bool:
        return entity_id in nodes and (kind is None or nodes[entity_id]["kind"] == kind)

    found = nearby.nearest(g.connection(), query, limit, keep, g.cache)
    return [(entity_id, round(score, 4), "semantic") for entity_id, score in found]


def text_similarity_of(g: CodeGraph, text: str, entity_ids: list[str]) -> np.ndarray:
    """The embedding's cosine of the text and each of `entity_ids`, in their order (0 where it has none)."""
    return nearby.similarities_of(g.connection(), text, entity_ids, g.cache)


def with_similarity(g: CodeGraph, text: str, scores: dict[str, float], weight: float) -> dict[str, float]:
    """Scores relative to the best, plus `weight` x the embedding's cosine of the text and each function
    (the blend's own candidates only: the embedding re-orders what the text and the graph found)."""
    top = max(scores.values(), default=0.0) or 1.0
    ids = list(scores)
    nodes = g.nodes
    return {entity: score / top + (weight * max(0.0, cosine) if nodes[entity]["kind"] in FUNCTION_KINDS else 0.0)
            for entity, score, cosine in zip(ids, scores.values(), text_similarity_of(g, text, ids).tolist())}
