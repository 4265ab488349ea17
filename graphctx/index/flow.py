"""What each variable, parameter, attribute, container element and function result of one file
can hold: the union of every value its flows (see `facts.Flow`) bring there, whatever the order of
the statements, following calls into the functions they reach in this file or another. Call sites
of this file give a function's parameters their values; a function's returns give a call its
result; attributes set on a class or any of its bases give an instance its attributes. The
resolver asks this for callees that are local names or paths a dotted name cannot say."""

from __future__ import annotations

from graphctx.index import declarations, flowrules, properties
from graphctx.index.callsites import CallSites
from graphctx.index.fixpoint import EMPTY
from graphctx.index.flowtables import FlowTables
from graphctx.index.scope import SELF, FileScope, Value
from graphctx.parse.facts import RETURN, Call, FileFacts, Flow
from graphctx.index.flowpaths import (
    MAX_VALUES, SUBSCRIPTS, TOO_MANY, UNKNOWN, Values, definition_value, key_choices, ordered,
    same_element, unslice,
)
from graphctx.parse.flows import CALLED, DEFINITION, FORWARDED, LITERAL, TYPED

DECORATED = "@"
FORWARDERS = frozenset({"functools.partial", "functools.partialmethod", "contextlib.closing", "contextlib.nullcontext"})
MAX_PATH_STEPS = 8  # calls and subscripts in one path
MAX_SUBSCRIPTS = 3  # of them subscripts: deeper element paths multiply (`[1][][k]...`) and rarely hold a callee
SUPER = "super"


