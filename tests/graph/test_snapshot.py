"""The graph snapshot and the lazily filled networkx graph over it: the blob round-trips, an
incremental replace equals a rebuild, and the lazy graph answers exactly as the graph built from
the index's rows does (nodes, attributes, both directions, every networkx view the engine uses)."""

from __future__ import annotations

import sqlite3

import networkx as nx
import numpy as np
import pytest

from graphctx.graph import loader
from graphctx.graph.snapshot import Patch, Snapshot, SnapshotError
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


def test_patches_folded_at_once_equal_replacing_one_after_another():
    """Random runs of patches (nodes removed, re-added within a patch as a rewritten file's are,
    added new; sources dropped; edges added, some to nodes gone) folded in one pass give the
    snapshot that replacing patch by patch gives."""
    import random

    rng = random.Random(7)
    kinds, resolutions = list(KIND_CODE.values()), list(RESOLUTION_CODE.values())

    def rows(sources, targets, n):
        return [(rng.choice(sources), rng.choice(targets), rng.choice(kinds), rng.choice(resolutions),
                 rng.choice([1.0, 0.5, 0.25])) for _ in range(n)]

    for _ in range(40):
        nodes = list(range(1, 30))
        base = Snapshot.from_rows(nodes, rows(nodes, nodes + [99], 80))
        step, patches, last = base, [], 30
        for _ in range(rng.randrange(1, 6)):
            rewritten = rng.sample(nodes, rng.randrange(0, 5))
            gone = rng.sample([n for n in nodes if n not in rewritten], rng.randrange(0, 3))
            new = list(range(last, last + rng.randrange(0, 4)))
            last += len(new)
            nodes = sorted((set(nodes) - set(gone)) | set(new))
            dropped = [*rewritten, *gone, *rng.sample(nodes, rng.randrange(0, 3))]
            added = rows([*rewritten, *new] or nodes, nodes + gone, rng.randrange(0, 12))
            patches.append(Patch.of([*rewritten, *gone], [*rewritten, *new], dropped, added))
            step = step.replace([*rewritten, *gone], [*rewritten, *new], dropped, added)
        assert base.patched(patches) == step
        again = Snapshot.stored([base.pack(), *(patch.pack() for patch in patches)])
        assert again == step


def snapshot_rows(root) -> list[tuple[int, int]]:
    """(generation, bytes) of the stored snapshot's base and patches."""
    conn = sqlite3.connect(f"file:{root / '.graphctx' / 'index.db'}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT generation, length(data) FROM graph_snapshot ORDER BY generation").fetchall()
    finally:
        conn.close()


def test_edits_append_patches_and_a_new_base_replaces_them(tmp_path, monkeypatch):
    """Each edit stores a patch beside the base, not the whole graph again; the graph loads as the
    rows state it all along; past MAX_PATCHES an edit writes a new base in their place."""
    import textwrap

    from graphctx.graph import snapshot as snapshots

    monkeypatch.setattr(snapshots, "MAX_PATCHES", 3)
    root = write_tree(tmp_path / "shop", {k: textwrap.dedent(v) for k, v in SHOP.items()})
    index_repository(root, workers=1)
    base_generation, base_bytes = snapshot_rows(root)[0]
    service = root / "shop" / "service.py"
    for step in range(1, 5):
        service.write_text(service.read_text() + f"\n\ndef added_{step}(x):\n    return create_item(x)\n")
        index_repository(root, workers=1)
        stored = snapshot_rows(root)
        if step <= 3:
            assert [g for g, _ in stored] == list(range(base_generation, base_generation + step + 1))
            assert all(size < base_bytes for _, size in stored[1:])  # a patch, not the graph again
        else:
            assert [g for g, _ in stored] == [base_generation + step]  # a new base, the patches folded in
        assert_same_graph(loaded_graph(root), graph_from_rows(root))


def test_a_new_base_is_due_by_the_number_of_patches_or_their_share_of_a_large_base():
    from graphctx.graph.snapshot import MAX_PATCHES, compact_due

    large = 40 << 20
    assert not compact_due(2, 200_000, large)
    assert compact_due(2, large // 4, large)  # the patches weigh a quarter of the base
    assert compact_due(MAX_PATCHES + 1, 1_000, large)
    assert not compact_due(4, 50_000, 2_000)  # a small graph keeps its patches until there are many


@pytest.mark.parametrize("order", [1, -1], ids=["surer first", "surer last"])
def test_two_makers_of_one_edge_give_the_graph_the_surer(order: int):
    """Two files may make one edge (each hands the same function on) with different certainty: the
    graph keeps the surer, in whatever order the rows come, from the snapshot and from the rows."""
    from graphctx.graph.lazy import lazy_views

    made = coded((1, 2, "calls", "inferred", 0.8), (1, 2, "calls", "ambiguous", 0.25))[::order]
    snapshot = Snapshot.from_rows([1, 2], made)
    _, succ, _ = lazy_views(snapshot, ["a", "b"], {"a": 0, "b": 1}, [1, 2], [], lambda rowids: [])
    assert succ["a"]["b"]["calls"] == {"kind": "calls", "resolution": "inferred", "confidence": 0.8}
    rows = [("a", "b", "calls", "inferred", 0.8), ("a", "b", "calls", "ambiguous", 0.25)][::order]
    graph = loader._multidigraph([("a",), ("b",)], rows)
    assert graph["a"]["b"]["calls"]["confidence"] == 0.8
