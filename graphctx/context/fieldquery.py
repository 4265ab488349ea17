"""The learned ranker's per-field full-text query (features.field_scores), started on a thread of its
own as soon as the text is known. It is most of a long text's learned ranking (SQLite scores every
row that shares a word with the text, once per field), it needs nothing the rest of the ranking
computes, and SQLite lets go of the interpreter while it scores: so it runs while this thread finds
the seeds and walks the graph, and only the longer of the two is waited for. The thread reads
through a connection of its own (one connection serves one thread at a time) and closes it."""

from __future__ import annotations

import sqlite3
import threading

import numpy as np

from graphctx.context import seeds as text_seeds
from graphctx.context.features import FIELD_LIMIT, field_scores
from graphctx.context.policy import SeedPolicy
from graphctx.graph.loader import CodeGraph
from graphctx.index import store


class FieldScores:
    """field_scores of one text's query terms, under way; `result()` waits for them."""

    def __init__(self, graph: CodeGraph, terms: list[str], limit: int = FIELD_LIMIT) -> None:
        self._graph, self._terms, self._limit = graph, terms, limit
        self._found: tuple[dict[str, int], np.ndarray] | None = None
        self._thread = threading.Thread(target=self._run, name="graphctx-field-scores", daemon=True)
        self._thread.start()

    @classmethod
    def of_text(cls, graph: CodeGraph, text: str, policy: SeedPolicy) -> FieldScores:
        """For free text, with the terms the features query (those of the part seeds are drawn from)."""
        return cls(graph, text_seeds.query_terms(text_seeds.bounded(text, policy)[0], policy))

    def _run(self) -> None:
        try:
            conn = store.connect(store.index_path(self._graph.root), readonly=True)
        except (OSError, sqlite3.Error, store.IndexMissing):
            return  # result() asks on the caller's connection, which says what is wrong
        try:
            self._found = field_scores(conn, self._terms, self._limit)
        except sqlite3.Error:
            pass  # likewise
        finally:
            conn.close()

    def result(self) -> tuple[dict[str, int], np.ndarray]:
        self._thread.join()
        if self._found is None:
            self._found = field_scores(self._graph.connection(), self._terms, self._limit)
        return self._found
