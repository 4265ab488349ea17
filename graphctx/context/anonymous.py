"""Anonymous code in answers: a lambda reached while ranking stands for the definition holding it
(`outer`, not `outer.<lambda1>`), since that is the code a reader opens and a change puts at stake.
The call graph keeps the lambda; answers name its enclosing definition."""

from __future__ import annotations

from dataclasses import replace

from graphctx.graph import rank
from graphctx.graph.loader import CodeGraph
from graphctx.models import ANONYMOUS_KINDS, ANONYMOUS_MARK


def named(g: CodeGraph, hits: dict[str, rank.Reached], keep: str | None = None) -> dict[str, rank.Reached]:
    """Hits with each lambda replaced by its nearest named ancestor, at the best score of any of its
    lambdas and its own; `keep` (an answer's root) stays itself."""
    if not any(ANONYMOUS_MARK in node for node in hits):
        return dict(hits)
    nodes = g.nodes
    out: dict[str, rank.Reached] = {}
    for node, hit in hits.items():
        name = node
        while (name != keep and ANONYMOUS_MARK in name and nodes[name]["kind"] in ANONYMOUS_KINDS
               and nodes[name].get("parent") in g):
            name = nodes[name]["parent"]
        if name != node:
            hit = replace(hit, id=name)
        if name not in out or hit.score > out[name].score:
            out[name] = hit
    return out