class FlowScope(FlowTables, CallSites, FileScope):
    """One file's value flows on top of its names."""

    unreached: frozenset[str] = frozenset()  # functions no call of this file can reach (see appended.py)

    def __init__(self, facts: FileFacts, table):
        super().__init__(facts, table)
        self._memo: dict[tuple[str, str], Values] = {}
        self._sites: dict[str, list[tuple[Call, int]]] | None = None
        self._building: dict[str, list[tuple[Call, int]]] | None = None
        self._consulted = False  # whether the index being built was read while building it
        self._levels: dict[tuple[str, str], str | None] = {}  # (name, scope) -> local_level's answer
        self._attributes: dict[tuple, Values] = {}  # see _attribute_flows, made in epoch _attributes_epoch
        self._attributes_epoch = -1

    def forget_flows(self) -> None:
        """Drop what value flow has worked out here (the class hierarchy it read has changed)."""
        self._memo.clear()
        self.table.flow.new_epoch()  # (so attribute flows, here and in every scope, are made again)
        self._sites = self._building = None

    def let_go(self) -> None:
        """Drop everything made of this file while resolving, its tables and what value flow worked
        out here, and the lists of its facts read since its structure (their flows, calls...): a
        worker done with the file's project (made again, should a question reach it)."""
        self.forget_tables()
        self.facts.unload_rest()
        self._memo.clear()
        self._sites, self._building, self._attributes = None, None, {}

    # ---- values of a path
    def values(self, path: str, scope: str) -> Values:
        key = (path, scope)
        found = self._memo.get(key)
        if found is not None:
            return found
        subscripts = path.count("[")
        if subscripts > MAX_SUBSCRIPTS or subscripts + path.count("(") > MAX_PATH_STEPS:  # grows as followed (`x = x[0]`)
            self._memo[key] = EMPTY
            return EMPTY
        return self.table.flow.answer((self.path, path, scope), self._memo, key, self._bounded_values, path, scope)

    def _bounded_values(self, path: str, scope: str) -> Values:
        """An answer as kept: past MAX_VALUES values, or holding the unknown, it is TOO_MANY. Telling
        thousands of possibilities apart costs more than it tells, and what is read off them (an
        attribute, a call's result, an element) is unknown too, so no caller builds on a guess."""
        found = frozenset(self._values(path, scope))
        return TOO_MANY if len(found) > MAX_VALUES or UNKNOWN in found else found

    def _values(self, path: str, scope: str) -> set[Value]:
        if not path:
            return set()
        if path.startswith(LITERAL):
            return {Value("literal", path[1:], "exact")}
        if path.startswith(TYPED) and path[1:].isidentifier():  # a literal of a builtin type: {} is a dict
            return {Value("external", path[1:], "external")}
        if path.startswith(FORWARDED):  # the first argument: calling partial(f, ...) calls f; `with closing(x) as y`: y is x
            callee, _, argument = path[1:].partition("|")
            forwards = any(v.kind == "external" and v.ref in FORWARDERS for v in self.values(callee, scope))
            return self.values(argument, scope) if forwards else set()
        if "[:" in path:  # a slice: its element k is the container's element k + start
            path = unslice(path)
        if path.startswith(DEFINITION):
            sym = self.defs.get(path[1:])
            return {definition_value(sym)} if sym is not None else set()
        subscripts = SUBSCRIPTS.search(path) if path.endswith("]") else None
        if subscripts:
            return self._elements(path[:subscripts.start()], subscripts.group(), scope)
        if path.endswith(CALLED):
            callee = path[:-2]
            if callee == SUPER:
                cls = self._enclosing_class(scope)
                return {Value("super", cls.id, "exact")} if cls is not None else set()
            return {v for value in ordered(self.values(callee, scope)) for v in self._result(value)}
        base, _, attr = path.rpartition(".")
        if base:
            return {v for value in ordered(self.values(base, scope)) for v in self.attribute_values(value, attr)}
        return self._name(path, scope)

    def _name(self, name: str, scope: str) -> set[Value]:
        if name in SELF:  # a method's first parameter: the instance (or class) of its class
            cls = self._enclosing_class(scope)
            if cls is not None:
                return {Value("instance", cls.id, "exact")}
        level = self.local_level(name, scope)
        if level is not None:
            return self._target_values(level, name, "")
        if name in self.alternatives and self._lexical(name, scope) is None:  # every import that binds it
            return set(self.alternatives[name])
        value = self._value(name, scope)
        return {value} if value is not None else set()

    def _target_values(self, level: str, target: str, suffix: str) -> Values | set[Value]:
        """What flows into `target` + `suffix` in scope `level` of this file: its own flows, the
        elements of what it aliases, its arguments when it is a parameter, its declared type.
        Kept in the memo beside the answers it is made of (a key of three parts: theirs are pairs),
        so cleared with them, when every answer it read was final."""
        remembered = self._memo.get((level, target, suffix))
        if remembered is not None:
            return remembered
        key = (level, target)
        flow_sources, subscripts, params = self.flow_sources, self.subscripts, self.params.get(level, ())
        if key not in flow_sources and key not in subscripts and key not in self.bindings \
                and target not in params:  # (stores_into, written out: this is the hot path)
            return EMPTY
        mark = self.table.flow.mark()
        out = self._gathered(level, target, suffix, key, subscripts, params)
        if self.table.flow.settled_since(mark):  # (and not made across a memo cleared)
            out = self._memo[(level, target, suffix)] = self.table.flow.shared(out)
        return out

    def _gathered(self, level: str, target: str, suffix: str, key: tuple[str, str], subscripts, params) -> set[Value]:
        out: set[Value] = set()
        if suffix:
            flows = [flow for s in subscripts.get(key, ()) if same_element(s, suffix)
                     for flow in self._latest(level, target + s)]
        else:
            flows = self._latest(level, target)
        values = self.values
        for flow in flows:
            source = flow.source
            if source[:1] == DECORATED:
                out |= self._decorated(source[1:], flow.scope, level, target)
            elif source == target:  # str = str: the name as it was before, an import or a builtin
                value = self._value(source, flow.scope)
                if value is not None:
                    out.add(value)
            else:
                out |= values(source, flow.scope)
        if suffix:
            for flow in self.flow_sources.get(key, ()):
                if not flow.source.startswith((DECORATED, DEFINITION)):
                    out |= values(flow.source + suffix, flow.scope)
        if target in params:
            out |= self._argument_values(level, target, suffix)
        if not suffix and target != RETURN and key in self.bindings:  # an annotation: x: Foo
            typed = self._value(target, level)
            if typed is not None:
                out.add(typed)
        return out

    def stores_into(self, level: str, target: str) -> bool:
        """Whether anything flows into `target` in scope `level` here: a store, a declared type, or
        the arguments of a parameter's calls."""
        key = (level, target)
        return key in self.flow_sources or key in self.subscripts or key in self.bindings \
            or target in self.params.get(level, ())

    def _latest(self, level: str, target: str) -> tuple[Flow, ...] | list[Flow]:
        """The stores into `target`; into an element of literal keys (`d['a']`), only the last
        statement's of those made in the scope itself: straight-line code replaces that entry."""
        found = self.flow_sources.get((level, target), ())
        if not found or "[" not in target or "[]" in target:
            return found
        last = max((flow.line for flow in found if flow.scope == level), default=None)
        return [flow for flow in found if flow.scope != level or flow.line == last]

    def _decorated(self, decorator: str, scope: str, level: str, name: str) -> set[Value]:
        """A decorated definition's name holds what its decorator returns when that is known in the
        repository; else (an external decorator, a result we cannot see) the definition itself."""
        found = {v for v in self.values(decorator, scope) if v.kind != "external"}
        if found:
            return found
        sym = self.defs.get(f"{level}.{name}" if level else name)
        return {definition_value(sym)} if sym is not None else set()

    def _elements(self, base: str, suffix: str, scope: str) -> set[Value]:
        """What the container `base` holds (`suffix` is one `[]` per level)."""
        if base.endswith(CALLED):
            out: set[Value] = set()
            for value in ordered(self.values(base[:-2], scope)):
                if value.kind == "unknown":
                    out.add(UNKNOWN)
                elif value.kind == "function":
                    home, sym = self._home_of(value.ref)
                    if home is not None:
                        out |= home._target_values(sym.qualified_name, RETURN, suffix)
            return out
        head, _, attr = base.rpartition(".")
        if head:
            return {v for value in ordered(self.values(head, scope)) for v in self._attribute_flows(value, attr, suffix)}
        level = self.local_level(base, scope)
        if level is None:
            return set()
        out: set[Value] = set()
        for keys in key_choices(suffix, lambda name: self.values(name, scope)):
            out |= self._target_values(level, base, keys)
        return out

    def module_variable(self, name: str) -> set[Value]:
        """What a module-level variable of this file holds (`str = str`, `urlparse = parse.urlparse`)."""
        return self._target_values("", name, "") if self.assigns("", name) else set()

    # ---- calls and attributes
    def _result(self, value: Value) -> set[Value]:
        if value.kind == "unknown":
            return {UNKNOWN}
        if value.kind == "function":
            return self.returns(value.ref)
        if value.kind == "class":
            return {Value("instance", value.ref, "inferred")}
        if value.kind == "external":  # (what an external call returns is named after it; a partial is no value we know)
            return set() if value.ref in FORWARDERS else {value}
        return set()

    def returns(self, function_id: str) -> set[Value]:
        """What a repository function returns: its `return` flows, read in its own file, and its declared type."""
        home, sym = self._home_of(function_id)
        out: set[Value] = set()
        if home is not None:
            out |= home._target_values(sym.qualified_name, RETURN, "")
        declared = self._returned(function_id)
        if declared is not None:
            out.add(Value("instance", declared.ref, "inferred") if declared.kind == "class" else declared)
        return out

    def attribute_values(self, value: Value, attr: str) -> set[Value]:
        if value.kind == "unknown":
            return {UNKNOWN}
        if value.kind in ("external", "literal"):
            return flowrules.external_attribute(value, attr)
        if value.kind == "super":
            out = set()
            for base in self.table.bases.get(value.ref, ()):
                found = self.table.find_member(base, attr)
                if found is not None:
                    out.add(Value(definition_value(found[0]).kind, found[0].id, "inferred", True))
                    break
            return out
        if value.kind in ("class", "instance"):
            return self._attribute_flows(value, attr, "")
        if value.kind == "module":
            found = self._attribute(value, attr)
            if found is not None:
                return {found}
            return {v for path in value.ref if (home := self._home(path, "")) is not None
                    for v in home._target_values("", attr, "")}
        return set()

    def _attribute_flows(self, value: Value, attr: str, suffix: str, overrides: bool = True,
                         quiet: set[str] | None = None) -> set[Value]:
        """An attribute of a class or its instance: what any class of its lineage assigns to it
        (`self.attr = ...` in a method, `attr = ...` in the class body), else the member it defines
        (a stub's overrides too, unless `overrides` is False: see declarations.overrides). The classes
        of `quiet` assign nothing to it: skipped, and those found so added (for a walk over lineages)."""
        if value.kind == "unknown":
            return {UNKNOWN}
        if value.kind == "module":
            return {v for path in value.ref if (home := self._home(path, "")) is not None
                    for v in home._target_values("", attr, suffix)}
        if value.kind not in ("class", "instance"):
            return set()
        if quiet is not None:  # (what a walk over lineages skips depends on the walk)
            return self._lineage_flows(value, attr, suffix, overrides, quiet)
        # (asked again from every path reading it: kept, made of final answers only, for one epoch)
        questions, key = self.table.flow, (value, attr, suffix, overrides)
        if self._attributes_epoch != questions.epoch:
            self._attributes, self._attributes_epoch = {}, questions.epoch
        held = self._attributes.get(key)
        if held is not None:
            return held
        mark = questions.mark()
        out = self._lineage_flows(value, attr, suffix, overrides, None)
        if questions.settled_since(mark):
            out = self._attributes[key] = questions.shared(out)
        return out

    def _lineage_flows(self, value: Value, attr: str, suffix: str, overrides: bool, quiet: set[str] | None) -> set[Value]:
        getter = properties.getter_of(self, value, attr)
        out: set[Value] = set()
        field = "self." + attr
        for level in self.table.lineage(value.ref):
            for class_id in level:
                if quiet is not None and class_id in quiet:
                    continue
                home, sym = self._home_of(class_id)
                if home is None:
                    if quiet is not None:
                        quiet.add(class_id)
                    continue
                owner = sym.qualified_name  # (most classes of a lineage store neither: asked before the values)
                in_field, in_body = home.stores_into(owner, field), home.stores_into(owner, attr)
                if not in_field and not in_body:
                    if quiet is not None:
                        quiet.add(class_id)
                    continue
                if in_field:
                    out |= home._target_values(owner, field, suffix)
                if in_body and getter is None:  # (a property's name in the class body holds the property, not a value)
                    out |= home._target_values(owner, attr, suffix)
        if getter is not None:  # a property: what its getter returns, and what is assigned through its setter
            return out | properties.returned(self, getter, suffix)
        if suffix:
            return out
        if not any(v.kind == "function" for v in out):  # the member it defines (a stub: its overrides)
            out |= declarations.member_values(self, value, attr, overrides)
        typed = self._attribute(value, attr)  # a declared attribute type (x: Foo in the class)
        if typed is not None and typed.kind == "instance":
            out.add(typed)
        return out

    def _home_of(self, entity_id: str):
        sym = self.table.by_id.get(entity_id)
        return (self._home(sym.path, sym.qualified_name) if sym is not None else None), sym
