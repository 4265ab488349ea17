"""Every entity in a context answer shows its body hash (`h:` in the compact heading, `body_hash`
in JSON), counted within the budget, and that hash works as known_hash: unchanged code comes back
as one line, changed code in full with a note. Through the library, the CLI and an MCP client."""

from __future__ import annotations

import json
import re

import anyio
import pytest
from mcp import Client

from graphctx import Project
from graphctx.context.tokens import count
from graphctx.errors import InvalidRequest
from graphctx.server import build_server
from test_cli import graphctx
from test_server import make_repo, text_of

HEADING = re.compile(r"^## (?P<relation>\S+) (?P<id>\S+) (?P<kind>\S+) L[\d-]+ d\d+ s[\d.]+(?: h:(?P<hash>[0-9a-f]{8}))?",
                     re.M)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return make_repo(tmp_path_factory.mktemp("hashes"))


def headings(text: str) -> dict[str, str | None]:
    return {m["id"]: m["hash"] for m in HEADING.finditer(text)}


def indexed_hash(root, entity_id: str) -> str:
    return Project(root, find=False).show(entity_id).entity.body_hash


@pytest.mark.parametrize("budget", [150, 400, 1500, 4000])
def test_every_entity_heading_shows_its_body_hash_within_the_budget(repo, budget):
    answer, text = Project(repo, find=False).context("create_item", token_budget=budget)
    assert count(text) <= budget and answer.tokens_used <= budget
    shown = headings(text)
    assert len(shown) == len(answer.items) >= 1
    for entity_id, digest in shown.items():
        kind = Project(repo, find=False).show(entity_id).entity.kind
        assert digest == (indexed_hash(repo, entity_id)[:8] if kind != "file" else None), entity_id


def test_json_items_carry_the_body_hash(repo):
    answer, text = Project(repo, find=False).context("create_item", format="json", token_budget=1000)
    data = json.loads(text)
    assert count(text) <= 1000
    for item in data["items"]:
        assert item["body_hash"] == indexed_hash(repo, item["id"]) and (item["kind"] == "file" or item["body_hash"])


def test_a_shown_hash_is_accepted_as_known_hash(repo):
    _, text = Project(repo, find=False).context("create_item", token_budget=2000)
    shown = headings(text)
    for entity_id in ("shop/service.py::create_item", "shop/service.py::validate"):  # the root and a callee
        for given in (shown[entity_id], f"h:{shown[entity_id]}"):  # as printed, with or without its label
            answer, again = Project(repo, find=False).context(entity_id, known_hash=given)
            assert f"unchanged: {entity_id} still has body hash {shown[entity_id]}" in again
            assert len(answer.items) == 1 and answer.items[0].detail == "line"


def test_a_malformed_known_hash_is_refused(repo):
    with pytest.raises(InvalidRequest, match="known_hash 'abc' is not a body hash; pass the h: value"):
        Project(repo, find=False).context("create_item", known_hash="abc")


def test_cli_shows_hashes_and_takes_them_back(repo):
    out = graphctx("context", "validate", "--budget", "800", cwd=repo).stdout
    digest = headings(out)["shop/service.py::validate"]
    again = graphctx("context", "validate", "--known-hash", digest, cwd=repo).stdout
    assert "unchanged" in again and "raise ValueError" not in again


def test_known_hash_round_trip_over_mcp_across_an_edit(tmp_path):
    root = make_repo(tmp_path / "shop")
    server = build_server(root, watch=False)

    async def ask(args: dict):
        async with Client(server, mode="legacy") as client:
            return await client.call_tool("get_context", args)

    try:
        first = text_of(anyio.run(ask, {"entity": "validate", "token_budget": 1000}))
        digest = headings(first)["shop/service.py::validate"]
        same = text_of(anyio.run(ask, {"entity": "validate", "known_hash": digest}))
        assert "unchanged" in same and "raise ValueError" not in same

        service = root / "shop" / "service.py"
        service.write_text(service.read_text().replace('raise ValueError("empty name")', 'raise KeyError("no name")'))
        changed = text_of(anyio.run(ask, {"entity": "validate", "known_hash": digest}))
        new = headings(changed)["shop/service.py::validate"]
        assert new != digest and f"changed: shop/service.py::validate has body hash {new} now, not {digest}" in changed
        assert 'raise KeyError("no name")' in changed

        structured = anyio.run(ask, {"entity": "validate", "format": "json", "known_hash": new})
        assert structured.structured_content["items"][0]["body_hash"].startswith(new)
        assert any("unchanged" in note for note in structured.structured_content["notes"])

        bad = anyio.run(ask, {"entity": "validate", "known_hash": "not-a-hash"})
        assert bad.is_error and "is not a body hash" in text_of(bad)
    finally:
        server.graphctx_state.fresh.stop()
