"""Python rules value flow follows beyond its paths: which scope's container a store such as
`d[k] = v` or `ls.append(f)` fills (a function that does not bind `d` fills the one it sees), where
`self.x = v` stores (on the class), and what an attribute of an external value is (a builtin type's
only when the type has it). Plain functions of plain data, and the table of a file's stores."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from graphctx.index.flowpaths import extends
from graphctx.index.scope import SELF, Value
from graphctx.parse.facts import RETURN, FileFacts, Flow
from graphctx.parse.flows import PYTHON

# Builtin types whose attributes are known here: `d = {}; d.run()` calls no `dict.run`.
BUILTIN_TYPES = {t.__name__: t for t in (str, bytes, int, float, dict, list, set, frozenset, tuple)}
STORES = frozenset(PYTHON.adders)  # ls.append(f), d.update({...}): what they store reaches the container's readers


def flows_by_target(scope) -> dict[tuple[str, str], tuple[Flow, ...]]:
    """(scope, target) -> the flows into it of one file's resolver (flow.py), in the file's order;
    `self.x` targets live on the class. The flows themselves, not pairs made of them: a file's flows
    are held anyway (a run once held half a million such pairs, with a list of their lines)."""
    stores: dict[tuple[str, str], list[Flow]] = {}
    bound = None  # the names each scope binds: read only for a store into an element (most files make none)
    classes: dict[str, object] = {}  # scope -> its enclosing class (a method makes many `self.x` stores)
    for flow in scope.facts.flows:
        owner, target = flow.scope, flow.target
        head, _, rest = target.partition(".")
        if rest and head in SELF:
            cls = classes[owner] if owner in classes else classes.setdefault(owner, scope._enclosing_class(owner))
            if cls is None or cls.path != scope.path:
                continue
            owner, target = cls.qualified_name, "self." + rest
        elif "[" in head and not rest and not head.startswith(RETURN + "["):  # d[k] = v binds no name:
            bound = bound_names(scope.facts) if bound is None else bound
            owner = binding_level(head.split("[", 1)[0], flow.scope, bound, scope._is_class)  # the d seen
        stores.setdefault((owner, target), []).append(flow)
    return {key: tuple(flows) for key, flows in stores.items()}


def bound_names(facts: FileFacts) -> dict[str, set[str]]:
    """scope -> the names it binds: plain assignment targets and parameters."""
    bound: dict[str, set[str]] = defaultdict(set)
    for flow in facts.flows:
        if "[" not in flow.target and "." not in flow.target:
            bound[flow.scope].add(flow.target)
    for param in facts.params:
        bound[param.scope].add(param.name)
    return bound


def binding_level(name: str, scope: str, bound: dict[str, set[str]], is_class: Callable[[str], bool]) -> str:
    """The scope whose `name` a function's `name[k] = v` stores into: its own when it binds the name,
    else the nearest enclosing function that does (class bodies are not seen), else the module."""
    level = scope
    while level:
        if name in bound.get(level, ()):
            return level
        level = level.rpartition(".")[0]
        while level and is_class(level):
            level = level.rpartition(".")[0]
    return ""


def external_attribute(value: Value, attr: str) -> set[Value]:
    """`attr` of an external value or a literal key: the external name it derives (`dict.items`, and
    `list.append` for a store: the call is the builtin's, what it stores is value flow), none for a
    protocol method, a name a loop spelled out or an attribute the builtin type lacks (the variable
    holds something else too)."""
    if value.kind == "literal":  # a constant key: a string or an integer
        value = Value("external", "str" if value.ref.startswith(("'", '"')) else "int", "external")
    builtin = BUILTIN_TYPES.get(value.ref)
    if attr.startswith("__") and attr.endswith("__") or not extends(value.ref, attr):
        return set()
    if builtin is not None and not hasattr(builtin, attr):
        return set()
    return {Value("external", f"{value.ref}.{attr}", "external")}


def builtin_store(external: str) -> bool:
    """Whether an external name is a store into a builtin container (`list.append`, `dict.update`):
    it keeps what it is handed, calling none of it (no callback edge)."""
    owner, _, attr = external.partition(":")[2].rpartition(".")
    return owner in BUILTIN_TYPES and attr in STORES
