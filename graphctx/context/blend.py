"""The final score of an entity for free text: the graph walk from the seeds, blended with the
text evidence the walk smooths away. An entity's own full-text match, how well its file matches
as a whole, and whether the text names something in its file each add to its walk score; asides
(tests and documentation the text does not name) are scaled down. The weights are a
BlendPolicy; the evidence was gathered once, with the seeds (TextEvidence)."""

from __future__ import annotations

import heapq
from collections import defaultdict

from graphctx.context.policy import BlendPolicy
from graphctx.context.seeds import TextEvidence
from graphctx.graph.loader import CodeGraph


def blend(graph: CodeGraph, evidence: TextEvidence, walk: dict[str, float], policy: BlendPolicy) -> dict[str, float]:
    """Scores for every entity the walk reached or the full text matched: the walk's score relative
    to its best, plus the weighted text evidence."""
    top_walk = max(walk.values(), default=0.0) or 1.0
    file_text = _file_text(graph, evidence.text_scores, policy.file_top)
    scores = {}
    for entity_id in walk.keys() | evidence.text_scores.keys():
        path = graph.nodes[entity_id]["path"]
        score = (walk.get(entity_id, 0.0) / top_walk + policy.own_text * evidence.text_scores.get(entity_id, 0.0)
                 + policy.file_text * file_text.get(path, 0.0)
                 + policy.named * min(1.0, evidence.named.get(entity_id, 0.0))
                 + policy.file_named * min(1.0, evidence.named_in_file.get(path, 0.0)))
        scores[entity_id] = score * policy.aside if evidence.is_aside(graph, path) else score
    return scores


def _file_text(graph: CodeGraph, text_scores: dict[str, float], top: int) -> dict[str, float]:
    """Per file, the mean of its `top` best full-text scores (missing ones count as zero): a file
    that matches in several places is likelier the one than a file with one lucky match."""
    by_file: dict[str, list[float]] = defaultdict(list)
    for entity_id, score in text_scores.items():
        by_file[graph.nodes[entity_id]["path"]].append(score)
    return {path: sum(heapq.nlargest(top, scores)) / top for path, scores in by_file.items()}
