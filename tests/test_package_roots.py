"""Two projects side by side whose packages share a name (services in a monorepo, copies of one
project): an absolute import reaches the package in the importer's own package root, the folder on
`sys.path` its own package is imported from, never the other project's; what is resolved by name
alone (an untyped call, a test file's name, a document's code span) means the nearest copy."""

from __future__ import annotations

import pytest

from conftest import edges_from, full_build_tables, index_tables, indexed_edges, write_tree
from graphctx.index.indexer import index_repository

SERVICE = {
    "app/__init__.py": "",
    "app/models.py": "class User:\n    def save(self):\n        return self\n",
    "app/views.py": "from app.models import User\nimport app.models\n\n\n"
                    "def create():\n    user = User()\n    return user.save()\n",
    # reaching a service's objects by name alone: a parameter of unknown type, a test file named after
    # the module it tests, a document naming a method
    "app/tasks.py": "def touch(user):\n    return user.save()\n",
    "tests/test_models.py": "def test_nothing():\n    assert True\n",
    "docs/models.md": "# Models\n\nA `User.save` stores the user.\n",
}
PROJECT = {
    **{f"services/billing/{path}": text for path, text in SERVICE.items()},
    **{f"services/shop/{path}": text for path, text in SERVICE.items()},
    "tools/report.py": "from app.models import User\n\n\ndef report():\n    return User()\n",
    "scripts/helpers.py": "def helper():\n    return 1\n",
    "scripts/run.py": "from helpers import helper\n\n\ndef main():\n    return helper()\n",
    "other/helpers.py": "def helper():\n    return 2\n",
    # a folder of examples that is no package, inside one service: run from that service
    "services/billing/examples/demo.py": "from app.models import User\n\n\ndef demo():\n    return User()\n",
    "README.md": "# Services\n\nEach service's `User.save` stores a user.\n",
    "services/billing/app/sync.py": "from services.shop.app import models as shop_models\n\n\n"
                                    "def sync(user):\n    return user.save()\n",
}


@pytest.fixture(scope="module")
def edges(tmp_path_factory):
    return indexed_edges(tmp_path_factory, "package-roots", PROJECT)



@pytest.mark.parametrize("service", ["billing", "shop"])
def test_an_import_reaches_the_package_beside_the_importer(edges, service):
    views = f"services/{service}/app/views.py"
    models = f"services/{service}/app/models.py"
    assert edges_from(edges, views, "imports") == {(f"{models}::User", "import"), (models, "import")}
    assert edges_from(edges, f"{views}::create", "calls") == {(f"{models}::User", "import"),
                                                           (f"{models}::User.save", "inferred")}


def test_a_script_imports_from_its_own_folder(edges):
    assert edges_from(edges, "scripts/run.py::main", "calls") == {("scripts/helpers.py::helper", "import")}


def test_an_importer_in_no_package_imports_from_the_nearest_folder_above_holding_one(edges):
    """examples/ is no package: its scripts are run from their service, as `shadowed` reads them."""
    models = "services/billing/app/models.py"
    assert edges_from(edges, "services/billing/examples/demo.py", "imports") == {(f"{models}::User", "import")}
    assert edges_from(edges, "services/billing/examples/demo.py::demo", "calls") == {(f"{models}::User", "import")}


def test_an_importer_beside_neither_package_names_every_one(edges):
    """tools/ sits beside neither service: which `app` it imports depends on how it is run."""
    found = edges_from(edges, "tools/report.py", "imports")
    assert {target for target, _ in found} == {"services/billing/app/models.py::User",
                                               "services/shop/app/models.py::User"}
    assert {resolution for _, resolution in found} == {"ambiguous"}
    calls = edges_from(edges, "tools/report.py::report", "calls")
    assert calls == {("services/billing/app/models.py::User", "ambiguous"), ("services/shop/app/models.py::User", "ambiguous")}


@pytest.mark.parametrize("service", ["billing", "shop"])
def test_a_call_of_unknown_type_reaches_its_own_projects_copy(edges, service):
    targets = {t for t, _ in edges_from(edges, f"services/{service}/app/tasks.py::touch", "calls")}
    assert targets == {f"services/{service}/app/models.py::User.save"}


def test_a_copy_this_file_imports_stays_a_candidate(edges):
    """billing's sync.py imports shop's models by their path from the repository's root: a user it
    is handed may be either service's."""
    targets = edges_from(edges, "services/billing/app/sync.py::sync", "calls")
    assert {t for t, _ in targets} == {"services/billing/app/models.py::User.save", "services/shop/app/models.py::User.save"}


@pytest.mark.parametrize("service", ["billing", "shop"])
def test_a_test_file_is_named_after_its_own_projects_module(edges, service):
    found = edges_from(edges, f"services/{service}/tests/test_models.py", "tests")
    assert found == {(f"services/{service}/app/models.py", "heuristic")}


def test_a_document_names_its_own_projects_copy_and_one_above_both_names_each(edges):
    section = next(source for source, _, kind, _ in edges if source.startswith("services/billing/docs/models.md") and kind == "references")
    assert {t for t, _ in edges_from(edges, section, "references")} == {"services/billing/app/models.py::User.save"}
    top = next(source for source, _, kind, _ in edges if source.startswith("README.md") and kind == "references")
    assert edges_from(edges, top, "references") == {("services/billing/app/models.py::User.save", "ambiguous"),
                                                     ("services/shop/app/models.py::User.save", "ambiguous")}


