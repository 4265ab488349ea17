"""The graph snapshot and the lazily filled networkx graph over it: the blob round-trips, an
incremental replace equals a rebuild, and the lazy graph answers exactly as the graph built from
the index's rows does (nodes, attributes, both directions, every networkx view the engine uses)."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from graphctx.graph import loader
from graphctx.graph.lazy import lazy_multidigraph
from graphctx.graph.snapshot import Snapshot, SnapshotError
from graphctx.index.indexer import index_repository
from graphctx.index.rows import KIND_CODE, RESOLUTION_CODE
from conftest import SHOP, write_tree



def coded(*edges: tuple) -> list[tuple]:
    return [(s, t, KIND_CODE[k], RESOLUTION_CODE[r], c) for s, t, k, r, c in edges]


EDGES = coded((1, 2, "calls", "exact", 1.0), (2, 3, "calls", "ambiguous", 0.25), (1, 3, "contains", "exact", 1.0),
              (3, 1, "inherits", "import", 0.95), (1, 2, "references", "heuristic", 0.5), (9, 1, "calls", "exact", 1.0))


def test_blob_round_trip_and_rejects_other_bytes():
    snapshot = Snapshot.from_rows([3, 1, 2], EDGES)
    assert snapshot.nodes.tolist() == [1, 2, 3]
    assert len(snapshot.sources) == 5  # the edge from rowid 9 (no such node) is left out
    again = Snapshot.unpack(snapshot.pack())
    assert again == snapshot
    assert again.pack() == snapshot.pack()  # the same graph, the same bytes
    assert [again.targets[e] for e in again.out_edges(0)] == [1, 1, 2]  # sorted by target, then kind
    assert sorted(again.sources[again.in_edges(2)].tolist()) == [0, 1]
    with pytest.raises(SnapshotError):
        Snapshot.unpack(b"not a snapshot")
    with pytest.raises(SnapshotError):
        Snapshot.unpack(snapshot.pack()[:40])


def test_replace_equals_rebuild():
    before = Snapshot.from_rows([1, 2, 3, 4], EDGES + coded((4, 2, "calls", "exact", 1.0)))
    # node 3 is rewritten as 5; nodes 1 and 4 are resolved again: 4 lost its edge, 1 calls 5
    after_edges = coded((2, 5, "calls", "ambiguous", 0.25), (1, 5, "calls", "exact", 1.0), (5, 1, "inherits", "import", 0.95))
    replaced = before.replace([3], [5], [1, 4, 3], after_edges)
    rebuilt = Snapshot.from_rows([1, 2, 4, 5], [*coded((2, 3, "calls", "ambiguous", 0.25)), *after_edges])
    assert replaced == rebuilt
    assert np.array_equal(replaced.nodes, [1, 2, 4, 5])


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    import textwrap

    root = write_tree(tmp_path_factory.mktemp("snapshot") / "shop", {k: textwrap.dedent(v) for k, v in SHOP.items()})
    index_repository(root, workers=1)
    return root


def test_lazy_graph_answers_as_the_rows_do(shop):
    conn = sqlite3.connect(f"file:{shop / '.graphctx' / 'index.db'}?mode=ro", uri=True)
    eager = loader.load(shop, conn).graph
    rowid = dict(conn.execute("SELECT id, rowid FROM entities"))
    edges = [(rowid[s], rowid[t], KIND_CODE[k], RESOLUTION_CODE[r], c) for s, t, k, r, c in conn.execute(
        "SELECT source, target, kind, resolution, confidence FROM edges") if s in rowid and t in rowid]
    rows = conn.execute(f"SELECT {', '.join(loader.NODE_COLUMNS)} FROM entities ORDER BY rowid").fetchall()
    conn.close()
    snapshot = Snapshot.unpack(Snapshot.from_rows(rowid.values(), edges).pack())
    ids = [r[0] for r in rows]
    lazy = lazy_multidigraph(snapshot, ids, {n: i for i, n in enumerate(ids)}, [r[1:] for r in rows],
                             loader.NODE_COLUMNS[1:])

    assert eager.number_of_edges() > 10
    assert list(lazy.nodes) == ids and len(lazy) == len(eager)
    for node in ids:
        assert lazy.nodes[node] == eager.nodes[node]
        assert sorted(lazy.out_edges(node, data=True, keys=True)) == sorted(eager.out_edges(node, data=True, keys=True))
        assert sorted(lazy.in_edges(node, data="kind")) == sorted(eager.in_edges(node, data="kind"))
        assert set(lazy.successors(node)) == set(eager.successors(node))
    assert sorted(lazy.edges(data="kind")) == sorted(eager.edges(data="kind"))
    part = ids[: len(ids) // 2]
    assert sorted(lazy.subgraph(part).edges(keys=True)) == sorted(eager.subgraph(part).edges(keys=True))
    assert "no such entity" not in lazy
