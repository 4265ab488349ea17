"""networkx over a graph snapshot, filled lazily: node and adjacency dicts made per entity on first
use, from the snapshot's arrays and the entity rows (read as they are needed), which a MultiDiGraph
then wraps. Loading a graph costs the arrays and the entity ids, not a dict per edge nor a row per
entity: an answer touches a few hundred entities of hundreds of thousands. networkx stays the
graph's API (views, traversal, export all work), and whatever reads every node or edge (an export,
a whole-graph walk) fills the dicts as it goes. The dicts need no networkx: the answering paths read
them directly, and networkx (a third of a second to import) is loaded only when something asks for
the MultiDiGraph."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from graphctx.errors import IndexMoved
from graphctx.graph.snapshot import Snapshot
from graphctx.models import EDGE_KINDS, RESOLUTIONS

if TYPE_CHECKING:
    import networkx as nx


class _Lazy(Mapping):
    """An id -> dict mapping over the snapshot's entities whose values are made on first access
    (by `_make`) and kept."""

    def __init__(self, ids: Sequence[str], index: Mapping[str, int]):
        self._ids, self._index = ids, index
        self._made: dict[str, dict] = {}

    def __getitem__(self, node: str) -> dict:
        made = self._made.get(node)
        if made is None:
            made = self._made[node] = self._make(self._index[node])
        return made

    @abstractmethod
    def _make(self, i: int) -> dict:
        """The dict of the entity at position `i`."""

    def __contains__(self, node: object) -> bool:
        return node in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)


class StoredNodes(_Lazy):
    """Entity id -> attribute dict, each made on first access from its entity row and kept (callers
    may add to it, as CodeGraph.entity adds the signature and doc). The rows are read on demand by
    `read(rowids)` (None: every row), which gives (id, *columns) in rowid order: an answer reads the few
    hundred entities it ranks, not all of them. Past `bulk_after` single reads, the rest are read at
    once (a walk over the whole graph: an export, a benchmark's sample)."""

    def __init__(self, ids: Sequence[str], index: Mapping[str, int], rowids: Sequence[int], columns: Sequence[str],
                 read: Callable[[Sequence[int] | None], list[tuple]], bulk_after: int = 4096):
        super().__init__(ids, index)
        self._rowids, self._columns, self._read = rowids, columns, read
        self._all: list[tuple] | None = None
        self._reads_left = bulk_after

    def _make(self, i: int) -> dict:
        if self._all is None:
            self._reads_left -= 1
            if self._reads_left < 0:
                self._all = self._read(None)
        row = self._all[i] if self._all is not None else self._read([self._rowids[i]])[0]
        if row[0] != self._ids[i]:  # another index file at the same generation number (a rebuilt one)
            raise IndexMoved("the index file was replaced while an answer was read from it; ask again")
        return dict(zip(self._columns, row[1:]))


class LazyAdjacency(_Lazy):
    """Entity id -> {neighbour id: {edge kind: {kind, resolution, confidence}}}, one direction of
    the snapshot's edges, each entity's dict made on first access."""

    def __init__(self, snapshot: Snapshot, ids: Sequence[str], index: Mapping[str, int], *, forward: bool):
        super().__init__(ids, index)
        self._snapshot, self._forward = snapshot, forward

    def _make(self, i: int) -> dict:
        s = self._snapshot
        edges = s.out_edges(i) if self._forward else s.in_edges(i)
        others = (s.targets if self._forward else s.sources)[edges].tolist()
        kinds, resolutions, confidence = s.kinds[edges].tolist(), s.resolutions[edges].tolist(), s.confidence[edges].tolist()
        out: dict[str, dict] = {}
        for other, kind, resolution, sure in zip(others, kinds, resolutions, confidence):
            name, keyed = EDGE_KINDS[kind], out.setdefault(self._ids[other], {})
            if surer(keyed.get(name), RESOLUTIONS[resolution], sure):
                keyed[name] = {"kind": name, "resolution": RESOLUTIONS[resolution], "confidence": sure}
        return out


def surer(held: dict | None, resolution: str, confidence: float) -> bool:
    """Whether an edge replaces the one `held` under its key (source, target, kind): two files may
    make one edge (each hands the same function on), and the graph keeps the surer, whatever order
    the rows came in."""
    return held is None or (confidence, resolution) > (held["confidence"], held["resolution"])


class LazyGroups(Mapping):
    """A column's value -> the ids of the entities holding it, in row order (the by-name lookups),
    the column read and the dict built on first use: an answer for an entity given by id never needs it.
    `column()` gives the column's values in the order of `ids`."""

    def __init__(self, ids: Sequence[str], column: Callable[[], list]):
        self._ids, self._column = ids, column
        self._built: dict[str, list[str]] | None = None

    def _groups(self) -> dict[str, list[str]]:
        groups = self._built
        if groups is None:
            groups = {}
            for key, entity_id in zip(self._column(), self._ids, strict=True):
                found = groups.get(key)
                if found is None:
                    groups[key] = [entity_id]
                else:
                    found.append(entity_id)
            self._built = groups
        return groups

    def __getitem__(self, name: str) -> list[str]:
        return self._groups()[name]

    def get(self, name: str, default=None):
        return self._groups().get(name, default)

    def __contains__(self, name: object) -> bool:
        return name in self._groups()

    def __iter__(self) -> Iterator[str]:
        return iter(self._groups())

    def __len__(self) -> int:
        return len(self._groups())

    def items(self):
        return self._groups().items()

    def keys(self):
        return self._groups().keys()

    def values(self):
        return self._groups().values()


def lazy_views(snapshot: Snapshot, ids: Sequence[str], index: Mapping[str, int], rowids: Sequence[int],
               columns: Sequence[str], read: Callable[[Sequence[int] | None], list[tuple]],
               ) -> tuple[StoredNodes, LazyAdjacency, LazyAdjacency]:
    """(nodes, successors, predecessors) over the snapshot: node i is ids[i] with the attributes
    zip(columns, row[1:]) of its row read by `read` (see StoredNodes); the adjacency dicts are a
    MultiDiGraph's (edge key = edge kind)."""
    return (StoredNodes(ids, index, rowids, columns, read), LazyAdjacency(snapshot, ids, index, forward=True),
            LazyAdjacency(snapshot, ids, index, forward=False))


def multidigraph(nodes: Mapping[str, dict], succ: Mapping[str, dict], pred: Mapping[str, dict]) -> nx.MultiDiGraph:
    """A MultiDiGraph over these node and adjacency dicts (lazy or plain), sharing them. Read-only by
    convention: nothing in graphctx changes a loaded graph."""
    import networkx as nx

    graph = nx.MultiDiGraph()
    graph._node = nodes
    graph._succ = graph._adj = succ
    graph._pred = pred
    return graph
