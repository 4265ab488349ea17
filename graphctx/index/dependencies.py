"""What an incremental run needs to know about a file: the names its edges depend on, and what
it offers other files (definitions, imports, bases, attribute types). When an edit changes what a
file offers, the files that depend on one of those names are resolved again."""

from __future__ import annotations

import functools
import hashlib
import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Iterable

from graphctx.index import flowrules, routemounts
from graphctx.index.declarations import declaration_scopes
from graphctx.index.flowpaths import callee_path
from graphctx.index.naming import file_stem, is_test_file, tested_stem
from graphctx.models import ANONYMOUS_MARK, CLASS_KINDS
from graphctx.parse.facts import RETURN, FileFacts, Import
from graphctx.parse.flows import LITERAL

# A lambda's name (`outer.<lambda1>`) says where it is, not what it is called: the word "lambda"
# would make every file holding one depend on every other.
_LAMBDA = re.compile(r"<lambda\d+>")
_SEPARATORS = re.compile(r"[^\w$]+")
_SINGLE_COLON = re.compile(r"(?<!:):(?!:)")
_KEY_SCOPE = re.compile(r"(?<!:):(?!:)|[|>]")  # (what ends the scope a def, bind, flow or accessor key opens with)
WILDCARD = "*"  # a reference name of every file with a wildcard import
_MODULE_CALLS = ":()"  # the flow key of the calls at module level (no name: a scope of no name)


def used_names(facts: FileFacts) -> set[str]:
    """The names a file's code uses: what it calls, passes, reads values and attributes from."""
    names: set[str] = set()
    paths: set[str] = set()  # (a file repeats its paths: each is split once)
    for call in facts.calls:
        names.add(call.name)
        if call.receiver:
            names.update(call.receiver.split("."))
        paths.add(call.callee)
        paths.update(call.args)
    paths.update(flow.source for flow in facts.flows)  # what a value comes from: a function's returns, a class's attributes
    paths.update(use.path for use in facts.attributes)  # obj.x runs x's accessor when x is a property
    for path in paths:
        names.update(_path_names(path))
    return names


def reference_names(facts: FileFacts) -> set[str]:
    """The names a file's resolution depends on: when the repository gains or loses a definition,
    import or module under one of these names, the file is resolved again."""
    names = code_names(facts)
    for imp in facts.imports:
        names.update(p for p in re.split(r"[^\w$]+", imp.module) if p)
        if imp.name:
            names.add(imp.name)
        if imp.alias:
            names.add(imp.alias)
        if imp.wildcard:  # (it may re-export any name of that module: see import_dependents)
            names.add(WILDCARD)
    return names


def code_names(facts: FileFacts) -> set[str]:
    """The names a file's resolution depends on but for its imports: what its code names."""
    names = used_names(facts)
    for base in facts.bases:
        names.update(base.name.split("."))
        names.add(base.scope.rsplit(".", 1)[-1])
    for ref in facts.type_refs:
        names.update(ref.name.split("."))
    for binding in facts.bindings:
        names.update(binding.type_name.split("."))
    for definition in facts.definitions:
        names.add(definition.qualified_name.split(".")[0])  # methods resolve through their owner
    for route in facts.routes:  # a handler resolves like a call
        names.update(route.handler.split("."))
    if routemounts.refers(facts):  # a route's path may come from any file's mounts
        names.add(routemounts.MOUNTS)
    for section in facts.sections:  # a code span names a definition, maybe through its owner
        names.update(part for name in section.names for part in name.split("."))
    if is_test_file(facts.path):
        stem = tested_stem(facts.path)
        if stem:
            names.add(stem)
    names.add(file_stem(facts.path))
    return names


