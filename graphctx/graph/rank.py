"""Relevance over the graph: breadth-first spreading from a root with per-hop decay x edge-kind
weight x edge confidence, and personalized PageRank from weighted seeds on a sparse matrix, both
steered by a weight table {edge kind: (forward weight, backward weight)}.

The matrix is plain numpy arrays (compressed sparse rows), so a one-shot command ranks without
importing scipy (a third of a second); a long-lived process imports scipy in the background after
its first answer (`accelerate_in_background`), and its compiled product, three to four times
numpy's, takes over once loaded. It sums each row in the same order, so the scores are the same to
the last bit either way."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from operator import attrgetter

import numpy as np

from graphctx import deadline
from graphctx.graph.loader import CodeGraph
from graphctx.models import EDGE_KINDS, RESOLUTIONS

Weights = dict[str, tuple[float, float]]  # edge kind -> (weight along the edge, weight against it)
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
        total = int(lengths.sum())
        # positions 0..total-1 shifted, range by range, to each range's start
        slots = np.arange(total) + np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
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
    nodes, index, transition = _transition(graph, weights, include_inferred)
    positions = np.fromiter(map(index.__getitem__, among), np.int64, len(among))
    inside = np.full(len(nodes), -1, np.int64)
    inside[positions] = np.arange(len(among))
    starts, ends = transition.ptr[positions], transition.ptr[positions + 1]
    lengths = ends - starts
    entries = np.arange(int(lengths.sum())) + np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
    rows, cols = np.repeat(np.arange(len(among)), lengths), inside[transition.cols[entries]]
    kept = cols >= 0
    sub = Transition(len(among), rows[kept], cols[kept], transition.values[entries][kept])
    restart = np.zeros(len(among))
    for node, weight in seeds.items():
        if node in index and inside[index[node]] >= 0 and weight > 0:
            restart[inside[index[node]]] += weight
    if restart.sum() == 0:
        return restart
    if not kept.any():  # no edge among them: the walk stays at the seeds
        return restart / restart.sum()
    return _power(sub, restart / restart.sum(), alpha, iterations, tol)


def _ranks(graph: CodeGraph, seeds: dict[str, float], weights: Weights, include_inferred: bool, alpha: float,
           iterations: int, tol: float) -> tuple[list[str], np.ndarray | None]:
    """(the graph's nodes, each one's personalized PageRank score by position), None for no seed."""
    nodes, index, transition = _transition(graph, weights, include_inferred)
    restart = np.zeros(len(nodes))
    for node, weight in seeds.items():
        if node in index and weight > 0:
            restart[index[node]] += weight
    if restart.sum() == 0:
        return nodes, None
    return nodes, _power(transition, restart / restart.sum(), alpha, iterations, tol)


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


class Transition:
    """A column-stochastic matrix in compressed sparse rows: row i's entries are
    values[ptr[i]:ptr[i + 1]] in the columns cols[...] (rows[...] repeats i for each entry)."""

    __slots__ = ("size", "rows", "cols", "values", "ptr", "_compiled", "_by_column")

    def __init__(self, size: int, rows: np.ndarray, cols: np.ndarray, values: np.ndarray):
        self.size, self.rows, self.cols, self.values = size, rows, cols, values
        self.ptr = np.searchsorted(rows, np.arange(size + 1)).astype(np.int32)
        self._compiled = None
        self._by_column: tuple[np.ndarray, np.ndarray] | None = None

    def __matmul__(self, vector: np.ndarray) -> np.ndarray:
        """The product with a vector. Each row is summed left to right over its entries, as scipy's
        csr_matvec does, so both give the same bits; scipy's is used once `accelerate` loaded it."""
        if self._compiled is None and _sparse is not None:
            self._compiled = _sparse.csr_matrix((self.values, self.cols, self.ptr), shape=(self.size, self.size))
        if self._compiled is not None:
            return self._compiled @ vector
        return self.numpy_product(vector)

    def sparse_product(self, vector: np.ndarray) -> np.ndarray | None:
        """The product, when the vector's nonzero entries meet few of the matrix's (SPARSE_SHARE), from
        those columns' entries alone; None otherwise. Taking the columns in ascending order, each row's
        terms are added in the order its entries have, as in the full product, less the zero terms
        (adding +0.0 changes no bit: every term is a non-negative number), so the bits are the same."""
        if self._by_column is None:
            order = np.argsort(self.cols, kind="stable")
            self._by_column = order, np.searchsorted(self.cols[order], np.arange(self.size + 1))
        order, column_ptr = self._by_column
        columns = np.flatnonzero(vector)
        starts = column_ptr[columns]
        lengths = column_ptr[columns + 1] - starts
        total = int(lengths.sum())
        if total > len(self.values) * SPARSE_SHARE:
            return None
        entries = order[np.arange(total) + np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)]
        return np.bincount(self.rows[entries], self.values[entries] * vector[self.cols[entries]], minlength=self.size)

    def numpy_product(self, vector: np.ndarray) -> np.ndarray:
        """The product without scipy: bincount adds each row's terms in entry order."""
        return np.bincount(self.rows, self.values * vector[self.cols], minlength=self.size)


