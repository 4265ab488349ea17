"""The last rankings of a graph generation, kept on the graph's cache: an answer packed again
(smaller, to make room for its peers line; asked again with feedback) ranks its candidates once.
Candidates are frozen, so one kept ranking can serve several packings."""

from __future__ import annotations

import threading
from collections.abc import Callable

from graphctx.context.packer import Candidate
from graphctx.graph.loader import CodeGraph

RECENT_RANKINGS = 8
MAX_KEPT_TEXT = 20_000  # characters: a longer free text is ranked afresh rather than held as a key
_LOCK = threading.Lock()  # the graph's cache is shared by the threads answering from it


def kept(g: CodeGraph, key: tuple, rank_now: Callable[[], list[Candidate]]) -> list[Candidate]:
    """The ranking `key` names (everything the ranking depends on but the graph), ranked now or kept."""
    with _LOCK:
        recent = g.cache.setdefault("recent-rankings", {})
        found = recent.get(key)
    if found is None:
        found = tuple(rank_now())
        with _LOCK:
            recent[key] = found
            while len(recent) > RECENT_RANKINGS:
                del recent[next(iter(recent))]
    return list(found)
