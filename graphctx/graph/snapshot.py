"""The graph snapshot: one index generation's edges between repository entities as integer arrays,
packed into one blob that the index run stores in the same transaction as the rows it mirrors. A new
process loads the graph by reading that blob (no edge rows, no text ids) and agrees with the index by
construction: a run killed before COMMIT leaves the previous rows and their snapshot together.

Nodes are entity rowids, ascending; edges are positions into them, sorted by (source, target, kind),
so the out-edges of a node are one slice (compressed sparse rows) and the in-edges one slice of a
stable argsort by target. An incremental run does not rebuild the snapshot from the rows: it drops
the nodes and edges of the files it rewrote from the previous one and adds the new ones.

Blob format: MAGIC, a 4-byte little-endian header length, a JSON header {name: [dtype, count,
offset]}, then each array's little-endian bytes at an 8-byte-aligned offset."""

from __future__ import annotations

import json
import struct
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

MAGIC = b"graphctx-snapshot-1\n"
DTYPES = {"nodes": "<i8", "sources": "<i4", "targets": "<i4", "kinds": "u1", "resolutions": "u1", "confidence": "<f8"}


class SnapshotError(ValueError):
    """A blob that is not a snapshot of this format: the graph is loaded from the rows instead."""


@dataclass(frozen=True)
class Snapshot:
    nodes: np.ndarray  # entity rowids, ascending
    sources: np.ndarray  # positions into nodes, ascending
    targets: np.ndarray
    kinds: np.ndarray  # positions in EDGE_KINDS
    resolutions: np.ndarray  # positions in RESOLUTIONS
    confidence: np.ndarray

    @classmethod
    def from_rows(cls, nodes: Iterable[int], rows: Iterable[tuple]) -> Snapshot:
        """From entity rowids and edge rows (source rowid, target rowid, kind code, resolution code,
        confidence[, ...]); an edge whose ends are not both among the nodes (an external name, a
        removed entity) is left out."""
        return cls._sorted(np.unique(np.fromiter(nodes, np.int64)), *_columns(rows))

    @classmethod
    def _sorted(cls, rowids, source_rowids, target_rowids, kinds, resolutions, confidence) -> Snapshot:
        """Edges given by rowids, mapped to positions, those with a missing end dropped, and sorted."""
        sources, known_source = _positions(rowids, source_rowids)
        targets, known_target = _positions(rowids, target_rowids)
        keep = known_source & known_target
        sources, targets = sources[keep], targets[keep]
        kinds, resolutions, confidence = kinds[keep], resolutions[keep], confidence[keep]
        order = np.lexsort((kinds, targets, sources))
        return cls(rowids, sources[order].astype(np.int32), targets[order].astype(np.int32), kinds[order],
                   resolutions[order], confidence[order].astype(np.float64))

    def replace(self, removed_nodes: Iterable[int], added_nodes: Iterable[int], dropped_sources: Iterable[int],
                added_rows: Iterable[tuple]) -> Snapshot:
        """The next generation's snapshot: without the removed nodes and the edges from `dropped_sources`
        (rowids of entities whose file was resolved again), with the added nodes and edge rows."""
        removed = np.fromiter(removed_nodes, np.int64)
        dropped = np.fromiter(dropped_sources, np.int64)
        source_rowids, target_rowids = self.nodes[self.sources], self.nodes[self.targets]
        keep = ~np.isin(source_rowids, dropped)
        old = (source_rowids[keep], target_rowids[keep], self.kinds[keep], self.resolutions[keep], self.confidence[keep])
        rowids = np.union1d(self.nodes[~np.isin(self.nodes, removed)], np.fromiter(added_nodes, np.int64))
        return Snapshot._sorted(rowids, *(np.concatenate(pair) for pair in zip(old, _columns(added_rows))))

    # ---- compressed sparse rows

    @cached_property
    def out_ptr(self) -> np.ndarray:
        """Out-edges of node i are the edge positions out_ptr[i]:out_ptr[i + 1]."""
        return np.searchsorted(self.sources, np.arange(len(self.nodes) + 1)).astype(np.int64)

    @cached_property
    def in_order(self) -> np.ndarray:
        """Edge positions sorted by target (then source, kind): in-edges of node i are
        in_order[in_ptr[i]:in_ptr[i + 1]]."""
        return np.argsort(self.targets, kind="stable")

    @cached_property
    def in_ptr(self) -> np.ndarray:
        return np.searchsorted(self.targets[self.in_order], np.arange(len(self.nodes) + 1)).astype(np.int64)

    def out_edges(self, i: int) -> range:
        return range(self.out_ptr[i], self.out_ptr[i + 1])

    def in_edges(self, i: int) -> np.ndarray:
        return self.in_order[self.in_ptr[i]:self.in_ptr[i + 1]]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Snapshot) and all(
            np.array_equal(getattr(self, name), getattr(other, name)) for name in DTYPES)

    __hash__ = None  # type: ignore[assignment]

    # ---- the blob

    def pack(self) -> bytes:
        header, chunks, offset = {}, [], 0
        for name, dtype in DTYPES.items():
            data = np.ascontiguousarray(getattr(self, name), dtype=dtype).tobytes()
            header[name] = [dtype, len(getattr(self, name)), offset]
            padding = -len(data) % 8
            chunks.append(data + b"\0" * padding)
            offset += len(data) + padding
        head = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
        head += b" " * (-(len(MAGIC) + 4 + len(head)) % 8)
        return MAGIC + struct.pack("<I", len(head)) + head + b"".join(chunks)

    @classmethod
    def unpack(cls, blob: bytes) -> Snapshot:
        """The snapshot in `blob`, its arrays read in place (no copy)."""
        if not blob.startswith(MAGIC):
            raise SnapshotError("not a graph snapshot of this format")
        try:
            (length,) = struct.unpack_from("<I", blob, len(MAGIC))
            start = len(MAGIC) + 4
            header = json.loads(blob[start:start + length])
            base = start + length
            arrays = {name: np.frombuffer(blob, dtype=dtype, count=count, offset=base + offset)
                      for name, (dtype, count, offset) in header.items()}
            return cls(**{name: arrays[name] for name in DTYPES})
        except (struct.error, ValueError, KeyError, TypeError) as exc:
            raise SnapshotError(f"damaged graph snapshot ({exc})") from None


def _columns(rows: Iterable[tuple]) -> tuple[np.ndarray, ...]:
    """Edge rows as (source, target, kind, resolution, confidence) arrays."""
    rows = list(rows)
    n = len(rows)
    return (np.fromiter((r[0] for r in rows), np.int64, n), np.fromiter((r[1] for r in rows), np.int64, n),
            np.fromiter((r[2] for r in rows), np.uint8, n), np.fromiter((r[3] for r in rows), np.uint8, n),
            np.fromiter((r[4] for r in rows), np.float64, n))


def _positions(rowids: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of `wanted` in the sorted `rowids`, and which of them are there at all."""
    if len(rowids) == 0:
        return np.zeros(len(wanted), np.int64), np.zeros(len(wanted), bool)
    at = np.searchsorted(rowids, wanted)
    clipped = np.minimum(at, len(rowids) - 1)
    return clipped, rowids[clipped] == wanted
