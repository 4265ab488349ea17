"""Turns the names in one file's facts into edges, using the whole repository's symbol table:
contains, imports, calls, inherits, implements, references and tests. Every edge says how it was
resolved and how sure we are. A name with several candidate definitions becomes low-confidence
`ambiguous` edges to each candidate, never one silent guess; a name no repository entity bears is
an `external` reference."""

from __future__ import annotations

import builtins
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass

from graphctx.index.naming import (
    MARKED_TESTS, external_id, is_test_file, is_test_name, tested_stem,
)
from graphctx.index.symbols import CLASS_KINDS, Symbol, SymbolTable
from graphctx.parse.facts import RETURN, FileFacts
from graphctx.parse.languages import family

# How sure each way of resolving is; ambiguous edges share AMBIGUOUS among their candidates.
CONFIDENCE = {
    "exact": 1.0, "import": 0.95, "same-scope": 0.9, "inferred": 0.8, "heuristic": 0.5,
    "external": 1.0, "unresolved": 0.0,
}
AMBIGUOUS = 0.5
UNKNOWN_RECEIVER = 0.3  # obj.name() with obj untyped: a unique method name is only a hint
MAX_CANDIDATES = 8  # a name defined more often than this is left unresolved
MAX_REEXPORT_DEPTH = 3
MAX_RECEIVER_CANDIDATES = 4  # the same for obj.name() on an untyped obj, where a common method name says little
RESOLVED = frozenset({"exact", "import", "same-scope", "inferred", "heuristic"})
CALLABLE_KINDS = frozenset({"function", "class", "struct", "enum", "method"})
PYTHON_BUILTINS = frozenset(dir(builtins))
# Names every file of a family sees without an import: calls through them are external, and a
# repository method that happens to share the member's name (console.log, Math.max) is not a candidate.
GLOBALS = {
    "python": PYTHON_BUILTINS,
    "javascript": frozenset({
        "console", "Math", "JSON", "Object", "Array", "Promise", "Number", "String", "Boolean", "Date",
        "Symbol", "Reflect", "Map", "Set", "WeakMap", "Intl", "Error", "RegExp", "URL", "Buffer",
        "process", "globalThis", "window", "document", "parseInt", "parseFloat", "setTimeout",
        "clearTimeout", "setInterval", "clearInterval", "fetch", "structuredClone",
    }),
    "java": frozenset({  # java.lang
        "System", "Math", "String", "StringBuilder", "Integer", "Long", "Double", "Float", "Short", "Byte",
        "Boolean", "Character", "Object", "Thread", "Runtime", "Class", "Enum", "Record", "Iterable",
        "Comparable", "Runnable", "Exception", "RuntimeException", "Error", "IllegalArgumentException",
        "IllegalStateException", "NullPointerException", "UnsupportedOperationException",
    }),
    "rust": frozenset({  # the standard crates, the prelude and the primitive types
        "std", "core", "alloc", "Vec", "String", "Box", "Option", "Result", "Some", "None", "Ok", "Err",
        "Default", "Iterator", "ToString", "str", "bool", "char", "f32", "f64", "i8", "i16", "i32", "i64",
        "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
    }),
    "go": frozenset({
        "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max", "min",
        "new", "panic", "print", "println", "real", "recover",
    }),
}
SELF = frozenset({"self", "cls", "Self"})
# Families where `super.m()` calls a base's method (Rust's `super::` is a module path instead).
SUPER_FAMILIES = frozenset({"python", "javascript", "java"})

Edge = tuple  # (source, target, kind, resolution, confidence, line)
Target = tuple[str, str, float]  # (target id, resolution, confidence)


# A value an expression stands for while resolving receivers.
@dataclass(slots=True, frozen=True)
class Value:
    kind: str  # module, class, instance, function, external
    ref: str | tuple[str, ...]  # symbol id, module file paths, or external dotted name
    resolution: str


