"""Incremental indexing equals a full rebuild: plain add/modify/delete/rename cases, no-op and
touch runs, and a property test that applies random edit sequences to a small multi-file Python
project (real tree-sitter, real SQLite, real files) and compares the incremental index with a
`--full` rebuild of the same tree after every step."""

from __future__ import annotations

import copy
import gc
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import index_tables, query_index, write_tree
from graphctx.graph import loader
from graphctx.index import checked, keeper as kept_tables, store
from graphctx.index.indexer import index_repository
from graphctx.index.keeper import TableKeeper
from graphctx.index.store import reads

# ---------------------------------------------------------------- a structured Python project

FUNC_NAMES = ("helper", "run", "step", "build", "load", "go", "alpha")
CLASS_NAMES = ("Base", "Engine", "Widget", "Mixin")
ATTRS = ("tool", "part")
VARIABLES = ("shared", "current", "LIMIT")  # module-level variables bound from calls (LIMIT: a constant)
PATHS = (
    "app.py", "util.py", "core.py", "helpers.py",
    "pkg/__init__.py", "pkg/core.py", "pkg/extra.py",
    "pkg/sub/__init__.py", "pkg/sub/deep.py", "lib/tools.py",
    "tests/test_core.py", "test_util.py",
)
MODULES = (
    "util", "core", "helpers", "pkg", "pkg.core", "pkg.extra", "pkg.sub", "pkg.sub.deep",
    "sub.deep", "tools", "lib.tools", ".core", ".", "..", ".extra", ".sub.deep", "os.path", "json",
)


@dataclass
class Func:
    name: str
    params: tuple[str, ...] = ()
    body: tuple[str, ...] = ("return 1",)
    prop: bool = False  # a method under @property: its readers call it
    annotation: str | None = None  # what `-> T` says it returns

    def render(self, indent: str, method: bool) -> list[str]:
        params = ("self", *self.params) if method else self.params
        lines = [f"{indent}@property"] if method and self.prop else []
        returned = f" -> {self.annotation}" if self.annotation else ""
        lines.append(f"{indent}def {self.name}({', '.join(params)}){returned}:")
        body = [s for s in self.body if method or "self" not in s] or ["pass"]
        return lines + [f"{indent}    {s}" for s in body]


@dataclass
class Klass:
    name: str
    base: str | None = None
    methods: list[Func] = field(default_factory=list)

    def render(self) -> list[str]:
        head = f"class {self.name}({self.base}):" if self.base else f"class {self.name}:"
        lines = [head]
        for m in self.methods:
            lines += m.render("    ", method=True)
        return lines + ([] if self.methods else ["    pass"])


@dataclass
class Module:
    imports: list[tuple[str, str | None, str | None]] = field(default_factory=list)  # (module, name, alias)
    classes: list[Klass] = field(default_factory=list)
    functions: list[Func] = field(default_factory=list)
    variables: list[tuple[str, str]] = field(default_factory=list)  # (name, the call it is bound from)

    def render(self) -> str:
        lines = []
        for module, name, alias in self.imports:
            alias_part = f" as {alias}" if alias else ""
            if name is None:
                lines.append(f"import {module.lstrip('.') or 'os'}{alias_part}")
            else:
                lines.append(f"from {module} import {name}{alias_part}")
        lines += [f"{name} = {value}" for name, value in self.variables]
        for c in self.classes:
            lines += ["", *c.render()]
        for f in self.functions:
            lines += ["", *f.render("", method=False)]
        return "\n".join(lines) + "\n"


