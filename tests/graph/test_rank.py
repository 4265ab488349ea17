"""graph/rank.py on small graphs: spreading decays per hop, weighs edges by kind and direction and
by confidence, stops at the depth and the node cap; personalized PageRank favours the seeds' side."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from small_graphs import build

from graphctx.graph import transition as transition_module
from graphctx.graph.rank import pagerank, pagerank_among, pagerank_within, spread
from graphctx.graph.transition import accelerate
from graphctx.graph.transition import transition_matrix
from graphctx.models import INFERRED

CALLS = {"calls": (1.0, 0.5)}


def chain(n: int):
    ids = [f"m.py::f{i}" for i in range(n)]
    return build({i: "function" for i in ids}, [(a, b, "calls") for a, b in zip(ids, ids[1:])]), ids


def test_spread_decays_per_hop_and_stops_at_depth():
    g, ids = chain(4)
    reached = spread(g, ids[0], 2, CALLS, decay=0.5)
    assert set(reached) == set(ids[:3])
    assert reached[ids[1]].score == pytest.approx(0.5) and reached[ids[2]].score == pytest.approx(0.25)
    assert reached[ids[2]].distance == 2 and reached[ids[2]].via == ids[1] and reached[ids[1]].relation == "calls"


def test_spread_weighs_direction_kind_and_confidence():
    g = build({"m.py::a": "function", "m.py::b": "function", "m.py::c": "function", "m.py::d": "function"},
              [("m.py::b", "m.py::a", "calls"), ("m.py::a", "m.py::c", "calls", "inferred", 0.5),
               ("m.py::a", "m.py::d", "references")])
    reached = spread(g, "m.py::a", 1, CALLS, decay=1.0)
    assert reached["m.py::b"].score == pytest.approx(0.5) and reached["m.py::b"].relation == "called-by"
    assert reached["m.py::c"].score == pytest.approx(0.5) and reached["m.py::c"].resolution == "inferred"
    assert "m.py::d" not in reached  # an edge kind without a weight is not followed
    assert "m.py::c" not in spread(g, "m.py::a", 1, CALLS, include_inferred=False)


def test_spread_caps_the_entities_it_takes():
    hub = {"m.py::hub": "function", **{f"m.py::leaf{i}": "function" for i in range(10)}}
    g = build(hub, [("m.py::hub", f"m.py::leaf{i}", "calls") for i in range(10)])
    assert len(spread(g, "m.py::hub", 1, CALLS, max_nodes=4)) == 4


def reference_spread(g, root, depth, weights, include_inferred, decay, max_nodes):
    """Spreading as written before it walked each hop's edges from precomputed slots: entity by entity,
    best first, edge by edge in the adjacency's order (out, then in)."""
    from graphctx.graph.rank import RELATION, Reached
    from graphctx.models import EDGE_KINDS, RESOLUTIONS

    a = g.arrays
    out_order, out_ptr, in_order, in_ptr = g.adjacency()
    best = {root: Reached(root, 1.0, 0, "root", None)}
    frontier = [root]
    for distance in range(1, depth + 1):
        next_frontier = []
        for node in sorted(frontier, key=lambda n: -best[n].score):
            base = best[node].score * decay
            i = a.index[node]
            for edges, forward in ((out_order[out_ptr[i]:out_ptr[i + 1]], True), (in_order[in_ptr[i]:in_ptr[i + 1]], False)):
                for edge in edges.tolist():
                    kind = EDGE_KINDS[a.kinds[edge]]
                    if kind not in weights or (not include_inferred and a.inferred[edge]):
                        continue
                    score = base * weights[kind][0 if forward else 1] * float(a.confidence[edge])
                    other = a.nodes[(a.targets if forward else a.sources)[edge]]
                    known = best.get(other)
                    if score <= 0 or (known is None and len(best) >= max_nodes):
                        continue
                    if known is None or score > known.score:
                        if known is None:
                            next_frontier.append(other)
                        best[other] = Reached(other, score, distance, RELATION[kind][0 if forward else 1], node,
                                              RESOLUTIONS[a.resolutions[edge]], float(a.confidence[edge]))
        frontier = next_frontier
    return best


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("include_inferred", [True, False])
def test_spread_gives_the_reference_scores_paths_and_order_to_the_bit(seed, include_inferred):
    g, ids = random_graph(seed, n=120, m=700)
    weights = {"calls": (1.0, 0.5), "references": (0.4, 0.3), "inherits": (0.7, 0.0), "contains": (0.0, 0.6)}
    for root in ids[:40]:
        for depth, max_nodes in ((1, 2000), (2, 2000), (3, 2000), (2, 30)):
            got = spread(g, root, depth, weights, include_inferred=include_inferred, decay=0.6, max_nodes=max_nodes)
            want = reference_spread(g, root, depth, weights, include_inferred, 0.6, max_nodes)
            assert list(got) == list(want)  # the same entities, taken in the same order
            assert list(got.values()) == list(want.values())


