"""session_init's map is the public API a newcomer needs: the entry point the manifest declares,
the `__all__` exports, the most imported modules and the most called public code; never private
helpers (however often called), private modules, nested helpers or test code. Checked on a small
Python project through the library, the CLI and MCP, and on the Go, Java and Rust fixtures for
their own visibility rules."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import anyio
import pytest
from mcp import Client

from conftest import write_tree
from graphctx import Project
from graphctx.context.tokens import count
from graphctx.index.indexer import index_repository
from graphctx.server import build_server
from test_cli import graphctx
from test_server import text_of

FIXTURES = Path(__file__).parent / "fixtures"

# Private helpers are the most called code here: a map ranked by calls alone would lead with them.
PROJECT = {
    "README.md": "# kit\n\nA job kit: plan jobs, build an engine, run them.\n",
    "pyproject.toml": '[project]\nname = "kit"\nversion = "1.0"\n[project.scripts]\nkit = "kit.cli:run"\n',
    "kit/__init__.py": '''"""The job kit."""
from kit.core import Engine, build
from kit._impl import Token

__all__ = ["Engine", "build", "Token"]
''',
    "kit/util.py": '''"""Small shared tools."""


def clean(text):
    """Trim a job name."""
    return text.strip()
''',
    "kit/core.py": '''"""Engines and plans."""
from kit.util import clean


def _prepare(job):
    return _normalize(clean(job))


def _normalize(job):
    return job.lower()


class Engine:
    """Runs jobs one by one."""

    def run(self, job):
        return _prepare(job)

    def _tune(self):
        return _normalize("x")


def build():
    """A ready engine."""
    return Engine()


def plan(jobs):
    """Order jobs for running."""
    def key(job):
        return _prepare(job)
    return sorted(jobs, key=key)


def schedule(jobs):
    return [_prepare(j) for j in plan(jobs)]


def report(jobs):
    return [_normalize(j) for j in plan(jobs)]
''',
    "kit/_impl.py": '''"""Internals."""
from kit.util import clean


class Token:
    """A job token."""

    def value(self):
        return _secret(clean("t"))


def _secret(value):
    return value


def impl_public(value):
    return _secret(value)
''',
    "kit/cli.py": '''"""The kit command."""
import sys

from kit.core import build, plan
from kit.util import clean


def run():
    """Run the jobs named on the command line."""
    engine = build()
    return [engine.run(clean(job)) for job in plan(sys.argv[1:])]
''',
    "tests/test_core.py": '''from kit.core import build, plan, _prepare


def test_everything():
    assert plan(["b", "a"]) == ["a", "b"]
    assert build().run("A") == _prepare("a")
''',
}


@pytest.fixture(scope="module")
def kit(tmp_path_factory) -> Path:
    root = write_tree(tmp_path_factory.mktemp("kit") / "kit", PROJECT)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    index_repository(root)
    return root


def mapped(root: Path, budget: int = 6000) -> dict[str, str]:
    """The map's entries, {id: why}, in rank order."""
    answer, _ = Project(root, find=False).session(token_budget=budget)
    return {item.id: item.relation for item in answer.items}


def test_the_map_leads_with_the_declared_entry_point_then_the_public_api(kit):
    found = mapped(kit)
    assert next(iter(found.items())) == ("kit/cli.py::run", "entry")
    exports = {"kit/core.py::Engine", "kit/core.py::build", "kit/_impl.py::Token"}
    assert {i for i, why in found.items() if why == "export"} == exports  # Token despite its private module
    assert found.get("kit/util.py") == "module"  # imported by three other files
    assert found.get("kit/core.py::plan") == "central"  # the most called public function
    assert "kit/core.py::Engine.run" in found


def test_the_map_leaves_out_private_nested_and_test_code(kit):
    found = mapped(kit)
    for private in ("kit/core.py::_prepare", "kit/core.py::_normalize", "kit/core.py::Engine._tune",
                    "kit/_impl.py::_secret", "kit/_impl.py::impl_public", "kit/core.py::plan.key"):
        assert private not in found, private
    assert not [i for i in found if i.startswith("tests/")]


def test_the_map_through_the_cli_and_mcp(kit):
    out = graphctx("session", "--budget", "1500", cwd=kit).stdout
    assert count(out.rstrip("\n")) <= 1500
    lines = [line for line in out.splitlines() if line.startswith("## ")]
    assert lines[0].startswith("## entry kit/cli.py::run function")
    assert "_prepare" not in out and "_normalize" not in out

    server = build_server(kit, watch=False)

    async def go():
        async with Client(server, mode="legacy") as client:
            return await client.call_tool("session_init", {"token_budget": 1200})

    try:
        text = text_of(anyio.run(go))
    finally:
        server.graphctx_state.fresh.stop()
    assert "## entry kit/cli.py::run" in text and "## export kit/core.py::Engine" in text and "_prepare" not in text


@pytest.mark.parametrize("language, public, private", [
    ("go", ["catalog/book.go::NewBook", "catalog/book.go::Book"], ["catalog/book.go::clip"]),
    ("java", ["src/main/java/com/example/library/Library.java::Library.lend"],
     ["src/main/java/com/example/library/Library.java::Library.notify"]),
])
def test_each_language_keeps_its_own_private_code_out(tmp_path, language, public, private):
    root = tmp_path / language
    shutil.copytree(FIXTURES / language, root)
    index_repository(root)
    found = mapped(root, budget=20_000)
    for entity_id in public:
        assert entity_id in found, entity_id
    for entity_id in private:
        assert Project(root, find=False).show(entity_id).entity.id == entity_id  # it exists, and is left out
        assert entity_id not in found, entity_id


def test_rust_items_without_pub_are_private(tmp_path):
    root = write_tree(tmp_path / "crate", {
        "Cargo.toml": '[package]\nname = "crate"\nversion = "0.1.0"\n',
        "src/lib.rs": "pub fn area(r: f64) -> f64 {\n    square(r) * 3.14\n}\n\nfn square(x: f64) -> f64 {\n    x * x\n}\n\n"
                      "pub fn volume(r: f64) -> f64 {\n    area(r) * square(r)\n}\n",
    })
    index_repository(root)
    found = mapped(root)
    assert "src/lib.rs::area" in found and "src/lib.rs::square" not in found
