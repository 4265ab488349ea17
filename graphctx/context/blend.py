"""The final score of an entity for free text: the graph walk from the seeds, blended with the
text evidence the walk smooths away. An entity's own full-text match, how well its file matches
as a whole, and whether the text names something in its file each add to its walk score; tests
and documentation examples are scaled down. The weights were tuned on the retrieval dev set and
the history sets (benchmarks/retrieval), where any nearby setting scores within a point."""

from __future__ import annotations

import heapq
from collections import defaultdict

from graphctx.context.seeds import Seeds, is_aside
from graphctx.graph.loader import CodeGraph

OWN_TEXT = 0.5  # the entity's BM25 score, relative to the best match
FILE_TEXT = 0.5  # its file's: the mean of the file's three best entity scores
FILE_NAMED = 0.3  # its file holds an entity the text names (saturating at one plain mention)
ASIDE_FACTOR = 0.3  # tests and examples: rarely what needs changing
FILE_TOP = 3


def blend(graph: CodeGraph, seeds: Seeds, walk: dict[str, float], text: str) -> dict[str, float]:
    """Scores for every entity the walk reached or the full text matched: the walk's score relative
    to its best, plus the weighted text evidence."""
    top_walk = max(walk.values(), default=0.0) or 1.0
    file_text = _file_text(graph, seeds.text_scores)
    aside: dict[str, bool] = {}
    scores = {}
    for entity_id in walk.keys() | seeds.text_scores.keys():
        path = graph.graph.nodes[entity_id]["path"]
        score = (walk.get(entity_id, 0.0) / top_walk + OWN_TEXT * seeds.text_scores.get(entity_id, 0.0)
                 + FILE_TEXT * file_text.get(path, 0.0) + FILE_NAMED * min(1.0, seeds.named_in_file.get(path, 0.0)))
        if path not in aside:
            aside[path] = is_aside(graph, path, text)
        scores[entity_id] = score * ASIDE_FACTOR if aside[path] else score
    return scores


def _file_text(graph: CodeGraph, text_scores: dict[str, float]) -> dict[str, float]:
    """Per file, the mean of its FILE_TOP best full-text scores (missing ones count as zero): a file
    that matches in several places is likelier the one than a file with one lucky match."""
    by_file: dict[str, list[float]] = defaultdict(list)
    for entity_id, score in text_scores.items():
        by_file[graph.graph.nodes[entity_id]["path"]].append(score)
    return {path: sum(heapq.nlargest(FILE_TOP, scores)) / FILE_TOP for path, scores in by_file.items()}