def defined_names(facts: FileFacts) -> set[tuple[str, str]]:
    """What a file contributes to other files' resolution: its definitions, imports (re-exports), bases,
    attribute and return types, value flows and module names."""
    out: set[tuple[str, str]] = {("def", f"{d.qualified_name}:{d.kind}") for d in facts.definitions}
    out.update(("import", f"{i.module}:{i.name}:{i.alias}:{i.wildcard}") for i in facts.imports)
    out.update(("base", f"{b.scope}:{b.name}:{b.kind}") for b in facts.bases)
    out.update(
        ("bind", f"{b.scope}:{b.variable}:{b.type_name}") for b in facts.bindings
        if b.variable.startswith("self.") or b.variable == RETURN
    )
    out.update(_flow_keys(facts))
    out.update(("accessor", f"{a.owner}.{a.name}:{a.role}>{a.method}") for a in facts.accessors)
    out.update(("def", f"{scope}:declaration") for scope in declaration_scopes(facts))  # (its overrides' callers)
    out.add(("package", str(facts.package)))
    if routemounts.refers(facts):
        out.add(("mount", _digest([routemounts.mount_key(facts)])))
    return out


def _flow_keys(facts: FileFacts) -> set[tuple[str, str]]:
    """What other files' value flow reads here, one key per function (its flows, parameters, the
    parameters it calls: a caller elsewhere passes what gets called, and what its calls pass: this
    file's call sites give its functions' parameters their values) and per module-level variable,
    each with a digest of its content: an edit inside changes the key, whose names are the scope's."""
    groups: dict[str, list[str]] = defaultdict(list)
    bound = None  # (the names each scope binds: read only for a function's store into an element)
    for f in facts.flows:
        groups[f.scope or ":" + f.target.split("[", 1)[0]].append(f"{f.target}<{f.source}")
        if f.target.startswith("self."):  # a base class's `self.m()` may call what a subclass assigns to m:
            groups[f"{f.scope}>{f.target[5:].split('.', 1)[0].split('[', 1)[0]}"].append(f.source)  # m is a name
        base = f.target.split("[", 1)[0]
        if f.scope and base != f.target and "." not in base and base != RETURN:  # d[k] = v in a function fills
            bound = bound if bound is not None else _binding_levels(facts)  # the module's d unless a function
            if not bound(base, f.scope):  # binds d (flowrules.flows_by_target): d's readers depend
                groups[":" + base].append(f"{f.scope}>{f.target}<{f.source}")
    params = {(p.scope, p.name) for p in facts.params}
    for p in facts.params:
        groups[p.scope].append(f"{p.name}:{p.index}:{p.kind}")
    for c in facts.calls:
        if c.receiver is None and (c.scope, c.name) in params:
            groups[c.scope].append(f"{c.name}()")
        if c.args:  # what a call passes is what the parameters of a function of this file may hold
            groups[c.scope or _MODULE_CALLS].append(f"{callee_path(c)}({'|'.join(c.args)})")
    return {("flow", f"{scope}|{_digest(items)}") for scope, items in groups.items()}


def _binding_levels(facts: FileFacts) -> Callable[[str, str], str]:
    """(name, scope) -> the function scope, `scope` or one around it, that binds `name` as a variable
    or parameter (class bodies around it are not seen), "" none: the module's `name`. Where a store
    `name[k] = v` in `scope` goes, and where value flow looks the variable up."""
    bound = flowrules.bound_names(facts)
    classes = {d.qualified_name for d in facts.definitions if d.kind in CLASS_KINDS}
    return lambda name, scope: flowrules.binding_level(name, scope, bound, classes.__contains__)


def changed_names(before: set[tuple[str, str]], after: set[tuple[str, str]]) -> set[str]:
    """The names of what a file offers differently (defined_names keys before and after an edit):
    those of every key that came or went, but for the value flow of a scope it keeps (an edit inside
    a function): that is read only through the file's scope, by the files that consulted it (see
    store/consulted.py), which are resolved again as such."""
    kept = {flow_scope(key) for what, key in before if what == "flow"} & \
        {flow_scope(key) for what, key in after if what == "flow"}
    changed = [k for k in before ^ after if k[0] != "flow" or flow_scope(k[1]) not in kept]
    classes = defined_scopes(before) & defined_scopes(after)
    gained = _methods_gained(before, after, classes)
    out: set[str] = set()
    for key in changed:
        names, owner = names_of([key]), _member_owner(key, gained, classes)
        out |= (names - set(owner.split("."))) or names if owner else names  # (a member named as its class keeps it)
    return out