# Statements a body is made of: calls by plain name, through imports, on self, on instances
# built from constructors or annotations, attribute chains, externals, and value flow.
names = st.sampled_from(FUNC_NAMES)
classes = st.sampled_from(CLASS_NAMES)
variables = st.sampled_from(VARIABLES)
attrs = st.sampled_from(ATTRS)
other_modules = st.sampled_from(("util", "core", "pkg", "tools", "helpers"))
# What a variable, an attribute or a return is bound from: calls of this file's or another module's
# functions and classes, and a method called on what another module's function returns.
values = st.one_of(
    names.map(lambda f: f"{f}()"),
    classes.map(lambda c: f"{c}()"),
    st.tuples(other_modules, names).map(lambda t: f"{t[0]}.{t[1]}()"),
    st.tuples(other_modules, classes).map(lambda t: f"{t[0]}.{t[1]}()"),
    st.tuples(other_modules, names, names).map(lambda t: f"{t[0]}.{t[1]}().{t[2]}()"),
)
# What a function returns: a value, an attribute, a module variable (maybe another module's) or a parameter.
returns = st.one_of(
    values.map(lambda v: f"return {v}"),
    attrs.map(lambda a: f"return self.{a}"),
    variables.map(lambda v: f"return {v}"),
    st.tuples(other_modules, variables).map(lambda t: f"return {t[0]}.{t[1]}"),
    st.just("return a"),
)
# Chains across files: each link's answer rests on another file's value flow, so a file naming none of
# a chain's functions may hold an edge an edit far down the chain changes.
chains = (
    returns,
    st.tuples(attrs, values).map(lambda t: f"self.{t[0]} = {t[1]}"),  # an attribute assigned from a call
    st.tuples(variables, names).map(lambda t: f"{t[0]}.{t[1]}()"),  # a module variable's method
    st.tuples(other_modules, variables, names).map(lambda t: f"{t[0]}.{t[1]}.{t[2]}()"),
    st.tuples(other_modules, names, names).map(lambda t: f"{t[0]}.{t[1]}().{t[2]}()"),  # a method on a returned value
    st.tuples(other_modules, names, names, names).map(lambda t: f"{t[0]}.{t[1]}({t[2]}).{t[3]}()"),  # on what it hands back
    st.tuples(other_modules, names, names).map(lambda t: f"{t[0]}.{t[1]}(self.{t[2]})"),  # a method handed on
    st.tuples(names, names).map(lambda t: f"self.{t[0]} = self.{t[1]}"),  # what a base's self.m() calls
    names.map(lambda f: f"super().{f}()"),
    # an attribute declared with another module's class, no value (no flow: only its type names the
    # class), and an attribute of another module's class instance read in a file naming neither
    st.tuples(attrs, other_modules, classes).map(lambda t: f"self.{t[0]}: {t[1]}.{t[2]}"),
    st.tuples(other_modules, classes, attrs, names).map(lambda t: f"{t[0]}.{t[1]}().{t[2]}.{t[3]}()"),
)
statements = st.one_of(
    *chains,
    names.map(lambda f: f"{f}()"),
    names.map(lambda f: f"self.{f}()"),
    st.tuples(classes, names).map(lambda t: f"obj = {t[0]}()\n    obj.{t[1]}()".replace("\n    ", "; ")),
    st.tuples(classes, names).map(lambda t: f"x: {t[0]} = make(); x.{t[1]}()"),
    st.tuples(st.sampled_from(ATTRS), classes).map(lambda t: f"self.{t[0]} = {t[1]}()"),
    st.tuples(st.sampled_from(ATTRS), names).map(lambda t: f"self.{t[0]}.{t[1]}()"),
    st.tuples(st.sampled_from(("util", "core", "pkg", "tools", "os.path", "mod")), names).map(lambda t: f"{t[0]}.{t[1]}()"),
    st.tuples(classes, names).map(lambda t: f"{t[0]}().{t[1]}()"),
    st.tuples(classes, st.sampled_from(ATTRS), names).map(lambda t: f"e = {t[0]}(); e.{t[1]}.{t[2]}()"),
    st.just("return len([])"),
    # value flow: aliases, returns, parameters called, functions passed on, iteration
    names.map(lambda f: f"fn = {f}; fn()"),
    classes.map(lambda c: f"return {c}()"),
    st.tuples(names, names).map(lambda t: f"r = {t[0]}(); r.{t[1]}()"),
    st.sampled_from(("a()", "b.run()")),
    st.tuples(names, names).map(lambda t: f"{t[0]}({t[1]})"),
    classes.map(lambda c: f"for it in {c}(): it()"),
    # properties and lambdas: reads and writes of attributes that may be properties, a lambda called
    names.map(lambda f: f"v = self.{f}"),
    st.tuples(classes, names).map(lambda t: f"w = {t[0]}(); w.{t[1]} = 1"),
    st.tuples(classes, names, names).map(lambda t: f"{t[0]}().{t[1]}.{t[2]}()"),
    names.map(lambda f: f"cb = lambda: {f}(); cb()"),
    # value flow across files: what a function returns is what another returns, maybe through a module;
    # a call on it reads the whole chain, which a file naming none of the chain's functions may hold
    names.map(lambda f: f"return {f}()"),
    st.tuples(st.sampled_from(("util", "core", "pkg", "tools")), names).map(lambda t: f"return {t[0]}.{t[1]}()"),
    st.tuples(names, names).map(lambda t: f"{t[0]}().{t[1]}()"),
    # a function handed to another file's function that calls its parameter (`def run(a): a()`)
    st.tuples(st.sampled_from(("util", "core", "pkg")), names, names).map(lambda t: f"{t[0]}.{t[1]}({t[2]})"),
)
bodies = st.lists(statements, min_size=1, max_size=3).map(tuple)
params = st.lists(st.sampled_from(("a", "b", "c: Widget", "d: Engine")), max_size=2, unique=True).map(tuple)
funcs = st.builds(Func, names, params, bodies)
imports = st.tuples(
    st.sampled_from(MODULES),
    st.one_of(st.none(), names, classes, variables),
    st.one_of(st.none(), st.none(), st.sampled_from(("mod", "Alias"))),
)
klasses = st.builds(Klass, classes, st.one_of(st.none(), classes, st.just("core.Base"), st.just("pkg.Engine")),
                    st.lists(funcs, max_size=3))
module_variables = st.lists(st.tuples(variables, values), max_size=2)
modules = st.builds(Module, st.lists(imports, max_size=3), st.lists(klasses, max_size=2), st.lists(funcs, max_size=2),
                    module_variables)


