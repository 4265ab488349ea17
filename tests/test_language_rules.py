"""The language rules registry: every parsed language has rules, the code outside the rules never
branches on a language's name, and what the rules say reaches the index (Go modules, test files),
the free-text seeds (a frame in every parsed extension, from the library and the CLI) and the
onboarding packet (manifests, read in registry order)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import write_tree
from graphctx.context import seeds
from graphctx.context.intents import policy_for
from graphctx.graph.loader import GraphCache
from graphctx.index.indexer import index_repository
from graphctx.index.languages import DEFAULT_RULES, RULES, read_manifests, rules_for
from graphctx.index import naming
from graphctx.parse.languages import LANGUAGES, family, source_extensions
from test_cli import graphctx

PACKAGE = Path(__file__).parent.parent / "graphctx"
FAMILY_BRANCH = re.compile(r'famil(y|)\s*(==|!=)\s*"|fam (==|!=) "|lang(uage)? (==|!=) "')

# A function `f<n>` on line 2 of a file, in each parsed language's syntax.
SOURCES = {
    "python": "# one\ndef f{n}():\n    return 1\n",
    "javascript": "// one\nfunction f{n}() {{\n  return 1;\n}}\n",
    "typescript": "// one\nfunction f{n}(): number {{\n  return 1;\n}}\n",
    "tsx": "// one\nfunction f{n}(): number {{\n  return 1;\n}}\n",
    "go": "package p\nfunc F{n}() int {{\n\treturn 1\n}}\n",
    "rust": "// one\nfn f{n}() -> i32 {{\n    1\n}}\n",
    "java": "class A{n} {{\n  int f{n}() {{\n    return 1;\n  }}\n}}\n",
    "c": "// one\nint f{n}(void) {{\n  return 1;\n}}\n",
    "cpp": "// one\nint f{n}() {{\n  return 1;\n}}\n",
    "csharp": "class A{n} {{\n  int f{n}() {{\n    return 1;\n  }}\n}}\n",
    "ruby": "# one\ndef f{n}\n  1\nend\n",
    "php": "<?php\nfunction f{n}() {{\n  return 1;\n}}\n",
    "kotlin": "// one\nfun f{n}(): Int {{\n  return 1\n}}\n",
    "swift": "// one\nfunc f{n}() -> Int {{\n  return 1\n}}\n",
    "scala": "// one\ndef f{n}(): Int = {{\n  1\n}}\n",
    "bash": "# one\nf{n}() {{\n  return 1\n}}\n",
    "lua": "-- one\nfunction f{n}()\n  return 1\nend\n",
}
# The qualified name of SOURCES' function, where it is not f{n}.
QUALIFIED = {"java": "A{n}.f{n}", "csharp": "A{n}.f{n}", "go": "F{n}"}


def test_every_parsed_language_has_its_family_rules():
    families = [rules.family for rules in RULES]
    assert len(families) == len(set(families)), "one rules object per family"
    for spec in LANGUAGES:
        rules = rules_for(spec.name)
        assert rules is not DEFAULT_RULES, f"{spec.name} has no rules object in graphctx/index/languages"
        assert rules.family == family(spec.name)
    assert rules_for("typescript") is rules_for("tsx") is rules_for("javascript")


def test_a_language_without_rules_gets_the_neutral_defaults():
    rules = rules_for("cobol")
    assert rules is DEFAULT_RULES
    assert rules.module_bindings("acme/billing/ledger", None) == (("ledger", "acme/billing/ledger"),)
    assert rules.module_bindings("acme/billing", "bill") == (("bill", "acme/billing"),)
    assert not rules.builtins and rules.submodule_spec("x") is None and rules.is_public("x", "function", str)


def test_the_index_and_context_layers_ask_the_rules_instead_of_branching_on_a_language():
    rules_folder = PACKAGE / "index" / "languages"
    branches = [
        f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
        for folder in (PACKAGE / "index", PACKAGE / "context")
        for path in sorted(folder.rglob("*.py")) if rules_folder not in path.parents
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if FAMILY_BRANCH.search(line)
    ]
    assert branches == []


def test_test_files_and_their_subjects_come_from_each_languages_rules():
    assert all(naming.is_test_file(p) for p in (
        "pkg/cart_test.go", "app/conftest.py", "src/cart.spec.tsx", "src/CartTest.java", "tests/anything.rs",
    ))
    assert not any(naming.is_test_file(p) for p in ("pkg/cart.go", "src/contest.py", "src/Testing.java", "src/cart.ts"))
    assert [naming.tested_stem(p) for p in ("a/test_cart.py", "a/cart_test.py", "a/cart_test.go", "a/cart.test.ts",
                                     "a/CartTests.java", "a/cart.rs")] == ["cart", "cart", "cart", "cart", "Cart", None]
    assert [naming.file_stem(p) for p in ("shop/__init__.py", "web/index.ts", "geo/mod.rs", "geo/lib.rs")] == [
        "shop", "web", "geo", "lib"]


def test_a_nested_go_module_owns_the_import_paths_below_its_module_path(tree):
    # lib/ is the module example.com/app/x: the root module's reading (folder x/util) names nothing.
    root = tree({
        "go.mod": "module example.com/app\n\ngo 1.22\n",
        "main.go": 'package main\n\nimport "example.com/app/x/util"\n\nfunc main() {\n\tutil.Help()\n}\n',
        "lib/go.mod": "module example.com/app/x\n\ngo 1.22\n",
        "lib/util/util.go": "package util\n\n// Help helps.\nfunc Help() int {\n\treturn 1\n}\n",
    })
    index_repository(root)
    out = json.loads(graphctx("show", "main.go::main", "--json", cwd=root).stdout)
    calls = {(e["target"], e["resolution"]) for e in out["outgoing"] if e["kind"] == "calls"}
    assert ("lib/util/util.go::Help", "import") in calls


def test_a_malformed_go_mod_module_line_is_skipped_not_fatal(tree):
    root = tree({
        "go.mod": "module \n",
        "cmd/main.go": 'package main\n\nimport "cmd/util"\n\nfunc main() {\n\tutil.Help()\n}\n',
        "cmd/util/util.go": "package util\n\nfunc Help() int {\n\treturn 1\n}\n",
    })
    result = index_repository(root)
    assert result.files == 3 and result.calls_resolved == 1  # no module declared: import paths name folders


@pytest.fixture(scope="module")
def every_extension(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A repository with one small file per parsed extension; returns it and {path: function id}."""
    files, functions = {}, {}
    for n, (ext, spec) in enumerate((ext, spec) for spec in LANGUAGES for ext in spec.extensions):
        path = f"src/m{n}{ext}"
        files[path] = SOURCES[spec.name].format(n=n)
        functions[path] = f"{path}::" + QUALIFIED.get(spec.name, "f{n}").format(n=n)
    root = write_tree(tmp_path_factory.mktemp("exts") / "repo", files)
    index_repository(root)
    return root, functions


