"""The entities nearest to a text by the embedding: the index's vectors, read once per index
generation (the caller's cache), against the text's vector; best first, ties by id."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, MutableMapping, Sequence

import numpy as np

from graphctx.semantic import local, model as embedding, vectors as store

_CACHE_KEY = "semantic_vectors"


def index_vectors(conn: sqlite3.Connection, cache: MutableMapping | None = None,
                  model: embedding.EmbeddingModel | None = None) -> store.Vectors:
    """The index's entity vectors for the model (default: the one that made them), kept in `cache` (one per
    loaded graph, so a new index generation reads them again)."""
    model = model or local.of_index(conn)
    if cache is not None and (hit := cache.get(_CACHE_KEY)) and hit[0] == model.digest:
        return hit[1]
    found = store.read(conn, model)
    if cache is not None:
        cache[_CACHE_KEY] = (model.digest, found)
    return found


def similarities_of(conn: sqlite3.Connection, text: str, entity_ids: Sequence[str], cache: MutableMapping | None = None,
                    model: embedding.EmbeddingModel | None = None) -> np.ndarray:
    """Each of `entity_ids`' cosine with the text, in their order, 0 for an entity without a vector
    (and for all when the text has no word the model reads)."""
    found = _scored(conn, text, cache, model)
    if found is None or not found[0].ids:
        return np.zeros(len(entity_ids))
    vectors, scores = found
    rows = np.fromiter((vectors.position.get(e, -1) for e in entity_ids), np.int64, len(entity_ids))
    return np.where(rows >= 0, scores[rows].astype(np.float64), 0.0)


def _scored(conn: sqlite3.Connection, text: str, cache: MutableMapping | None,
            model: embedding.EmbeddingModel | None) -> tuple[store.Vectors, np.ndarray] | None:
    """The index's vectors and each one's cosine with the text; None when the text has no word the model reads."""
    model = model or local.of_index(conn)
    query = model.encode_texts([text])[0]
    if not query.any():
        return None
    found = index_vectors(conn, cache, model)
    return found, found.similarity(query)


def nearest(conn: sqlite3.Connection, text: str, limit: int, keep: Callable[[str], bool] | None = None,
            cache: MutableMapping | None = None, model: embedding.EmbeddingModel | None = None) -> list[tuple[str, float]]:
    """The `limit` entities most like the text (those `keep` accepts), best first."""
    model = model or local.of_index(conn)
    query = model.encode_texts([text])[0]
    if not query.any():
        return []
    found = index_vectors(conn, cache, model)
    scores = found.similarity(query)
    order = np.lexsort((np.arange(len(scores)), -scores))  # stable: the stored order breaks ties
    out = []
    for i in order:
        if keep is None or keep(found.ids[i]):
            out.append((found.ids[i], float(scores[i])))
            if len(out) == limit:
                break
    return out
