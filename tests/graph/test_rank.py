"""graph/rank.py on small graphs: spreading decays per hop, weighs edges by kind and direction and
by confidence, stops at the depth and the node cap; personalized PageRank favours the seeds' side."""

from __future__ import annotations

import pytest
from small_graphs import build

from graphctx.graph.rank import pagerank, spread

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


def test_pagerank_ranks_what_the_seeds_reach_by_how_surely():
    g = build({f"m.py::{n}": "function" for n in ("seed", "near", "far", "x", "y")},
              [("m.py::seed", "m.py::near", "calls"), ("m.py::near", "m.py::far", "calls", "inferred", 0.3),
               ("m.py::x", "m.py::y", "calls")])
    scores = pagerank(g, {"m.py::seed": 1.0}, CALLS)
    assert scores["m.py::near"] > scores["m.py::far"] > 0  # a sure hop, then a guessed one
    assert not scores.get("m.py::x") and not scores.get("m.py::y")  # another component gets nothing