def defined_scopes(keys: Iterable[tuple[str, str]]) -> set[str]:
    """The qualified names of the definitions among defined_names keys."""
    return {key.rsplit(":", 1)[0] for what, key in keys if what == "def"}


def _member_owner(key: tuple[str, str], gained: set[str], kept: set[str]) -> str | None:
    """The class a key describes a member of that other files reach by the member's own name, not the
    class's: a method the class gained (and what its scope holds), the type of one of its attributes
    (readers of `obj.x` name x) or what a method stores into one; None for any other key."""
    scope = _KEY_SCOPE.split(key[1], 1)[0]
    method = next((m for m in gained if scope == m or scope.startswith(m + ".")), None)
    if method is not None:
        return method.rpartition(".")[0]
    if attribute_of(key) in kept:
        return attribute_of(key)
    if key[0] == "flow" and ">" in key[1] and scope.rpartition(".")[0] in kept:
        return scope.rpartition(".")[0]
    return None


def _methods_gained(before: set[tuple[str, str]], after: set[tuple[str, str]], kept: set[str]) -> set[str]:
    """The methods that a class the file keeps gains, but for special methods (`__iter__`, called
    without being named). Other files reach such a method only by its name, so its class's names are
    no part of what the keys of its scope change: a file naming `Max`, whose base `MinMaxBase` gained
    `_split_values`, holds the same values and calls what it did, and one calling `_split_values`
    names it."""
    return {qualified for what, key in after - before if what == "def" and key.endswith(":method")
            and (qualified := key.rsplit(":", 1)[0]).rpartition(".")[0] in kept
            and not qualified.rpartition(".")[2].startswith("__")}


def returns_of(key: tuple[str, str]) -> str | None:
    """The function whose return annotation a defined_names key is (`bind`, `f:return:T`), else None."""
    what, text = key
    scope, marker, _ = text.partition(f":{RETURN}:")
    return scope if what == "bind" and marker else None


def attribute_of(key: tuple[str, str]) -> str | None:
    """The class whose attribute's type a defined_names key is (`bind`, `C:self.x:T`), else None."""
    what, text = key
    if what != "bind":
        return None
    scope, variable, _ = _SINGLE_COLON.split(text, 2)
    return scope if variable.startswith("self.") else None


def flow_scope(key: str) -> str:
    """The scope of a flow key (`scope|digest`)."""
    return key.partition("|")[0]


def flow_readers(frontier: set[str], facts: FileFacts) -> set[str]:
    """The names under which other files read value flow of this file that reads a name in `frontier`:
    the scopes (functions, module variables, attributes) with a flow from such a name, and the
    functions called with such a name in an argument (their parameters take it). When the meaning
    of a frontier name changes, what those scopes hold may change, though their own text did not:
    a file reading `r.get()` depends on what `t.make()` returns, which `t.helper()` gives it. A path
    opening with a variable its function binds (`for character in text: character.strip()`) reads
    that variable there, whatever another file names so; a literal (`#'Max'` in `__all__`) reads no
    name (flow.py)."""
    level: Callable[[str, str], str] | None = None

    def reads(path: str, scope: str) -> bool:
        nonlocal level
        names = _path_names(path)
        if path.startswith(LITERAL) or frontier.isdisjoint(names):
            return False
        level = level or _binding_levels(facts)
        head_is_local = scope and path.startswith(names[0]) and level(names[0], scope)
        return not frontier.isdisjoint(names[1:] if head_is_local else names)

    flows = [f for f in facts.flows if reads(f.source, f.scope)]
    keys = _flow_keys(FileFacts(facts.path, facts.language, flows=flows)) if flows else set()
    # A reader names the last part: the function it calls (a method's class, named or not, holds the
    # same), the attribute or the variable it reads. A function nested in another is read through its
    # outer function's flows, which name it: the walk adds the outer one next.
    out = {part[-1] for _, key in keys if (part := _path_names(key.partition("|")[0]))}
    for call in facts.calls:
        if call.args and any(reads(arg, call.scope) for arg in call.args):
            out.update(_path_names(call.callee)[-1:] if call.callee else [call.name])
    return out