@pytest.mark.parametrize("kept", [True, False], ids=["kept table", "new process"])
@pytest.mark.parametrize("edit", ["a copy comes", "a copy goes", "a package marker goes"])
def test_a_copy_coming_or_going_resolves_as_a_full_build(tmp_path, kept, edit):
    """Shop's own models.py, even one defining nothing its callers name, hides billing's copy from
    shop's untyped calls and test files: its coming or going (or its package's) moves them."""
    from graphctx import Project

    files = dict(PROJECT)
    if edit == "a copy comes":
        del files["services/shop/app/models.py"]
    root = write_tree(tmp_path / "repo", files)
    project = Project(root, find=False, ephemeral=kept)
    project.index()
    touch_before = {t for s, t, k, *_ in index_tables(root)["edges"] if s == "services/shop/app/tasks.py::touch" and k == "calls"}
    if edit == "a copy comes":
        (root / "services/shop/app/models.py").write_text("# nothing here yet\n", encoding="utf-8")
    elif edit == "a copy goes":
        (root / "services/shop/app/models.py").unlink()
    else:
        (root / "services/shop/app/__init__.py").unlink()
    (project if kept else Project(root, find=False)).index()
    incremental, full = index_tables(root), full_build_tables(root, tmp_path / "full")
    assert incremental["edges"] == full["edges"]
    touch_after = {t for s, t, k, *_ in incremental["edges"] if s == "services/shop/app/tasks.py::touch" and k == "calls"}
    assert touch_before != touch_after


def _project(root: str, package: str, reach: str | None) -> dict[str, str]:
    """A package of 48 files under `root`, its own package root (three chunks of a worker's), whose
    calls need value flow; with `reach`, each file also calls through a function of that other
    package, so that its flows are asked again after a worker has let that package go."""
    files = {f"{root}/{package}/__init__.py": "",
             f"{root}/{package}/make.py": "class Engine:\n    def run(self):\n        return 1\n\n\n"
                                          "def build():\n    engine = Engine()\n    return engine\n"}
    other = f"from {reach}.make import build as theirs\n\n\n" if reach else ""
    tail = "\n\ndef far():\n    return theirs().run()\n" if reach else ""
    for i in range(48):
        files[f"{root}/{package}/use{i}.py"] = (f"{other}from {package}.make import build\n\n\n"
                                                f"def go():\n    made = build()\n    return made.run()\n{tail}")
    return files


def test_a_worker_letting_a_finished_project_go_finds_the_same_edges(tmp_path):
    """Two workers let go of what they worked out for a project once none of their later chunks holds
    its files; a later question that reaches it works it out again: the same edges as one process."""
    files = {**_project("one", "alpha", None), **_project("two", "beta", "alpha")}
    root = write_tree(tmp_path / "two", files)
    index_repository(root, full=True, workers=2)
    forked = index_tables(root)
    assert forked == full_build_tables(root, tmp_path / "one")
    assert ("two/beta/use40.py::far", "one/alpha/make.py::Engine.run", "calls", "inferred") in {
        row[:4] for row in forked["edges"]}


SCRIPTS = {
    "one/lib/__init__.py": "",
    "one/lib/core.py": "def make():\n    return 1\n",
    "two/lib/__init__.py": "",
    "two/lib/core.py": "def make():\n    return 2\n",
    "one/examples/run.py": "from lib.core import make\n\n\ndef main():\n    return make()\n",
}


@pytest.mark.parametrize("kept", [True, False], ids=["kept table", "new process"])
@pytest.mark.parametrize("edit", ["its copy goes", "its copy's package marker goes", "a nearer copy comes"])
def test_a_script_whose_nearest_copy_comes_or_goes_resolves_as_a_full_build(tmp_path, kept, edit):
    """examples/run.py imports `one`'s lib, the nearest above it: where that goes, `two`'s is the one
    left; a copy beside the script takes over from the one above it."""
    from graphctx import Project

    root = write_tree(tmp_path / "repo", SCRIPTS)
    project = Project(root, find=False, ephemeral=kept)
    project.index()
    before = {t for s, t, k, *_ in index_tables(root)["edges"] if s == "one/examples/run.py::main" and k == "calls"}
    assert before == {"one/lib/core.py::make"}
    if edit == "its copy goes":
        (root / "one/lib/core.py").unlink()
    elif edit == "its copy's package marker goes":
        (root / "one/lib/__init__.py").unlink()
    else:
        write_tree(root, {"one/examples/lib/__init__.py": "", "one/examples/lib/core.py": "def make():\n    return 3\n"})
    (project if kept else Project(root, find=False)).index()
    incremental, full = index_tables(root), full_build_tables(root, tmp_path / "full")
    assert incremental["edges"] == full["edges"]
    after = {t for s, t, k, *_ in incremental["edges"] if s == "one/examples/run.py::main" and k == "calls"}
    assert after != before
