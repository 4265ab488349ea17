"""TypeScript and JavaScript imports that name the repository without a relative path: the paths a
tsconfig.json or jsconfig.json maps (`@/lib/util`, `baseUrl`), and the repository's own packages in
a workspace (`@acme/utils`, its subpaths, a built entry read as its source). Other packages stay
external."""

from __future__ import annotations

import pytest

from conftest import edges_from, full_build_tables, index_tables, indexed_edges, write_tree

TSCONFIG = """{
  // comments and trailing commas, as tsc allows
  "extends": "./tsconfig.base.json",
  "compilerOptions": {
    "strict": true, /* "paths" below */
    "paths": { "@/*": ["./src/*"], "~config": ["./src/config/index.ts"], },
  },
}
"""
PROJECT = {
    "web/tsconfig.base.json": '{"compilerOptions": {"target": "es2022"}}',
    "web/tsconfig.json": TSCONFIG,
    "web/src/lib/util.ts": "export function slugify(text: string) { return text; }\n",
    "web/src/config/index.ts": "export function settings() { return {}; }\n",
    "web/src/pages/home.ts": (
        'import { slugify } from "@/lib/util";\nimport { settings } from "~config";\nimport React from "react";\n'
        'import { formatPrice } from "@acme/utils";\nimport { upper } from "@acme/utils/strings";\n'
        'import { Button } from "@acme/ui/button";\nimport { gone } from "./gone";\nimport { api } from "@/generated/api";\n\n'
        "export function render() {\n  settings();\n  React.createElement('div');\n  Button();\n  gone();\n  api();\n"
        "  return upper(slugify(formatPrice(1)));\n}\n"),
    "legacy/jsconfig.json": '{"compilerOptions": {"baseUrl": "src"}}',
    "legacy/src/helpers/dates.js": "export function today() { return 1; }\n",
    "legacy/src/app.js": 'import { today } from "helpers/dates";\nimport { log } from "#internal/log";\n\n'
                         "export function main() {\n  log();\n  return today();\n}\n",
    "legacy/package.json": '{"name": "legacy", "imports": {"#internal/*": "./src/internal/*.js"}}',
    "legacy/src/internal/log.js": "export function log() { return 0; }\n",
    "packages/utils/package.json": '{"name": "@acme/utils", "main": "dist/index.js", "types": "dist/index.d.ts"}',
    "packages/utils/src/index.ts": "export function formatPrice(cents: number) { return String(cents); }\n",
    "packages/utils/src/strings.ts": "export function upper(text: string) { return text.toUpperCase(); }\n",
    "packages/ui/package.json": '{"name": "@acme/ui", "exports": {"./button": {"import": "./components/button/index.tsx"}}}',
    "packages/ui/components/button/index.tsx": "export function Button() { return null; }\n",
    "package.json": '{"name": "acme", "private": true, "workspaces": ["packages/*", "web", "legacy"]}',
    # a fixture named like a real package, outside the workspace: `react` stays the library
    "tests/fixtures/react/package.json": '{"name": "react", "main": "index.js"}',
    "tests/fixtures/react/index.js": "export default { createElement() { return 1; } };\n",
}


@pytest.fixture(scope="module")
def edges(tmp_path_factory):
    return indexed_edges(tmp_path_factory, "js-paths", PROJECT)


def calls(edges, source: str) -> set[tuple[str, str]]:
    return edges_from(edges, source, "calls")


def test_paths_mapped_by_the_tsconfig_and_workspace_packages_are_the_repository(edges):
    assert calls(edges, "web/src/pages/home.ts::render") == {
        ("web/src/lib/util.ts::slugify", "import"),  # "@/*": ["./src/*"]
        ("web/src/config/index.ts::settings", "import"),  # an exact pattern
        ("packages/utils/src/index.ts::formatPrice", "import"),  # main: dist/index.js, built from src/index.ts
        ("packages/utils/src/strings.ts::upper", "import"),  # a subpath of the package, under its src/
        ("packages/ui/components/button/index.tsx::Button", "import"),  # a subpath its exports map
        ("ext:react.React.createElement", "external"),  # a package the repository does not hold
        ("ext:gone.gone", "unresolved"),  # a relative path to no file: the repository's, missing
        ("ext:@.generated.api.api", "unresolved"),  # a mapped path to no file (generated, say)
    }


def test_a_base_url_and_subpath_imports_map_bare_paths(edges):
    assert calls(edges, "legacy/src/app.js::main") == {("legacy/src/helpers/dates.js::today", "import"),
                                                       ("legacy/src/internal/log.js::log", "import")}  # package.json imports


def test_the_imports_are_file_edges(edges):
    imported = {target for source, target, kind, _ in edges if source == "web/src/pages/home.ts" and kind == "imports"}
    assert {"web/src/lib/util.ts::slugify", "packages/utils/src/strings.ts::upper"} <= imported


# ---- an edit to what configures modules binds every file's imports again, as a full build would

@pytest.mark.parametrize("kept", [True, False], ids=["kept table", "new process"])
@pytest.mark.parametrize("edit", ["tsconfig paths", "package name", "workspaces"])
def test_an_edit_to_a_module_config_resolves_as_a_full_build(tmp_path, kept, edit):
    from graphctx import Project

    files = dict(PROJECT)
    files["web/tsconfig.json"] = '{"compilerOptions": {}}'  # no paths yet: "@/lib/util" is a package
    root = write_tree(tmp_path / "repo", files)
    project = Project(root, find=False, ephemeral=kept)
    project.index()
    if edit == "tsconfig paths":
        (root / "web/tsconfig.json").write_text(TSCONFIG, encoding="utf-8")
        before, after = "ext:@.lib.util.slugify", "web/src/lib/util.ts::slugify"
    elif edit == "workspaces":  # the packages folder leaves the workspace
        (root / "package.json").write_text('{"name": "acme", "workspaces": ["web", "legacy"]}', encoding="utf-8")
        before, after = "packages/utils/src/index.ts::formatPrice", "ext:@acme.utils.formatPrice"
    else:
        (root / "packages/utils/package.json").write_text('{"name": "@acme/strings", "main": "dist/index.js"}',
                                                          encoding="utf-8")
        before, after = "packages/utils/src/index.ts::formatPrice", "ext:@acme.utils.formatPrice"
    first = {target for source, target, *_ in index_tables(root)["edges"] if source == "web/src/pages/home.ts::render"}
    assert before in first and after not in first
    (project if kept else Project(root, find=False)).index()
    incremental, full = index_tables(root), full_build_tables(root, tmp_path / "full")
    assert incremental["edges"] == full["edges"]
    assert after in {target for source, target, *_ in incremental["edges"] if source == "web/src/pages/home.ts::render"}
