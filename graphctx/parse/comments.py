"""A definition's or a file's documentation as the source writes it: a docstring without its quotes,
the comment block above a definition, the comment block a file opens with. Pure: one file's nodes."""

from __future__ import annotations

import re

from tree_sitter import Node

COMMENTS = frozenset({"comment", "line_comment", "block_comment"})
# Between a doc comment and its definition (Rust `#[derive(...)]`).
ATTRIBUTES = frozenset({"attribute_item"})


def docstring(node: Node, text) -> str:
    """A docstring's text without its quotes, each line stripped (`text(node)` reads a node's source)."""
    written = text(node)
    match = re.match(r'^[rRbBuUfF]*("""|\'\'\'|"|\')(.*)\1$', written, re.S)
    return _dedent(match.group(2) if match else written)


def leading_comment(node: Node) -> str:
    """The comment block right above a definition (attributes between them allowed), cleaned."""
    lines: list[str] = []
    expected_row = node.start_point[0]
    sibling = node.prev_sibling
    while sibling is not None and sibling.type in ATTRIBUTES:
        expected_row = sibling.start_point[0]
        sibling = sibling.prev_sibling
    while sibling is not None and sibling.type in COMMENTS and sibling.end_point[0] >= expected_row - 1:
        if sibling.start_point[0] == 0 and sibling.text.startswith(b"#!"):  # a shebang line says nothing
            break
        lines[:0] = sibling.text.decode("utf-8", "replace").splitlines()
        expected_row = sibling.start_point[0]
        sibling = sibling.prev_sibling
    return _clean_comment(lines)


def opening_comment(root: Node) -> str:
    """The comment block a file opens with (a package comment, a header)."""
    lines: list[str] = []
    row = 0
    for child in root.children:
        if child.type not in COMMENTS or child.start_point[0] > row + 1:
            break
        if child.start_point[0] == 0 and child.text.startswith(b"#!"):  # a shebang line says nothing
            row = 0
            continue
        lines.extend(child.text.decode("utf-8", "replace").splitlines())
        row = child.end_point[0]
    return _clean_comment(lines)


def _clean_comment(lines: list[str]) -> str:
    # /** */, //, ///, #, and Lua's -- and --[[
    cleaned = (re.sub(r"^\s*(?:/\*\*?|\*/|\*|///?!?|#|--(?:\[=*\[)?-*)\s?", "", line).rstrip("*/ ").rstrip()
               for line in lines)
    return "\n".join(line for line in cleaned if line).strip()


def _dedent(text: str) -> str:
    lines = text.strip().splitlines()
    return "\n".join(line.strip() for line in lines)
