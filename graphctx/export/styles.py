"""How a picture shows the graph, shared by the Mermaid and HTML renderers so both read alike:
a colour and shape per entity kind, a colour per edge kind, and a line style per resolution."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KindStyle:
    color: str  # fill, a light tint so labels stay readable on it
    border: str
    mermaid_shape: tuple[str, str]  # the brackets around a Mermaid node's label
    shape: str  # the Cytoscape.js node shape


KINDS: dict[str, KindStyle] = {
    "file": KindStyle("#e5e7eb", "#6b7280", ("[[", "]]"), "round-tag"),
    "class": KindStyle("#bfdbfe", "#1d4ed8", ("[", "]"), "rectangle"),
    "struct": KindStyle("#bae6fd", "#0369a1", ("[", "]"), "rectangle"),
    "interface": KindStyle("#ddd6fe", "#6d28d9", ("{{", "}}"), "hexagon"),
    "trait": KindStyle("#e9d5ff", "#7e22ce", ("{{", "}}"), "hexagon"),
    "enum": KindStyle("#fde68a", "#b45309", ("[/", "/]"), "rhomboid"),
    "function": KindStyle("#bbf7d0", "#15803d", ("(", ")"), "round-rectangle"),
    "method": KindStyle("#ccfbf1", "#0f766e", ("([", "])"), "ellipse"),
    "lambda": KindStyle("#ecfdf5", "#0f766e", ("(", ")"), "round-rectangle"),
    "constant": KindStyle("#fecaca", "#b91c1c", ("[(", ")]"), "barrel"),
    "route": KindStyle("#fed7aa", "#c2410c", ("[\\", "/]"), "vee"),
    "document": KindStyle("#f3f4f6", "#374151", ("[[", "]]"), "round-tag"),
    "section": KindStyle("#f9fafb", "#4b5563", ("[/", "\\]"), "round-rectangle"),
    # names outside the repository, and calls nothing resolved (`ext:` nodes)
    "external": KindStyle("#ffffff", "#9ca3af", (">", "]"), "tag"),
    "unresolved": KindStyle("#fef9c3", "#a16207", (">", "]"), "tag"),
}
OTHER_KIND = KindStyle("#f5f5f4", "#57534e", ("[", "]"), "rectangle")

EDGE_COLORS: dict[str, str] = {
    "calls": "#2563eb",
    "contains": "#9ca3af",
    "imports": "#7c3aed",
    "inherits": "#dc2626",
    "implements": "#db2777",
    "references": "#d97706",
    "tests": "#16a34a",
    "handles": "#ea580c",
}
OTHER_EDGE_COLOR = "#6b7280"

# Proven by syntax or an import: solid. Guessed from types or a unique name: dotted. One of several
# candidates: dashed.
LINES = {"solid": "sure (exact, import, same scope)", "dotted": "inferred or heuristic", "dashed": "ambiguous"}
_LINE_OF = {"inferred": "dotted", "heuristic": "dotted", "ambiguous": "dashed"}


def kind_style(kind: str) -> KindStyle:
    return KINDS.get(kind, OTHER_KIND)


def edge_color(kind: str) -> str:
    return EDGE_COLORS.get(kind, OTHER_EDGE_COLOR)


def line_style(resolution: str) -> str:
    """solid, dotted or dashed for an edge's resolution."""
    return _LINE_OF.get(resolution, "solid")
