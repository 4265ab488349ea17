"""An edit that only appends functions nothing names (a new function at the end of a file): the
file's earlier part resolves as it did, so its edges are kept, and only the new calls are resolved,
without the file's whole value flow (its call-site index, and its neighbours' on the way).

The earlier part is then as a file the edit did not touch: what it names is outside the edit's
delta (checked by the run, else the file is resolved whole), and nothing the edit added can reach
it. The new definitions are functions (with the functions nested in them) that no file names,
the new part included: no value can hold them, so no call site reaches them and their parameters
hold nothing (`unreached`: the call-site index is not made for them). The new flows and evident
types are the new functions' own variables'; the new calls reach no repository function or class (one would give
its parameters new values), which is checked before the old edges are kept; and nothing else was
added (no import, base, binding, type reference, attribute use, route or section). Anything else,
or earlier facts that moved by a line, resolves the file whole."""

from __future__ import annotations

from dataclasses import dataclass, field

from graphctx.index.dependencies import reference_names
from graphctx.index.flowpaths import callee_path
from graphctx.index.naming import is_test_file
from graphctx.parse.facts import FACT_LISTS, Call, FileFacts

ADDED = frozenset({"definitions", "calls", "flows", "params", "bindings"})  # the lists appended functions may add to


@dataclass(slots=True)
class Appended:
    """What an edit appended to a file, and what the run keeps of the file's resolution before it."""

    qualified: set[str]  # the new definitions' qualified names
    names: set[str]  # their names, which no file may name
    named_before: set[str]  # the names the file's earlier part refers to (dependencies.reference_names)
    calls: list[Call]  # the new calls, in the file's order
    edges: list[tuple] = field(default_factory=list)  # the rows of the edges from the file before the edit
    counts: tuple[int, int] = (0, 0)  # its call sites and those resolved, before the edit


def appended(before: FileFacts | None, after: FileFacts) -> Appended | None:
    """What `after` appends to `before`, when it appends functions and nothing else (see the module's doc)."""
    if before is None or is_test_file(after.path) or before.error_count or after.error_count \
            or (before.language, before.package, before.doc) != (after.language, after.package, after.doc):
        return None
    added: dict[str, list] = {}
    for name in FACT_LISTS:
        old, new = getattr(before, name), getattr(after, name)
        if len(new) < len(old) or new[:len(old)] != old or (len(new) > len(old) and name not in ADDED):
            return None
        added[name] = new[len(old):]
    definitions = added["definitions"]
    tops = {d.qualified_name for d in definitions if "." not in d.qualified_name}
    old_defs = {d.qualified_name for d in before.definitions}
    if not tops or any(d.kind != "function" or d.qualified_name.split(".", 1)[0] not in tops
                       or d.qualified_name in old_defs for d in definitions):
        return None

    def inside(scope: str) -> bool:
        return scope.split(".", 1)[0] in tops

    if not all(inside(item.scope) for item in [*added["calls"], *added["params"], *added["flows"], *added["bindings"]]) \
            or any("." in flow.target or "[" in flow.target for flow in added["flows"]) \
            or any("." in binding.variable for binding in added["bindings"]):
        return None
    names = {d.name for d in definitions}
    named_before = reference_names(before)
    new_part = FileFacts(after.path, after.language, calls=added["calls"], flows=added["flows"], bindings=added["bindings"])
    if not names.isdisjoint(named_before) or not names.isdisjoint(reference_names(new_part)):
        return None
    return Appended({d.qualified_name for d in definitions}, names, named_before, added["calls"])


def resolve_appended(resolver, found: Appended) -> list[tuple] | None:
    """The edges of a file that only appended functions: those it had, with the new definitions'
    and the new calls'; None when a new call may reach a repository function or class (the file is
    then resolved whole)."""
    resolver.unreached = frozenset(resolver.defs[q].id for q in found.qualified if q in resolver.defs)
    resolver.resolve_contains()  # (the structure pass's, or made here)
    try:
        for call in found.calls:  # (what the file's call-site index would take from it: nothing)
            path = callee_path(call) if call.args else ""
            if path and any(value.kind in ("function", "class") for value in resolver.values(path, call.scope)):
                return None
        for call in found.calls:
            resolver.resolve_call_site(call)
        resolver.calls += found.counts[0]
        resolver.calls_resolved += found.counts[1]
        # The rows it had, each kept (another file's call may have made one from here, beside this
        # file's own of the same edge), and the edges only the new part makes: the structure pass
        # made the earlier part's again, the same.
        before = {edge[:3] for edge in found.edges}
        return sorted([*found.edges, *(edge for key, edge in resolver.edges.items() if key not in before)])
    finally:
        resolver.unreached = frozenset()  # (a kept scope: later runs may change what reaches them)
