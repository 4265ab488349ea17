"""The edges of a file's routes and documents, made by its resolver once the names are known: a
route `handles` by its handler and is `called` by the code that registers it; a document
`contains` its sections, and a section `references` the code entities its code spans name. All
are inferred from conventions, never proven by syntax: a handler or a name with several candidates
gets an `ambiguous` edge to each, one that names nothing in the repository gets none."""

from __future__ import annotations

from graphctx.index import routemounts
from graphctx.index.naming import entity_id
from graphctx.index.scope import AMBIGUOUS, CONFIDENCE
from graphctx.index.textentities import parent_section, route_id, section_id
from graphctx.parse.facts import Call

INFERRED = CONFIDENCE["inferred"]
MAX_CANDIDATES = 8  # a name more common than this in the repository names nothing in particular
RESOLVED = frozenset({"exact", "import", "same-scope", "inferred", "heuristic"})


def route_edges(resolver) -> None:
    """`calls` from the registering scope to each route and `handles` from the route to its handler,
    for each path the route is served at."""
    path = resolver.path
    for route in served(resolver.table, resolver.facts):
        route_key = route_id(path, route)
        resolver._add(resolver._scope_id(route.scope), route_key, "calls", "inferred", INFERRED, route.line)
        for target, resolution, confidence in _handlers(resolver, route):
            resolver._add(route_key, target, "handles", resolution, confidence, route.line)


def served(table, facts) -> list:
    """The file's routes with the paths they are served at: joined with the run's mount table."""
    found = table.mounts.served(facts) if table.mounts is not None else routemounts.local(facts)
    return [s.route for s in found]


def _handlers(resolver, route) -> list[tuple[str, str, float]]:
    if route.defined:
        sym = resolver.defs.get(route.defined)
        return [(sym.id, "inferred", INFERRED)] if sym is not None else []
    if not route.handler:
        return []
    receiver, _, name = route.handler.rpartition(".")
    site = Call(route.scope, name, receiver or None, route.line)  # the handler resolves as a call of it would
    targets = [t for t in resolver._resolve_site(site) if t[0] in resolver.table.by_id]
    if len(targets) == 1 and targets[0][1] in RESOLVED:
        return [(targets[0][0], "inferred", min(INFERRED, targets[0][2]))]
    return [t for t in targets if t[1] == "ambiguous"]


def document_edges(resolver) -> None:
    """`contains` down the heading hierarchy (the file holds the document), `references` from a
    section to the code its spans name."""
    path = resolver.path
    for section in resolver.facts.sections:
        key = section_id(path, section)
        owner = parent_section(section)
        resolver._add(entity_id(path, owner) if owner else path, key, "contains", "exact", 1.0, 0)
        for name in section.names:
            for target, resolution, confidence in named(resolver.table, name, path):
                resolver._add(key, target, "references", resolution, confidence, section.start_line)


def named(table, name: str, place: str) -> list[tuple[str, str, float]]:
    """What a code name written in prose at `place` (a file) means: the definitions it names (by
    its last name, then the dotted ones before it: `Project.index`, `pkg.mod.func`), in the copy of
    their module nearest `place` where the repository holds several."""
    *qualifiers, last = name.split(".")
    candidates = [s for s in (*table.top_by_name.get(last, ()), *table.methods_by_name.get(last, ()))
                  if not table.modules.shadowed(place, s.path)]
    if qualifiers:
        tail = ".".join(qualifiers)
        candidates = [s for s in candidates if _qualified_by(s, tail)]
    candidates = list({s.id: s for s in candidates}.values())
    if len(candidates) == 1:
        return [(candidates[0].id, "inferred", INFERRED)]
    if not candidates or len(candidates) > MAX_CANDIDATES:
        return []
    share = AMBIGUOUS / len(candidates)
    return [(s.id, "ambiguous", share) for s in sorted(candidates, key=lambda s: s.id)]


def _qualified_by(sym, tail: str) -> bool:
    """Whether `tail` ("Project", "graphctx.project.Project") is what precedes the symbol's name:
    its owner's qualified name, or its module path and owner."""
    owner = sym.qualified_name.rpartition(".")[0]
    module = sym.path.rsplit(".", 1)[0].replace("/", ".")
    full = f"{module}.{owner}" if owner else module
    return owner == tail or owner.endswith("." + tail) or full == tail or full.endswith("." + tail)