def starting_project() -> dict[str, Module]:
    """Several modules, a package re-exporting a name, inheritance across files, calls through
    imports, self-calls, instance calls and a test file."""
    return {
        "pkg/__init__.py": Module(imports=[(".core", "Engine", None)]),
        "pkg/core.py": Module(
            imports=[("util", "helper", None)],
            classes=[
                Klass("Base", None, [Func("run", (), ("return self.step()",)), Func("step", (), ("return helper()",)),
                                     Func("tool", (), ("return Widget()",), prop=True)]),
                Klass("Engine", "Base", [Func("go", ("a",), ("self.tool = Widget()", "return self.run()"))]),
            ],
        ),
        "pkg/extra.py": Module(
            imports=[("..util", "helper", None)],
            classes=[Klass("Widget", None, [Func("build", (), ("return 1",))])],
        ),
        "util.py": Module(functions=[Func("helper", (), ("return len([])",)), Func("load", ("a",), ("return helper()",))]),
        "app.py": Module(
            imports=[("pkg", "Engine", None), ("util", None, None)],
            classes=[Klass("Widget", "Engine", [Func("go", (), ("super().go()", "self.tool.build()"))])],
            functions=[Func("alpha", (), ("e = Engine(); e.go()", "util.load()", "x: Widget = make(); x.run()"))],
        ),
        "tests/test_core.py": Module(
            imports=[("pkg.core", "Base", None), ("app", "alpha", None)],
            functions=[Func("test_run", (), ("b = Base(); b.run()", "alpha()"))],
        ),
    }


# A chain across four files to start from: helpers.helper's class reaches pkg/sub/deep.py through
# helpers.load, a module variable, tools.step, an attribute tools.Mixin assigns, a function handed
# to helpers.call, and an override of what pkg.core.Base.run calls, without deep.py naming helper.
# And an attribute core.Mixin declares a pkg.sub.Widget, which pkg.sub re-exports (retarget_import):
# util.step reads it through core.py, whose value flow names no class (only the attribute's type does).
CHAINS = {
    "helpers.py": Module(
        imports=[("pkg.extra", "Widget", None), ("pkg", "Engine", None)],
        functions=[Func("helper", (), ("return Widget()",)), Func("load", (), ("return helper()",)),
                   Func("run", ("a",), ("return a()",))],
        variables=[("shared", "load()")],
    ),
    "lib/tools.py": Module(
        imports=[("helpers", None, None)],
        classes=[Klass("Mixin", None, [Func("build", (), ("self.part = helpers.load()",)),
                                       Func("go", (), ("return self.part",))])],
        functions=[Func("step", (), ("return helpers.load()",))],
    ),
    "pkg/sub/__init__.py": Module(imports=[("..extra", "Widget", None)]),
    "core.py": Module(imports=[("pkg.sub", None, "sub")],
                      classes=[Klass("Mixin", None, [Func("build", (), ("self.tool: sub.Widget",))])]),
    "util.py": Module(imports=[("core", "Mixin", None)],
                      functions=[Func("helper", (), ("return len([])",)), Func("load", ("a",), ("return helper()",)),
                                 Func("step", (), ("Mixin().tool.build()",))]),
    "pkg/sub/deep.py": Module(
        imports=[("lib.tools", None, "tools"), ("helpers", "shared", None), ("helpers", None, None), ("pkg.core", None, "core")],
        classes=[Klass("Engine", "core.Base", [Func("step", (), ("return tools.step()",))])],
        functions=[Func("go", (), ("tools.step().build()", "shared.build()", "m = tools.Mixin(); m.go().build()")),
                   Func("alpha", (), ("helpers.run(tools.step).build()", "return Engine().run()"))],
    ),
}


def render(project: dict[str, Module]) -> dict[str, str]:
    return {path: module.render() for path, module in project.items()}


# ---------------------------------------------------------------- edits

def _pick(data, seq):
    return data.draw(st.sampled_from(seq)) if seq else None


def _all_funcs(module: Module) -> list[tuple[list[Func], int]]:
    out = [(module.functions, i) for i in range(len(module.functions))]
    for c in module.classes:
        out += [(c.methods, i) for i in range(len(c.methods))]
    return out


def _links(project: dict[str, Module]) -> list[tuple[str, Func]]:
    """The functions (by name) whose result another function returns (`return name()`, `return
    mod.name()`): links of chains, where a change of what they return reaches files that never name them."""
    returned = {s[7:].rsplit(".", 1)[-1].split("(", 1)[0] for module in project.values()
                for owner, i in _all_funcs(module) for s in owner[i].body if s.startswith("return") and s.endswith("()")}
    return [(path, owner[i]) for path, module in sorted(project.items()) for owner, i in _all_funcs(module)
            if owner[i].name in returned]