def test_pagerank_ranks_what_the_seeds_reach_by_how_surely():
    g = build({f"m.py::{n}": "function" for n in ("seed", "near", "far", "x", "y")},
              [("m.py::seed", "m.py::near", "calls"), ("m.py::near", "m.py::far", "calls", "inferred", 0.3),
               ("m.py::x", "m.py::y", "calls")])
    scores = pagerank(g, {"m.py::seed": 1.0}, CALLS)
    assert scores["m.py::near"] > scores["m.py::far"] > 0  # a sure hop, then a guessed one
    assert not scores.get("m.py::x") and not scores.get("m.py::y")  # another component gets nothing


def random_graph(seed: int, n: int = 60, m: int = 400):
    """Entities with edges of several kinds, some between the same two entities (one of each kind, as
    in an index), some inferred."""
    rng = np.random.default_rng(seed)
    ids = [f"m.py::f{i}" for i in range(n)]
    kinds = ("calls", "references", "contains", "inherits")
    edges = [(ids[s], ids[t], kinds[k], "inferred" if k == 0 and s % 3 == 0 else "exact", float(c))
             for s, t, k, c in zip(rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(0, 4, m),
                                   rng.choice([0.3, 0.5, 0.8, 1.0], m))]
    edges = list({edge[:3]: edge for edge in edges}.values())
    return build({i: "function" for i in ids}, edges), ids


@pytest.mark.parametrize("include_inferred", [True, False])
def test_transition_is_the_column_stochastic_matrix_of_the_weighted_edges(include_inferred):
    g, ids = random_graph(1)
    weights = {"calls": (1.0, 0.5), "references": (0.4, 0.2), "inherits": (0.7, 0.0)}  # contains: not followed
    _, index, transition = transition_matrix(g, weights, include_inferred)
    expected = np.zeros((len(ids), len(ids)))
    for source, target, data in g.graph.edges(data=True):
        if data["kind"] in weights and (include_inferred or data["resolution"] not in INFERRED):
            forward, backward = weights[data["kind"]]
            expected[index[target], index[source]] += forward * data["confidence"]
            expected[index[source], index[target]] += backward * data["confidence"]
    mass = expected.sum(axis=0)
    expected = np.divide(expected, mass, out=np.zeros_like(expected), where=mass > 0)
    dense = np.column_stack([transition.numpy_product(np.eye(len(ids))[j]) for j in range(len(ids))])
    assert np.allclose(dense, expected)


def test_numpy_and_scipy_products_agree_to_the_bit():
    """Without scipy a process ranks on numpy; with it, on scipy's loop: the same scores either way."""
    sparse = pytest.importorskip("scipy.sparse")
    g, ids = random_graph(2, n=300, m=3000)
    transition = transition_matrix(g, {"calls": (1.0, 0.5), "references": (0.3, 0.3)}, True)[2]
    compiled = sparse.csr_matrix((transition.values, transition.cols, transition.ptr), shape=(len(ids),) * 2)
    vector = np.random.default_rng(3).random(len(ids))
    assert np.array_equal(transition.numpy_product(vector), compiled @ vector)
    assert accelerate()
    assert np.array_equal(transition @ vector, compiled @ vector) and transition._compiled is not None


@pytest.mark.parametrize("nonzero", [1, 30, 300])
def test_a_product_over_the_nonzero_columns_alone_gives_the_same_bits(nonzero, monkeypatch):
    """A walk's first steps multiply a vector that is zero but near the seeds: only those columns'
    entries are read, each row's terms added in the order of the full product."""
    g, ids = random_graph(4, n=300, m=3000)
    transition = transition_matrix(g, {"calls": (1.0, 0.5), "references": (0.3, 0.3)}, True)[2]
    rng = np.random.default_rng(nonzero)
    assert transition.sparse_product(rng.random(len(ids))) is None  # every column: the full product is cheaper
    monkeypatch.setattr(transition_module, "SPARSE_SHARE", 1.0)  # (taken however many columns: rows then add many terms)
    vector = np.zeros(len(ids))
    vector[rng.choice(len(ids), nonzero, replace=False)] = rng.random(nonzero)
    assert np.array_equal(transition.sparse_product(vector), transition.numpy_product(vector))


