"""The CLI's conventions, through subprocesses: every command that prints data takes --json and
prints JSON; exit 0 for an answer, 1 for nothing found, 2 for bad input, never a traceback; a
repository without an index gets the command that builds one, and an unusable index is rebuilt;
nothing is skipped in silence (binary formats, minified, vendored files are counted and named), and
a file in a language without a grammar is known at file level."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from conftest import write_tree
from graphctx.cli.main import NO_DATA_COMMANDS, build_parser

PROJECT = {
    "shop/__init__.py": "",
    "shop/cart.py": "from shop.pricing import total\n\n\nclass Cart:\n    def checkout(self):\n        return total([1])\n",
    "shop/pricing.py": "def total(items):\n    return sum(items)\n\n\ndef unused():\n    return 0\n",
    "tests/test_cart.py": "from shop.cart import Cart\n\n\ndef test_checkout():\n    assert Cart().checkout() == 1\n",
    "native/fast.pl": "sub fast { return 1; }\n",
    "native/fast.pm": "sub fast;\n",
    "scripts/tool.ex": "IO.puts 1\n",
    "vendor/dep.py": "def dep():\n    return 1\n",
    "web/app.min.js": "var a=1;\n",
    "assets/logo.png": "\x89PNG\n",
    "README.md": "# Shop\n\nThe shop's cart and prices.\n",
}
MINIFIED = "var a=function(){return 1};" * 400  # one 10 KB line


def graphctx(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "120"}
    env.pop("GRAPHCTX_DEBUG", None)
    proc = subprocess.run([sys.executable, "-m", "graphctx.cli.main", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def ok(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    proc = graphctx(*args, cwd=cwd)
    assert proc.returncode == 0, f"graphctx {' '.join(args)} exited {proc.returncode}:\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    root = write_tree(tmp_path_factory.mktemp("conventions") / "repo", PROJECT)
    return root, ok("index", cwd=root)


@pytest.fixture
def repo(indexed) -> Path:
    return indexed[0]


def command_names() -> set[str]:
    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return set(sub.choices)


# ---- --json everywhere

# One invocation per command that prints data; {id} is the decision `decide` wrote.
JSON_CALLS = [
    ["index", "-q"],
    ["stats"],
    ["search", "total"],
    ["show", "total"],
    ["context", "Cart.checkout"],
    ["intent", "modify", "total"],
    ["path", "Cart.checkout", "total"],
    ["file", "shop/cart.py"],
    ["doc", "README.md"],
    ["impact", "total"],
    ["session"],
    ["export"],
    ["decide", "--title", "Totals are sums", "--decision", "total() adds", "--anchor", "shop/pricing.py::total"],
    ["remember", "--title", "Prices", "--body", "whole numbers", "--anchor", "shop/pricing.py::total"],
    ["recall", "sums"],
    ["recall", "--id", "{id}"],
    ["revise", "{id}", "--version", "1", "--set", "status=deprecated"],
    ["verify", "{id}"],
    ["check"],
    ["tasks", "create", "Round totals", "--agent", "ann"],
    ["runs", "start", "--agent", "ann"],
    ["agents", "register", "ann"],
    ["session-end", "--agent", "ann", "--summary", "totals reviewed"],
    ["skills", "add", "-", "--name", "rounding", "--description", "How totals are rounded", "--agent", "ann"],
    ["feedback"],
    ["remember", "--title", "Prices", "--body", "whole numbers"],  # a duplicate of the record above, to review
    ["review", "queue"],
    ["sync", "status"],  # the test makes the folder a git work tree first
    ["store", "migrate", "--store", "{store}"],  # a throwaway PostgreSQL (tests/pgserver.py), where installed
]


def test_every_command_that_prints_data_takes_json(repo, request):
    import pgserver

    data_commands = command_names() - set(NO_DATA_COMMANDS)
    assert {call[0] for call in JSON_CALLS} == data_commands, "a command was added: give it a JSON_CALLS line"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)  # sync speaks git
    record_id = None
    for call in JSON_CALLS:
        if "{store}" in call and pgserver.binaries() is None:
            continue  # no PostgreSQL here: the team store's own tests skip with the reason
        store = request.getfixturevalue("postgres_database") if "{store}" in call else ""
        args = [a.replace("{id}", record_id or "").replace("{store}", store) for a in call]
        proc = ok(*args, "--json", cwd=repo)
        data = json.loads(proc.stdout)
        assert data, args
        if call[0] == "decide":
            record_id = data["record"]["id"]
    assert record_id


def test_json_is_the_format_json_alias(repo):
    by_alias = json.loads(ok("context", "total", "--json", cwd=repo).stdout)
    by_format = json.loads(ok("context", "total", "--format", "json", cwd=repo).stdout)
    assert by_alias == by_format and by_alias["root"] == "shop/pricing.py::total"
    clash = graphctx("export", "--json", "--format", "graphml", cwd=repo)
    assert clash.returncode == 2 and "--json and --format graphml" in clash.stderr and clash.stdout == ""


# ---- exit codes: 0 an answer, 1 nothing found, 2 bad input

@pytest.mark.parametrize("args, status", [
    (["search", "total"], 0),
    (["search", "zyxwvut"], 1),
    (["search", "zyxwvut", "--json"], 1),
    (["impact", "total"], 0),  # Cart.checkout calls it
    (["impact", "unused"], 1),  # nothing depends on it
    (["path", "Cart.checkout", "total"], 0),
    (["path", "unused", "total"], 1),  # no call chain
    (["intent", "debug", "quasar xylophone marmalade"], 1),  # free text that matches nothing
    (["recall", "zyxwvut"], 1),
    (["doc", "README.md", "--tables"], 1),  # a document with no tables
    (["doc", "shop/cart.py"], 2),  # not a Markdown document
    (["show", "totl"], 2),  # unknown: did-you-mean
    (["search", "total", "--limit", "0"], 2),
    (["context", "total", "--budget", "5"], 2),
])
def test_exit_status(repo, args, status):
    proc = graphctx(*args, cwd=repo)
    assert proc.returncode == status, (args, proc.stdout, proc.stderr)
    if status == 1:
        assert proc.stdout.strip(), "an empty answer still says so"
        assert proc.stderr == ""
    if status == 2:
        assert proc.stderr.startswith("error: ") and proc.stdout == ""


def test_empty_json_answers_are_still_json(repo):
    search = graphctx("search", "zyxwvut", "--json", cwd=repo)
    assert search.returncode == 1 and json.loads(search.stdout)["hits"] == []
    impact = graphctx("impact", "unused", "--json", cwd=repo)
    assert impact.returncode == 1 and json.loads(impact.stdout)["root"] == "shop/pricing.py::unused"


@pytest.mark.parametrize("args, suggestion", [
    (["contxt", "total"], "did you mean 'context'?"),
    (["intent", "debgu", "total"], "did you mean 'debug'?"),
    (["context", "total", "--detail", "ful"], "did you mean 'full'?"),
])
def test_a_mistyped_command_or_choice_is_bad_input_with_a_suggestion(repo, args, suggestion):
    proc = graphctx(*args, cwd=repo)
    assert proc.returncode == 2 and suggestion in proc.stderr


def test_a_file_that_cannot_be_written_is_one_message(repo, tmp_path):
    proc = graphctx("export", "-o", str(tmp_path / "missing" / "graph.json"), cwd=repo)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: cannot write") and "missing/graph.json" in proc.stderr


# ---- no usable index: say so, and how to build it

NEEDS_INDEX = [
    ["stats"], ["search", "f"], ["show", "f"], ["context", "f"], ["intent", "debug", "f"], ["path", "f", "g"],
    ["file", "a.py"], ["impact", "f"], ["session"], ["export"],
]


def _no_index_error(proc: subprocess.CompletedProcess, *expected: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    for text in expected:
        assert text in proc.stderr


def test_every_command_in_a_git_repository_without_an_index(tmp_path):
    root = write_tree(tmp_path / "fresh", {"a.py": "def f():\n    return 1\n"})
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for args in NEEDS_INDEX:
        _no_index_error(graphctx(*args, cwd=root), "no index yet", "graphctx index")


def test_unusable_indexes_and_folders(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    for args, folder, expected in [  # a folder with no index is named, never indexed behind the user's back
        (["stats"], empty, ("no index yet", "graphctx index")),
        (["search", "f"], tmp_path / "nowhere", ("does not exist", "--repo")),
    ]:
        _no_index_error(graphctx(*args, "--repo", str(folder), cwd=tmp_path), *expected)

    source = {"a.py": "def f():\n    return 1\n"}
    # An empty database file: what a first run killed before it committed leaves behind.
    killed = write_tree(tmp_path / "killed", {**source, ".graphctx/index.db": b""})
    garbage = write_tree(tmp_path / "garbage", {**source, ".graphctx/index.db": b"not a database" * 100})
    older = write_tree(tmp_path / "older", source)
    ok("index", "-q", cwd=older)
    with sqlite3.connect(older / ".graphctx" / "index.db") as conn:
        conn.execute("UPDATE meta SET value='1' WHERE key='schema_version'")
    cases = [  # an index that exists but cannot be used is rebuilt by the command that finds it, which answers
        (["stats", "--json"], killed, "holds no finished index"),
        (["context", "f", "--json"], garbage, "is not a SQLite database"),
        (["search", "f", "--json"], older, "another graphctx version"),
    ]
    for args, folder, problem in cases:
        proc = ok(*args, "--repo", str(folder), cwd=tmp_path)
        warning = proc.stderr.strip().splitlines()
        assert len(warning) == 1 and problem in warning[0] and warning[0].endswith("rebuilding it"), proc.stderr
        assert str(folder / ".graphctx" / "index.db") in warning[0]
        assert json.loads(proc.stdout)
        quiet = ok(*args, "--repo", str(folder), cwd=tmp_path)  # healed: the next command has nothing to say
        assert quiet.stderr == "" and json.loads(quiet.stdout)
    assert json.loads(ok("stats", "--json", cwd=killed).stdout)["files"] == 1

    # `graphctx index` itself rebuilds a file that is not a database, and a damaged one
    write_tree(garbage, {".graphctx/index.db": bytes(range(256)) * 64})
    rebuilt = ok("index", cwd=garbage)
    assert "is not a SQLite database" in rebuilt.stderr and "1 files" in rebuilt.stdout
    assert json.loads(ok("stats", "--json", cwd=garbage).stdout)["entities"] == 2


# ---- nothing skipped in silence

def test_stats_and_the_index_summary_count_what_was_skipped(indexed):
    repo, run = indexed
    assert run.stdout.strip().endswith("; skipped 3 files (binary format 1; minified 1; vendored 1)")
    stats = json.loads(ok("stats", "--json", cwd=repo).stdout)
    assert stats["skipped_languages"] == {}
    assert stats["skipped"] == {"binary format": 1, "minified": 1, "vendored": 1}
    assert stats["skipped_files"] == [["web/app.min.js", "minified", "by name: it matches a default exclude pattern"]]
    assert stats["languages"] == {"python": 4, "perl": 2, "elixir": 1, "markdown": 1}
    text = ok("stats", cwd=repo).stdout
    assert "skipped: binary format 1, minified 1, vendored 1" in text
    assert "web/app.min.js: minified" in text


@pytest.mark.parametrize("path, expected", [
    ("assets/logo.png", "assets/logo.png was not indexed: binary format (its extension names a binary format"),
    ("vendor/dep.py", "vendor/dep.py was not indexed: vendored"),
    ("web/app.min.js", "web/app.min.js was not indexed: minified"),
])
def test_file_names_why_a_file_is_not_indexed(repo, path, expected):
    proc = graphctx("file", path, cwd=repo)
    assert proc.returncode == 2 and expected in proc.stderr and proc.stdout == ""


@pytest.mark.parametrize("path, language, doc", [
    ("native/fast.pl", "perl", ""),
    ("native/fast.pm", "perl", ""),
    ("README.md", "markdown", "Shop"),
])
def test_file_knows_a_file_in_a_language_without_a_grammar(repo, path, language, doc):
    item, *inside = json.loads(ok("file", path, "--format", "json", cwd=repo).stdout)["items"]
    assert (item["kind"], item["text"]) == ("file", doc) and item["id"].endswith(path)
    assert [i["kind"] for i in inside] == (["document", "section"] if language == "markdown" else [])  # a document's outline
    entity = json.loads(ok("show", item["id"], "--json", cwd=repo).stdout)["entity"]
    assert (entity["language"], entity["doc"], entity["end_line"]) == (language, doc, 4 if path == "README.md" else 2)


def test_search_finds_a_document_by_its_heading(repo):
    hits = json.loads(ok("search", "shop", "--json", cwd=repo).stdout)["hits"]
    assert "README.md" in {hit["id"] for hit in hits}


def test_file_tool_over_mcp_knows_a_file_level_file(repo):
    from mcp import Client

    from graphctx.server.app import build_server

    server = build_server(repo, watch=False)

    async def go():
        async with Client(server) as client:
            return await client.call_tool("get_file_context", {"file": "native/fast.pl", "format": "json"})

    try:
        result = anyio.run(go)
    finally:
        server.graphctx_state.fresh.stop()
    assert not result.is_error
    assert [(item["id"], item["kind"]) for item in result.structured_content["items"]] == [("native/fast.pl", "file")]


def test_many_minified_files_make_one_line_and_quiet_none(tmp_path):
    files = {f"static/lib{i}.js": MINIFIED for i in range(14)}
    root = write_tree(tmp_path / "web", {**files, "app.py": "def main():\n    return 1\n", "broken.py": "def g(:\n"})
    proc = ok("index", cwd=root)
    assert proc.stderr.splitlines() == [
        "skipped 14 minified files (graphctx stats lists them)",
        "warning: broken.py: 1 syntax error node(s); kept what parsed",
    ]
    listed = ok("stats", cwd=root).stdout
    assert all(f"static/lib{i}.js: minified (average line over 1,000 bytes)" in listed for i in range(14))
    quiet = ok("index", "--full", "-q", cwd=root)
    assert quiet.stderr == "" and "minified 14" in quiet.stdout
