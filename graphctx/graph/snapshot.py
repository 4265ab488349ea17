"""The graph snapshot: one index generation's edges between repository entities as integer arrays,
packed into one blob that the index run stores in the same transaction as the rows it mirrors. A new
process loads the graph by reading that blob (no edge rows, no text ids) and agrees with the index by
construction: a run killed before COMMIT leaves the previous rows and their snapshot together.

Nodes are entity rowids, ascending; edges are positions into them, sorted by (source, target, kind),
so the out-edges of a node are one slice (compressed sparse rows) and the in-edges one slice of a
stable argsort by target. An incremental run does not rebuild the snapshot from the rows, nor
rewrite it: it stores a patch (the nodes and edges of the files it rewrote or resolved again, dropped
and added, by rowid), a few hundred bytes beside a base of megabytes, and a reader folds the patches
into the base once (`stored`). When the patches grow past a share of the base (see `compact_due`), a
run writes a new base in their place, so loading stays one pass over the edges.

Blob format: a magic line (MAGIC for a base, PATCH_MAGIC for a patch), a 4-byte little-endian header
length, a JSON header {name: [dtype, count, offset]}, then each array's little-endian bytes at an
8-byte-aligned offset."""

from __future__ import annotations

import json
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

MAGIC = b"graphctx-snapshot-1\n"
PATCH_MAGIC = b"graphctx-snapshot-patch-1\n"
DTYPES = {"nodes": "<i8", "sources": "<i4", "targets": "<i4", "kinds": "u1", "resolutions": "u1", "confidence": "<f8"}
PATCH_DTYPES = {"removed": "<i8", "added": "<i8", "dropped": "<i8", "sources": "<i8", "targets": "<i8", "kinds": "u1",
                "resolutions": "u1", "confidence": "<f8"}
# A run writes a new base instead of one more patch past this many patches, or once the patches'
# bytes pass this share of the base's (of a base of at least SMALL_BASE bytes: a small graph folds
# its patches in no time): loading then stays about one pass over the base's edges.
MAX_PATCHES = 32
MAX_PATCH_SHARE = 0.125
SMALL_BASE = 1 << 20


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
    def from_rows(cls, nodes: Iterable[int], rows: Iterable[tuple] | EdgeColumns) -> Snapshot:
        """From entity rowids and edge rows (source rowid, target rowid, kind code, resolution code,
        confidence[, ...]); an edge whose ends are not both among the nodes (an external name, a
        removed entity) is left out."""
        return cls._sorted(np.unique(np.fromiter(nodes, np.int64)), list(_columns(rows)))

    @classmethod
    def _sorted(cls, rowids: np.ndarray, columns: list[np.ndarray]) -> Snapshot:
        """Edges given by rowids (the columns source and target rowids, kinds, resolutions and
        confidence), mapped to positions, those with a missing end dropped, and sorted. `columns` is
        emptied and each array let go once used: a full build's edges are then never held twice over."""
        source_rowids, target_rowids, kinds, resolutions, confidence = columns
        columns.clear()
        sources, keep = _positions(rowids, source_rowids)
        del source_rowids
        targets, known_target = _positions(rowids, target_rowids)
        del target_rowids
        keep &= known_target
        del known_target
        sources, targets = sources[keep].astype(np.int32), targets[keep].astype(np.int32)  # (positions: the same order)
        kinds, resolutions, confidence = kinds[keep], resolutions[keep], confidence[keep]
        del keep
        order = np.lexsort((kinds, targets, sources))
        return cls(rowids, sources[order], targets[order], kinds[order], resolutions[order],
                   confidence[order].astype(np.float64, copy=False))

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
        return Snapshot._sorted(rowids, [np.concatenate(pair) for pair in zip(old, _columns(added_rows))])

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
        return _pack(MAGIC, DTYPES, self)

    @classmethod
    def unpack(cls, blob: bytes) -> Snapshot:
        """The snapshot in `blob`, its arrays read in place (no copy)."""
        return cls(**_unpack(MAGIC, DTYPES, blob))

    @classmethod
    def stored(cls, blobs: Sequence[bytes]) -> Snapshot:
        """The snapshot a generation stored: its base (the first blob) with its patches folded in, in order."""
        if not blobs:
            raise SnapshotError("no graph snapshot stored")
        base = cls.unpack(blobs[0])
        return base.patched([Patch.unpack(blob) for blob in blobs[1:]]) if len(blobs) > 1 else base

    def patched(self, patches: Sequence[Patch]) -> Snapshot:
        """This snapshot with `patches` applied one after another (each as `replace`), in one pass: a
        node is in when the last patch naming it added it, an edge when no later patch dropped its
        source, and an edge whose ends are not both in is left out, as `replace` leaves it at each step."""
        added = np.concatenate([p.added for p in patches])
        nodes = np.setdiff1d(np.union1d(self.nodes, added), _removed_for_good(patches))
        dropped_later = [np.empty(0, np.int64)]
        for patch in reversed(patches[1:]):
            dropped_later.append(np.union1d(dropped_later[-1], patch.dropped))
        dropped_later.reverse()  # dropped_later[i]: sources dropped by the patches after patch i
        source_rowids, target_rowids = self.nodes[self.sources], self.nodes[self.targets]
        keep = ~np.isin(source_rowids, np.concatenate([p.dropped for p in patches]))
        columns = [[source_rowids[keep]], [target_rowids[keep]], [self.kinds[keep]], [self.resolutions[keep]],
                   [self.confidence[keep]]]
        for patch, dropped in zip(patches, dropped_later):
            keep = ~np.isin(patch.sources, dropped)
            for column, values in zip(columns, (patch.sources, patch.targets, patch.kinds, patch.resolutions,
                                                patch.confidence)):
                column.append(values[keep])
        return Snapshot._sorted(nodes, [np.concatenate(column) for column in columns])


