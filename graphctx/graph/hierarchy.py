"""Class hierarchy questions over the graph: which methods a method overrides (the same name in
a base class) and which override or implement it (the same name in a subclass or implementor)."""

from __future__ import annotations

from collections import deque

from graphctx.graph.loader import CodeGraph

BASE_KINDS = frozenset({"inherits", "implements"})
MAX_CLASSES = 200


def owner(graph: CodeGraph, entity_id: str) -> str | None:
    """The class (or struct, trait, ...) that contains a method."""
    for source, kind in graph.in_kinds(entity_id):
        if kind == "contains" and graph.nodes[source]["kind"] not in ("file", "function", "method"):
            return source
    return None


def related_methods(graph: CodeGraph, method_id: str, upward: bool) -> list[tuple[str, int]]:
    """Methods with the same name in base classes (upward) or in subclasses (downward), with the
    number of inheritance steps between the classes, nearest first.

    Examples
    --------
    >>> g = Project("shop").graph  # the fixture project of the tests
    >>> related_methods(g, "shop/models.py::CachedRepo.save", upward=True)
    [('shop/models.py::Repo.save', 1)]
    """
    cls = owner(graph, method_id)
    return [] if cls is None else list(_members_named(graph, cls, graph.nodes[method_id]["name"], upward))


def inherited(graph: CodeGraph, class_id: str, name: str) -> list[str]:
    """The members named `name` a class inherits: those of the nearest base classes that have one
    (`DataArray.where` when only a base of DataArray defines where)."""
    members = list(_members_named(graph, class_id, name, upward=True))  # nearest first
    return [member for member, steps in members if steps == members[0][1]]


def _members_named(graph: CodeGraph, cls: str, name: str, upward: bool):
    """(member, inheritance steps) of each member named `name` of the classes above `cls` (upward)
    or below it, in breadth-first order."""
    nodes = graph.nodes
    seen = {cls}
    queue = deque([(cls, 0)])
    while queue and len(seen) < MAX_CLASSES:
        node, steps = queue.popleft()
        for other, kind in (graph.out_kinds(node) if upward else graph.in_kinds(node)):
            if kind not in BASE_KINDS or other in seen:
                continue
            seen.add(other)
            queue.append((other, steps + 1))
            for member, member_kind in graph.out_kinds(other):
                if member_kind == "contains" and nodes[member]["name"] == name:
                    yield member, steps + 1
