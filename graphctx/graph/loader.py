"""Loads the index into an in-memory graph and keeps it current: each call
checks the index generation (one indexed SQLite read) and reloads only when it moved, or when the
index file was replaced by a new one. An index file that cannot be used (a killed first build's,
another version's, a damaged one) is rebuilt on the spot, with the indexer's one-line warning.
Holds the repository entities and their resolved edges as node and adjacency dicts (filled lazily
from the generation's graph snapshot: loading reads no edge row), the networkx MultiDiGraph over
them (made, and networkx imported, on first use), plus the lookup tables and the edge arrays that
traversal and ranking need."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from graphctx.errors import IndexMoved, NoIndex
from graphctx.index import checked, store
from graphctx.index.store import graph_reads, reads
from graphctx.index.root import indexed_ancestor
from graphctx.models import EDGE_KINDS, INFERRED, RESOLUTIONS

if TYPE_CHECKING:
    import networkx as nx
    import numpy as np

    from graphctx.graph.snapshot import Snapshot

T = TypeVar("T")

# Edges to names outside the repository stay in the store (graphctx show lists them); the graph
# holds only edges between repository entities. Signatures and docs (DETAIL_COLUMNS) are most of an
# entity's bytes and few answers need them: read on first use.
NODE_COLUMNS, DETAIL_COLUMNS = reads.NODE_COLUMNS, reads.DETAIL_COLUMNS


def no_index_message(root: Path) -> str:
    """Says the index is missing and how to build it; points at an indexed parent folder if there is one."""
    message = f"{root} has no index yet; run `graphctx index {root}` first"
    parent = indexed_ancestor(root)
    return message if parent is None else f"{message}, or pass --repo {parent} (that folder has an index)"


@dataclass(frozen=True)
class EdgeArrays:
    """The edges as parallel arrays over node positions, for sparse-matrix ranking."""

    nodes: list[str]
    index: dict[str, int]
    sources: np.ndarray
    targets: np.ndarray
    kinds: np.ndarray  # positions in EDGE_KINDS
    confidence: np.ndarray
    inferred: np.ndarray
    resolutions: np.ndarray  # positions in RESOLUTIONS


@dataclass
class CodeGraph:
    """One generation of the graph. `nodes[id]` is an entity's attributes and `succ[id]` / `pred[id]`
    map each neighbour to {edge kind: {kind, resolution, confidence}}, as in a networkx MultiDiGraph;
    `graph` is that MultiDiGraph, sharing the dicts."""

    root: Path
    generation: int
    nodes: Mapping[str, dict]
    succ: Mapping[str, dict]
    pred: Mapping[str, dict]
    arrays: EdgeArrays
    by_name: Mapping[str, list[str]] = field(default_factory=dict)
    by_qualified_name: Mapping[str, list[str]] = field(default_factory=dict)
    by_path: Mapping[str, list[str]] = field(default_factory=dict)  # the file's entities, the file itself included
    files: dict[str, dict] = field(default_factory=dict)  # path -> {language, size, mtime_ns, hash, lines, is_test}
    cache: dict = field(default_factory=dict)  # derived structures (sparse matrices), per generation
    snapshot: Snapshot | None = None  # the snapshot the arrays are, in its order (its sparse rows are theirs)
    reader: Callable[[], sqlite3.Connection] | None = None  # the index this graph was loaded from, for lazy details

    def connection(self) -> sqlite3.Connection:
        """A read connection to the index this graph came from (the calling thread's own)."""
        if self.reader is None:
            raise NoIndex(f"the graph of {self.root} was built without an index to read details from")
        return self.reader()

    @cached_property
    def graph(self) -> nx.MultiDiGraph:
        """The networkx MultiDiGraph of the entities and edges (edge key = edge kind)."""
        from graphctx.graph.lazy import multidigraph

        return multidigraph(self.nodes, self.succ, self.pred)

    def entity(self, entity_id: str) -> dict:
        """The entity's attributes, signature and doc included."""
        node = self.nodes[entity_id]
        if "doc" not in node:
            node.update(zip(DETAIL_COLUMNS, reads.entity_details(self.connection(), entity_id)))
        return node

    def fill_details(self, entity_ids: list[str]) -> None:
        """Read the signature and doc of these entities in one go (entity() would read them one by one)."""
        missing = [e for e in entity_ids if "doc" not in self.nodes[e]]
        if missing:
            found = reads.entities_details(self.connection(), missing)
            for entity_id in missing:
                self.nodes[entity_id].update(zip(DETAIL_COLUMNS, found.get(entity_id, ("", ""))))

    def adjacency(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(out_order, out_ptr, in_order, in_ptr) over the edge arrays: the edges out of node i are
        out_order[out_ptr[i]:out_ptr[i + 1]], those into it in_order[in_ptr[i]:in_ptr[i + 1]], each in
        the arrays' order (a snapshot's: by source, target, kind), the order the adjacency dicts list."""
        cached = self.cache.get("adjacency")
        if cached is None and self.snapshot is not None:
            import numpy as np

            s = self.snapshot
            cached = self.cache["adjacency"] = (np.arange(len(s.sources)), s.out_ptr, s.in_order, s.in_ptr)
        if cached is None:
            import numpy as np

            a = self.arrays
            bounds = np.arange(len(a.nodes) + 1)
            out_order = np.argsort(a.sources, kind="stable")
            in_order = np.argsort(a.targets, kind="stable")
            cached = self.cache["adjacency"] = (out_order, np.searchsorted(a.sources[out_order], bounds), in_order,
                                                np.searchsorted(a.targets[in_order], bounds))
        return cached

    def out_kinds(self, entity_id: str) -> list[tuple[str, str]]:
        """(target, edge kind) of each edge out of the entity, from the arrays (no adjacency dict is made)."""
        out_order, out_ptr, _, _ = self.adjacency()
        i = self.arrays.index[entity_id]
        return self._kinds(out_order[out_ptr[i]:out_ptr[i + 1]], self.arrays.targets)

    def in_kinds(self, entity_id: str) -> list[tuple[str, str]]:
        """(source, edge kind) of each edge into the entity, from the arrays."""
        _, _, in_order, in_ptr = self.adjacency()
        i = self.arrays.index[entity_id]
        return self._kinds(in_order[in_ptr[i]:in_ptr[i + 1]], self.arrays.sources)

    def _kinds(self, edges: np.ndarray, ends: np.ndarray) -> list[tuple[str, str]]:
        nodes = self.arrays.nodes
        return [(nodes[end], EDGE_KINDS[kind]) for end, kind in zip(ends[edges].tolist(), self.arrays.kinds[edges].tolist())]

    def __contains__(self, entity_id: str) -> bool:
        return entity_id in self.nodes


class GraphCache:
    """The loaded graph of one repository root, refreshed when the index generation changes, and
    the read connections it is served from: one per thread, since a SQLite connection must not be
    used by two threads at once. Owned by whoever serves that root (a Project); two caches share nothing."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._graph: CodeGraph | None = None
        self._connections: dict[int, sqlite3.Connection] = {}
        self._files: dict[int, tuple[int, int]] = {}  # the identity of the file each one opened
        self._lock = threading.Lock()

    def connection(self) -> sqlite3.Connection:
        """A read-only connection to the index, the calling thread's own; a new one when the index
        file was replaced (a damaged index deleted and rebuilt): a stat per call."""
        key = threading.get_ident()
        conn = self._connections.get(key)
        if conn is not None and checked.identity(store.index_path(self.root)) != self._files.get(key):
            self._connections.pop(key).close()
            self._graph = None  # a new file counts its generations from the start again
            conn = None
        if conn is None:
            conn, self._files[key] = _open(self.root)
            self._connections[key] = conn
        return conn

    def held_connection(self) -> sqlite3.Connection:
        """The calling thread's connection as it is, without the stat that finds a replaced index file:
        a graph's entity rows are read on, from the file it was loaded from (each read checks the
        generation and the ids)."""
        conn = self._connections.get(threading.get_ident())
        return conn if conn is not None else self.connection()

    @property
    def open_connections(self) -> int:
        return len(self._connections)

    @property
    def loaded(self) -> bool:
        return self._graph is not None

    def close(self) -> None:
        """Drop the loaded graph and close the connections of every thread; a later call opens them again."""
        with self._lock:
            self._graph = None
            self._files.clear()
            while self._connections:
                self._connections.popitem()[1].close()

    def get(self) -> CodeGraph:
        conn = self.connection()
        current = store.generation(conn)
        graph = self._graph
        if graph is None or graph.generation != current:
            with self._lock:
                graph = self._graph
                if graph is None or graph.generation != current:
                    graph = self._graph = load(self.root, conn, reader=self.connection, rows=self.held_connection)
        return graph


def _open(root: Path) -> tuple[sqlite3.Connection, tuple[int, int]]:
    """A read-only connection to a usable index, with the identity of the file it opened. An index
    file that cannot be used is rebuilt first: it exists, so someone meant this folder to be indexed
    (a missing index is only named, since building one in the wrong folder can take minutes)."""
    path = store.index_path(root)
    for attempt in (1, 2):
        try:
            conn = store.connect(path, readonly=True)
        except store.IndexMissing:
            raise NoIndex(no_index_message(root)) from None
        identity = checked.identity(path)
        problem = store.diagnose(conn)
        if problem is None:
            return conn, identity
        conn.close()
        if attempt == 1:
            from graphctx.index.indexer import index_repository  # the parsers load only when needed

            index_repository(root)  # it says what was wrong with the file, in one warning line
    raise NoIndex(f"{path} {problem}; run `graphctx index {root}` to rebuild it")


def load(root: Path, conn: sqlite3.Connection, reader: Callable[[], sqlite3.Connection] | None = None,
         rows: Callable[[], sqlite3.Connection] | None = None) -> CodeGraph:
    """Read the entity ids and the generation's graph snapshot in one read transaction, so they agree
    on a generation. The networkx graph fills itself from the snapshot as it is used, and the arrays
    ranking needs are the snapshot's own: no edge row is read. The other entity columns are read as
    answers need them, on the connections `rows` (else `reader`) gives, each read confirming the
    generation (a graph the index moved away from raises IndexMoved, and the answer is asked again:
    see current_generation); with neither, they are read at once. An index without a snapshot that
    matches its entities (none is expected) is loaded from its edge rows instead. numpy and the
    snapshot code load here, not with this module: an index run (graphctx index) loads no graph."""
    import numpy as np

    from graphctx.graph.lazy import LazyGroups, lazy_views
    from graphctx.graph.snapshot import Snapshot

    generation, entities, blobs, edge_rows, files = graph_reads.graph_snapshot(conn)
    rowids = np.fromiter((row[0] for row in entities), np.int64, len(entities))
    snapshot = _unpacked(blobs, rowids)
    if snapshot is None:
        if blobs:  # a snapshot that does not match: read the rows it should have saved reading
            edge_rows = reads.graph_arrays(conn)[1]
        snapshot = Snapshot.from_rows(rowids, edge_rows)
    nodes = [row[1] for row in entities]
    index = dict(zip(nodes, range(len(nodes))))
    inferred_codes = [i for i, resolution in enumerate(RESOLUTIONS) if resolution in INFERRED]
    arrays = EdgeArrays(
        nodes=nodes,
        index=index,
        sources=snapshot.sources.astype(np.int64),
        targets=snapshot.targets.astype(np.int64),
        kinds=snapshot.kinds.astype(np.int64),
        confidence=snapshot.confidence.astype(float),
        inferred=np.isin(snapshot.resolutions, inferred_codes),
        resolutions=snapshot.resolutions,
    )
    rowid_list = rowids.tolist()
    read = (_row_reader(root, generation, len(nodes), rows or reader) if rows or reader
            else _rows_at_hand(root, conn, generation, rowid_list))
    column = lambda name: lambda: [value for (value,) in read(None, (name,))]  # noqa: E731
    node_dicts, succ, pred = lazy_views(snapshot, nodes, index, rowid_list, NODE_COLUMNS[1:], read)
    return CodeGraph(
        root=root,
        reader=reader,
        generation=generation,
        nodes=node_dicts,
        succ=succ,
        pred=pred,
        arrays=arrays,
        snapshot=snapshot,
        by_name=LazyGroups(nodes, column("name")),
        by_qualified_name=LazyGroups(nodes, column("qualified_name")),
        by_path=LazyGroups(nodes, column("path")),
        files={p: {"language": lang, "size": size, "mtime_ns": mtime, "hash": digest, "lines": lines, "is_test": bool(test)}
               for p, lang, size, mtime, digest, lines, test in files},
    )


def _row_reader(root: Path, generation: int, count: int, connection: Callable[[], sqlite3.Connection]):
    """read(rowids, columns=NODE_COLUMNS): those entity rows (all `count` for None), in rowid order, as
    they are in `generation`; IndexMoved once the index has moved on (a graph no longer current)."""
    def read(rowids, columns=NODE_COLUMNS) -> list[tuple]:
        rows = graph_reads.entity_rows(connection(), generation, rowids, columns)
        if len(rows) != (count if rowids is None else len(rowids)):
            raise IndexMoved(f"the index of {root} was updated while an answer was read from it; ask again")
        return rows

    return read


def _rows_at_hand(root: Path, conn: sqlite3.Connection, generation: int, rowids: list[int]):
    """read() as _row_reader gives it, over every row read now: a graph with no reader to come back to
    (its caller may close `conn`) holds its rows."""
    rows = graph_reads.entity_rows(conn, generation)
    if len(rows) != len(rowids):
        raise IndexMoved(f"the index of {root} was updated while its graph loaded; load it again")
    position = dict(zip(rowids, range(len(rowids))))

    def read(wanted, columns=NODE_COLUMNS) -> list[tuple]:
        picked = [NODE_COLUMNS.index(c) for c in columns]
        chosen = rows if wanted is None else [rows[position[r]] for r in wanted]
        return [tuple(row[k] for k in picked) for row in chosen]

    return read


def current_generation(answer: Callable[[], T], attempts: int = 3) -> T:
    """`answer()`, asked again (on the graph of the new generation) when the index moved while it read
    entity rows; after `attempts` moves the IndexMoved is raised (its message says to ask again)."""
    for attempt in range(attempts):
        try:
            return answer()
        except IndexMoved:
            if attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")


def _unpacked(blobs: list[bytes], rowids: np.ndarray) -> Snapshot | None:
    """The stored snapshot (a base and its patches) when it is one and its nodes are exactly these entities."""
    import numpy as np

    from graphctx.graph.snapshot import Snapshot, SnapshotError

    if not blobs:
        return None
    try:
        snapshot = Snapshot.stored(blobs)
    except SnapshotError:
        return None
    return snapshot if np.array_equal(snapshot.nodes, rowids) else None


def _multidigraph(entities: list[tuple], edges: list[tuple]) -> nx.MultiDiGraph:
    """The same MultiDiGraph that add_nodes_from/add_edges_from build (edge key = edge kind), with
    its adjacency dicts filled directly: twice as fast on a few hundred thousand edges, which is
    most of the time a cold load takes. A fresh graph has no views yet that could hold the old dicts."""
    import networkx as nx

    from graphctx.graph.lazy import surer

    graph = nx.MultiDiGraph()
    nodes = {row[0]: dict(zip(NODE_COLUMNS[1:], row[1:])) for row in entities}
    succ: dict[str, dict] = {node: {} for node in nodes}
    pred: dict[str, dict] = {node: {} for node in nodes}
    for source, target, kind, resolution, confidence in edges:
        keyed = succ[source].get(target)
        if keyed is None:
            keyed = succ[source][target] = pred[target][source] = {}
        if surer(keyed.get(kind), resolution, confidence):
            keyed[kind] = {"kind": kind, "resolution": resolution, "confidence": confidence}
    graph._node, graph._succ, graph._pred = nodes, succ, pred
    graph._adj = succ
    return graph

