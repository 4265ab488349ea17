"""The layering, checked from the source with `ast`: adapters reach the library only through
Project, the models and the errors; no process-wide cache keyed by a repository lives outside
Project; SQL is spoken only by the index store, the records' own database and the team store; and modules stay
small, each saying its job."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "graphctx"
ADAPTERS = ("cli", "server", "bench")
# What an adapter may import from graphctx: the library face, the shared vocabulary and the ground
# floor every layer may use (README, Architecture), and the adapters themselves (`graphctx serve` and
# `graphctx bench` are CLI commands).
ADAPTER_MAY_IMPORT = (
    "graphctx.project", "graphctx.models", "graphctx.errors",
    "graphctx.text", "graphctx.layout", "graphctx.deadline", "graphctx.inputs",
    *(f"graphctx.{adapter}" for adapter in ADAPTERS),
)
MAX_MODULE_LINES = 400
SQL_MODULES = ("index/store/", "records/", "teamstore/")
SQL_METHODS = {"execute", "executemany", "executescript"}
# Process-wide caches that do not depend on a repository: compiled grammar queries, keyed by language.
NOT_PER_REPOSITORY = {("graphctx/parse/extract.py", "_ERRORS")}
EMPTY_CONTAINERS = {"dict", "list", "set", "defaultdict", "OrderedDict", "WeakValueDictionary", "WeakKeyDictionary"}


def modules(*folders: str) -> list[Path]:
    roots = [PACKAGE / folder for folder in folders] if folders else [PACKAGE]
    return sorted(path for root in roots for path in root.rglob("*.py"))


def name(path: Path) -> str:
    return path.relative_to(PACKAGE.parent).as_posix()


def graphctx_imports(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, module) of every import of a graphctx module; `from graphctx import x` counts as graphctx.x."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if alias.name.split(".")[0] == "graphctx"]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "graphctx":
            if node.module == "graphctx":
                found += [(node.lineno, "graphctx.project" if alias.name == "Project" else f"graphctx.{alias.name}")
                          for alias in node.names]
            else:
                found.append((node.lineno, node.module))
    return found


def allowed(module: str, rules: tuple[str, ...]) -> bool:
    return any(module == rule or module.startswith(rule + ".") for rule in rules)


def test_adapters_import_only_project_models_and_errors():
    offending = [
        f"{name(path)}:{line} imports {module}"
        for path in modules(*ADAPTERS)
        for line, module in graphctx_imports(ast.parse(path.read_text(encoding="utf-8")))
        if not allowed(module, ADAPTER_MAY_IMPORT)
    ]
    assert not offending, "adapters must go through Project, models and errors:\n" + "\n".join(offending)


def module_level_caches(tree: ast.Module) -> list[tuple[int, str]]:
    """Module-level names bound to an empty mutable container (filled at run time: a cache) or to an
    instance of a class named like a cache or a store."""
    found = []
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        empty_display = (isinstance(value, ast.Dict) and not value.keys) or (
            isinstance(value, (ast.List, ast.Set)) and not value.elts)
        called = value.func.attr if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) else (
            value.func.id if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) else "")
        empty_call = called in EMPTY_CONTAINERS and not (called in {"dict", "list", "set"} and value.args)
        cache_instance = called.endswith(("Cache", "Store", "Registry"))
        if empty_display or empty_call or cache_instance:
            found += [(node.lineno, ast.unparse(target)) for target in targets]
    return found


def test_no_process_wide_cache_outside_project():
    offending = [
        f"{name(path)}:{line} {target}"
        for path in modules()
        for line, target in module_level_caches(ast.parse(path.read_text(encoding="utf-8")))
        if (name(path), target) not in NOT_PER_REPOSITORY
    ]
    assert not offending, "state shared by a process belongs to a Project, not a module:\n" + "\n".join(offending)


def test_the_cache_check_finds_what_it_looks_for():
    caught = module_level_caches(ast.parse(
        "GRAPHS = GraphCache()\n_stores: dict[Path, RecordStore] = {}\nseen = set()\nKINDS = {'a': 1}\n"))
    assert [target for _, target in caught] == ["GRAPHS", "_stores", "seen"]


def test_only_the_index_store_and_the_records_speak_sql():
    offending = [
        f"{name(path)}:{node.lineno} calls {node.func.attr}()"
        for path in modules()
        if not path.relative_to(PACKAGE).as_posix().startswith(SQL_MODULES)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SQL_METHODS
    ]
    assert not offending, "SQL on index.db belongs in graphctx/index/store/:\n" + "\n".join(offending)


def test_modules_are_small_and_say_their_job():
    too_long = [f"{name(path)}: {n} lines" for path in modules()
                if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES]
    silent = [name(path) for path in modules()
              if path.read_text(encoding="utf-8").strip() and ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) is None]
    assert not too_long, f"split these by job (at most {MAX_MODULE_LINES} lines):\n" + "\n".join(too_long)
    assert not silent, "start each module with a docstring saying its one job:\n" + "\n".join(silent)
