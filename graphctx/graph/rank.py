"""Relevance over the graph: breadth-first spreading from a root with per-hop decay x edge-kind
weight x edge confidence, and personalized PageRank from weighted seeds on a sparse matrix, both
steered by a weight table {edge kind: (forward weight, backward weight)}.

The matrix and its products are transition.py's."""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter

import numpy as np

from graphctx import deadline
from graphctx.graph.loader import CodeGraph
from graphctx.graph.transition import Transition, Weights, ranges, transition_matrix
from graphctx.models import EDGE_KINDS, RESOLUTIONS

# How an edge reads from the entity it is reached from, forward and backward.
RELATION = {
    "calls": ("calls", "called-by"),
    "contains": ("contains", "contained-in"),
    "imports": ("imports", "imported-by"),
    "inherits": ("inherits", "inherited-by"),
    "implements": ("implements", "implemented-by"),
    "references": ("uses-type", "type-used-by"),
    "tests": ("tests", "tested-by"),
    "handles": ("handled-by", "handles"),  # a route -> its handler: from the route, the handler handles it
}


@dataclass(slots=True)
class Reached:
    id: str
    score: float
    distance: int
    relation: str  # how the last hop reads from the entity before it
    via: str | None  # the entity before it on the best path
    resolution: str = "exact"
    confidence: float = 1.0


def spread(graph: CodeGraph, root: str, depth: int, weights: Weights, *, include_inferred: bool = True,
           decay: float = 0.6, max_nodes: int = 2000) -> dict[str, Reached]:
    """Best-path scores from root out to `depth` hops; an edge kind missing from weights is not followed.
    Each hop expands the best-scored entities first and stops taking new ones at `max_nodes`, so a hub
    (a base class every test calls into) cannot flood the answer with thousands of weak neighbours.

    Returns {entity id: Reached(score, distance, relation, via, ...)}, the root included at score 1.

    Examples
    --------
    >>> g = Project(".").graph
    >>> reached = spread(g, "graphctx/graph/rank.py::spread", 2, {"calls": (1.0, 0.5)})
    >>> reached["graphctx/graph/rank.py::spread"].score, max(r.distance for r in reached.values()) <= 2
    (1.0, True)
    """
    walk = _walk(graph, weights, include_inferred)
    nodes, index = graph.arrays.nodes, graph.arrays.index
    best = {root: Reached(root, 1.0, 0, "root", None)}
    frontier = [root]
    for distance in range(1, depth + 1):
        next_frontier = []
        order = sorted(frontier, key=lambda n: -best[n].score)
        owners, slots = walk.slots_of(np.fromiter(map(index.__getitem__, order), np.int64, len(order)))
        # Each entity's edges, out then in, as the slots list them; its score is read when its turn
        # comes (an entity before it in this hop may have raised it), and each edge's score is
        # (base x weight) x confidence, the multiplications numpy made edge by edge before.
        current = -1
        relations = walk.relations[slots]
        for owner, other, weight, confidence, relation, resolution in zip(
                owners.tolist(), walk.others[slots].tolist(), walk.weight_of[relations].tolist(),
                walk.confidence[slots].tolist(), relations.tolist(), walk.resolutions[slots].tolist()):
            if owner != current:
                deadline.check()
                current, node = owner, order[owner]
                base = best[node].score * decay
            score = base * weight * confidence
            if not score > 0:
                continue
            other = nodes[other]
            known = best.get(other)
            if known is None and len(best) >= max_nodes:
                continue
            if known is None or score > known.score:
                if known is None:
                    next_frontier.append(other)
                best[other] = Reached(other, score, distance, RELATIONS[relation], node, RESOLUTIONS[resolution], confidence)
        frontier = next_frontier
    return best


def best_first(hits: list[Reached], root: str) -> list[Reached]:
    """The root, then the others by score (highest first), distance and id: three stable sorts on one
    key each take two thirds of the time of one sort on a tuple made per entity, for the same order."""
    others = [hit for hit in hits if hit.id != root]
    others.sort(key=attrgetter("id"))
    others.sort(key=attrgetter("distance"))
    others.sort(key=attrgetter("score"), reverse=True)  # (stable too: equal scores keep their order)
    return [hit for hit in hits if hit.id == root] + others


# How an edge reads from each end, by code: 2 x its kind's position, + 1 from its target.
RELATIONS = tuple(RELATION[kind][backward] for kind in EDGE_KINDS for backward in (0, 1))


