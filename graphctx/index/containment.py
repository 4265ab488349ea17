"""A file's contains edges: each definition from its enclosing one, or from the file (and from its
type, for a Go or Rust method whose type lives in another file)."""

from __future__ import annotations

from graphctx.index.scope import CONFIDENCE


def contains_edges(resolver) -> None:
    """Add the contains edges of `resolver`'s file (a FileResolver) to its edges."""
    defs = resolver.defs
    for qualified, sym in defs.items():
        parent = defs.get(qualified.rpartition(".")[0]) if "." in qualified else None
        if parent is not None:
            resolver._add(parent.id, sym.id, "contains", "exact", 1.0, 0)
            continue
        resolver._add(resolver.path, sym.id, "contains", "exact", 1.0, 0)
        if "." in qualified:  # a Go or Rust method whose type lives in another file
            owner = resolver.table.owner_of(sym)
            if owner is not None:
                resolver._add(owner.id, sym.id, "contains", "same-scope", CONFIDENCE["same-scope"], 0)
