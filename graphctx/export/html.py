"""Renders a selection as one self-contained HTML page: the bundled Cytoscape.js library, the
viewer script and the graph's data are inlined, and the page's Content-Security-Policy allows no
request at all, so it opens offline from a file. The viewer draws an interactive graph (pan, zoom,
search, layouts; a click shows an entity's id, kind, signature and path:lines), nodes coloured by
kind and edges styled by resolution, with a legend and a note of what a cap left out."""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from importlib import resources

from graphctx.export import styles
from graphctx.export.selection import Selection
from graphctx.graph.loader import CodeGraph
from graphctx.text import clip

MAX_NODES = 300  # the force layout stays quick and a screen stays legible
MAX_EDGES = 3000
MAX_DOC_CHARS = 400


def render(graph: CodeGraph, selection: Selection, title: str) -> str:
    data = graph_data(graph, selection, title)
    parts = {
        "TITLE": html.escape(title),
        "COUNTS": html.escape(selection.counts()),
        "NOTE": html.escape(selection.note() or ""),
        "NOTE_HIDDEN": "" if selection.note() else " hidden",
        "LIBRARY": _script_text(_asset("cytoscape.min.js")),
        "VIEWER": _script_text(_asset("viewer.js")),
        "DATA": _json_in_script(data),
    }
    # One pass, so that nothing inside an inserted part is taken for a placeholder.
    return re.sub(r"@@([A-Z_]+)@@", lambda m: parts[m.group(1)], _asset("page.html"))


def graph_data(graph: CodeGraph, selection: Selection, title: str) -> dict:
    """What the viewer draws: nodes with their details and style, edges with theirs, the legend."""
    nodes, kinds = [], Counter()
    for node in selection.nodes:
        e = selection.node(graph, node)
        style = styles.kind_style(e["kind"])
        kinds[e["kind"]] += 1
        nodes.append({
            "id": node, "label": e["path"].rsplit("/", 1)[-1] if e["kind"] == "file" else e["qualified_name"],
            "kind": e["kind"], "language": e["language"], "path": e["path"],
            "start_line": e["start_line"], "end_line": e["end_line"],
            "signature": e.get("signature") or "", "doc": clip(e.get("doc") or "", MAX_DOC_CHARS, one_line=False),
            "distance": selection.distance.get(node, 0),
            "color": style.color, "border": style.border, "shape": style.shape,
        })
    edges, edge_kinds, lines = [], Counter(), Counter()
    for source, target, kind, resolution, confidence in selection.edges:
        line = styles.line_style(resolution)
        edge_kinds[kind] += 1
        lines[line] += 1
        edges.append({"source": source, "target": target, "kind": kind, "resolution": resolution,
                      "confidence": confidence, "line": line, "color": styles.edge_color(kind)})
    return {
        "title": title,
        "around": selection.around,
        "nodes": nodes,
        "edges": edges,
        "legend": {
            "kinds": [{"kind": k, "count": n, "color": styles.kind_style(k).color, "border": styles.kind_style(k).border,
                       "shape": styles.kind_style(k).shape}
                      for k, n in sorted(kinds.items())],
            "edges": [{"kind": k, "count": n, "color": styles.edge_color(k)} for k, n in sorted(edge_kinds.items())],
            "lines": [{"line": line, "meaning": meaning, "count": lines[line]} for line, meaning in styles.LINES.items()],
        },
    }


def _asset(name: str) -> str:
    return (resources.files("graphctx.export") / "assets" / name).read_text(encoding="utf-8")


def _script_text(code: str) -> str:
    """Code safe to inline in a <script> element: a literal "</script" would end the element early."""
    return re.sub(r"</(script)", r"<\\/\1", code, flags=re.IGNORECASE)


def _json_in_script(data: dict) -> str:
    # The data sits in a <script type="application/json"> element: escaping <, > and & keeps any
    # name or docstring from closing it, and JSON.parse reads the escapes back as the same text.
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


