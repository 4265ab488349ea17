"""Methods that only declare themselves (parse/stubs.py: a body that is `...` or raises
`NotImplementedError`, a typing stub in a mixin or an abstract method) and what overrides them. A
call of one through `self` or on an object typed by its class reaches the overrides below it; among
the candidates of a call on an object of unknown type an override stands for the declaration; and
`self.m()` in a class that lacks m reaches what its subclasses define or assign as m. Functions of a
file's resolver (flow.py's FlowScope), which keeps each file's declarations once read."""

from __future__ import annotations

from graphctx.index.flowpaths import definition_value
from graphctx.index.languages import rules_for
from graphctx.index.scope import Value
from graphctx.parse.facts import FileFacts


def declaration_scopes(facts: FileFacts) -> frozenset[str]:
    """The qualified names of the file's methods that only declare themselves."""
    return frozenset(stub.scope for stub in facts.stubs)


def declared(scope, sym) -> bool:
    """Whether a method only declares itself, read in its own file (stubs are Python's so far)."""
    if not rules_for(sym.family).declaration_stubs:
        return False
    home = scope._home(sym.path, sym.qualified_name)
    if home is None:
        return False
    found = vars(home).get("_declarations")
    if found is None:
        found = vars(home)["_declarations"] = declaration_scopes(home.facts)
    return sym.qualified_name in found


def overrides(scope, class_id: str, name: str) -> set[str]:
    """What the subclasses of a class define as `name` or assign to `self.name` (through value flow,
    where the language has it): the code a call of a method the class lacks or only declares reaches."""
    table = scope.table
    found: set[str] = set()
    above = set(table.lineage_ids(class_id))  # (what a subclass inherits from there is no override)
    flows = scope.reads_flows
    quiet: set[str] = set()  # the classes of these lineages that assign nothing to `name`
    for sub in table.subclass_ids(class_id):
        member = table.members.get(sub, {}).get(name)
        if member is not None:
            if member.kind in ("function", "method", "lambda"):
                found.add(member.id)
            continue
        # (the subclasses below `sub` are in this walk: asking for theirs again, level by level, made
        # the walk quadratic in the depth of the hierarchy and answered the same)
        for value in scope._attribute_flows(Value("instance", sub, "exact"), name, "", False, quiet) if flows else ():
            sym = table.by_id.get(value.ref) if value.kind in ("function", "class") else None
            owner = table.owner_of(sym) if sym is not None else None
            if sym is not None and (owner is None or owner.id not in above):
                found.add(sym.id)
    return found


def stub_overrides(scope, class_id: str, member) -> set[str]:
    """What a call of `member` (the method the lineage of `class_id` gives that name) reaches below
    the class: its overrides when it only declares itself, else nothing (the member is what runs)."""
    return overrides(scope, class_id, member.name) if declared(scope, member) else set()


def member_values(scope, value: Value, name: str, with_overrides: bool = True) -> set[Value]:
    """The member `name` a class or its instance has: the one its lineage defines, or, when that only
    declares itself and the value is an instance, the overrides below its class (`with_overrides`)."""
    member = scope.table.find_member(value.ref, name)
    if member is None:
        return set()
    below = stub_overrides(scope, value.ref, member[0]) if with_overrides and value.kind == "instance" else set()
    bound = value.kind == "instance"
    return {Value(definition_value(scope.table.by_id[found]).kind, found, "inferred", bound)
            for found in (sorted(below) or [member[0].id])}