def apply_edit(data, project: dict[str, Module]) -> str:
    """Apply one random edit to the project in place; returns its description."""
    ops = ["add_file", "add_function", "add_method", "remove_function", "rename_function",
           "change_body", "change_signature", "change_import", "change_base", "delete_file", "rename_file",
           "add_class", "remove_class", "copy_class", "rename_class", "toggle_property",
           "change_return", "change_return", "change_return", "change_return", "change_variable", "change_variable",  # (value flow, more often)
           "retarget_import", "retarget_import", "annotate"]
    op = data.draw(st.sampled_from(ops))
    paths = sorted(project)
    if op == "add_file" or not paths:
        path = data.draw(st.sampled_from(PATHS))
        project[path] = data.draw(modules)
        return f"add {path}"
    links = _links(project) if op == "change_return" else []
    if links and data.draw(st.booleans()):  # half the time the far end of a chain
        path, func = _pick(data, links)
        func.body = (*[s for s in func.body if not s.startswith("return")], data.draw(returns))
        return f"change_return {path} {func.name}"
    path = _pick(data, paths)
    module = project[path]
    if op == "add_function":
        module.functions.append(data.draw(funcs))
    elif op == "add_method" and module.classes:
        _pick(data, module.classes).methods.append(data.draw(funcs))
    elif op == "add_class":
        module.classes.append(data.draw(klasses))
    elif op == "remove_class" and module.classes:
        del module.classes[data.draw(st.integers(0, len(module.classes) - 1))]
    elif op == "rename_class" and module.classes:  # its subclasses and callers elsewhere keep the old name
        _pick(data, module.classes).name = data.draw(classes)
    elif op == "copy_class" and module.classes:  # the same class name in two files: ambiguity comes and goes
        source = _pick(data, module.classes)
        target = data.draw(st.sampled_from(paths))
        project[target].classes.append(Klass(source.name, source.base, [Func(f.name, f.params, f.body, f.prop, f.annotation) for f in source.methods]))
        return f"copy class {source.name} from {path} to {target}"
    elif op in ("remove_function", "rename_function", "change_body", "change_signature", "change_return", "annotate") \
            and _all_funcs(module):
        owner, i = _pick(data, _all_funcs(module))
        if op == "change_return":  # what it returns changes: every reader down a chain to it may change
            owner[i].body = (*[s for s in owner[i].body if not s.startswith("return")], data.draw(returns))
        elif op == "annotate":  # what it says it returns: a class, another module's, or nothing
            owner[i].annotation = data.draw(st.one_of(st.none(), classes, st.tuples(other_modules, classes).map(".".join)))
        elif op == "remove_function":
            del owner[i]
        elif op == "rename_function":
            owner[i].name = data.draw(names)
        elif op == "change_body":
            owner[i].body = data.draw(bodies)
        else:
            owner[i].params = data.draw(params)
    elif op == "toggle_property" and any(c.methods for c in module.classes):  # a method becomes a property, or back
        method = _pick(data, [m for c in module.classes for m in c.methods])
        method.prop = not method.prop
    elif op == "change_variable":  # a module variable bound from another call, added or removed
        if module.variables and data.draw(st.booleans()):
            del module.variables[data.draw(st.integers(0, len(module.variables) - 1))]
        module.variables.append(data.draw(st.tuples(variables, values)))
    elif op == "change_import":
        if module.imports and data.draw(st.booleans()):
            del module.imports[data.draw(st.integers(0, len(module.imports) - 1))]
        module.imports.append(data.draw(imports))
    elif op == "retarget_import" and any(name for _, name, _ in module.imports):  # a re-exported name comes from elsewhere
        i = _pick(data, [i for i, (_, name, _) in enumerate(module.imports) if name])
        module.imports[i] = (data.draw(st.sampled_from(MODULES)), *module.imports[i][1:])
    elif op == "change_base" and module.classes:
        _pick(data, module.classes).base = data.draw(st.one_of(st.none(), classes, st.just("core.Base")))
    elif op == "delete_file":
        del project[path]
    elif op == "rename_file":
        new = data.draw(st.sampled_from(PATHS))
        project[new] = project.pop(path)
        return f"rename {path} -> {new}"
    else:
        return "nothing"
    return f"{op} {path}"


# ---------------------------------------------------------------- syncing trees and comparing


def sync(root: Path, files: dict[str, str]) -> None:
    """Make root's Python files exactly `files` (the index folder is left alone)."""
    for existing in list(root.rglob("*.py")):
        rel = existing.relative_to(root).as_posix()
        if rel not in files:
            existing.unlink()
        elif existing.read_text(encoding="utf-8") != files[rel]:
            existing.write_text(files[rel], encoding="utf-8")
    for rel, text in files.items():
        if not (root / rel).exists():
            write_tree(root, {rel: text})


def full_rebuild_tables(root: Path, scratch: Path) -> dict:
    """Copy root's sources to scratch and index them with --full there."""
    if scratch.exists():
        shutil.rmtree(scratch)
    shutil.copytree(root, scratch, ignore=shutil.ignore_patterns(".graphctx"))
    index_repository(scratch, full=True, workers=1)
    return index_tables(scratch)


def assert_same_as_full(root: Path, scratch: Path, history: list[str] | None = None) -> None:
    incremental = index_tables(root)
    full = full_rebuild_tables(root, scratch)
    for table in ("entities", "edges", "files"):
        extra = incremental[table] - full[table]
        missing = full[table] - incremental[table]
        assert not extra and not missing, (
            f"{table} differ after {history}:\n only incremental: {sorted(extra)}\n only full: {sorted(missing)}"
        )


# ---------------------------------------------------------------- the property


