"""Renders a selection as a Mermaid flowchart for Markdown: ids made safe, labels escaped, nodes
shaped and classed by kind, edges labelled by kind and drawn by resolution (solid when sure,
dotted when inferred or heuristic, dashed when ambiguous), with a note of what a cap left out."""

from __future__ import annotations

import json
import re

from graphctx.export import styles
from graphctx.export.selection import Selection
from graphctx.graph.loader import CodeGraph

MAX_NODES = 60  # past this a flowchart is a hairball in a Markdown page
MAX_EDGES = 300  # Mermaid refuses a chart of more than 500 edges by default

# Mermaid reads quotes, brackets and pipes in a label as syntax, and "#name;" as an entity code:
# each becomes its entity code, so a label shows exactly the text it stands for.
_ESCAPES = str.maketrans({
    "#": "#35;", '"': "#quot;", "&": "#amp;", "<": "#lt;", ">": "#gt;", "[": "#91;", "]": "#93;",
    "(": "#40;", ")": "#41;", "{": "#123;", "}": "#125;", "|": "#124;", "`": "#96;", "\n": " ", "\r": " ",
})
_ARROWS = {"solid": "-->", "dotted": "-.->", "dashed": "-.->"}  # dashed: dotted, then a longer dash by linkStyle


def render(graph: CodeGraph, selection: Selection, title: str) -> str:
    ids = node_ids(selection.nodes)
    lines = ["---", f"title: {json.dumps(title, ensure_ascii=False)}", "---", "flowchart LR"]
    lines.append("    %% shapes: file subroutine, class and struct rectangle, interface and trait hexagon, "
                 "enum parallelogram, function rounded, method stadium, constant cylinder, route trapezoid, "
                 "document subroutine, section inverted trapezoid")
    lines.append("    %% lines: solid sure (exact, import, same scope), dotted inferred or heuristic, dashed ambiguous")
    if note := selection.note():
        lines.append(f"    %% {note}")
    for node in selection.nodes:
        data = selection.node(graph, node)
        opening, closing = styles.kind_style(data["kind"]).mermaid_shape
        label = data["path"] if data["kind"] == "file" else data["qualified_name"]
        label = f"{label} ({data['kind']})" if node in selection.outside else label
        lines.append(f'    {ids[node]}{opening}"{escape(label)}"{closing}:::{kind_class(data["kind"])}')
    dashed = []
    for position, (source, target, kind, resolution, _) in enumerate(selection.edges):
        line = styles.line_style(resolution)
        if line == "dashed":
            dashed.append(str(position))
        lines.append(f"    {ids[source]} {_ARROWS[line]}|{escape(kind)}| {ids[target]}")
    if dashed:
        lines.append(f"    linkStyle {','.join(dashed)} stroke-dasharray:8 4")
    for kind in sorted({selection.node(graph, n)["kind"] for n in selection.nodes}):
        style = styles.kind_style(kind)
        lines.append(f"    classDef {kind_class(kind)} fill:{style.color},stroke:{style.border},color:#111827")
    if selection.around in ids:
        lines.append(f"    style {ids[selection.around]} stroke-width:3px")
    return "\n".join(lines)


def escape(text: str) -> str:
    return text.translate(_ESCAPES)


def kind_class(kind: str) -> str:
    return "kind_" + re.sub(r"[^A-Za-z0-9]+", "_", kind)


def node_ids(nodes: list[str]) -> dict[str, str]:
    """A Mermaid-safe id per entity, readable and unique: letters, digits and underscores after an
    `n_` prefix (which also keeps ids off keywords such as `end`); repeats get a number."""
    ids: dict[str, str] = {}
    taken: set[str] = set()
    for node in nodes:
        base = "n_" + (re.sub(r"[^A-Za-z0-9]+", "_", node).strip("_") or "entity")
        safe, n = base, 2
        while safe in taken:
            safe, n = f"{base}_{n}", n + 1
        taken.add(safe)
        ids[node] = safe
    return ids