def reference_pagerank(g, seeds, weights, alpha, iterations, tol):
    """Power iteration as written before the walk skipped summing the whole change: every step sums it."""
    nodes, index, transition = transition_matrix(g, weights, True)
    restart = np.zeros(len(nodes))
    for node, weight in seeds.items():
        restart[index[node]] += weight
    restart /= restart.sum()
    seeded = np.flatnonzero(restart)
    rank, steps = restart.copy(), 0
    for _ in range(iterations):
        updated = transition @ rank
        updated *= alpha
        updated[seeded] += (1 - alpha) * restart[seeded]
        updated[seeded] += (1.0 - updated.sum()) * restart[seeded]
        steps += 1
        done = np.abs(updated - rank).sum() < tol
        rank = updated
        if done:
            break
    return {nodes[i]: rank[i] for i in np.flatnonzero(rank > 1e-9)}, steps


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("alpha", [0.5, 0.85])
def test_pagerank_stops_where_summing_every_change_would_and_gives_the_same_bits(seed, alpha):
    g, ids = random_graph(seed, n=80, m=300)
    seeds = {ids[seed]: 1.0, ids[seed + 7]: 0.5} if seed % 2 else {ids[seed]: 1.0}
    expected, steps = reference_pagerank(g, seeds, {"calls": (1.0, 0.5), "references": (0.4, 0.2)}, alpha, 200, 1e-7)
    assert steps < 200  # it converged: the stop itself is what is compared
    assert pagerank(g, seeds, {"calls": (1.0, 0.5), "references": (0.4, 0.2)}, alpha=alpha, iterations=200) == expected


@pytest.mark.parametrize("seed", range(4))
def test_pagerank_among_gives_the_scores_pagerank_gives_those_entities(seed):
    g, ids = random_graph(seed + 10, n=120, m=500)
    weights = {"calls": (1.0, 0.9), "inherits": (0.8, 0.6), "references": (0.6, 0.5)}
    among = ids[::3] + ["m.py::f0"]
    for limit in (None, 10, 40, 1000):
        scores = pagerank(g, {ids[seed]: 1.0}, weights, limit=limit)
        got = pagerank_among(g, {ids[seed]: 1.0}, weights, among, limit=limit)
        assert got.tolist() == [scores.get(node, 0.0) for node in among]
    assert not pagerank_among(g, {"m.py::missing": 1.0}, weights, among).any()  # no seed in the graph: nothing


def test_pagerank_among_keeps_every_entity_tied_with_the_last_kept():
    """Four leaves around a hub score the same: a limit that cuts among them keeps them all."""
    g = build({f"m.py::{n}": "function" for n in ("hub", "a", "b", "c", "d")},
              [("m.py::hub", f"m.py::{leaf}", "calls") for leaf in "abcd"])
    leaves = [f"m.py::{leaf}" for leaf in "abcd"]
    scores = pagerank_among(g, {"m.py::hub": 1.0}, CALLS, ["m.py::hub", *leaves], limit=3)
    assert scores[0] > scores[1] > 0 and len(set(scores[1:].tolist())) == 1


@pytest.mark.parametrize("seed", range(3))
def test_pagerank_within_every_entity_is_pagerank(seed):
    g, ids = random_graph(seed + 20, n=80, m=300)
    weights = {"calls": (1.0, 0.9), "inherits": (0.8, 0.6), "references": (0.6, 0.5)}
    among = list(reversed(ids))  # (in any order)
    scores = pagerank(g, {ids[seed]: 1.0}, weights)
    within = pagerank_within(g, {ids[seed]: 1.0}, weights, among)
    assert within.tolist() == pytest.approx([scores.get(node, 0.0) for node in among], abs=1e-12)


def test_a_seed_without_edges_keeps_the_whole_walk():
    """The walk's first step from a seed with no edges is a product of no terms: still scores."""
    g = build({f"m.py::{n}": "function" for n in "abc"}, [("m.py::b", "m.py::c", "calls")])
    assert pagerank(g, {"m.py::a": 1.0}, CALLS) == {"m.py::a": pytest.approx(1.0)}


def test_pagerank_within_walks_only_among_the_entities_given():
    """a -> b -> c: without b, c is out of the walk's reach, and what a sends to b returns to a."""
    g, ids = chain(3)
    a, b, c = ids
    within = pagerank_within(g, {a: 1.0}, CALLS, [a, c])
    assert within[0] == pytest.approx(1.0) and within[1] == 0.0
    assert not pagerank_within(g, {b: 1.0}, CALLS, [a, c]).any()  # the seed is not among them: nothing


def test_ranking_does_not_import_scipy(tmp_path):
    """A one-shot command ranks without paying for scipy's import."""
    script = ("import sys; sys.path.insert(0, sys.argv[1]); from test_rank import random_graph; "
              "from graphctx.graph.rank import pagerank; g, ids = random_graph(4); "
              "assert pagerank(g, {ids[0]: 1.0}, {'calls': (1.0, 0.5)}); print('scipy.sparse' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script, str(Path(__file__).parent)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
