"""Call chains between two entities: the shortest path over call edges where an edge costs
-log(confidence) plus a small per-hop cost, so sure edges win over guessed ones; and, when there
is no chain, how far each side reaches."""

from __future__ import annotations

import math
from collections import deque

from graphctx.graph.loader import CodeGraph
from graphctx.models import INFERRED

HOP_COST = 0.05


def call_chain(graph: CodeGraph, source: str, target: str, include_inferred: bool = True) -> list[tuple[str, dict | None]] | None:
    """[(entity, the call edge into it)], from source to target, or None when no call chain joins them.
    The first entity has no edge into it (None); `include_inferred=False` follows only sure edges.

    Examples
    --------
    >>> g = Project("shop").graph  # the fixture project of the tests
    >>> [node for node, _ in call_chain(g, "shop/cli.py::main", "shop/service.py::validate")]
    ['shop/cli.py::main', 'shop/service.py::create_item', 'shop/service.py::validate']
    """
    import networkx as nx  # only a path query needs it: kept off the other answers' start-up

    g = graph.graph

    def cost(u: str, v: str, edges: dict) -> float | None:
        costs = [
            -math.log(max(d["confidence"], 1e-3)) + HOP_COST
            for d in edges.values()
            if d["kind"] == "calls" and (include_inferred or d["resolution"] not in INFERRED)
        ]
        return min(costs) if costs else None

    try:
        nodes = nx.dijkstra_path(g, source, target, weight=cost)
    except nx.NetworkXNoPath:
        return None
    chain: list[tuple[str, dict | None]] = [(nodes[0], None)]
    for u, v in zip(nodes, nodes[1:]):
        edge = max((d for d in g.get_edge_data(u, v).values() if d["kind"] == "calls"), key=lambda d: d["confidence"])
        chain.append((v, edge))
    return chain


def reach(graph: CodeGraph, start: str, forward: bool, max_depth: int = 6) -> tuple[int, int]:
    """How many entities a call chain from (forward) or into (backward) start touches, and how deep it goes.

    Examples
    --------
    >>> g = Project("shop").graph  # the fixture project of the tests
    >>> reach(g, "shop/service.py::validate", forward=False)  # create_item and a test; main and a test above it
    (4, 2)
    """
    g = graph.graph
    seen = {start}
    queue = deque([(start, 0)])
    deepest = 0
    while queue:
        node, depth = queue.popleft()
        if depth == max_depth:
            continue
        edges = g.out_edges(node, data="kind") if forward else g.in_edges(node, data="kind")
        for source, target, kind in edges:
            other = target if forward else source
            if kind == "calls" and other not in seen:
                seen.add(other)
                deepest = max(deepest, depth + 1)
                queue.append((other, depth + 1))
    return len(seen) - 1, deepest
