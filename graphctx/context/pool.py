"""The candidate pool the learned ranker re-orders: the hand-set blend's best, widened with functions
that text ranking reaches only around them. The blend scores an entity by its own words, its file's
and the walk from the text's seeds, so it misses a method of a well-matched file whose own words the
text does not use, and a callee or caller of a found function the walk did not reach in its few steps.
Widening adds, past the blend's best, the functions and methods of its best files and the one-hop
call and containment neighbours of its best candidates, those whose split name shares most words with
the text first, up to a fixed number, so the ranker's cost stays bounded."""

from __future__ import annotations

from collections.abc import Iterable

from graphctx.context.policy import RankingPolicy
from graphctx.context.seeds import Seeds, query_terms
from graphctx.graph.loader import CodeGraph
from graphctx.models import CLASS_KINDS, FUNCTION_KINDS
from graphctx.text import words

NEIGHBOUR_EDGES = frozenset({"calls", "contains", "inherits", "implements", "references"})


def candidate_pool(graph: CodeGraph, found: Seeds, scores: dict[str, float], ordered: list[tuple[str, float]],
                   policy: RankingPolicy) -> list[str]:
    """What the learned ranker re-orders: the blend's best `blend.rerank` (`ordered` is the blend's
    order), widened when the policy asks for it (`blend.widen`)."""
    head = [entity for entity, _ in ordered[:policy.blend.rerank]]
    b = policy.blend
    if not b.widen:
        return head
    terms = query_terms(found.evidence.text, policy.seeds)
    return widened(graph, head, scores, terms, files=b.widen_files, neighbours=b.widen_neighbours, extra=b.widen)


def widened(graph: CodeGraph, head: list[str], scores: dict[str, float], terms: Iterable[str], *,
            files: int, neighbours: int, extra: int) -> list[str]:
    """`head` (the blend's best, in order) followed by at most `extra` functions and methods outside it:
    members of the `files` best files (in the order their first candidate comes) and one-hop neighbours
    of the `neighbours` best candidates. Best first: more of the text's words in the name, then the
    blend's score, then how early the candidate that led to it stands."""
    if extra <= 0 or (files <= 0 and neighbours <= 0):
        return list(head)
    nodes = graph.nodes
    inside = set(head)
    found: dict[str, int] = {}  # entity -> the place of the candidate that led to it (its file's first)

    def offer(entity_id: str, place: int) -> None:
        if entity_id in inside or entity_id in found or entity_id not in nodes:
            return
        node = nodes[entity_id]
        if node["kind"] not in FUNCTION_KINDS:
            return
        parent = node.get("parent")
        if parent and parent in nodes and nodes[parent]["kind"] in FUNCTION_KINDS:
            return  # a nested function: its enclosing function's body holds it
        found[entity_id] = place

    if files > 0:
        seen_files: list[str] = []
        for place, entity_id in enumerate(head):
            path = nodes[entity_id]["path"]
            if path in seen_files:
                continue
            seen_files.append(path)
            for member in graph.by_path.get(path, ()):
                offer(member, place)
            if len(seen_files) >= files:
                break
    for place, entity_id in enumerate(head[:max(0, neighbours)]):
        for other, kind in (*graph.out_kinds(entity_id), *graph.in_kinds(entity_id)):
            if kind not in NEIGHBOUR_EDGES:
                continue
            offer(other, place)
            if kind == "contains" and other in nodes and nodes[other]["kind"] in CLASS_KINDS:
                for member, member_kind in graph.out_kinds(other):  # a found function's class: its methods too
                    if member_kind == "contains":
                        offer(member, place)
    wanted = set(terms)
    overlap = {e: len(set(words(nodes[e]["name"]).split()) & wanted) for e in found}
    best = sorted(found, key=lambda e: (-overlap[e], -scores.get(e, 0.0), found[e], e))[:extra]
    return [*head, *best]
