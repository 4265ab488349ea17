"""Properties as calls: reading `obj.x` where x is a property of obj's class runs its getter,
`obj.x = v` its setter and `del obj.x` its deleter; beyond Python, `Cls.x` runs a static property's.
The class must be known (self in the class and its subclasses, a local typed by construction,
annotation or return type, value flow); a use on an object of unknown class is no edge. What a
getter returns is what the attribute holds."""

from __future__ import annotations

from graphctx.index.scope import CONFIDENCE, SELF, Value
from graphctx.index.symbols import Symbol
from graphctx.parse.facts import RETURN

Accessors = dict[tuple[str, str], dict[str, Symbol]]  # (class qualified name, attribute) -> role -> accessor
STATIC = "static-"  # the role of a static property's accessor, read off its class: "static-get"


def accessors_of(scope) -> Accessors:
    """The properties one file's classes define, their accessors as symbols of that file: read once
    per file resolver (kept on it, as its flows are)."""
    found = vars(scope).get("_accessors")
    if found is None:
        found = vars(scope)["_accessors"] = _read_accessors(scope)
    return found


def _read_accessors(scope) -> Accessors:
    out: Accessors = {}
    for found in scope.facts.accessors:
        if found.method.startswith("&"):  # a decorated accessor or a lambda: its qualified name
            sym = scope.defs.get(found.method[1:])
        else:  # property(getx): a name the class body or the module binds
            sym = scope.defs.get(f"{found.owner}.{found.method}") or scope.defs.get(found.method)
        if sym is not None:
            out.setdefault((found.owner, found.name), {}).setdefault(found.role, sym)
    return out


def accessor(scope, class_id: str, name: str, role: str) -> tuple[Symbol, int] | None:
    """The accessor that `role` on attribute `name` of an instance of `class_id` runs, with the depth
    of the class defining it; None when the nearest class defining `name` makes it no property (or
    a property without that accessor)."""
    key, known = (class_id, name), scope.table.nearest_properties
    nearest = known.get(key)
    if nearest is None:  # (asked for every attribute read at every call site: once per run and hierarchy)
        nearest = _nearest_property(scope, class_id, name)
        if scope.table.resolvers.get(scope.path) is scope:  # every file it read is then a kept scope:
            known[key] = nearest  # reading the answer instead makes none that working it out would
    found, depth = nearest
    return (found[role], depth) if found is not None and role in found else None


def _nearest_property(scope, class_id: str, name: str) -> tuple[dict[str, Symbol] | None, int]:
    """The accessors of the nearest class of the lineage defining `name`, with its depth; None
    when that class makes it no property or no class defines it."""
    table = scope.table
    for depth, level in enumerate(table.lineage(class_id)):
        for cid in level:
            home, sym = scope._home_of(cid)
            if home is None:
                continue
            found = accessors_of(home).get((sym.qualified_name, name))
            if found is not None:
                return found, depth
            if name in table.members.get(cid, {}):  # a plain method or a nested class hides the bases' property
                return None, 0
            if not home.reads_flows and (sym.qualified_name, "self." + name) in home.bindings:
                return None, 0  # so does a declared field (Kotlin's `override val tags` in a constructor)
    return None, 0


def getter_of(scope, value, name: str) -> Symbol | None:
    """The getter that reading `name` off `value` runs: an instance of a class with that property."""
    if value.kind != "instance":
        return None
    found = accessor(scope, value.ref, name, "get")
    return found[0] if found is not None else None


def returned(scope, getter: Symbol, suffix: str) -> set:
    """What reading a property holds: what its getter returns (its elements, with a subscript `suffix`)."""
    home = scope._home(getter.path, getter.qualified_name)
    found = home._target_values(getter.qualified_name, RETURN, suffix) if home is not None else set()
    return found if suffix else found | scope.returns(getter.id)


def property_edges(resolver) -> None:
    """A `calls` edge from each use of a property, on an object of known class, to its accessor:
    `exact` through self (0.9 from a base class), `inferred` otherwise, the confidence shared among
    the classes the object may be."""
    flows = resolver.reads_flows
    methods = resolver.table.methods_by_name
    for use in resolver.facts.attributes:
        base, _, name = use.path.rpartition(".")
        if not base or base == "cls":  # (a property read off the class is the property object: no call)
            continue
        if not flows and name not in methods and name + "_=" not in methods:  # no accessor has that name:
            continue  # (most member reads; Python's `x = property(f)` names no method, so it asks each)
        found: dict[str, tuple[str, float]] = {}
        values = [v for v in _receiver_values(resolver, base, use.scope) if v.kind in ("instance", "super", "class")]
        for value in values:
            for class_id in _classes(resolver, value):
                hit = accessor(resolver, class_id, name, STATIC + use.role if value.kind == "class" else use.role)
                if hit is None:
                    continue
                sym, depth = hit
                if value.kind == "class":  # a static property read off its class, named as that class is
                    found[sym.id] = (value.resolution, CONFIDENCE[value.resolution] * (1.0 if depth == 0 else 0.9))
                elif value.kind == "super" or (value.resolution == "exact" and len(values) == 1):
                    found[sym.id] = ("exact", 1.0 if depth == 0 and value.kind != "super" else 0.9)
                else:
                    found.setdefault(sym.id, ("inferred", CONFIDENCE["inferred"]))
                break
        share = len(found)
        source = resolver._scope_id(use.scope)
        for target, (resolution, confidence) in sorted(found.items()):
            resolver._add(source, target, "calls", resolution, confidence / (share if resolution == "inferred" else 1),
                          use.line)


def _receiver_values(resolver, base: str, scope: str):
    """What the object a property is read off may be: its value flow where the language has it, else
    the class its name evidently has (`this` in the class, a typed or constructed variable or field)."""
    if resolver.reads_flows:  # (Python: a property read off a class is no call)
        return [v for v in resolver.values(base, scope) if v.kind != "class"]
    if base in SELF:
        cls = resolver._enclosing_class(scope)
        return [Value("instance", cls.id, "exact")] if cls is not None else []
    value = resolver._value(base, scope)
    return [value] if value is not None else []


def _classes(resolver, value) -> list[str]:
    """The class whose attribute a value reads: an instance's (or a class's) own, or for `super()` its
    bases in order."""
    if value.kind in ("instance", "class"):
        return [value.ref]
    return list(resolver.table.bases.get(value.ref, ()))
