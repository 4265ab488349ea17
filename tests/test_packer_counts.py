"""The packer remembers the token counts of the views it measured (and how far over a limit a refused
body went) on the graph, between answers: an answer from a project that has answered many others,
at any budget, is the answer a fresh project gives, to the byte, and stays within its budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import write_tree
from graphctx import Project
from graphctx.context.tokens import count
from graphctx.index.indexer import index_repository


def _function(name: str, lines: int, calls: list[str]) -> str:
    body = "".join(f"    {callee}()\n" for callee in calls)
    body += "".join(f"    total_{i} = {i} * {i} + len('{name}')  # step {i} of {name}\n" for i in range(lines))
    return f'def {name}():\n    """Compute {name}."""\n{body}    return 0\n'


FILES = {
    "pkg/core.py": "\n\n".join(_function(f"core_{i}", 3 + 17 * i, [f"core_{i - 1}"] if i else []) for i in range(8)),
    "pkg/shapes.py": "class Shape:\n    \"\"\"A shape.\"\"\"\n\n" + "\n".join(
        f"    def area_{i}(self):\n        \"\"\"Area {i}.\"\"\"\n        return core_{i % 8}() * {i}\n" for i in range(40)),
    "pkg/use.py": "from pkg.core import core_7\nfrom pkg.shapes import Shape\n\n\n"
                  + _function("use", 12, ["core_7", "Shape().area_3"]),
}


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    made = write_tree(tmp_path_factory.mktemp("counts"), FILES)
    index_repository(made)
    return made


QUERIES = ["pkg/core.py::core_7", "pkg/use.py::use", "pkg/shapes.py::Shape", "pkg/core.py::core_3"]
BUDGETS = [120, 300, 700, 1500, 4000, 450, 200, 2500]  # up and down: a remembered "over the limit" meets a larger one


def test_remembered_counts_give_the_answers_a_fresh_project_gives(root):
    with Project(root, find=False) as warm:
        for budget in BUDGETS:
            for query in QUERIES:
                answer, text = warm.context(query, token_budget=budget)
                with Project(root, find=False) as fresh:
                    _, expected = fresh.context(query, token_budget=budget)
                assert text == expected, (query, budget)
                assert count(text) == answer.tokens_used <= budget
        assert warm.graph.cache.get("view-tokens"), "the warm project remembered no view's count"