_sparse = None  # scipy.sparse, once accelerate() has loaded it
# A product over the entries of some columns costs about ten times a compiled product's share of
# them, plus a fourth of a whole product: below this share of the entries it is the cheaper (on
# sympy's graph, a walk's first two or three steps).
SPARSE_SHARE = 0.05
_accelerating = threading.Lock()  # taken for good by the first call of accelerate_in_background


def accelerate_in_background() -> None:
    """Once per process: `accelerate` on a thread of its own, for a process that will answer again."""
    if _accelerating.acquire(blocking=False):
        threading.Thread(target=accelerate, name="graphctx-accelerate", daemon=True).start()


def accelerate() -> bool:
    """Import scipy's sparse matrices so that later products use its compiled loop. False without scipy."""
    global _sparse
    try:
        import scipy.sparse
    except ImportError:
        return False
    _sparse = scipy.sparse  # only now: another thread must not see a module still being imported
    return True


@dataclass(frozen=True)
class _Layout:
    """Where each edge's two matrix entries go, for every weight table of one graph generation:
    entries sorted by (row, column), and where each run of equal positions starts (edges of several
    kinds between two entities share one entry)."""

    order: np.ndarray  # positions into concat(forward values, backward values), by (row, column)
    starts: np.ndarray  # the first sorted entry of each distinct (row, column)
    rows: np.ndarray = field(repr=False)  # of each distinct entry
    cols: np.ndarray = field(repr=False)


def _layout(graph: CodeGraph) -> _Layout:
    cached = graph.cache.get("transition-layout")
    if cached is not None:
        return cached
    a = graph.arrays
    n = len(a.nodes)
    # Column j holds the mass node j sends: along its edges (forward) and back along edges into it.
    rows = np.concatenate([a.targets, a.sources])
    cols = np.concatenate([a.sources, a.targets])
    keys = rows * n + cols
    order = np.argsort(keys, kind="stable")  # two sorted runs: a merge, not a full sort
    keys = keys[order]
    starts = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]])) if len(keys) else np.zeros(0, np.int64)
    first = keys[starts]
    layout = _Layout(order, starts, (first // max(n, 1)).astype(np.int32), (first % max(n, 1)).astype(np.int32))
    graph.cache["transition-layout"] = layout
    return layout


def _transition(graph: CodeGraph, weights: Weights, include_inferred: bool) -> tuple[list[str], dict[str, int], Transition]:
    """Column-stochastic sparse matrix for a weight table, cached per graph generation."""
    key = ("transition", tuple(sorted(weights.items())), include_inferred)
    cached = graph.cache.get(key)
    if cached is not None:
        return cached
    a = graph.arrays
    n = len(a.nodes)
    forward = np.array([weights.get(k, (0.0, 0.0))[0] for k in EDGE_KINDS])[a.kinds] * a.confidence
    backward = np.array([weights.get(k, (0.0, 0.0))[1] for k in EDGE_KINDS])[a.kinds] * a.confidence
    if not include_inferred:
        forward = np.where(a.inferred, 0.0, forward)
        backward = np.where(a.inferred, 0.0, backward)
    layout = _layout(graph)
    values = np.concatenate([forward, backward])[layout.order]
    merged = np.add.reduceat(values, layout.starts) if len(values) else values
    kept = merged != 0
    rows, cols, merged = layout.rows[kept], layout.cols[kept], merged[kept]
    out_mass = np.bincount(cols, merged, minlength=n)
    scale = np.divide(1.0, out_mass, out=np.zeros_like(out_mass), where=out_mass > 0)
    graph.cache[key] = (a.nodes, a.index, Transition(n, rows, cols, merged * scale[cols]))
    return graph.cache[key]
