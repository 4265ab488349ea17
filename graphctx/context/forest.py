"""A tree ensemble evaluated on a matrix with numpy, every tree at once: what the learned ranker's
model file holds (ranker.py), read into arrays side by side. Small trees (the shipped model's have at
most 3 splits) are read as a table: each row's split decisions, as bits, index the leaf it reaches,
so a whole forest costs one comparison of the candidates' values with every threshold and one look-up.
Larger trees are walked one level a step. Either way each row reaches the leaf a walk of that tree
alone reaches (`<=` goes left)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MAX_TABLE_SPLITS = 8  # a table of 2**8 leaves a tree; past that, the level-by-level walk


@dataclass(frozen=True)
class Tree:
    """One tree of the ensemble, as arrays."""

    feature: np.ndarray  # per split node: the feature column it tests
    threshold: np.ndarray  # ... goes left when the value is <= this
    left: np.ndarray  # child: >= 0 another split node, < 0 the leaf ~child
    right: np.ndarray
    leaf: np.ndarray  # leaf values


@dataclass(frozen=True)
class Forest:
    """The trees padded to the largest: row t is tree t's split nodes (feature, threshold, children)
    and leaves; `table[t, bits]` the leaf value tree t gives a row whose split j decided left iff bit j
    is set (None when the trees are too large for a table)."""

    start: np.ndarray  # per tree: 0, its first split node, or ~0 for a tree that is one leaf
    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    leaf: np.ndarray
    table: np.ndarray | None

    @classmethod
    def of(cls, trees: Sequence[Tree]) -> Forest:
        splits = max((len(t.feature) for t in trees), default=0) or 1
        leaves = max((len(t.leaf) for t in trees), default=0) or 1
        feature, left, right = (np.zeros((len(trees), splits), np.int64) for _ in range(3))
        threshold, leaf = np.zeros((len(trees), splits)), np.zeros((len(trees), leaves))
        for i, t in enumerate(trees):
            n = len(t.feature)
            feature[i, :n], threshold[i, :n], left[i, :n], right[i, :n] = t.feature, t.threshold, t.left, t.right
            leaf[i, :len(t.leaf)] = t.leaf
        start = np.array([0 if len(t.feature) else ~0 for t in trees], dtype=np.int64)
        table = _table(trees, splits) if splits <= MAX_TABLE_SPLITS else None
        return cls(start, feature, threshold, left, right, leaf, table)

    def leaves(self, matrix: np.ndarray) -> np.ndarray:
        """The leaf value each tree gives each row of `matrix`: rows x trees."""
        trees = np.arange(len(self.start))
        if self.table is not None:
            rows, splits = len(matrix), self.feature.shape[1]
            left = (matrix[:, self.feature.ravel()] <= self.threshold.ravel()).reshape(rows, len(trees), splits)
            bits = np.zeros((rows, len(trees)), dtype=np.int64)
            for j in range(splits):
                bits |= left[:, :, j].astype(np.int64) << j
            return self.table[trees, bits]
        rows = np.arange(len(matrix))[:, None]
        node = np.broadcast_to(self.start, (len(matrix), len(trees)))
        inner = node >= 0
        while inner.any():  # a row at a leaf stays there
            at = np.where(inner, node, 0)
            go_left = matrix[rows, self.feature[trees, at]] <= self.threshold[trees, at]
            node = np.where(inner, np.where(go_left, self.left[trees, at], self.right[trees, at]), node)
            inner = node >= 0
        return self.leaf[trees, ~node]


def _table(trees: Sequence[Tree], splits: int) -> np.ndarray:
    """Per tree, the leaf value reached for each pattern of split decisions (bit j: split j went left)."""
    table = np.zeros((len(trees), 1 << splits))
    for i, t in enumerate(trees):
        for bits in range(1 << splits):
            node = 0 if len(t.feature) else -1
            while node >= 0:
                node = int(t.left[node] if bits >> node & 1 else t.right[node])
            table[i, bits] = t.leaf[~node]
    return table
