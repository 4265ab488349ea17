"""Exports of the entity graph: data for other tools (node-link JSON, GraphML) and pictures for
people (a Mermaid flowchart for Markdown, a self-contained interactive HTML page), of the whole
graph or of one entity's neighbourhood, capped to a readable size with a note of what was left out."""

from __future__ import annotations

import difflib

from graphctx.errors import InvalidRequest
from graphctx.export import data, html, mermaid
from graphctx.export.selection import Selection, select
from graphctx.graph.loader import CodeGraph
from graphctx.models import EDGE_KINDS, EXPORT_FORMATS

FORMATS = EXPORT_FORMATS
# Pictures are capped to stay legible; data exports carry everything unless asked otherwise.
DEFAULT_MAX_NODES = {"mermaid": mermaid.MAX_NODES, "html": html.MAX_NODES}
DEFAULT_MAX_EDGES = {"mermaid": mermaid.MAX_EDGES, "html": html.MAX_EDGES}
MAX_DEPTH = 10

__all__ = ["FORMATS", "MAX_DEPTH", "Selection", "check_options", "export", "parse_edge_kinds", "select"]


def export(graph: CodeGraph, fmt: str, *, around: str | None = None, depth: int = 1, edge_kinds: tuple[str, ...] | None = None,
           max_nodes: int | None = None, title: str = "", external: bool | None = None) -> tuple[Selection, str]:
    """The selection and its text in `fmt`; `around` is a resolved entity id. `external` adds the
    names outside the repository and the unresolved calls as `ext:` nodes (default: in data formats,
    not in pictures)."""
    check_options(fmt, depth, max_nodes)
    selection = select(graph, around, depth, edge_kinds=edge_kinds,
                       max_nodes=max_nodes if max_nodes is not None else DEFAULT_MAX_NODES.get(fmt),
                       max_edges=DEFAULT_MAX_EDGES.get(fmt),
                       external=external if external is not None else fmt not in DEFAULT_MAX_NODES)
    heading = f"{title}: {selection.scope()}" if title else selection.scope()
    if fmt == "json":
        return selection, data.render_json(graph, selection)
    if fmt == "graphml":
        return selection, data.render_graphml(graph, selection)
    if fmt == "mermaid":
        return selection, mermaid.render(graph, selection, f"{heading}, {selection.counts()}")
    return selection, html.render(graph, selection, heading)


def check_options(fmt: str, depth: int, max_nodes: int | None) -> None:
    """Refuse a bad format, depth or cap before any work is done."""
    if fmt not in FORMATS:
        close = difflib.get_close_matches(fmt, FORMATS, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise InvalidRequest(f"unknown export format {fmt!r}{hint}: use one of {', '.join(FORMATS)}")
    if not 0 <= depth <= MAX_DEPTH:
        raise InvalidRequest(f"depth {depth} is out of range: use 0 to {MAX_DEPTH} hops")
    if max_nodes is not None and max_nodes < 1:
        raise InvalidRequest(f"max nodes {max_nodes} is out of range: use 1 or more")


def parse_edge_kinds(text: str | None) -> tuple[str, ...] | None:
    """"calls,inherits" as a tuple of known edge kinds (None for none given)."""
    if text is None:
        return None
    kinds = tuple(dict.fromkeys(k.strip() for k in text.split(",") if k.strip()))
    if not kinds:
        raise InvalidRequest(f"no edge kind given: use a comma-separated list of {', '.join(EDGE_KINDS)}")
    for kind in kinds:
        if kind not in EDGE_KINDS:
            close = difflib.get_close_matches(kind, EDGE_KINDS, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise InvalidRequest(f"unknown edge kind {kind!r}{hint}: use a comma-separated list of {', '.join(EDGE_KINDS)}")
    return kinds