@dataclass(frozen=True)
class Patch:
    """What one incremental run changed in the graph, by rowid: the nodes it removed and added, the
    sources whose edges it dropped (every entity of a file it resolved again) and the edges it added."""

    removed: np.ndarray
    added: np.ndarray
    dropped: np.ndarray
    sources: np.ndarray  # edge rows, by rowid
    targets: np.ndarray
    kinds: np.ndarray
    resolutions: np.ndarray
    confidence: np.ndarray

    @classmethod
    def of(cls, removed_nodes: Iterable[int], added_nodes: Iterable[int], dropped_sources: Iterable[int],
           added_rows: Iterable[tuple] | EdgeColumns) -> Patch:
        """The patch that `Snapshot.replace` with the same arguments applies."""
        return cls(np.fromiter(removed_nodes, np.int64), np.fromiter(added_nodes, np.int64),
                   np.fromiter(dropped_sources, np.int64), *_columns(added_rows))

    def pack(self) -> bytes:
        return _pack(PATCH_MAGIC, PATCH_DTYPES, self)

    @classmethod
    def unpack(cls, blob: bytes) -> Patch:
        return cls(**_unpack(PATCH_MAGIC, PATCH_DTYPES, blob))


def compact_due(patches: int, patch_bytes: int, base_bytes: int) -> bool:
    """Whether a run should write a new base rather than one more patch, given the stored patches
    (their number and bytes, the new one included) and the base's bytes."""
    return patches > MAX_PATCHES or patch_bytes > MAX_PATCH_SHARE * max(base_bytes, SMALL_BASE)


def _removed_for_good(patches: Sequence[Patch]) -> np.ndarray:
    """The rowids a patch removed and no later patch (nor itself) added back."""
    gone = np.empty(0, np.int64)
    for patch in patches:
        gone = np.setdiff1d(np.union1d(gone, patch.removed), patch.added)
    return gone


def _pack(magic: bytes, dtypes: dict[str, str], arrays) -> bytes:
    header, chunks, offset = {}, [], 0
    for name, dtype in dtypes.items():
        data = np.ascontiguousarray(getattr(arrays, name), dtype=dtype)  # (joined below as it is: no copy of its own)
        header[name] = [dtype, len(data), offset]
        padding = -data.nbytes % 8
        chunks += [data, b"\0" * padding]
        offset += data.nbytes + padding
    head = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    head += b" " * (-(len(magic) + 4 + len(head)) % 8)
    return b"".join([magic, struct.pack("<I", len(head)), head, *chunks])


def _unpack(magic: bytes, dtypes: dict[str, str], blob: bytes) -> dict[str, np.ndarray]:
    """The arrays in `blob`, read in place (no copy)."""
    if not blob.startswith(magic):
        raise SnapshotError("not a graph snapshot of this format")
    try:
        (length,) = struct.unpack_from("<I", blob, len(magic))
        start = len(magic) + 4
        header = json.loads(blob[start:start + length])
        base = start + length
        arrays = {name: np.frombuffer(blob, dtype=dtype, count=count, offset=base + offset)
                  for name, (dtype, count, offset) in header.items()}
        return {name: arrays[name] for name in dtypes}
    except (struct.error, ValueError, KeyError, TypeError) as exc:
        raise SnapshotError(f"damaged graph snapshot ({exc})") from None


class EdgeColumns:
    """Edge rows gathered batch by batch (a file's at a time) as arrays, for a snapshot or a patch: the
    hundreds of thousands of edges of a full build then take a tenth of the memory of their tuples."""

    def __init__(self) -> None:
        self._parts: list[list[np.ndarray | None]] = []

    def add(self, rows: Sequence[tuple]) -> None:
        if rows:
            self._parts.append(list(_columns(rows)))

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The rows gathered, as whole columns, taken out: each batch's column is let go once it is
        joined (a full build's edges are not held twice over)."""
        if not self._parts:
            return _columns([])
        parts, self._parts = self._parts, []
        out = []
        for i in range(len(parts[0])):
            out.append(np.concatenate([part[i] for part in parts]))
            for part in parts:
                part[i] = None
        return tuple(out)


def _columns(rows: Iterable[tuple] | EdgeColumns) -> tuple[np.ndarray, ...]:
    """Edge rows as (source, target, kind, resolution, confidence) arrays."""
    if isinstance(rows, EdgeColumns):
        return rows.arrays()
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