def test_every_parsed_extension_is_a_language_with_rules():
    assert set(source_extensions()) == {ext for spec in LANGUAGES for ext in spec.extensions}
    assert {".mts", ".cts", ".cjs", ".pyi"} <= set(source_extensions())


def test_a_frame_or_path_in_every_parsed_extension_seeds_its_code(every_extension):
    root, functions = every_extension
    graph, conn = GraphCache(root).get(), GraphCache(root).connection()
    policy = policy_for("debug").seeds
    for path, function in functions.items():
        assert function in graph, f"{function} was not indexed"
        frame = seeds.from_text(graph, conn, f"crashed at /home/ci/build/{path}:3 while loading", policy)
        assert frame.reasons.get(function) == f"frame /home/ci/build/{path}:3", path
        named = seeds.from_text(graph, conn, f"the loader in {path} is slow", policy)
        assert named.reasons.get(path) == f"path {path}", path


def test_a_stack_frame_in_a_typescript_module_file_leads_the_cli_answer(every_extension):
    root, functions = every_extension
    path = next(p for p in functions if p.endswith(".mts"))
    proc = graphctx("intent", "debug", f"TypeError: x is undefined\n    at run ({path}:3:5)", "--json", cwd=root)
    items = json.loads(proc.stdout)["items"]
    assert {item["id"] for item in items[:2]} == {path, functions[path]}  # the file named, and the function at line 3
    assert all(item["score"] < items[1]["score"] / 10 for item in items[2:])


def test_manifests_are_read_in_registry_order_first_name_wins(tmp_path):
    write_tree(tmp_path, {
        "pyproject.toml": '[project]\nname = "kit"\ndescription = "Jobs."\n[project.scripts]\nkit = "kit.cli:run"\n',
        "package.json": json.dumps({"name": "kit-web", "description": "Web.", "bin": {"kit-web": "bin/web.js"},
                                    "main": "lib/index.js"}),
        "Cargo.toml": '[package]\nname = "kit-core"\n',
        "go.mod": "module example.com/kit\n",
    })
    found = read_manifests(tmp_path)
    assert (found.name, found.description) == ("kit", "Jobs.")
    assert found.scripts == {"kit": "kit.cli:run", "kit-web": "bin/web.js", "main": "lib/index.js"}
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "package.json").unlink()
    assert read_manifests(tmp_path).name == "kit-core"
    (tmp_path / "Cargo.toml").write_text("[package\n", encoding="utf-8")  # malformed: the next manifest speaks
    assert read_manifests(tmp_path).name == "example.com/kit"


def test_a_python_script_target_is_found_under_src(tree):
    root = tree({
        "pyproject.toml": '[project]\nname = "kit"\n[project.scripts]\nkit = "kit.cli:run [extra]"\n',
        "src/kit/__init__.py": "",
        "src/kit/cli.py": "def run():\n    return 0\n",
    })
    index_repository(root)
    proc = graphctx("session", "--json", cwd=root)
    assert any("kit -> src/kit/cli.py::run" in note for note in json.loads(proc.stdout)["notes"])
