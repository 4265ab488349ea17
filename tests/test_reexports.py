"""Names as people write them: a package's API through the package (`pkg.where` is the function its
__init__ imports from a submodule; an issue's `import pkg as p` makes `p.where` name it too), and a
method through a class that inherits it (`Frame.fill` is Base.fill)."""

from __future__ import annotations

import pytest

from conftest import indexed_tree
from graphctx import Project
from test_cli import graphctx

PROJECT = {
    "pkg/__init__.py": "from .core.compute import where\nfrom .client import Client\n",
    "pkg/core/__init__.py": "",
    "pkg/core/compute.py": "def where(cond, x, y):\n    return x if cond else y\n\n\n"
                           "def apply(func, value):\n    return func(value)\n",
    "pkg/client.py": "class Client:\n    def send(self, request):\n        return request\n",
    "pkg/base.py": "class Base:\n    def fill(self, value):\n        return value\n",
    "pkg/array.py": "from .base import Base\n\n\nclass Frame(Base):\n    def where(self, cond):\n        return self if cond else None\n\n"
                    "    def send(self, other):\n        return other\n",
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return indexed_tree(tmp_path_factory, "reexports", PROJECT)


@pytest.mark.parametrize("name,expected", [
    ("pkg.where", "pkg/core/compute.py::where"),  # imported by the package: not Frame.where
    ("pkg.Client.send", "pkg/client.py::Client.send"),  # a member of an imported class: not Frame.send
    ("pkg.core.compute.where", "pkg/core/compute.py::where"),  # where it is defined, as before
    ("Frame.fill", "pkg/base.py::Base.fill"),  # inherited
    ("pkg.array.Frame.fill", "pkg/base.py::Base.fill"),
])
def test_a_name_through_the_package_that_imports_it(repo, name, expected):
    assert Project(repo, find=False).show(name).entity.id == expected


def test_a_name_the_package_does_not_import_is_not_found(repo):
    out = graphctx("show", "pkg.apply", cwd=repo, check=False)
    assert out.returncode != 0 and "pkg.apply" in out.stderr


def test_the_context_command_takes_a_name_through_the_package(repo):
    assert "def where(cond, x, y)" in graphctx("context", "pkg.where", cwd=repo).stdout


def test_an_alias_the_text_imports_names_the_package(repo):
    project = Project(repo, find=False)
    text = "`p.where` drops the condition\n```python\nimport pkg as p\np.where(True, 1, 2)\n```"
    ranked = [entity for entity, _ in project.rank_text(text, limit=3)]
    assert ranked[0] == "pkg/core/compute.py::where" and "pkg/array.py::Frame.where" not in ranked
    unaliased = "`p.where` drops the condition"  # p is nothing known: any where, the function and the method
    assert {e for e, _ in project.rank_text(unaliased, limit=2)} == {"pkg/core/compute.py::where", "pkg/array.py::Frame.where"}
