"""The column-stochastic matrix PageRank multiplies (rank.py), for one weight table of one graph
generation: plain numpy arrays in compressed sparse rows, so a one-shot command ranks without
importing scipy (a third of a second); a long-lived process imports scipy in the background after
its first answer (`accelerate_in_background`), and its compiled product, three to four times
numpy's, takes over once loaded. It sums each row in the same order, so the scores are the same to
the last bit either way."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from graphctx.graph.loader import CodeGraph
from graphctx.models import EDGE_KINDS

Weights = dict[str, tuple[float, float]]  # edge kind -> (weight along the edge, weight against it)


def ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The positions of the ranges [start, start + length), one range after another."""
    return np.arange(int(lengths.sum())) + np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)


def _row_sums(rows: np.ndarray, terms: np.ndarray, size: int) -> np.ndarray:
    """Each row's terms added in their order (bincount, whose sum of no terms would be an integer array)."""
    return np.bincount(rows, terms, minlength=size).astype(float, copy=False)


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
        if lengths.sum() > len(self.values) * SPARSE_SHARE:
            return None
        entries = order[ranges(starts, lengths)]
        return _row_sums(self.rows[entries], self.values[entries] * vector[self.cols[entries]], self.size)

    def numpy_product(self, vector: np.ndarray) -> np.ndarray:
        """The product without scipy: bincount adds each row's terms in entry order."""
        return _row_sums(self.rows, self.values * vector[self.cols], self.size)

    def among(self, positions: np.ndarray) -> Transition:
        """The matrix between these entities alone, in their order: the entries to or from any other
        are left out (so a column sums to less than one where the entity has edges outside)."""
        inside = np.full(self.size, -1, np.int64)
        inside[positions] = np.arange(len(positions))
        starts = self.ptr[positions]
        lengths = self.ptr[positions + 1] - starts
        entries = ranges(starts, lengths)
        rows, cols = np.repeat(np.arange(len(positions)), lengths), inside[self.cols[entries]]
        kept = cols >= 0
        return Transition(len(positions), rows[kept], cols[kept], self.values[entries][kept])


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


def transition_matrix(graph: CodeGraph, weights: Weights, include_inferred: bool) -> tuple[list[str], dict[str, int], Transition]:
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
