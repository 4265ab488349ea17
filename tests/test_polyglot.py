"""The polyglot end-to-end check: every language fixture copied side by side into one repository
(each project in its own folder, as in a monorepo) with documents, configuration and a binary,
indexed by the CLI; every parsed language yields entities and a call resolved into another file,
every file is indexed or skipped with its reason, and for one entity of each language `file`,
`search` and `context` answer over an MCP client session (and over the CLI for a few)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import anyio
import pytest
from mcp import Client

from conftest import query_index as query, run_graphctx as graphctx

from graphctx.parse.languages import LANGUAGES, family

FIXTURES = Path(__file__).parent / "fixtures"
RESOLVED = ("exact", "import", "same-scope", "inferred")
EXTRA = {
    "README.md": "# Polyglot shop\n\nOne project per language.\n",
    "docs/architecture.md": "Architecture\n============\n\nHow the parts talk.\n",
    ".github/workflows/ci.yml": "# Runs every language's tests.\non: push\n",
    "Dockerfile": "# The build image.\nFROM debian:stable\n",
    "assets/logo.png": b"\x89PNG\r\n\x1a\n\0\0",
}


@pytest.fixture(scope="module")
def polyglot(tmp_path_factory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("polyglot") / "repo"
    for fixture in sorted(FIXTURES.iterdir()):
        shutil.copytree(fixture, root / fixture.name)
    for path, content in EXTRA.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(content if isinstance(content, bytes) else content.encode())
    run = graphctx("index", "--json", cwd=root)
    assert run.returncode == 0, run.stderr
    return root, json.loads(run.stdout)


def cross_file_calls(root: Path) -> dict[str, list[tuple[str, str]]]:
    """Language -> (caller, callee) of the calls resolved into another file of the same family."""
    rows = query(root, f"""
        SELECT s.language, e.source, e.target FROM edges e
        JOIN entities s ON s.id = e.source JOIN entities t ON t.id = e.target
        WHERE e.kind = 'calls' AND e.resolution IN ({','.join(repr(r) for r in RESOLVED)}) AND s.path != t.path
        ORDER BY e.source, e.target""")
    out: dict[str, list[tuple[str, str]]] = {}
    for language, source, target in rows:
        out.setdefault(language, []).append((source, target))
    return out


def test_every_parsed_language_yields_entities_and_a_resolved_cross_file_call(polyglot):
    root, _ = polyglot
    languages = {spec.name for spec in LANGUAGES}
    with_entities = {language for (language,) in query(root, "SELECT DISTINCT language FROM entities WHERE kind != 'file'")}
    assert languages <= with_entities
    calls = cross_file_calls(root)
    assert sorted(languages - set(calls)) == [], "languages without a call resolved into another file"


def test_no_file_is_skipped_in_silence(polyglot):
    root, report = polyglot
    on_disk = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and ".graphctx" not in p.parts}
    indexed = {path for (path,) in query(root, "SELECT path FROM files")}
    skipped = {path: reason for path, reason in query(root, "SELECT path, reason FROM skipped")}
    assert sorted(on_disk - indexed - set(skipped)) == []
    assert skipped == {"assets/logo.png": "binary format"}
    assert report["skipped"] == {"binary format": 1}
    documents = dict(query(root, "SELECT path, doc FROM entities WHERE kind = 'file' AND language IN ('markdown', 'yaml', 'dockerfile')"))
    assert documents["README.md"] == "Polyglot shop" and documents["docs/architecture.md"] == "Architecture"
    assert documents[".github/workflows/ci.yml"] == "Runs every language's tests." and documents["Dockerfile"] == "The build image."


def one_entity_per_language(root: Path) -> dict[str, tuple[str, str, str]]:
    """Language -> (id, name, path) of a caller with a resolved cross-file call, first by id."""
    picked = {}
    for language, calls in cross_file_calls(root).items():
        source = calls[0][0]
        name, path = query(root, f"SELECT name, path FROM entities WHERE id = '{source}'")[0]
        picked[language] = (source, name, path)
    return picked


@pytest.mark.parametrize("language", ["cpp", "ruby", "swift", "bash"])
def test_file_search_and_context_from_the_cli(polyglot, language):
    """Each command is a process that loads the graph: four languages here, every one over MCP below."""
    root, _ = polyglot
    entity_id, name, path = one_entity_per_language(root)[language]
    shown = graphctx("file", path, "--format", "json", cwd=root)
    assert shown.returncode == 0 and entity_id in {i["id"] for i in json.loads(shown.stdout)["items"]}, language
    hits = json.loads(graphctx("search", name, "--json", cwd=root).stdout)["hits"]
    assert entity_id in {hit["id"] for hit in hits}, (language, name)
    context = json.loads(graphctx("context", entity_id, "--budget", "1500", "--format", "json", cwd=root).stdout)
    assert context["root"] == entity_id and context["items"][0]["id"] == entity_id, language
    assert len(context["items"]) > 1 and context["tokens_used"] <= 1500, language


def test_file_search_and_context_over_mcp_for_each_language(polyglot):
    from graphctx.server.app import build_server

    root, _ = polyglot
    picked = one_entity_per_language(root)
    server = build_server(root, watch=False)

    async def go():
        answers = {}
        async with Client(server) as client:
            for language, (entity_id, name, path) in picked.items():
                file = await client.call_tool("get_file_context", {"file": path, "format": "json"})
                search = await client.call_tool("search", {"query": name, "format": "json"})
                context = await client.call_tool("get_context", {"entity": entity_id, "token_budget": 1500, "format": "json"})
                answers[language] = (file, search, context)
        return answers

    try:
        answers = anyio.run(go)
    finally:
        server.graphctx_state.fresh.stop()
    assert set(answers) == {spec.name for spec in LANGUAGES}
    for language, (file, search, context) in answers.items():
        entity_id = picked[language][0]
        assert not (file.is_error or search.is_error or context.is_error), language
        assert entity_id in {item["id"] for item in file.structured_content["items"]}, language
        assert entity_id in {hit["id"] for hit in search.structured_content["hits"]}, language
        assert context.structured_content["root"] == entity_id, language
        # the neighbourhood stays in the language's family: nothing resolves across languages
        families = {family(lang) for (lang,) in query(root, "SELECT DISTINCT language FROM entities WHERE id IN ("
                    + ",".join(repr(i["id"]) for i in context.structured_content["items"]) + ")")}
        assert families == {family(language)}, (language, families)
