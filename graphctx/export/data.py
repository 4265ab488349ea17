"""Writes a selection as data for other tools: networkx node-link JSON or GraphML, with the
selection (scope, totals, what a cap left out) as graph attributes when it is not the whole graph."""

from __future__ import annotations

import json

import networkx as nx

from graphctx.export.selection import Selection
from graphctx.graph.loader import CodeGraph

NODE_FIELDS = ("kind", "name", "qualified_name", "language", "path", "start_line", "end_line")


def to_networkx(graph: CodeGraph, selection: Selection) -> nx.MultiDiGraph:
    g = graph.graph
    out = nx.MultiDiGraph()
    if selection.around or selection.edge_kinds or selection.note():
        out.graph.update(selection.attributes())
    out.add_nodes_from((n, {k: (selection.outside[n] if n in selection.outside else g.nodes[n])[k] for k in NODE_FIELDS})
                       for n in selection.nodes)
    out.add_edges_from((s, t, kind, {"kind": kind, "resolution": resolution, "confidence": confidence})
                       for s, t, kind, resolution, confidence in selection.edges)
    return out


def render_json(graph: CodeGraph, selection: Selection) -> str:
    return json.dumps(nx.node_link_data(to_networkx(graph, selection), edges="edges"), indent=1)


def render_graphml(graph: CodeGraph, selection: Selection) -> str:
    return "\n".join(nx.generate_graphml(to_networkx(graph, selection)))