@dataclass(frozen=True)
class _Walk:
    """The edges spreading may follow for one weight table, as slots: each edge seen from one end,
    in the adjacency's order (the edges out of entity i, then the edges into it), with the entity at
    the other end, the confidence, the relation's code (RELATIONS: the edge's kind and the way it is
    walked, which fix its weight) and the resolution's (RESOLUTIONS). Edges not followed have no slot."""

    out_ptr: np.ndarray  # entity i's out-slots are [out_ptr[i], out_ptr[i + 1]), its in-slots follow them
    in_ptr: np.ndarray  # ... [in_ptr[i], in_ptr[i + 1])
    others: np.ndarray
    confidence: np.ndarray
    relations: np.ndarray
    resolutions: np.ndarray
    weight_of: np.ndarray  # by relation code

    def slots_of(self, entities: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(owner, slot) of each slot of these entity positions, in their order, out-slots then
        in-slots for each; the owner is the entity's place in `entities`."""
        starts = np.column_stack([self.out_ptr[entities], self.in_ptr[entities]]).ravel()
        lengths = np.column_stack([self.out_ptr[entities + 1], self.in_ptr[entities + 1]]).ravel() - starts
        slots = ranges(starts, lengths)
        owners = np.repeat(np.arange(len(entities)).repeat(2), lengths)
        return owners, slots


def _walk(graph: CodeGraph, weights: Weights, include_inferred: bool) -> _Walk:
    key = ("spread-slots", tuple(sorted(weights.items())), include_inferred)
    cached = graph.cache.get(key)
    if cached is None:
        a = graph.arrays
        out_order, out_ptr, in_order, in_ptr = graph.adjacency()
        followed = np.array([k in weights for k in EDGE_KINDS], bool)[a.kinds]
        if not include_inferred:
            followed &= ~a.inferred
        edges = np.concatenate([out_order, in_order])
        forward = np.arange(len(edges)) < len(out_order)
        kept = followed[edges]
        # the slots kept up to each adjacency boundary: where each entity's followed slots start
        before = np.concatenate([[0], np.cumsum(kept)])
        edges, forward = edges[kept], forward[kept]
        cached = graph.cache[key] = _Walk(
            before[out_ptr], before[len(out_order) + np.asarray(in_ptr)],
            np.where(forward, a.targets[edges], a.sources[edges]).astype(np.int32), a.confidence[edges],
            (a.kinds[edges] * 2 + ~forward).astype(np.uint8), a.resolutions[edges],
            np.array([weights.get(kind, (0.0, 0.0))[backward] for kind in EDGE_KINDS for backward in (0, 1)]))
    return cached


MIN_SCORE = 1e-9  # below this a walk's score is rounding noise: the entity counts as not reached


def pagerank(graph: CodeGraph, seeds: dict[str, float], weights: Weights, *, include_inferred: bool = True,
             alpha: float = 0.85, iterations: int = 30, tol: float = 1e-7, limit: int | None = None) -> dict[str, float]:
    """Personalized PageRank restarting at the seeds (weights normalised), over the weighted graph;
    the `limit` best nodes only, when given.

    Returns {entity id: score}; entities the seeds cannot reach are left out.

    Examples
    --------
    >>> g = Project(".").graph
    >>> scores = pagerank(g, {"graphctx/graph/rank.py::spread": 1.0}, {"calls": (1.0, 0.5)}, limit=5)
    >>> len(scores) <= 5 and all(score > 0 for score in scores.values())
    True
    """
    nodes, rank = _ranks(graph, seeds, weights, include_inferred, alpha, iterations, tol)
    if rank is None:
        return {}
    top = np.flatnonzero(rank > MIN_SCORE)
    if limit is not None and len(top) > limit:
        top = top[np.argpartition(-rank[top], limit)[:limit]]
    return dict(zip([nodes[i] for i in top.tolist()], rank[top].tolist()))


def pagerank_vector(graph: CodeGraph, seeds: dict[str, float], weights: Weights, *, include_inferred: bool = True,
                    alpha: float = 0.85, iterations: int = 30, tol: float = 1e-7) -> np.ndarray | None:
    """The scores `pagerank` (same arguments) computes, by position in the graph's edge arrays
    (`graph.arrays.index`), unreached entities included; None for no seed. For a caller that reads
    a few entities' scores and the best one: no dict of every reached entity is made."""
    return _ranks(graph, seeds, weights, include_inferred, alpha, iterations, tol)[1]


def pagerank_among(graph: CodeGraph, seeds: dict[str, float], weights: Weights, among: list[str], *,
                   include_inferred: bool = True, alpha: float = 0.85, iterations: int = 30, tol: float = 1e-7,
                   limit: int | None = None) -> np.ndarray:
    """The scores `pagerank` (same arguments) gives the entities `among`, in their order, 0 for those it
    leaves out: what ranking a neighbourhood needs, without a dict of thousands of entities it never reads.
    Among entities with exactly the score of the `limit`-th best, all are kept (pagerank keeps some)."""
    nodes, rank = _ranks(graph, seeds, weights, include_inferred, alpha, iterations, tol)
    if rank is None:
        return np.zeros(len(among))
    index = graph.arrays.index
    scores = rank[np.fromiter(map(index.__getitem__, among), np.int64, len(among))]
    floor = MIN_SCORE
    if limit is not None:
        reached = rank[rank > MIN_SCORE]
        if len(reached) > limit:
            floor = np.nextafter(np.partition(reached, len(reached) - limit)[len(reached) - limit], -np.inf)
    return np.where(scores > floor, scores, 0.0)


def pagerank_within(graph: CodeGraph, seeds: dict[str, float], weights: Weights, among: list[str], *,
                    include_inferred: bool = True, alpha: float = 0.85, iterations: int = 30,
                    tol: float = 1e-7) -> np.ndarray:
    """The scores a personalized PageRank restarting at the seeds gives the entities `among`, in their
    order, walking only among them: the edges to entities outside are cut (their share of the walk
    returns to the seeds, as a dead end's does). A few hundred entities' walk instead of the graph's."""
    nodes, index, transition = transition_matrix(graph, weights, include_inferred)
    positions = np.fromiter(map(index.__getitem__, among), np.int64, len(among))
    restart = _restart(seeds, index, len(nodes))[positions]
    if restart.sum() == 0:
        return restart
    return _power(transition.among(positions), restart / restart.sum(), alpha, iterations, tol)


def _ranks(graph: CodeGraph, seeds: dict[str, float], weights: Weights, include_inferred: bool, alpha: float,
           iterations: int, tol: float) -> tuple[list[str], np.ndarray | None]:
    """(the graph's nodes, each one's personalized PageRank score by position), None for no seed."""
    nodes, index, transition = transition_matrix(graph, weights, include_inferred)
    restart = _restart(seeds, index, len(nodes))
    if restart.sum() == 0:
        return nodes, None
    return nodes, _power(transition, restart / restart.sum(), alpha, iterations, tol)


def _restart(seeds: dict[str, float], index: dict[str, int], size: int) -> np.ndarray:
    """The seeds' weights by position (unnormalised), those not in the graph left out."""
    restart = np.zeros(size)
    for node, weight in seeds.items():
        if node in index and weight > 0:
            restart[index[node]] += weight
    return restart


def _power(transition: Transition, restart: np.ndarray, alpha: float, iterations: int, tol: float) -> np.ndarray:
    """Power iteration from a normalised restart vector."""
    # The restart vector is zero but at the seeds, so it is added there alone: adding zeros elsewhere
    # would change no bit (every score is a sum of non-negative terms).
    seeded = np.flatnonzero(restart)
    share, kept = restart[seeded], (1 - alpha) * restart[seeded]
    rank, change = restart.copy(), np.empty(len(restart))
    sparse = True  # the walk starts at the seeds: its first steps reach few entities
    for _ in range(iterations):
        deadline.check()
        updated = transition.sparse_product(rank) if sparse else None
        if updated is None:
            sparse = False
            updated = transition @ rank
        updated *= alpha
        updated[seeded] += kept
        dangling = 1.0 - updated.sum()  # mass that fell off nodes without edges returns to the seeds
        updated[seeded] += dangling * share
        # The change at the seeds is part of the whole change: while it alone is well over tol, the
        # whole need not be summed (three passes over every node, a sixth of a product).
        done = (np.abs(updated[seeded] - rank[seeded]).sum() < 2 * tol
                and np.abs(np.subtract(updated, rank, out=change), out=change).sum() < tol)
        rank = updated
        if done:
            break
    return rank
