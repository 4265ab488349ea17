"""Properties and lambdas as users meet them: from the CLI in a subprocess (`show`, `file`, `impact`,
`session`, `search`, `context`) and over MCP with a real client (`get_context`, `get_file_context`, `get_impact`), on a
small repository indexed for real. A property's readers are its callers; a lambda is in the call
graph but in no outline, file listing or session map, and its enclosing function is what a change
of the code it calls puts at stake."""

from __future__ import annotations

import json
import textwrap

import anyio
import pytest
from mcp import Client

from conftest import run_graphctx, write_tree
from graphctx.index.indexer import index_repository
from graphctx.models import ANONYMOUS_MARK
from graphctx.server import build_server

FILES = {
    "shapes.py": """
        class Shape:
            @property
            def area(self):
                return compute(self)

            @area.setter
            def area(self, value):
                pass


        def compute(shape):
            return 1
    """,
    "report.py": """
        from shapes import Shape, compute


        def total(shapes: list, s: Shape):
            s.area = 2
            return sum(s.area for _ in shapes)


        def sizes(shapes):
            return sorted(shapes, key=lambda x: compute(x))
    """,
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = write_tree(tmp_path_factory.mktemp("props") / "repo",
                      {path: textwrap.dedent(text).lstrip() for path, text in FILES.items()})
    index_repository(root, workers=1)
    return root


def cli_json(repo, *args):
    proc = run_graphctx(*args, "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def calls(edges: list[dict], end: str) -> set[tuple[str, str]]:
    return {(e[end], e["resolution"]) for e in edges if e["kind"] == "calls"}


def test_show_lists_a_propertys_readers_and_writers_as_callers(repo):
    getter = cli_json(repo, "show", "Shape.area")
    setter = cli_json(repo, "show", "shapes.py::Shape.area.setter")
    assert getter["entity"]["signature"] == "@property def area(self)"
    assert calls(getter["incoming"], "source") == {("report.py::total", "inferred")}
    assert calls(setter["incoming"], "source") == {("report.py::total", "inferred")}
    assert calls(getter["outgoing"], "target") == {("shapes.py::compute", "exact")}  # the getter's own call


def test_file_lists_no_lambda_and_impact_names_the_function_holding_it(repo):
    listed = json.dumps(cli_json(repo, "file", "report.py"))
    assert "sizes" in listed and "<lambda" not in listed
    impact = cli_json(repo, "impact", "compute")
    ids = [item["id"] for item in impact["items"]]
    assert "report.py::sizes" in ids and not any("<lambda" in i for i in ids)
    assert "shapes.py::Shape.area" in ids  # a getter calling it is at stake too
    session = json.dumps(cli_json(repo, "session"))
    assert "<lambda" not in session
    assert [hit["id"] for hit in cli_json(repo, "search", "sizes")["hits"]] == ["report.py::sizes"]
    assert [hit["id"] for hit in cli_json(repo, "search", "sizes", "--kind", "lambda")["hits"]] == \
        ["report.py::sizes.<lambda1>"]


def test_context_names_the_function_holding_a_lambda(repo):
    answer = cli_json(repo, "context", "compute")
    relations = {item["id"]: item["relation"] for item in answer["items"]}
    assert relations.get("report.py::sizes") == "called-by" and not any("<lambda" in i for i in relations)
    own = cli_json(repo, "context", "report.py::sizes.<lambda1>")  # asked for, a lambda is the root
    assert own["items"][0]["id"] == "report.py::sizes.<lambda1>"


def test_the_lambda_is_an_entity_with_its_calls(repo):
    lam = cli_json(repo, "show", "report.py::sizes.<lambda1>")
    assert lam["entity"]["kind"] == "lambda" and lam["entity"]["signature"] == "lambda x"
    assert ANONYMOUS_MARK in lam["entity"]["id"]  # ranking finds lambdas among what it reaches by this mark
    assert calls(lam["outgoing"], "target") == {("shapes.py::compute", "import")}
    assert calls(lam["incoming"], "source") == {("report.py::sizes", "inferred")}  # handed to sorted


def test_over_mcp_the_file_outline_hides_lambdas_and_context_has_the_readers(repo):
    server = build_server(repo)

    async def go():
        async with Client(server) as client:
            outline = await client.call_tool("get_file_context", {"file": "report.py", "format": "json"})
            context = await client.call_tool("get_context", {"entity": "Shape.area", "format": "json"})
            return outline, context

    try:
        outline, context = anyio.run(go)
    finally:
        server.graphctx_state.fresh.stop()
    assert not outline.is_error and not context.is_error
    outline_ids = [item["id"] for item in outline.structured_content["items"]]
    assert "report.py::sizes" in outline_ids and not any("<lambda" in i for i in outline_ids)
    context_ids = [item["id"] for item in context.structured_content["items"]]
    assert "report.py::total" in context_ids