class FileResolver:
    """Resolves one file's facts against the symbol table."""

    def __init__(self, facts: FileFacts, table: SymbolTable):
        self.facts = facts
        self.table = table
        self.path = facts.path
        self.family = family(facts.language)
        self.defs = table.file_defs.get(self.path, {})
        self.edges: dict[tuple[str, str, str], Edge] = {}
        self.calls = self.calls_resolved = 0
        self.locals: dict[str, Value] = {}
        self.bindings: dict[tuple[str, str], str] = {(b.scope, b.variable): b.type_name for b in facts.bindings}

    def _home(self, path: str) -> FileResolver | None:
        """The resolver of the file `path`, its imports bound: a type name written there is read there."""
        if path == self.path:
            return self
        cache = self.table.resolvers
        if path not in cache:
            facts = self.table.load_facts(path)
            cache[path] = FileResolver(facts, self.table) if facts is not None else None
            if cache[path] is not None:
                cache[path]._imports()
        return cache[path]

    # ---- entry points: structure first (for every file), then uses, once the class hierarchy is known
    def resolve_structure(self) -> list[tuple[str, str]]:
        """Contains, imports, inherits and implements edges; returns the (class, base) pairs found."""
        self._contains()
        self._imports()
        pairs = []
        for base in self.facts.bases:
            source = self._scope_id(base.scope)
            for target, resolution, confidence in self._resolve_type(base.name, base.scope):
                self._add(source, target, base.kind, resolution, confidence, base.line)
                pairs.append((source, target))
        return pairs

    def resolve_uses(self) -> list[Edge]:
        """Calls, references and tests; returns every edge of the file, sorted. Counts call sites
        (not edges: an ambiguous call has several) in `calls` and `calls_resolved`, externals excluded."""
        for call in self.facts.calls:
            source = self._scope_id(call.scope)
            targets = self._resolve_call(call.name, call.receiver, call.scope)
            if targets[0][1] != "external":
                self.calls += 1
                self.calls_resolved += targets[0][1] in RESOLVED
            for target, resolution, confidence in targets:
                self._add(source, target, "calls", resolution, confidence, call.line)
        for ref in self.facts.type_refs:
            targets = self._resolve_type(ref.name, ref.scope)
            if len(targets) == 1 and targets[0][1] in RESOLVED:
                target, resolution, confidence = targets[0]
                self._add(self._scope_id(ref.scope), target, "references", resolution, confidence, ref.line)
        if is_test_file(self.path):
            self._tests()
        return sorted(self.edges.values())

    def _add(self, source: str, target: str, kind: str, resolution: str, confidence: float, line: int) -> None:
        if source == target:
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

    # ---- structure
    def _contains(self) -> None:
        for qualified, sym in self.defs.items():
            parent = self.defs.get(qualified.rpartition(".")[0]) if "." in qualified else None
            if parent is not None:
                self._add(parent.id, sym.id, "contains", "exact", 1.0, 0)
                continue
            self._add(self.path, sym.id, "contains", "exact", 1.0, 0)
            if "." in qualified:  # a Go or Rust method whose type lives in another file
                owner = self.table.owner_of(sym)
                if owner is not None:
                    self._add(owner.id, sym.id, "contains", "same-scope", CONFIDENCE["same-scope"], 0)

    def _imports(self) -> None:
        for imp in self.facts.imports:
            files = self.table.modules.resolve(self.path, imp.module)
            dotted = imp.module.replace("::", ".").replace("/", ".").strip(".")
            if imp.wildcard:
                for path in files:
                    self._add(self.path, path, "imports", "import", 1.0, imp.line)
                    for qualified, sym in self.table.file_defs.get(path, {}).items():
                        if "." not in qualified:
                            self.locals.setdefault(sym.name, Value(_value_kind(sym), sym.id, "import"))
                continue
            if imp.name is None:
                local = imp.alias or self._module_local_name(imp.module)
                if files:
                    value = Value("module", tuple(files), "import")
                    for path in files:
                        self._add(self.path, path, "imports", "import", 1.0, imp.line)
                else:
                    value = Value("external", dotted, "external")
                    self._add(self.path, external_id(dotted), "imports", "external", 1.0, imp.line)
                self.locals[local] = value
                if self.family == "python" and not imp.alias:
                    self.locals[imp.module] = value  # `import a.b` lets `a.b.f()` name the module a.b
                continue
            local = imp.alias or imp.name
            value = self._imported_symbol(self.path, imp.module, imp.name, files)
            self.locals[local] = value
            if value.kind == "external":
                self._add(self.path, external_id(value.ref), "imports", "external", 1.0, imp.line)
            elif value.kind == "module":
                for path in value.ref:
                    self._add(self.path, path, "imports", "import", 1.0, imp.line)
            else:
                self._add(self.path, value.ref, "imports", value.resolution, CONFIDENCE[value.resolution], imp.line)

    def _imported_symbol(self, importer: str, module: str, name: str, files: list[str]) -> Value:
        """What `from module import name` in `importer` binds: a definition, a re-export, a submodule, or something external."""
        found = self._module_member(files, name) or self._static_member(module, name, files)
        if found is not None:
            return found
        sub = self._submodule(importer, module, name)
        if sub:
            return Value("module", tuple(sub), "import")
        if files:
            return Value("module", tuple(files), "import")  # defined dynamically: the module is what we know
        dotted = module.replace("::", ".").replace("/", ".").strip(".")
        return Value("external", f"{dotted}.{name}" if dotted else name, "external")

    def _module_member(self, files: Iterable[str], name: str, depth: int = 0) -> Value | None:
        """A name a module defines or re-exports (`from .impl import name`, `from .impl import *` in a
        package's __init__), followed a few links deep."""
        files = tuple(files)
        sym = self.table.top_level(files, name)
        if sym is not None:
            return Value(_value_kind(sym), sym.id, "import")
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
                if found is not None:
                    return found
        return None

    def _static_member(self, module: str, name: str, files: Iterable[str]) -> Value | None:
        """Java `import static a.b.C.m`: the module is the class C and the name one of its members."""
        if self.family != "java":
            return None
        sym = self.table.top_level(files, f"{module.rpartition('.')[2]}.{name}")
        return Value(_value_kind(sym), sym.id, "import") if sym is not None else None

    def _submodule(self, importer: str, module: str, name: str) -> list[str]:
        separator = {"rust": "::", "javascript": "/", "go": "/"}.get(self.family, ".")
        joiner = "" if module.endswith((".", "/", "::")) else separator
        return self.table.modules.resolve(importer, module + joiner + name)

    def _module_local_name(self, module: str) -> str:
        if self.family == "python":
            return module.split(".")[0]
        last = re.split(r"[/.:]+", module.rstrip("/"))[-1]
        return last.split(".")[0] or module

    # ---- names
    def _resolve_call(self, name: str, receiver: str | None, scope: str) -> list[Target]:
        if receiver is None:
            return self._resolve_name(name, scope, CALLABLE_KINDS)
        if receiver in SELF or (receiver == "super" and self.family in SUPER_FAMILIES):
            cls = self._enclosing_class(scope)
            if cls is not None:
                start = self.table.bases.get(cls.id, []) if receiver == "super" else [cls.id]
                for class_id in start:
                    found = self.table.find_member(class_id, name)
                    if found is not None:
                        sym, depth = found
                        return [(sym.id, "exact", 1.0 if depth == 0 and receiver != "super" else 0.9)]
                return self._inherited_external(cls.id, name)
        elif receiver != "?":
            value = self._value(receiver, scope)
            if value is not None:
                return self._member(value, name)
        return self._unknown_receiver(name)

    def _member(self, value: Value, name: str) -> list[Target]:
        if value.kind == "external":
            return [(external_id(f"{value.ref}.{name}"), "external", 1.0)]
        if value.kind == "module":
            member = self._module_member(value.ref, name)
            if member is not None and member.kind != "module":
                return [(member.ref, "import", CONFIDENCE["import"])]
            return self._unknown_receiver(name)
        if value.kind in ("class", "instance"):
            found = self.table.find_member(value.ref, name)
            if found is not None:
                resolution = "inferred" if value.kind == "instance" else value.resolution
                return [(found[0].id, resolution, CONFIDENCE[resolution])]
            return self._inherited_external(value.ref, name)
        return self._unknown_receiver(name)

    def _inherited_external(self, class_id: str, name: str) -> list[Target]:
        """A member a known class lacks: inherited from its external base when it has one
        (self.assertEqual in a TestCase, this.emit in an EventEmitter), else any method of that name."""
        base = self.table.external_base(class_id)
        if base is not None:
            return [(f"{base}.{name}", "external", 1.0)]
        return self._unknown_receiver(name)

    def _unknown_receiver(self, name: str) -> list[Target]:
        candidates = [s for s in self.table.methods_by_name.get(name, ()) if s.family == self.family]
        if not candidates:
            return [(external_id("?." + name), "external", 1.0)]
        return self._candidates(candidates, name, UNKNOWN_RECEIVER, MAX_RECEIVER_CANDIDATES)

    def _resolve_type(self, name: str, scope: str) -> list[Target]:
        if "." in name:
            head, _, last = name.rpartition(".")
            value = self._value(head, scope)
            if value is None:
                return [(external_id(name), "unresolved", 0.0)]
            if value.kind == "external":
                return [(external_id(name), "external", 1.0)]
            if value.kind == "module":
                member = self._module_member(value.ref, last)
                if member is not None and member.kind != "module":
                    return [(member.ref, "import", CONFIDENCE["import"])]
                return [(external_id(name), "unresolved", 0.0)]
            return self._member(value, last)
        return self._resolve_name(name, scope, CLASS_KINDS)

    def _resolve_name(self, name: str, scope: str, kinds: frozenset[str]) -> list[Target]:
        """A bare name: enclosing scopes, then imports, then the package, then the repository."""
        sym = self._lexical(name, scope)
        if sym is not None:
            return [(sym.id, "exact", 1.0)]
        value = self.locals.get(name)
        if value is not None:
            if value.kind == "external":
                return [(external_id(value.ref), "external", 1.0)]
            if value.kind == "module":
                sym = self.table.top_level(value.ref, name)  # a default export named like its binding
                return [(sym.id, "import", CONFIDENCE["import"])] if sym else [(value.ref[0], "import", 0.6)]
            return [(value.ref, value.resolution, CONFIDENCE[value.resolution])]
        sym = self._same_package(name)
        if sym is not None:
            return [(sym.id, "same-scope", CONFIDENCE["same-scope"])]
        if self.family == "java":
            cls = self._enclosing_class(scope)
            found = self.table.find_member(cls.id, name) if cls else None
            if found is not None:
                return [(found[0].id, "exact", 0.9)]
        if name in GLOBALS.get(self.family, ()):
            return [(external_id(name), "external", 1.0)]
        candidates = [s for s in self.table.top_by_name.get(name, ()) if s.family == self.family and s.kind in kinds]
        if not candidates:
            resolution = "unresolved" if name in self.table.names else "external"
            return [(external_id(name), resolution, CONFIDENCE[resolution])]
        return self._candidates(candidates, name, CONFIDENCE["heuristic"])

    def _candidates(self, candidates: list[Symbol], name: str, confidence: float, limit: int = MAX_CANDIDATES) -> list[Target]:
        if len(candidates) == 1:
            return [(candidates[0].id, "heuristic", confidence)]
        if len(candidates) > limit:
            return [(external_id(name), "unresolved", 0.0)]
        share = min(confidence, AMBIGUOUS) / len(candidates)
        return [(s.id, "ambiguous", share) for s in candidates]

    def _lexical(self, name: str, scope: str) -> Symbol | None:
        """A definition visible by plain name from scope: nested, then enclosing, then module level.
        Class bodies are skipped (a method is reached through self/this), except in Java."""
        while True:
            sym = self.defs.get(f"{scope}.{name}" if scope else name)
            if sym is not None and (sym.kind != "method" or self.family == "java"):
                return sym
            if not scope:
                return None
            scope = scope.rpartition(".")[0]

    def _same_package(self, name: str) -> Symbol | None:
        if self.family == "go":
            siblings = self.table.modules.go_dirs.get(posixpath.dirname(self.path), ())
        elif self.family == "java" and self.facts.package:
            siblings = self.table.modules.java_packages.get(self.facts.package, ())
        else:
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
        if rest and self.family == "rust" and head in ("crate", "super"):
            return self._rust_path(expr.split("."))
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
            return Value(_value_kind(sym), sym.id, "exact")
        if expr in GLOBALS.get(self.family, ()):
            return Value("external", expr, "external")
        candidates = [s for s in self.table.top_by_name.get(expr, ()) if s.family == self.family and s.kind in CLASS_KINDS]
        if len(candidates) == 1:
            return Value("class", candidates[0].id, "heuristic")
        return None

    def _rust_path(self, parts: list[str]) -> Value | None:
        """crate::a::b::T: the longest prefix that names a module file, then members of it."""
        for cut in range(len(parts), 0, -1):
            files = self.table.modules.resolve(self.path, "::".join(parts[:cut]))
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
            return Value("external", f"{value.ref}.{attr}", "external")
        if value.kind == "module":
            member = self._module_member(value.ref, attr)
            if member is not None:
                return member
            sub = [p for path in value.ref for p in self.table.modules.resolve(path, "." + attr)] if self.family == "python" else []
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
        type_name = self.table_bindings(sym.path).get((sym.qualified_name, RETURN)) if sym else None
        if type_name is None:
            return None
        if type_name == "Self":  # Rust: the impl's type
            owner = self.table.owner_of(sym)
            return Value("class", owner.id, "inferred") if owner is not None else None
        home = self._home(sym.path)
        value = home._value(type_name, sym.qualified_name, variables=False) if home is not None else None
        return value if value is not None and value.kind in ("class", "external") else None

    def _class_attribute_type(self, class_id: str, attr: str) -> Value | None:
        sym = self.table.by_id.get(class_id)
        if sym is None:
            return None
        type_name = self.table_bindings(sym.path).get((sym.qualified_name, "self." + attr))
        if type_name is None:
            return None
        home = self._home(sym.path)
        value = home._value(type_name, "", variables=False) if home is not None else None
        return Value("instance", value.ref, "inferred") if value is not None and value.kind == "class" else None

    def table_bindings(self, path: str) -> dict[tuple[str, str], str]:
        if path == self.path:
            return self.bindings
        facts = self.table.load_facts(path)
        return {(b.scope, b.variable): b.type_name for b in facts.bindings} if facts else {}

    def _binding(self, variable: str, scope: str) -> str | None:
        if variable.startswith("self."):
            cls = self._enclosing_class(scope)
            return self.bindings.get((cls.qualified_name, variable)) if cls else None
        while True:
            found = self.bindings.get((scope, variable))
            if found is None and self.family == "java":  # a field named without `this.`
                found = self.bindings.get((scope, "self." + variable))
            if found is not None or not scope:
                return found
            scope = scope.rpartition(".")[0]

    # ---- tests
    def _tests(self) -> None:
        """A test function -> what it calls in non-test code; a test file -> the files it imports or is named after."""
        test_edges = []
        for source, target, kind, resolution, confidence, line in self.edges.values():
            if kind == "calls" and resolution in RESOLVED and target in self.table.by_id:
                sym = self.table.by_id[source] if source in self.table.by_id else None
                if sym is not None and (is_test_name(sym.name) or self.family in MARKED_TESTS) and not is_test_file(self.table.by_id[target].path):
                    test_edges.append((source, target, resolution, confidence * 0.9, line))
            elif kind == "imports" and source == self.path and resolution == "import":
                target_path = self.table.by_id[target].path if target in self.table.by_id else target
                if not is_test_file(target_path):
                    test_edges.append((self.path, target_path, "import", 0.9, line))
        for source, target, resolution, confidence, line in test_edges:
            self._add(source, target, "tests", resolution, confidence, line)
        stem = tested_stem(self.path)
        if stem:
            files = self.table.modules.files
            matches = [
                p for p in self.table.files_by_stem.get(stem, ())
                if p != self.path and family(files[p][0]) == self.family and not is_test_file(p)
            ]
            for p in self._prefer_near(matches):
                self._add(self.path, p, "tests", "heuristic", 0.6 if len(matches) == 1 else AMBIGUOUS / len(matches), 0)

    def _prefer_near(self, paths: list[str]) -> list[str]:
        if len(paths) <= 1:
            return paths
        imported = [p for p in paths if (self.path, p, "imports") in self.edges]
        if imported:
            return imported
        here = posixpath.dirname(self.path)
        same_dir = [p for p in paths if posixpath.dirname(p) == here]
        return same_dir or (paths if len(paths) <= MAX_CANDIDATES else [])


def _value_kind(sym: Symbol) -> str:
    return "class" if sym.kind in CLASS_KINDS else "function"


