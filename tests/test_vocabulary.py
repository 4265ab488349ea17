"""The ground floor: the text helpers (graphctx.text), the `.graphctx/` layout and entity-id format
(graphctx.layout), and the vocabulary in graphctx.models, checked against what the indexer really
writes and against the CLI's choices and the MCP tools' schemas that derive from it."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client

from graphctx import layout
from graphctx.index.indexer import index_repository
from graphctx.models import (
    DECISION_STATUSES, DETAIL_LEVELS, EDGE_KINDS, ENTITY_KINDS, INFERRED, INTENTS, KNOWLEDGE_TYPES, RECORD_KINDS,
    RESOLUTIONS, SCOPES,
)
from graphctx.text import STOP_WORDS, clip, clip_words, words

FIXTURES = Path(__file__).parent / "fixtures"


# ---- text

def test_words_splits_identifiers_paths_and_camel_case():
    assert words("GraphCache.get", "graphctx/index/store.py", "HTTPServer_v2") == (
        "graphcache graph cache get graphctx index store py httpserver http server v2 v 2")
    assert words("") == ""


def test_stop_words_are_lowercase_function_words():
    assert {"the", "and", "when"} <= STOP_WORDS
    assert not STOP_WORDS & {"budget", "index", "graph"}


def test_clip_makes_one_line_within_the_limit():
    assert clip("short  text\nhere", 40) == "short text here"
    clipped = clip("word " * 50, 20)
    assert len(clipped) == 20 and clipped.endswith("…") and "\n" not in clipped


def test_clip_can_keep_lines_for_preformatted_text():
    doc = "first line\nsecond line\n" + "x" * 100
    clipped = clip(doc, 30, one_line=False)
    assert clipped.startswith("first line\nsecond line") and clipped.endswith("…") and len(clipped) <= 30
    assert clip("a\nb", 30, one_line=False) == "a\nb"


def test_clip_words_cuts_at_a_whole_word():
    assert clip_words("alpha beta gamma delta", 14) == "alpha beta …"
    assert clip_words("alpha beta", 40) == "alpha beta"


# ---- layout

def test_entity_ids_are_built_and_parsed_by_one_pair():
    entity = layout.entity_id("pkg/mod.py", "Store.add")
    assert entity == "pkg/mod.py::Store.add"
    assert layout.split_entity_id(entity) == ("pkg/mod.py", "Store.add")
    assert layout.entity_path(entity) == "pkg/mod.py"
    assert layout.short_name(entity) == "add"
    # A file's id is its path: no qualified name.
    assert layout.entity_id("pkg/mod.py", "") == "pkg/mod.py"
    assert layout.split_entity_id("pkg/mod.py") == ("pkg/mod.py", "")
    assert layout.entity_path("pkg/mod.py") == "pkg/mod.py"
    # Rust paths inside a qualified name stay whole: only the first separator splits.
    assert layout.split_entity_id("src/lib.rs::a::b") == ("src/lib.rs", "a::b")
    assert layout.external_id("os.path.join") == "ext:os.path.join"


def test_the_index_and_its_ids_follow_the_layout(tree):
    root = tree({"pkg/mod.py": "class Store:\n    def add(self):\n        pass\n"})
    index_repository(root)
    assert layout.index_path(root).is_file()
    assert layout.index_path(root).parent == layout.index_dir(root)
    conn = sqlite3.connect(f"file:{layout.index_path(root)}?mode=ro", uri=True)
    try:
        ids = {row[0] for row in conn.execute("SELECT id FROM entities")}
    finally:
        conn.close()
    assert ids == {"pkg/mod.py", layout.entity_id("pkg/mod.py", "Store"), layout.entity_id("pkg/mod.py", "Store.add")}
    assert layout.record_dirs(root) == [root / ".graphctx" / "records", root / ".graphctx" / "private" / "records"]


# ---- vocabulary against what the indexer writes

@pytest.mark.parametrize("language", sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()))
def test_the_index_writes_only_the_declared_vocabulary(tmp_path, language):
    root = tmp_path / language
    shutil.copytree(FIXTURES / language, root)
    index_repository(root)
    conn = sqlite3.connect(f"file:{layout.index_path(root)}?mode=ro", uri=True)
    try:
        kinds = {row[0] for row in conn.execute("SELECT DISTINCT kind FROM entities")}
        edges = set(conn.execute("SELECT DISTINCT kind, resolution FROM edges"))
    finally:
        conn.close()
    assert kinds <= set(ENTITY_KINDS), kinds - set(ENTITY_KINDS)
    assert {kind for kind, _ in edges} <= set(EDGE_KINDS)
    assert {resolution for _, resolution in edges} <= set(RESOLUTIONS)
    assert INFERRED < set(RESOLUTIONS)


# ---- the adapters derive their choices from it

def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "graphctx.cli.main", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize(("args", "wrong", "close", "allowed"), [
    (("context", "x", "--detail"), "sumary", "summary", DETAIL_LEVELS),
    (("intent",), "debgu", "debug", INTENTS),
    (("recall", "--status"), "acepted", "accepted", DECISION_STATUSES),
    (("recall", "--type"), "pitfal", "pitfall", KNOWLEDGE_TYPES),
    (("recall", "--kind"), "decisoin", "decision", RECORD_KINDS),
])
def test_cli_choices_come_from_the_vocabulary(tmp_path, args, wrong, close, allowed):
    proc = _cli(*args, wrong, *(["target"] if args == ("intent",) else []), cwd=tmp_path)
    assert proc.returncode == 2
    assert f"did you mean {close!r}" in proc.stderr and f"choose from {', '.join(allowed)}" in proc.stderr
    assert "Traceback" not in proc.stderr


def _enum(schema: dict) -> list[str]:
    """The allowed values of a property, through `anyOf` (an optional value) when there is one."""
    if "enum" in schema:
        return schema["enum"]
    return next(v for option in schema.get("anyOf", []) for v in [_enum(option)] if v)


def test_mcp_schemas_come_from_the_vocabulary(tree):
    from graphctx.server import build_server

    root = tree({"app.py": "def main():\n    pass\n"})
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    index_repository(root)
    server = build_server(root)

    async def go():
        async with Client(server) as client:
            return {tool.name: tool.input_schema["properties"] for tool in (await client.list_tools()).tools}

    try:
        tools = anyio.run(go)
    finally:
        server.graphctx_state.fresh.stop()
    assert _enum(tools["get_context"]["intent"]) == list(INTENTS)
    assert _enum(tools["get_context"]["detail_level"]) == list(DETAIL_LEVELS)
    assert _enum(tools["search"]["kind"]) == list(ENTITY_KINDS)
    assert _enum(tools["recall"]["status"]) == list(DECISION_STATUSES)
    assert _enum(tools["recall"]["type"]) == list(KNOWLEDGE_TYPES)
    assert _enum(tools["recall"]["kind"]) == list(RECORD_KINDS)
    assert _enum(tools["remember"]["scope"]) == list(SCOPES)


def test_impact_labels_changes_with_the_shared_vocabulary(tmp_path):
    """The printer tells a found impact by CHANGE_RELATIONS and TIER_PREFIX: impact must label with them."""
    from conftest import make_shop
    from graphctx import Project
    from graphctx.models import CHANGE_RELATIONS, TIER_PREFIX

    with Project(make_shop(tmp_path / "shop"), find=False) as project:
        answer, _ = project.impact(files=["shop/service.py"])
    relations = {item.relation for item in answer.items}
    assert relations & set(CHANGE_RELATIONS) == {"changed"}
    assert any(r.startswith(TIER_PREFIX) for r in relations)