@settings(max_examples=int(os.environ.get("GRAPHCTX_PROPERTY_EXAMPLES", "30")), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_random_edit_sequences_equal_full_rebuild(data):
    """Two sequences in three run as a server's watcher does, each run starting from the symbol table
    the previous one kept (updated per edit): the whole table of the first build, or, for a process
    that starts on an existing index, one read on demand by its first edit and read whole by the
    next; the others build it from the rows every run. Either way the index equals a full rebuild, and the graph snapshot each run
    derived is the graph of its rows."""
    mode = data.draw(st.sampled_from(["rows", "kept", "kept, read on demand"]))
    keeper = None if mode == "rows" else TableKeeper()
    with tempfile.TemporaryDirectory() as tmp:
        root, scratch = Path(tmp) / "repo", Path(tmp) / "full"
        project = starting_project() | copy.deepcopy(CHAINS)
        write_tree(root, render(project))
        index_repository(root, workers=1, keeper=keeper if mode == "kept" else None)
        history: list[str] = [] if keeper is None else [f"(symbol table {mode})"]
        steps = data.draw(st.integers(1, 6))
        for _ in range(steps):
            edits = data.draw(st.integers(1, 2))  # one or two edits between runs
            for _ in range(edits):
                history.append(apply_edit(data, project))
            sync(root, render(project))
            result = index_repository(root, workers=1, keeper=keeper)
            assert_same_as_full(root, scratch, history)
            assert snapshot_matches_rows(root), history
            assert loaded_edges(root) == loaded_edges(scratch), history  # the patched snapshot is the rebuilt one
            assert snapshot_is_base_and_patches(root), history
            if keeper is not None and (mode == "kept" or result.generation > 1):  # (a no-op run makes no table)
                assert kept_hierarchy_matches_rows(root, keeper), history


def kept_hierarchy_matches_rows(root: Path, keeper: TableKeeper) -> bool:
    """Whether the class hierarchy the kept table hands the next run's delta is the one the rows
    state (the next run reads it from the table instead of from every inheritance edge)."""
    db_path = store.index_path(root)
    conn = store.connect(db_path, readonly=True)
    try:
        generation = store.generation(conn)
        from_rows = set(reads.inheritance_names(conn))
    finally:
        conn.close()
    entry = keeper.take(db_path, generation)
    assert entry is not None, "a committed run keeps its table"
    keeper.put(db_path, generation, entry)
    return set(kept_tables.inheritance_names(entry.table)) == from_rows


def loaded_edges(root: Path) -> list[tuple]:
    """The edges of the graph a new process loads, by id: rowids differ between two indexes of one tree."""
    conn = store.connect(store.index_path(root), readonly=True)
    try:
        graph = loader.load(root, conn).graph
    finally:
        conn.close()
    return sorted((a, b, d["kind"], d["resolution"], d["confidence"]) for a, b, d in graph.edges(data=True))


def snapshot_is_base_and_patches(root: Path) -> bool:
    """Whether the stored snapshot is the first build's base with one patch per run since: edits of
    a small tree never write a new base, so every run above went through the patches."""
    conn = store.connect(store.index_path(root), readonly=True)
    try:
        chain = reads.snapshot_sizes(conn)
        return reads.snapshot_chain_ends(chain, store.generation(conn)) and chain[0][0] == 1
    finally:
        conn.close()


def snapshot_matches_rows(root: Path) -> bool:
    """Whether the graph a new process loads (from the generation's snapshot) holds exactly the edges
    between entities that the rows state. (Two files may make the same edge: a function each hands
    to the same function that calls it. The rows keep one per maker, the graph the surer.)"""
    conn = store.connect(store.index_path(root), readonly=True)
    try:
        graph = loader.load(root, conn).graph
        ids = set(graph.nodes)
        surest: dict[tuple[str, str, str], tuple] = {}
        for row in conn.execute("SELECT source, target, kind, resolution, confidence FROM edges"):
            key = row[:3]
            if row[0] in ids and row[1] in ids and (key not in surest or row[4:2:-1] > surest[key][4:2:-1]):
                surest[key] = row
    finally:
        conn.close()
    return sorted(surest.values()) == sorted((a, b, d["kind"], d["resolution"], d["confidence"])
                                             for a, b, d in graph.edges(data=True))


# ---------------------------------------------------------------- plain cases


@pytest.fixture
def project_root(tmp_path: Path) -> Path:
    root = write_tree(tmp_path / "repo", render(starting_project()))
    index_repository(root, workers=1)
    return root


def test_add_file_equals_full(project_root, tmp_path):
    write_tree(project_root, {"helpers.py": "from pkg import Engine\n\ndef go():\n    return Engine().run()\n"})
    result = index_repository(project_root, workers=1)
    assert result.parsed == 1
    assert_same_as_full(project_root, tmp_path / "full")


def test_modify_file_equals_full(project_root, tmp_path):
    # rename a method that other files call and change a base class
    text = (project_root / "pkg/core.py").read_text()
    text = text.replace("def run(self)", "def start(self)").replace("class Engine(Base)", "class Engine")
    (project_root / "pkg/core.py").write_text(text)
    result = index_repository(project_root, workers=1)
    assert result.parsed == 1
    assert_same_as_full(project_root, tmp_path / "full")


def test_delete_file_equals_full(project_root, tmp_path):
    (project_root / "util.py").unlink()
    result = index_repository(project_root, workers=1)
    assert (result.parsed, result.removed) == (0, 1)
    assert_same_as_full(project_root, tmp_path / "full")


def test_rename_file_equals_full(project_root, tmp_path):
    (project_root / "pkg/extra.py").rename(project_root / "pkg/widgets.py")
    result = index_repository(project_root, workers=1)
    assert (result.parsed, result.removed) == (1, 1)
    assert_same_as_full(project_root, tmp_path / "full")


def test_adding_package_init_renames_modules(tmp_path):
    """Adding an __init__.py changes the names every module below it is importable by."""
    root = write_tree(tmp_path / "repo", {
        "pkg/sub/__init__.py": "",
        "pkg/sub/deep.py": "def helper():\n    return 1\n",
        "app.py": "import sub.deep\n\ndef main():\n    sub.deep.helper()\n",
    })
    index_repository(root, workers=1)
    write_tree(root, {"pkg/__init__.py": ""})
    index_repository(root, workers=1)
    assert_same_as_full(root, tmp_path / "full")
    (root / "pkg/__init__.py").unlink()
    index_repository(root, workers=1)
    assert_same_as_full(root, tmp_path / "full")


def test_attribute_type_defined_in_another_class(tmp_path):
    """`e.tool.run()` depends on the type Engine gives `self.tool`, and on what that type's name
    means: when Widget stops being ambiguous, the call resolves, though the caller never names Widget."""
    root = write_tree(tmp_path / "repo", {
        "y.py": "from z import Engine\n\ndef main():\n    e = Engine()\n    e.tool.run()\n",
        "z.py": "class Engine:\n    def __init__(self):\n        self.tool = Widget()\n",
        "k.py": "from z import Engine\n\nclass Holder:\n    def __init__(self):\n        self.engine = Engine()\n",
        "x.py": "from k import Holder\n\ndef main():\n    h = Holder()\n    h.engine.tool.run()\n",
        "w1.py": "class Widget:\n    def run(self):\n        pass\n",
        "w2.py": "class Widget:\n    pass\n",
        "other.py": "class Other:\n    def run(self):\n        pass\n",
    })
    index_repository(root, workers=1)
    (root / "w2.py").unlink()
    index_repository(root, workers=1)
    assert_same_as_full(root, tmp_path / "full")
    edges = index_tables(root)["edges"]
    assert ("y.py::main", "w1.py::Widget.run", "calls", "inferred", 0.8, 5, "y.py") in edges
    assert ("x.py::main", "w1.py::Widget.run", "calls", "inferred", 0.8, 5, "x.py") in edges
    write_tree(root, {"w2.py": "class Widget:\n    pass\n"})
    index_repository(root, workers=1)
    assert_same_as_full(root, tmp_path / "full")


def test_noop_run_parses_nothing_and_keeps_generation(project_root):
    conn = store.connect(store.index_path(project_root), readonly=True)
    before = store.generation(conn)
    conn.close()
    result = index_repository(project_root, workers=1)
    assert result.parsed == 0 and result.removed == 0
    assert result.generation == before


def test_a_noop_run_writes_nothing(tmp_path):
    """Once no file is within the racy window of the last scan, a run that finds nothing new, gone
    or changed leaves the index file and its log as they were (their change times included), so
    `graphctx index` right after it needs no quick_check either; one that finds a new skip or a
    touched file writes again."""
    root = write_tree(tmp_path / "repo", render(starting_project()))
    past = time.time_ns() - 60_000_000_000
    for path in root.rglob("*.py"):
        os.utime(path, ns=(past, past))
    index_repository(root, workers=1, verify=True)
    db_path = store.index_path(root)
    before = checked.state(db_path)
    for _ in range(2):
        result = index_repository(root, workers=1, verify=True)
        assert (result.parsed, result.generation) == (0, 1)
        assert checked.state(db_path) == before and checked.unchanged(db_path)
    write_tree(root, {"logo.png": "not really a picture"})  # skipped by its name: a new skip to record
    os.utime(root / "logo.png", ns=(past, past))
    index_repository(root, workers=1)
    assert checked.state(db_path) != before
    conn = store.connect(db_path, readonly=True)
    assert ("logo.png", "binary format") in [row[:2] for row in reads.skipped(conn)]
    conn.close()


def test_touch_without_change_parses_nothing(project_root):
    before = index_tables(project_root)
    generation = index_repository(project_root, workers=1).generation
    path = project_root / "util.py"
    st_ = path.stat()
    os.utime(path, ns=(st_.st_atime_ns, st_.st_mtime_ns + 5_000_000_000))
    result = index_repository(project_root, workers=1)
    assert result.parsed == 0
    assert result.generation == generation
    assert index_tables(project_root)["edges"] == before["edges"]
    # and the next run does not even read it again: the new mtime was remembered
    conn = store.connect(store.index_path(project_root), readonly=True)
    (mtime,) = conn.execute("SELECT mtime_ns FROM files WHERE path='util.py'").fetchone()
    conn.close()
    assert mtime == path.stat().st_mtime_ns


def test_same_size_edit_within_the_same_clock_tick_is_seen(project_root, tmp_path):
    """An edit that keeps the size and lands on the same mtime (coarse file-system clocks) must
    still be picked up: a stat match alone cannot prove a file recorded right after it was
    written is unchanged."""
    path = project_root / "util.py"
    st_ = path.stat()
    text = path.read_text()
    path.write_text(text.replace("def load(", "def lowd("))
    os.utime(path, ns=(st_.st_atime_ns, st_.st_mtime_ns))
    assert path.stat().st_size == st_.st_size
    result = index_repository(project_root, workers=1)
    assert result.parsed == 1
    assert_same_as_full(project_root, tmp_path / "full")


def test_file_that_becomes_skipped_leaves_the_index(project_root, tmp_path):
    """A file that turns binary, or grows over max_file_bytes, is dropped like a deleted file."""
    (project_root / "util.py").write_bytes(b"\0\1\2 not source any more")
    write_tree(project_root, {".graphctx/config.toml": "[index]\nmax_file_bytes = 400\n"})
    (project_root / "pkg/extra.py").write_text((project_root / "pkg/extra.py").read_text() + "# padding\n" * 60)
    result = index_repository(project_root, workers=1)
    assert result.removed == 2
    paths = {row[0] for row in index_tables(project_root)["files"]}
    assert "util.py" not in paths and "pkg/extra.py" not in paths
    scratch = tmp_path / "full"
    shutil.copytree(project_root, scratch, ignore=shutil.ignore_patterns("index.db*"))
    index_repository(scratch, full=True, workers=1)
    for table in ("entities", "edges"):
        assert index_tables(project_root)[table] == index_tables(scratch)[table]


def test_changing_a_base_re_resolves_users_of_grandchildren(tmp_path):
    """C(A) becomes C(B): a file that names only D(C) resolves d.m() through the new base."""
    root = write_tree(tmp_path / "repo", {
        "bases.py": "class A:\n    def m(self):\n        pass\n\n\nclass B:\n    def m(self):\n        pass\n",
        "mid.py": "from bases import A, B\n\n\nclass C(A):\n    pass\n",
        "leaf.py": "from mid import C\n\n\nclass D(C):\n    pass\n",
        "user.py": "from leaf import D\n\n\ndef go():\n    D().m()\n",
    })
    index_repository(root, workers=1)
    (root / "mid.py").write_text("from bases import A, B\n\n\nclass C(B):\n    pass\n")
    index_repository(root, workers=1)
    assert_same_as_full(root, tmp_path / "full")


def test_an_attribute_typed_in_a_base_follows_its_change(tmp_path):
    """self.conn set in the base's __init__ types sub.conn in another file; a change of its class there re-resolves."""
    root = write_tree(tmp_path / "repo", {
        "conns.py": "class Conn:\n    def send(self):\n        pass\n\n\nclass Other:\n    def send(self):\n        pass\n",
        "base.py": "from conns import Conn, Other\n\n\nclass Base:\n    def __init__(self):\n        self.conn = Conn()\n",
        "sub.py": "from base import Base\n\n\nclass Sub(Base):\n    pass\n",
        "user.py": "from sub import Sub\n\n\ndef go():\n    Sub().conn.send()\n",
    })
    index_repository(root, workers=1)
    (root / "base.py").write_text("from conns import Conn, Other\n\n\nclass Base:\n    def __init__(self):\n        self.conn = Other()\n")
    index_repository(root, workers=1)
    assert_same_as_full(root, tmp_path / "full")


def test_a_kept_table_and_connection_follow_the_index_file(project_root, tmp_path):
    """A keeper holds the last run's table and open connection; when another process replaces the
    index file meanwhile, the next run through the keeper writes the new file, not the old one."""
    keeper = TableKeeper()
    index_repository(project_root, workers=1, keeper=keeper)
    store.remove(store.index_path(project_root))
    index_repository(project_root, workers=1)  # a fresh file, written without the keeper
    write_tree(project_root, {"helpers.py": "from pkg import Engine\n\ndef go():\n    return Engine().run()\n"})
    result = index_repository(project_root, workers=1, keeper=keeper)
    keeper.clear()
    assert (result.parsed, result.generation) == (1, 2)
    assert_same_as_full(project_root, tmp_path / "full")
    assert snapshot_matches_rows(project_root)


def test_what_a_keeper_keeps_is_frozen_out_of_the_collector_until_it_is_cleared(project_root, tmp_path):
    """A kept run freezes the objects alive (the kept table among them) out of the cycle collector's
    passes, so an edit does not walk them; clearing the keeper thaws them, and the edits made
    meanwhile still equal a full rebuild."""
    gc.unfreeze()
    keeper = TableKeeper()
    write_tree(project_root, {"helpers.py": "from pkg import Engine\n\ndef go():\n    return Engine().run()\n"})
    assert index_repository(project_root, workers=1, keeper=keeper).parsed == 1
    frozen = gc.get_freeze_count()
    assert frozen > 0
    write_tree(project_root, {"helpers.py": "from pkg import Engine\n\ndef go():\n    return Engine().step()\n"})
    assert index_repository(project_root, workers=1, keeper=keeper).parsed == 1
    # (about as many: what else is alive varies with the files the edit resolved again and the answers worked out)
    assert gc.get_freeze_count() >= frozen * 0.9
    keeper.clear()
    assert gc.get_freeze_count() == 0
    assert_same_as_full(project_root, tmp_path / "full")


def test_a_kept_scope_that_binds_everything_of_a_changed_module_is_not_used_again(tmp_path):
    """`from a import *` binds every name of a; a file reading such a scope kept from an earlier
    run would miss what a defines since. Through a keeper, an edit that gives a a new function
    that c imports through b equals a full rebuild."""
    root = write_tree(tmp_path / "repo", {
        "a.py": "def f():\n    return 1\n",
        "b.py": "from a import *\n",
        "c.py": "from b import f, g\n\ndef main():\n    return f() + g()\n",
    })
    keeper = TableKeeper()
    index_repository(root, workers=1, keeper=keeper)
    write_tree(root, {"c.py": "from b import f, g\n\ndef main():\n    return g() + f()\n"})
    index_repository(root, workers=1, keeper=keeper)  # c resolved again: b's scope made, and kept
    write_tree(root, {"a.py": "def f():\n    return 1\n\ndef g():\n    return 2\n"})
    index_repository(root, workers=1, keeper=keeper)
    keeper.clear()
    assert_same_as_full(root, tmp_path / "full")
    calls = {(s, t) for s, t, k, *_ in index_tables(root)["edges"] if k == "calls"}
    assert ("c.py::main", "a.py::g") in calls


def test_a_method_that_becomes_a_property_re_resolves_its_readers(tmp_path):
    """Readers in another file that never call the method start calling it once it is a property."""
    shapes = "class Shape:\n    def area(self):\n        return 1\n"
    root = write_tree(tmp_path / "repo", {"shapes.py": shapes,
                                          "use.py": "from shapes import Shape\n\ndef total(s: Shape):\n    return s.area\n"})
    index_repository(root, workers=1)
    readers = "SELECT source, resolution FROM edges WHERE kind = 'calls' AND target = 'shapes.py::Shape.area'"
    assert query_index(root, readers) == []
    (root / "shapes.py").write_text(shapes.replace("    def area", "    @property\n    def area"))
    index_repository(root, workers=1)
    assert query_index(root, readers) == [("use.py::total", "inferred")]
    assert_same_as_full(root, tmp_path / "full")


def test_a_subclass_assigning_what_its_base_calls_re_resolves_the_base(tmp_path):
    """`self.step()` in a base calls what a subclass in another file assigns to `self.step`: changing
    that assignment re-resolves the base's file."""
    sub = "from base import Job\n\n\nclass Copy(Job):\n    def __init__(self):\n        self.step = self.{}\n\n" \
          "    def a(self):\n        pass\n\n    def b(self):\n        pass\n"
    root = write_tree(tmp_path / "repo", {"base.py": "class Job:\n    def run(self):\n        self.step()\n",
                                          "copy.py": sub.format("a")})
    index_repository(root, workers=1)
    called = "SELECT target FROM edges WHERE kind = 'calls' AND source = 'base.py::Job.run'"
    assert query_index(root, called) == [("copy.py::Copy.a",)]
    (root / "copy.py").write_text(sub.format("b"))
    index_repository(root, workers=1)
    assert query_index(root, called) == [("copy.py::Copy.b",)]
    assert_same_as_full(root, tmp_path / "full")


def test_a_stub_that_gains_a_body_or_an_override_re_resolves_its_callers(tmp_path):
    """`self.send()` in a mixin whose send is a stub calls the subclasses' send; giving the stub a body,
    or a new subclass overriding it, changes that in files that never name the subclass."""
    base = "class Mixin:\n    def send(self):\n        {}\n\n    def go(self):\n        self.send()\n"
    root = write_tree(tmp_path / "repo", {"base.py": base.format("..."),
                                          "one.py": "from base import Mixin\n\n\nclass One(Mixin):\n    def send(self):\n        pass\n",
                                          "user.py": "from base import Mixin\n\n\ndef use(m: Mixin):\n    m.send()\n"})
    index_repository(root, workers=1)
    called = "SELECT target FROM edges WHERE kind = 'calls' AND source = 'base.py::Mixin.go' ORDER BY target"
    used = "SELECT target FROM edges WHERE kind = 'calls' AND source = 'user.py::use' ORDER BY target"
    assert query_index(root, called) == query_index(root, used) == [("one.py::One.send",)]
    (root / "two.py").write_text("from base import Mixin\n\n\nclass Two(Mixin):\n    def send(self):\n        pass\n")
    index_repository(root, workers=1)
    assert query_index(root, called) == [("one.py::One.send",), ("two.py::Two.send",)]
    assert_same_as_full(root, tmp_path / "full")
    (root / "base.py").write_text(base.format("print(1)"))
    index_repository(root, workers=1)
    assert query_index(root, called) == query_index(root, used) == [("base.py::Mixin.send",)]
    assert_same_as_full(root, tmp_path / "full2")
