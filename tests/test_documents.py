"""The repository's Markdown as documents and sections: the heading hierarchy (parse/documents.py,
pure), the index's entities and edges (contains down the hierarchy, references from code spans,
ambiguous kept ambiguous), `graphctx doc` (outline, section, tables, bad input), `get_file_context`
over MCP, free text reaching a section, and an edit to the code a section names."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from mcp import Client

from conftest import query_index as rows, run_graphctx as graphctx, write_tree
from graphctx.index.indexer import index_repository
from graphctx.parse.documents import sections

GUIDE = """---
title: Operations guide
---
Intro before any heading: see `Vault.open`.

# Keys

The signing keys live in the vault; `rotate_keys` replaces them.

## Rotation

Run `rotate_keys()` nightly. Also `save`, `nothing_named_so` and `git pull`.

| step | command |
| --- | --- |
| rotate | `rotate_keys` |

```python
# Not a heading: code.
save()
```

## Rotation

Twice under one parent.

Storage
-------

Where `Vault` keeps files.
"""

CODE = {
    "ops/vault.py": "class Vault:\n    def open(self):\n        return self\n\n\ndef rotate_keys():\n    return Vault().open()\n",
    "ops/disk.py": "def save():\n    return 1\n",
    "ops/cloud.py": "def save():\n    return 2\n",
}


def test_sections_follow_the_heading_hierarchy_and_skip_code():
    found = sections(GUIDE)
    assert [(s.qualified_name, s.level, s.start_line, s.end_line) for s in found] == [
        ("document", 0, 1, 30),
        ("Keys", 1, 6, 30),
        ("Keys > Rotation", 2, 10, 22),
        ("Keys > Rotation (2)", 2, 23, 26),
        ("Keys > Storage", 2, 27, 30),
    ]
    assert found[0].title == "Operations guide" and found[0].names == ["Vault.open"]
    assert found[2].names == ["rotate_keys", "save", "nothing_named_so"]  # fenced code and `git pull` are no names
    assert found[1].doc == "The signing keys live in the vault; `rotate_keys` replaces them."


@pytest.mark.parametrize("text", ["", "\n", "\n\n", "---\ntitle: x\n---\n"])
def test_an_empty_document_is_one_section_and_indexes(tmp_path, text):
    assert [(s.qualified_name, s.start_line, s.end_line, s.names) for s in sections(text)][0][:2] == ("document", 1)
    root = write_tree(tmp_path / "repo", {**CODE, "docs/empty.md": text})
    index_repository(root, workers=1)
    assert rows(root, "SELECT kind FROM entities WHERE path = 'docs/empty.md' ORDER BY start_line, kind") \
        == [("document",), ("file",)]


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    root = write_tree(tmp_path_factory.mktemp("documents") / "repo", {**CODE, "docs/guide.md": GUIDE})
    index_repository(root, workers=1)
    return root


def test_a_document_and_its_sections_are_entities_in_a_hierarchy(repo):
    entities = rows(repo, "SELECT id, kind, name FROM entities WHERE path = 'docs/guide.md' ORDER BY start_line, id")
    assert entities == [
        ("docs/guide.md", "file", "guide.md"),
        ("docs/guide.md::document", "document", "Operations guide"),
        ("docs/guide.md::Keys", "section", "Keys"),
        ("docs/guide.md::Keys > Rotation", "section", "Rotation"),
        ("docs/guide.md::Keys > Rotation (2)", "section", "Rotation"),
        ("docs/guide.md::Keys > Storage", "section", "Storage"),
    ]
    contains = rows(repo, "SELECT source, target, resolution FROM edges WHERE kind = 'contains'"
                          " AND source LIKE 'docs/%' ORDER BY source, target")
    assert contains == [
        ("docs/guide.md", "docs/guide.md::document", "exact"),
        ("docs/guide.md::Keys", "docs/guide.md::Keys > Rotation", "exact"),
        ("docs/guide.md::Keys", "docs/guide.md::Keys > Rotation (2)", "exact"),
        ("docs/guide.md::Keys", "docs/guide.md::Keys > Storage", "exact"),
        ("docs/guide.md::document", "docs/guide.md::Keys", "exact"),
    ]


def test_code_spans_reference_code_and_an_ambiguous_name_stays_ambiguous(repo):
    references = rows(repo, "SELECT source, target, resolution FROM edges WHERE kind = 'references'"
                            " AND source LIKE 'docs/%' ORDER BY source, target")
    assert references == [
        ("docs/guide.md::Keys", "ops/vault.py::rotate_keys", "inferred"),
        ("docs/guide.md::Keys > Rotation", "ops/cloud.py::save", "ambiguous"),
        ("docs/guide.md::Keys > Rotation", "ops/disk.py::save", "ambiguous"),
        ("docs/guide.md::Keys > Rotation", "ops/vault.py::rotate_keys", "inferred"),
        ("docs/guide.md::Keys > Storage", "ops/vault.py::Vault", "inferred"),
        ("docs/guide.md::document", "ops/vault.py::Vault.open", "inferred"),
    ]
    # sections are no symbols: no call resolves to them, even one named like a heading
    assert rows(repo, "SELECT count(*) FROM edges e JOIN entities t ON t.id = e.target"
                      " WHERE e.kind = 'calls' AND t.kind IN ('document', 'section')") == [(0,)]


def test_doc_outline_section_and_tables_from_the_cli(repo):
    outline = graphctx("doc", "docs/guide.md", "--outline", cwd=repo)
    assert outline.returncode == 0, outline.stderr
    assert outline.stdout.splitlines() == [
        "# graphctx doc: docs/guide.md (Operations guide)",
        "Keys (lines 6-30)",
        "  Rotation (lines 10-22)",
        "  Rotation (lines 23-26)",
        "  Storage (lines 27-30)",
    ]
    section = graphctx("doc", "guide.md", "--section", "Keys > Storage", cwd=repo)
    assert section.returncode == 0 and section.stdout.splitlines()[1:] == [
        "## Keys > Storage (lines 27-30)", "Storage", "-------", "", "Where `Vault` keeps files."]
    tables = json.loads(graphctx("doc", "docs/guide.md", "--tables", "--section", "#10", "--json", cwd=repo).stdout)
    assert tables["tables"] == [{"line": 14, "header": ["step", "command"], "rows": [["rotate", "`rotate_keys`"]]}]
    assert tables["section"]["id"] == "docs/guide.md::Keys > Rotation"
    none = graphctx("doc", "docs/guide.md", "--tables", "--section", "Storage", cwd=repo)
    assert none.returncode == 1 and "no tables" in none.stdout


def test_doc_refuses_bad_input_in_one_line(repo):
    twice = graphctx("doc", "docs/guide.md", "--section", "Rotation", cwd=repo)
    assert twice.returncode == 2 and "2 headings of docs/guide.md match 'Rotation'" in twice.stderr
    typo = graphctx("doc", "docs/guide.md", "--section", "Storge", cwd=repo)
    assert typo.returncode == 2 and "did you mean" in typo.stderr and "Storage" in typo.stderr
    code = graphctx("doc", "ops/vault.py", cwd=repo)
    assert code.returncode == 2 and "not a Markdown document; read it with `graphctx file ops/vault.py`" in code.stderr
    missing = graphctx("doc", "docs/nothing.md", cwd=repo)
    assert missing.returncode == 2 and "nothing.md" in missing.stderr


def test_get_file_context_on_a_document_is_its_outline_and_reads_its_parts_over_mcp(repo):
    from graphctx.server.app import build_server

    server = build_server(repo, watch=False)

    async def go():
        async with Client(server) as client:
            return (await client.call_tool("get_file_context", {"file": "docs/guide.md", "format": "json"}),
                    await client.call_tool("get_file_context", {"file": "docs/guide.md", "heading": "Storage"}),
                    await client.call_tool("get_file_context", {"file": "guide.md", "heading": "#10", "tables": True,
                                                                "format": "json"}),
                    await client.call_tool("get_file_context", {"file": "ops/vault.py", "heading": "Keys"}))

    try:
        answer, section, tables, code = anyio.run(go)
    finally:
        server.graphctx_state.fresh.stop()
    assert not (answer.is_error or section.is_error or tables.is_error)
    assert section.content[0].text.endswith("Where `Vault` keeps files.")
    assert tables.structured_content["tables"][0]["rows"] == [["rotate", "`rotate_keys`"]]
    assert code.is_error and "not a Markdown document" in code.content[0].text
    assert [(i["id"], i["kind"]) for i in answer.structured_content["items"]] == [
        ("docs/guide.md", "file"), ("docs/guide.md::document", "document"), ("docs/guide.md::Keys", "section"),
        ("docs/guide.md::Keys > Rotation", "section"), ("docs/guide.md::Keys > Rotation (2)", "section"),
        ("docs/guide.md::Keys > Storage", "section")]


def test_free_text_reaches_the_section_that_explains_it(repo):
    run = graphctx("intent", "understand", "how often are the signing keys rotated nightly", "--budget", "1500",
                   "--format", "json", cwd=repo)
    assert run.returncode == 0, run.stderr
    answer = json.loads(run.stdout)
    assert "docs/guide.md::Keys > Rotation" in [item["id"] for item in answer["items"]]
    assert answer["tokens_used"] <= 1500


def test_renaming_the_code_a_section_names_moves_its_reference(tmp_path):
    root = write_tree(tmp_path / "repo", {**CODE, "docs/guide.md": GUIDE})
    index_repository(root, workers=1)
    (root / "ops/vault.py").write_text(CODE["ops/vault.py"].replace("rotate_keys", "renew_keys"))
    index_repository(root, workers=1)
    targets = {t for (t,) in rows(root, "SELECT target FROM edges WHERE kind = 'references' AND source LIKE 'docs/%'")}
    assert "ops/vault.py::rotate_keys" not in targets and "ops/vault.py::renew_keys" not in targets
    (root / "docs/guide.md").write_text(GUIDE.replace("rotate_keys", "renew_keys"))
    index_repository(root, workers=1)
    assert rows(root, "SELECT count(*) FROM edges WHERE kind = 'references' AND target = 'ops/vault.py::renew_keys'") \
        == [(2,)]


def test_the_session_map_lists_code_not_sections(repo):
    run = graphctx("session", "--format", "json", "--budget", "3000", cwd=repo)
    assert run.returncode == 0, run.stderr
    kinds = {item["kind"] for item in json.loads(run.stdout)["items"]}
    assert "function" in kinds and not kinds & {"document", "section"}
