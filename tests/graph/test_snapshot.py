"""The graph snapshot and the lazily filled networkx graph over it: the blob round-trips, an
incremental replace equals a rebuild, and the lazy graph answers exactly as the graph built from
the index's rows does (nodes, attributes, both directions, every networkx view the engine uses)."""

from __future__ import annotations

import sqlite3

import networkx as nx
import numpy as np
import pytest

from graphctx.graph import loader
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


def graph_from_rows(root) -> nx.MultiDiGraph:
    """The graph as the index's rows state it, built the eager way: what the snapshot must agree with."""
    conn = sqlite3.connect(f"file:{root / '.graphctx' / 'index.db'}?mode=ro", uri=True)
    try:
        rows = conn.execute(f"SELECT {', '.join(loader.NODE_COLUMNS)} FROM entities ORDER BY rowid").fetchall()
        ids = {r[0] for r in rows}
        edges = [e for e in conn.execute("SELECT source, target, kind, resolution, confidence FROM edges")
                 if e[0] in ids and e[1] in ids]
    finally:
        conn.close()
    return loader._multidigraph(rows, edges)


def loaded_graph(root) -> nx.MultiDiGraph:
    conn = sqlite3.connect(f"file:{root / '.graphctx' / 'index.db'}?mode=ro", uri=True)
    try:
        return loader.load(root, conn).graph
    finally:
        conn.close()


def assert_same_graph(lazy: nx.MultiDiGraph, eager: nx.MultiDiGraph) -> None:
    assert list(lazy.nodes) == list(eager.nodes)
    for node in eager.nodes:
        assert lazy.nodes[node] == eager.nodes[node]
        assert sorted(lazy.out_edges(node, data=True, keys=True)) == sorted(eager.out_edges(node, data=True, keys=True))
        assert sorted(lazy.in_edges(node, data="kind")) == sorted(eager.in_edges(node, data="kind"))
        assert set(lazy.successors(node)) == set(eager.successors(node))
    assert sorted(lazy.edges(data="kind")) == sorted(eager.edges(data="kind"))


def test_the_loaded_graph_is_the_graph_of_the_rows(shop):
    lazy, eager = loaded_graph(shop), graph_from_rows(shop)
    assert eager.number_of_edges() > 10
    assert_same_graph(lazy, eager)
    part = list(eager.nodes)[: len(eager) // 2]
    assert sorted(lazy.subgraph(part).edges(keys=True)) == sorted(eager.subgraph(part).edges(keys=True))
    assert "no such entity" not in lazy


def test_the_snapshot_follows_random_edits(tmp_path):
    """After each of a run of random edits (a function added, removed or renamed, a call added, a
    file deleted or created, a class's base changed), the snapshot the index run derived from the
    previous one is the graph of the rows."""
    import random
    import textwrap

    root = write_tree(tmp_path / "shop", {k: textwrap.dedent(v) for k, v in SHOP.items()})
    index_repository(root, workers=1)
    rng = random.Random(13)
    for step in range(12):
        path = root / rng.choice(["shop/models.py", "shop/service.py", "shop/extra.py", "tests/test_service.py"])
        text = path.read_text() if path.exists() else ""
        choice = rng.randrange(5)
        if choice == 0:
            text += f"\n\ndef added_{step}(x):\n    return create_item(x)\n"
        elif choice == 1 and "def " in text:
            name = rng.choice([line.split("(")[0][4:] for line in text.splitlines() if line.startswith("def ")] or ["x"])
            text = text.replace(f"def {name}(", f"def {name}_renamed(")
        elif choice == 2:
            text = "from shop.models import Repo\n\nclass Extra(Repo):\n    def save(self, item):\n        return item\n"
        elif choice == 3 and path.exists():
            path.unlink()
            text = None
        else:
            text = text.replace("class CachedRepo(Repo)", "class CachedRepo(object)")
        if text is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        index_repository(root, workers=1)
        assert_same_graph(loaded_graph(root), graph_from_rows(root))