def _digest(items: list[str]) -> str:
    return hashlib.blake2b("\n".join(sorted(items)).encode(), digest_size=6).hexdigest()


def _path_names(path: str) -> list[str]:
    if ANONYMOUS_MARK in path:
        path = _LAMBDA.sub("", path)
    return [p for p in _SEPARATORS.split(path) if p and not p.isdigit()]


def names_of(keys: Iterable[tuple[str, str]]) -> set[str]:
    """The names in defined_names keys by which another file can reach what a key describes: a file
    depends on a changed key only if it names one of them. The trailing field of a definition (its
    kind), a base (inherits/implements) or an import (the wildcard flag) is not a name: left in,
    "function" or "False" would make every file that mentions such a word a dependent. Nor is what
    every file names and no file reaches anything through: an import's module path when it binds a
    name (the name is what others import), a binding's type and the `self` it is on (others read
    the attribute), the method that assigns an attribute, the `None` of an absent package."""
    out: set[str] = set()
    for what, key in keys:
        if what in ("def", "base", "accessor"):  # Class.x:role>method: the role and the method are not names
            key = key.rpartition(":")[0]
        elif what == "import":
            module, name, alias, wildcard = key.rsplit(":", 3)  # (a module may hold "::")
            bound = alias if alias != "None" else name if name != "None" else ""
            key = module if wildcard == "True" or not bound else bound
        elif what == "bind":  # scope:variable:type, split at single colons (a scope or a type may hold `a::B`)
            scope, variable, _ = _SINGLE_COLON.split(key, 2)
            out.update(_names(scope))
            out.update(_names(variable) - _UNNAMED)
            continue
        elif what == "flow":  # scope|digest: the digest is not a name; Class.method>attr: the attribute
            key = key.partition("|")[0]
            if ">" in key:
                scope, _, attribute = key.partition(">")
                key = f"{scope.rpartition('.')[0]}.{attribute}"
        elif what == "mount":  # a router or a mount: what every file with routes depends on
            out.add(routemounts.MOUNTS)
            continue
        elif what == "package" and key == "None":
            continue
        out.update(_names(key))
    return out


_UNNAMED = frozenset({"self", "cls", RETURN})  # parts of a binding's variable that name nothing of the file


def _names(text: str) -> set[str]:
    return {p for p in re.split(r"[^\w$]+", _LAMBDA.sub("", text)) if p}


def bound_names(keys: Iterable[tuple[str, str]]) -> set[str] | None:
    """The names the import keys among `keys` bind in their file, or None when one of them is a
    wildcard (it binds names no key says)."""
    out: set[str] = set()
    for what, key in keys:
        if what == "import":
            if key.endswith(":True"):
                return None
            out |= names_of([(what, key)])
    return out


