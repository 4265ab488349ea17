"""networkx over a graph snapshot, filled lazily: node and adjacency dicts made per entity on first
use, from the snapshot's arrays and the entity rows, which a MultiDiGraph then wraps. Loading a graph
costs the arrays and the rows, not a dict per edge: an answer touches a few hundred entities of
hundreds of thousands. networkx stays the graph's API (views, traversal, export all work), and
whatever reads every node or edge (an export, a whole-graph walk) fills the dicts as it goes. The
dicts need no networkx: the answering paths read them directly, and networkx (a third of a second to
import) is loaded only when something asks for the MultiDiGraph."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

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


class LazyNodes(_Lazy):
    """Entity id -> attribute dict, each made from its row on first access and kept (callers may add
    to it, as CodeGraph.entity adds the signature and doc). A row's values for `columns` start at
    `skip` (rows as read, with leading keys)."""

    def __init__(self, ids: Sequence[str], index: Mapping[str, int], rows: Sequence[tuple], columns: Sequence[str],
                 skip: int = 0):
        super().__init__(ids, index)
        self._rows, self._columns, self._skip = rows, columns, skip

    def _make(self, i: int) -> dict:
        return dict(zip(self._columns, self._rows[i][self._skip:]))


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
            name = EDGE_KINDS[kind]
            out.setdefault(self._ids[other], {})[name] = {
                "kind": name, "resolution": RESOLUTIONS[resolution], "confidence": sure}
        return out


class LazyGroups(Mapping):
    """A column's value -> the ids of the rows holding it, in row order (the by-name lookups), the
    dict built on first use: an answer for an entity given by id never needs it."""

    def __init__(self, rows: Sequence[tuple], key: int, value: int):
        self._rows, self._key, self._value = rows, key, value
        self._built: dict[str, list[str]] | None = None

    def _groups(self) -> dict[str, list[str]]:
        groups = self._built
        if groups is None:
            groups = {}
            key, value = self._key, self._value
            for row in self._rows:
                found = groups.get(row[key])
                if found is None:
                    groups[row[key]] = [row[value]]
                else:
                    found.append(row[value])
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


def lazy_views(snapshot: Snapshot, ids: Sequence[str], index: Mapping[str, int], rows: Sequence[tuple],
               columns: Sequence[str], skip: int = 0) -> tuple[LazyNodes, LazyAdjacency, LazyAdjacency]:
    """(nodes, successors, predecessors) over the snapshot: node i is ids[i] with the attributes
    zip(columns, rows[i][skip:]); the adjacency dicts are a MultiDiGraph's (edge key = edge kind)."""
    return (LazyNodes(ids, index, rows, columns, skip), LazyAdjacency(snapshot, ids, index, forward=True),
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
