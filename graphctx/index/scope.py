"""What the names and expressions of one file stand for: its definitions and enclosing scopes, its
imports (bound as it reads them, each recorded as an `imports` edge), its package, and the value a
receiver expression has (a module, a class, an instance, a function or something external),
following re-exports, bindings, attribute types and return types into other files. The language's
rules (graphctx/index/languages/) say where its scoping and imports differ."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property
from typing import NamedTuple

from graphctx.index.languages import rules_for
from graphctx.index.naming import external_id
from graphctx.index.store.consulted import ANY_SCOPE, top_scope
from graphctx.index.symbols import CLASS_KINDS, Symbol, SymbolTable, value_kind
from graphctx.parse.facts import RETURN, FileFacts
from graphctx.parse.flows import vocabulary
from graphctx.parse.languages import family

# How sure each way of resolving is; ambiguous edges share AMBIGUOUS among their candidates.
CONFIDENCE = {
    "exact": 1.0, "import": 0.95, "same-scope": 0.9, "inferred": 0.8, "heuristic": 0.5,
    "external": 1.0, "unresolved": 0.0,
}
AMBIGUOUS = 0.5  # shared among the candidates of an ambiguous edge
MAX_REEXPORT_DEPTH = 3
SELF = frozenset({"self", "cls", "Self"})

Edge = tuple  # (source, target, kind, resolution, confidence, line)


# A value an expression stands for while resolving receivers. A named tuple: value flow makes and
# hashes millions of them on a large repository, and a tuple does both in C (with the hash a frozen
# dataclass of these fields has, so sets of them keep their order).
class Value(NamedTuple):
    kind: str  # module, class, instance, function, external, super (the bases of class `ref`)
    ref: str | tuple[str, ...]  # symbol id, module file paths, or external dotted name
    resolution: str  # how it was found (an external name: `external`, or `unresolved` for a module the repository lacks)
    bound: bool = False  # a method read off an instance: its first parameter is already passed


def outside_target(name: str, value: Value) -> tuple[str, str, float]:
    """The edge to a name outside the repository, or to one of a module it lacks, as the external
    value it was read off says (`external`, or `unresolved`: FileScope._outside)."""
    return external_id(name), value.resolution, CONFIDENCE[value.resolution]


class FileScope:
    """One file's names against the symbol table; the resolver builds its edges on top."""

    def __init__(self, facts: FileFacts, table: SymbolTable):
        self.facts = facts
        self.table = table
        self.path = facts.path
        self.family = family(facts.language)
        self.rules = rules_for(facts.language)
        self.reads_flows = vocabulary(facts.language) is not None  # whether value flow reads this language's flows
        self.defs = table.file_defs.get(self.path, {})
        self.edges: dict[tuple[str, str, str], Edge] = {}
        self.calls = self.calls_resolved = 0
        self.locals: dict[str, Value] = {}
        self.alternatives: dict[str, list[Value]] = {}  # name -> every value its imports bind, when they differ
        self.asked: set[tuple[str, str]] = set()  # (file, top-level scope): what its answers may rest on

    @cached_property  # (made when first asked: a full build's structure pass asks it only of the files
    # whose bases are written `module.Base`, and then from the bindings alone: parse/facts.py LEFT_OUT)
    def bindings(self) -> dict[tuple[str, str], str]:
        """(scope, variable) -> the type its binding makes evident."""
        return {(b.scope, b.variable): b.type_name for b in self.facts.bindings}

    def _home(self, path: str, scope: str | None = None) -> FileScope | None:
        """The resolver of the file `path`, its imports bound: a type name written there is read there.
        `scope`: the definition whose answers the caller reads there ("", the module's; None, any)."""
        if path == self.path:
            return self
        asked = (path, ANY_SCOPE if scope is None else top_scope(scope))
        if asked not in self.asked:
            self.asked.add(asked)
            self.table.consulted.add((self.path, *asked))
        cache = self.table.resolvers
        if path not in cache:
            facts = self.table.load_facts(path)
            cache[path] = type(self)(facts, self.table) if facts is not None else None
            if cache[path] is not None:
                cache[path]._imports()
        return cache[path]

    def _add(self, source: str, target: str, kind: str, resolution: str, confidence: float, line: int) -> None:
        if source == target and kind != "calls":  # a recursive call is an edge; a file importing itself is not
            return
        key = (source, target, kind)
        old = self.edges.get(key)
        if old is None or confidence > old[4]:
            self.edges[key] = (source, target, kind, resolution, round(confidence, 4), old[5] if old else line)

    def _scope_id(self, scope: str) -> str:
        while scope:
            sym = self.defs.get(scope)
            if sym is not None:
                return sym.id
            scope = scope.rpartition(".")[0]
        return self.path

    # ---- imports: bound as read, each an edge
    def _imports(self) -> None:
        for imp in self.facts.imports:
            files = self.table.modules.resolve(self.path, imp.module)
            # (the modules an import may mean: one, or several that nothing here chooses between)
            choices = self.table.modules.alternatives(self.path, files)
            dotted = imp.module.replace("::", ".").replace("/", ".").replace("\\", ".").strip(".")
            if imp.wildcard:
                if not files:  # C's <stdio.h>, Go's `. "fmt"`: everything of something outside the repository
                    self._import_edges(self._outside(self.path, imp.module, dotted), imp.line, 1)
                self._import_edges(Value("module", tuple(files), "import"), imp.line, len(choices))
                for path in files:
                    for qualified, sym in self.table.file_defs.get(path, {}).items():
                        if "." not in qualified:
                            self.locals.setdefault(sym.name, Value(value_kind(sym), sym.id, "import"))
                continue
            if imp.name is None:
                if not files:
                    self._import_edges(self._outside(self.path, imp.module, dotted), imp.line, 1)
                self._import_edges(Value("module", tuple(files), "import"), imp.line, len(choices))
                for local, spec in self.rules.module_bindings(imp.module, imp.alias):
                    named = choices if spec == imp.module else \
                        self.table.modules.alternatives(self.path, self.table.modules.resolve(self.path, spec))
                    spec_dotted = spec.replace("::", ".").replace("/", ".").strip(".")
                    for module in named or [()]:
                        self._bind(local, Value("module", tuple(module), "import") if module
                                   else self._outside(self.path, spec, spec_dotted))
                continue
            for module in choices or [files]:
                value = self._imported_symbol(self.path, imp.module, imp.name, module)
                self._bind(imp.alias or imp.name, value)
                self._import_edges(value, imp.line, len(choices))

    def _import_edges(self, value: Value, line: int, choices: int) -> None:
        """The edges of what an import binds, each `ambiguous` where it is one of several choices."""
        if value.kind == "external":  # (or a module of the repository's own that is not there: unresolved)
            self._add(self.path, external_id(value.ref), "imports", value.resolution, CONFIDENCE[value.resolution], line)
            return
        resolution = "import" if value.kind == "module" else value.resolution
        confidence = 1.0 if value.kind == "module" else CONFIDENCE[resolution]
        if choices > 1:
            resolution, confidence = "ambiguous", AMBIGUOUS / choices
        for target in value.ref if value.kind == "module" else (value.ref,):
            self._add(self.path, target, "imports", resolution, confidence, line)

    def _bind(self, local: str, value: Value) -> None:
        """An import binds `local`; a second import of the same name that binds something else (a
        fallback under `try`/`except ImportError`, `if PY2:`) is an alternative, kept beside the first."""
        known = self.locals.get(local)
        if known is None:
            self.locals[local] = value
        elif known != value and value not in self.alternatives.setdefault(local, [known]):
            self.alternatives[local].append(value)

    def module_variable(self, name: str) -> set[Value]:
        """What a module-level variable holds; value flow (flow.py) knows, names alone do not."""
        return set()

    def _imported_symbol(self, importer: str, module: str, name: str, files: list[str]) -> Value:
        """What `from module import name` in `importer` binds: a definition, a re-export, a submodule, or something external."""
        found = self._module_member(files, name) or self._static_member(module, name, files)
        if found is not None:
            return found
        sub = self._submodule(importer, module, name)
        if sub:
            return Value("module", tuple(sub), "import")
        held = {v for path in files if (home := self._home(path, "")) is not None for v in home.module_variable(name)}
        if len(held) == 1 and next(iter(held)).kind in ("function", "class", "external"):
            # a module-level variable naming something: what it holds (a re-exported builtin, an alias)
            return next(iter(held))
        if files:
            return Value("module", tuple(files), "import")  # defined dynamically: the module is what we know
        dotted = module.replace("::", ".").replace("/", ".").replace("\\", ".").strip(".")
        return self._outside(importer, module, f"{dotted}.{name}" if dotted else name)

    def _outside(self, importer: str, module: str, dotted: str) -> Value:
        """What an import that names no repository file binds: an external name, or an unresolved
        one where the module would be the repository's own (relative, or in one of its packages)."""
        return Value("external", dotted, "unresolved" if self.table.modules.inside(importer, module) else "external")

    def _module_member(self, files: Iterable[str], name: str, depth: int = 0) -> Value | None:
        """A name a module defines or re-exports (`from .impl import name`, `from .impl import *` in a
        package's __init__), followed a few links deep."""
        files = tuple(files)
        sym = self.table.top_level(files, name)
        if sym is not None:
            return Value(value_kind(sym), sym.id, "import")
        if depth >= MAX_REEXPORT_DEPTH:
            return None
        for path in files:
            facts = self.table.load_facts(path)
            for imp in facts.imports if facts else ():
                if not (imp.wildcard or (imp.name and (imp.alias or imp.name) == name)):
                    continue
                inner = self.table.modules.resolve(path, imp.module)
                found = self._module_member(inner, name if imp.wildcard else imp.name, depth + 1)
                if found is None and not imp.wildcard:
                    sub = self._submodule(path, imp.module, imp.name)
                    found = Value("module", tuple(sub), "import") if sub else None
                    if found is None and not inner:  # an external name re-exported: still the external name
                        dotted = imp.module.replace("::", ".").replace("/", ".").strip(".")
                        found = self._outside(path, imp.module, f"{dotted}.{imp.name}" if dotted else imp.name)
                if found is not None:
                    return found
        return self._reexported_module(files, name)

    def _reexported_module(self, files: tuple[str, ...], name: str) -> Value | None:
        """`import json` (or `import x.y as json`) in a module, then `from module import json` elsewhere."""
        for path in files:
            facts = self.table.load_facts(path)
            for imp in facts.imports if facts else ():
                if imp.name is not None or imp.wildcard:
                    continue
                for local, spec in self.rules.module_bindings(imp.module, imp.alias):
                    if local == name:
                        named = self.table.modules.resolve(path, spec)
                        dotted = spec.replace("::", ".").replace("/", ".").strip(".")
                        return Value("module", tuple(named), "import") if named else self._outside(path, spec, dotted)
        return None

    def _static_member(self, module: str, name: str, files: Iterable[str]) -> Value | None:
        """Java `import static a.b.C.m`: the module is the class C and the name one of its members."""
        if not self.rules.static_member_imports:
            return None
        sym = self.table.top_level(files, f"{module.rpartition('.')[2]}.{name}")
        return Value(value_kind(sym), sym.id, "import") if sym is not None else None

    def _submodule(self, importer: str, module: str, name: str) -> list[str]:
        joiner = "" if module.endswith((".", "/", "::")) else self.rules.module_separator
        return self.table.modules.resolve(importer, module + joiner + name)

    # ---- scopes: enclosing definitions, the package, the enclosing class
    def _lexical(self, name: str, scope: str) -> Symbol | None:
        """A definition visible by plain name from scope: nested, then enclosing, then module level.
        Class bodies are skipped (a method is reached through self/this), unless the language names
        members without `this.` (Java)."""
        while True:
            sym = self.defs.get(f"{scope}.{name}" if scope else name)
            if sym is not None and (sym.kind != "method" or self.rules.members_in_scope):
                return sym
            if not scope:
                return None
            scope = scope.rpartition(".")[0]

    def _same_package(self, name: str) -> Symbol | None:
        """A top-level definition of another file of this file's package (Go folder, Java package)."""
        siblings = self.table.modules.package_files(self.path, self.facts.package)
        if siblings is None:
            return None
        return self.table.top_level((p for p in siblings if p != self.path), name)

    def _enclosing_class(self, scope: str) -> Symbol | None:
        while scope:
            sym = self.defs.get(scope)
            if sym is not None and sym.kind in CLASS_KINDS:
                return sym
            if sym is not None and sym.kind == "method" and "." in scope:
                owner = self.table.owner_of(sym)
                if owner is not None and owner.kind in CLASS_KINDS:
                    return owner
            scope = scope.rpartition(".")[0]
        return None

    # ---- values: what a receiver expression stands for
    def _value(self, expr: str, scope: str, variables: bool = True) -> Value | None:
        """What a receiver expression stands for: a module, a class, an instance of a class, or external.
        A type name is never itself a variable, so bindings are consulted only at the top."""
        type_name = self._binding(expr, scope) if variables else None
        if type_name is not None:
            value = self._value(type_name, scope, variables=False)
            if value is not None and value.kind == "function":  # x = make_foo(): what make_foo returns
                value = self._returned(value.ref)
            if value is not None and value.kind == "class":
                return Value("instance", value.ref, "inferred")
            if value is not None and value.kind == "external":
                return value
            return None
        if expr in self.locals:
            return self.locals[expr]
        head, _, rest = expr.partition(".")
        if rest and head in self.rules.module_path_heads:
            return self._module_path(expr.split("."))
        if rest and head in SELF and variables:  # self.x declared on the class, maybe in another file
            cls = self._enclosing_class(scope)
            value = Value("instance", cls.id, "exact") if cls is not None else None
            for attr in rest.split("."):
                value = self._attribute(value, attr)
            return value
        if rest:
            value = self._value(head, scope, variables)
            for attr in rest.split("."):
                value = self._attribute(value, attr)
            return value
        sym = self._lexical(expr, scope) or self._same_package(expr)
        if sym is not None:
            return Value(value_kind(sym), sym.id, "exact")
        if expr in self.rules.builtins:
            return Value("external", expr, "external")
        candidates = [s for s in self.table.top_by_name.get(expr, ()) if s.family == self.family and s.kind in CLASS_KINDS]
        if len(candidates) == 1:
            return Value("class", candidates[0].id, "heuristic")
        return None

    def _module_path(self, parts: list[str]) -> Value | None:
        """crate::a::b::T (Rust): the longest prefix that names a module file, then members of it."""
        for cut in range(len(parts), 0, -1):
            files = self.table.modules.resolve(self.path, self.rules.module_separator.join(parts[:cut]))
            if files:
                value = Value("module", tuple(files), "import")
                for attr in parts[cut:]:
                    value = self._attribute(value, attr)
                return value
        return None

    def _attribute(self, value: Value | None, attr: str) -> Value | None:
        if value is None:
            return None
        if value.kind == "external":
            return Value("external", f"{value.ref}.{attr}", value.resolution)
        if value.kind == "module":
            member = self._module_member(value.ref, attr)
            if member is not None:
                return member
            spec = self.rules.submodule_spec(attr)  # `pkg.sub` after `import pkg` (Python)
            sub = [p for path in value.ref for p in self.table.modules.resolve(path, spec)] if spec else []
            return Value("module", tuple(sub), "import") if sub else None
        if value.kind in ("class", "instance"):
            attribute = self._class_attribute_type(value.ref, attr)
            if attribute is not None:
                return attribute
            member = self.table.find_member(value.ref, attr)
            if member is not None and member[0].kind in ("function", "method"):  # Foo::new, Foo.create
                return Value("function", member[0].id, "inferred")
        return None

    def _returned(self, function_id: str) -> Value | None:
        """The class (or external type) a function declares it returns, read in the function's own file."""
        sym = self.table.by_id.get(function_id)
        type_name = self.table_bindings(sym.path, sym.qualified_name).get((sym.qualified_name, RETURN)) if sym else None
        if type_name is None:
            return None
        if type_name == "Self":  # Rust: the impl's type
            owner = self.table.owner_of(sym)
            return Value("class", owner.id, "inferred") if owner is not None else None
        home = self._home(sym.path, sym.qualified_name)
        value = home._value(type_name, sym.qualified_name, variables=False) if home is not None else None
        return value if value is not None and value.kind in ("class", "external") else None

    def _class_attribute_type(self, class_id: str, attr: str) -> Value | None:
        sym = self.table.by_id.get(class_id)
        if sym is None:
            return None
        type_name = self.table_bindings(sym.path, sym.qualified_name).get((sym.qualified_name, "self." + attr))
        if type_name is None:
            return None
        home = self._home(sym.path, sym.qualified_name)
        value = home._value(type_name, "", variables=False) if home is not None else None
        return Value("instance", value.ref, "inferred") if value is not None and value.kind == "class" else None

    def table_bindings(self, path: str, scope: str | None = None) -> dict[tuple[str, str], str]:
        """The typed bindings of file `path` (those of `scope` read: see _home): its resolver's, kept."""
        home = self._home(path, scope)
        return home.bindings if home is not None else {}

    def _undefined(self, name: str) -> Edge:
        """The target of a name nothing in the repository defines, imports or builds in: unresolved,
        unless the language's rule makes it external (rules.undefined_names)."""
        rule = self.rules.undefined_names
        if rule == "external" or rule == "module" and any(
                e[2] == "imports" and e[3] == "external" for e in self.edges.values() if e[0] == self.path):
            return (external_id(name), "external", 1.0)
        return (external_id(name), "unresolved", 0.0)

    def _typed_outside(self, receiver: str, scope: str) -> bool:
        """Whether a receiver's declared type is a class no file of the repository defines: then its
        methods are not the repository's, whatever their names."""
        type_name = self._binding(receiver, scope)
        if not type_name:
            return False
        last = type_name.rpartition(".")[2]
        return not any(s.kind in CLASS_KINDS for s in self.table.top_by_name.get(last, ()))

    def _binding(self, variable: str, scope: str) -> str | None:
        if variable.startswith("self."):
            cls = self._enclosing_class(scope)
            return self.bindings.get((cls.qualified_name, variable)) if cls else None
        while True:
            found = self.bindings.get((scope, variable))
            if found is None and self.rules.members_in_scope:  # a field named without `this.`
                found = self.bindings.get((scope, "self." + variable))
            if found is not None or not scope:
                return found
            scope = scope.rpartition(".")[0]