def import_dependents(path: str, names: set[str], referring: Callable[[Iterable[str]], set[str]],
                      imports_of: Callable[[str], Iterable[Import]], uses_of: Callable[[str], set[str]]) -> set[str]:
    """The files that can see what the file `path` now binds (or no longer binds) to `names` by
    import (a language whose rules say `imports_by_stem`): those naming one of them and importing it
    from the file's module (`from pkg.mod import n`, `import pkg.mod` then `mod.n`, `from pkg import
    mod`, `from pkg.mod import *`, `import pkg` then `pkg.mod.n` in its code) or from the module of a
    file that re-exports it: one importing the name, or everything, from a module reached (`from
    .mod import n` in a package, `from .mod import *`). A file naming `n` that imports it from
    elsewhere resolves it through its own imports, none of which changed, and passes nothing on.
    `referring(names)`: the files whose references hold any of `names`; `imports_of(path)`: its
    imports; `uses_of(path)`: the names its code uses (dependencies.used_names)."""
    naming = referring(names)
    passing = naming | referring([WILDCARD])  # (those that may bind it on)
    reached, frontier = {path}, {path}
    while frontier:
        stems = {file_stem(p) for p in frontier}
        frontier = {p for p in referring(stems) & passing
                    if any((imp.wildcard or imp.name in names) and _module_parts(imp.module)[-1] in stems
                           for imp in imports_of(p))} - reached
        reached |= frontier
    modules = {file_stem(p) for p in reached}
    homes = {(posixpath.basename(posixpath.dirname(p)), file_stem(p)) for p in reached}  # (package, module)
    packages = set(posixpath.dirname(path).split("/"))  # (`import pkg` then `pkg.mod.n`)
    return {p for p in naming & referring(modules) if _imports_from(imports_of(p), modules, names, homes, packages,
                                                                     functools.partial(uses_of, p))}


def _imports_from(imports: Iterable[Import], modules: set[str], names: set[str], homes: set[tuple[str, str]],
                  packages: set[str], uses: Callable[[], set[str]]) -> bool:
    """Whether one of a file's imports binds one of `names` from one of `modules` (by their stems),
    or binds a module its code reads a name through (`uses`: the names its code uses): one of them,
    one of them from their package (`homes`: `from pkg import mod`, not `from pkg.mod import mod`, a
    function named as its module), or their package (`import pkg` then `pkg.mod.n`)."""
    for imp in imports:
        parts = _module_parts(imp.module)
        if parts[-1] in modules and (imp.wildcard or imp.name in names):
            return True
        if imp.name in modules and (not parts[-1] or (parts[-1], imp.name) in homes) and (imp.alias or imp.name) in uses():
            return True
        if imp.name is None and parts[-1] in modules and (imp.alias or parts[-1]) in uses():
            return True
        if imp.name is None and parts[0] in packages and not modules.isdisjoint(uses()):
            return True
    return False


def _module_parts(module: str) -> list[str]:
    """The names of a module as an import writes it: `..pkg.mod` -> [pkg, mod]; `.` -> [""]."""
    return _SEPARATORS.split(module.strip("./\\:"))


def subclass_names(delta: set[str], inherits: Iterable[tuple[str, str]] | dict[str, set[str]]) -> set[str]:
    """Delta grown by every class below a class it names: (subclass name, base name) pairs of the
    previous index, or their `names_below` map. A change to a class's bases or members changes what
    its subclasses (and theirs) inherit, so files that name only a grandchild depend on it too."""
    below = inherits if isinstance(inherits, dict) else names_below(inherits)
    out = set(delta)
    frontier = [name for name in delta if name in below]
    while frontier:
        found = {sub for name in frontier for sub in below[name]} - out
        out |= found
        frontier = list(found)
    return out


def names_below(inherits: Iterable[tuple[str, str]]) -> dict[str, set[str]]:
    """Base name -> the names of the classes directly below it, from (subclass name, base name) pairs."""
    below: dict[str, set[str]] = defaultdict(set)
    for sub, base in inherits:
        below[base].add(sub)
    return below


def attribute_owners(frontier: set[str], rows: Iterable[tuple[str, str, str]]) -> set[str]:
    """The names of the classes whose attributes may hold something named in `frontier`, from one
    file's (scope, `self.x`, type or flow source) rows."""
    out: set[str] = set()
    for scope, variable, value in rows:
        if variable.startswith("self.") and not frontier.isdisjoint(_path_names(value)):
            out.update(p for p in scope.split(".") if p)
    return out
