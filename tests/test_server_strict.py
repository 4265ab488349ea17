"""Strict tool inputs over real MCP clients (in-process in both modes, and a stdio subprocess): an
unknown tool or argument is an error result naming it, the accepted ones and the closest match;
a value the schema refuses reads as one plain sentence with the fix, never a pydantic dump or a
URL; the published schemas say no other argument is accepted; good calls are unaffected."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client

from graphctx.server import build_server
from test_server import MODES, TOOLS, make_repo, stdio_params, text_of


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return make_repo(tmp_path_factory.mktemp("strict"))


@pytest.fixture(scope="module")
def server(repo):
    srv = build_server(repo, watch=False)
    yield srv
    srv.graphctx_state.fresh.stop()


def calls(target, batch: list[tuple[str, dict]], mode: str = "auto") -> list:
    async def go():
        async with Client(target, mode=mode) as client:
            return [await client.call_tool(name, args) for name, args in batch]

    return anyio.run(go)


def refusal(result) -> str:
    """The error text, checked to be plain: one line, no validation dump, no link."""
    assert result.is_error
    text = text_of(result)
    assert "\n" not in text and "pydantic" not in text.lower() and "http" not in text.lower(), text
    assert "validation error" not in text and "Input should" not in text and "type=" not in text, text
    return text


@pytest.mark.parametrize("mode", MODES)
def test_unknown_arguments_are_named_with_the_accepted_ones(server, mode):
    typo, future, two = calls(server, [
        ("search", {"query": "validate", "limt": 3}),
        ("get_context", {"entity": "create_item", "ticket": "T-1"}),
        ("get_impact", {"symbol": "Repo.save", "dept": 2, "colour": "red"}),
    ], mode)
    assert refusal(typo) == ("search has no argument 'limt' (did you mean 'limit'?); "
                             "it takes: query, kind, limit, mode, format, agent_id")
    text = refusal(future)
    assert text.startswith("get_context has no argument 'ticket'; it takes: mode, entity, file, depth, token_budget")
    assert "known_hash" in text and "(did you mean" not in text
    text = refusal(two)
    assert text.startswith("get_impact has no arguments 'dept' (did you mean 'depth'?), 'colour';")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tool, args, expect", [
    ("get_context", {"entity": "Repo", "token_budget": 5}, "token_budget must be between 100 and 100000; got 5"),
    ("get_context", {"entity": "Repo", "token_budget": 250.5},
     "token_budget must be a whole number between 100 and 100000; got 250.5"),
    ("get_context", {"entity": "Repo", "depth": "deep"}, 'depth must be a whole number between 0 and 6; got "deep"'),
    ("get_context", {"entity": 5}, "entity must be a string; got 5"),
    ("get_context", {"entity": "Repo", "include_inferred": "maybe"}, 'include_inferred must be true or false; got "maybe"'),
    ("get_context", {"mode": "contxt", "entity": "Repo"},
     "mode must be 'context', 'intent' or 'path'; got \"contxt\" (did you mean 'context'?)"),
    ("get_context", {"mode": "intent", "intent": "debgu", "target": "Repo"}, "(did you mean 'debug'?)"),
    ("search", {"query": "Repo", "kind": "klass"}, "kind must be 'file', 'class',"),
    ("search", {"query": None}, "query must be a string; got null"),
    ("get_file_context", {}, "file is required: a path inside the repository"),
    ("get_impact", {"files": "shop/service.py"}, 'files must be a list of strings; got "shop/service.py"'),
    ("get_impact", {"files": [7]}, "files[0] must be a string; got 7"),
    ("recall", {"min_confidence": 2}, "min_confidence must be between 0 and 1; got 2"),
    ("remember", {"entries": []}, "entries must have at least 1 item; got 0"),
    ("remember", {"entries": [{"titel": "x"}]}, "entries[0] has no field 'titel' (did you mean 'title'?); it takes: title,"),
    ("remember", {"entries": [{"title": "x", "confidence": 3}]}, "entries[0].confidence must be between 0 and 1; got 3"),
    ("revise", {"id": "x", "version": 1, "changes": {"status": "done"}}, "changes.status must be 'proposed', 'accepted',"),
    ("revise", {"id": "x", "version": 0, "changes": {"title": "y"}}, "version must be at least 1; got 0"),
])
def test_refused_values_read_as_one_sentence_with_the_fix(server, mode, tool, args, expect):
    (result,) = calls(server, [(tool, args)], mode)
    assert expect in refusal(result)


@pytest.mark.parametrize("mode", MODES)
def test_unknown_tool_lists_the_tools(server, mode):
    (result,) = calls(server, [("get_contxt", {"entity": "Repo"})], mode)
    text = refusal(result)
    assert text.startswith("unknown tool 'get_contxt' (did you mean 'get_context'?); the tools are: ")
    assert set(text.split("the tools are: ")[1].split(", ")) == TOOLS


@pytest.mark.parametrize("mode", MODES)
def test_schemas_refuse_other_arguments_and_good_calls_still_work(server, mode):
    async def go():
        async with Client(server, mode=mode) as client:
            return await client.list_tools(), await client.call_tool("search", {"query": "validate", "limit": 3})

    tools, result = anyio.run(go)
    assert all(tool.input_schema["additionalProperties"] is False for tool in tools.tools)
    assert not result.is_error and "shop/service.py::validate" in text_of(result)


@pytest.mark.parametrize("mode", MODES)
def test_strict_over_stdio(repo, tmp_path, mode):
    typo, budget, good = calls(stdio_params(repo, cwd=tmp_path), [
        ("search", {"query": "validate", "limt": 3}),
        ("get_context", {"entity": "create_item", "token_budget": 5}),
        ("get_context", {"entity": "create_item", "token_budget": 1000}),
    ], mode)
    assert refusal(typo).startswith("search has no argument 'limt' (did you mean 'limit'?)")
    assert refusal(budget) == "token_budget must be between 100 and 100000; got 5"
    assert not good.is_error and "repo.save(name)" in text_of(good)
