"""graph/paths.py on small graphs: the surest call chain wins over a shorter guessed one, guessed
edges can be left out, and reach counts what a chain touches and how deep."""

from __future__ import annotations

from small_graphs import build

from graphctx.graph.paths import call_chain, reach

ENTITIES = {f"m.py::{n}": "function" for n in "abcde"}


def test_the_surest_chain_wins_over_a_shorter_guess():
    g = build(ENTITIES, [("m.py::a", "m.py::e", "calls", "heuristic", 0.2),
                         ("m.py::a", "m.py::b", "calls"), ("m.py::b", "m.py::e", "calls")])
    chain = call_chain(g, "m.py::a", "m.py::e")
    assert [node for node, _ in chain] == ["m.py::a", "m.py::b", "m.py::e"]
    assert chain[0][1] is None and chain[1][1]["kind"] == "calls"


def test_guessed_edges_can_be_left_out():
    g = build(ENTITIES, [("m.py::a", "m.py::e", "calls", "heuristic", 0.9)])
    assert [n for n, _ in call_chain(g, "m.py::a", "m.py::e")] == ["m.py::a", "m.py::e"]
    assert call_chain(g, "m.py::a", "m.py::e", include_inferred=False) is None


def test_only_call_edges_make_a_chain():
    g = build(ENTITIES, [("m.py::a", "m.py::b", "references")])
    assert call_chain(g, "m.py::a", "m.py::b") is None


def test_reach_counts_entities_and_depth_both_ways():
    g = build(ENTITIES, [("m.py::a", "m.py::b", "calls"), ("m.py::b", "m.py::c", "calls"), ("m.py::a", "m.py::d", "calls")])
    assert reach(g, "m.py::a", forward=True) == (3, 2)
    assert reach(g, "m.py::c", forward=False) == (2, 2)
    assert reach(g, "m.py::a", forward=True, max_depth=1) == (2, 1)
