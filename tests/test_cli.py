"""The `graphctx` command end to end, through a subprocess: index, stats, search, show and
export, errors a user can fix (one message, exit 2, no traceback), --repo from another folder."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

from conftest import write_tree

PROJECT = {
    "shop/__init__.py": "from .cart import Cart\n",
    "shop/cart.py": (
        '"""Shopping carts."""\n'
        "from shop.pricing import total, load\n\n\n"
        "class Cart:\n"
        '    """A cart of items."""\n\n'
        "    def __init__(self):\n"
        "        self.items = load()\n\n"
        "    def checkout(self):\n"
        "        return total(self.items) + self.fee()\n\n"
        "    def fee(self):\n"
        "        return 1\n"
    ),
    "shop/pricing.py": "def total(items):\n    return sum(items)\n\n\ndef load():\n    return []\n",
    "store/load.py": "import json\n\n\ndef load():\n    return json.loads('[]')\n",
    "app.py": "from shop import Cart\n\n\ndef main():\n    cart = Cart()\n    return cart.checkout()\n",
    "tests/test_cart.py": "from shop.cart import Cart\n\n\ndef test_checkout():\n    assert Cart().checkout() == 1\n",
}
SUMMARY = re.compile(
    r"^indexed (?P<root>.+): (?P<files>[\d,]+) files \(.*\), (?P<entities>[\d,]+) entities, (?P<edges>[\d,]+) edges, "
    r"(?P<resolved>\d+)% of calls resolved, (?P<seconds>[\d.]+) s(?:; skipped (?P<skipped>.+))?$"
)


def graphctx(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "120"}
    env.pop("FORCE_COLOR", None)
    proc = subprocess.run([sys.executable, "-m", "graphctx.cli.main", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    if check:
        assert proc.returncode == 0, f"graphctx {' '.join(args)} exited {proc.returncode}:\n{proc.stderr}"
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """The project, indexed once by `graphctx index` run inside it, and what that printed."""
    root = write_tree(tmp_path_factory.mktemp("cli") / "repo", PROJECT)
    return root, graphctx("index", cwd=root)


@pytest.fixture
def repo(indexed) -> Path:
    return indexed[0]


def test_index_prints_one_summary_line_and_no_progress_when_not_a_tty(indexed):
    repo, proc = indexed
    lines = proc.stdout.splitlines()
    assert len(lines) == 1, proc.stdout
    match = SUMMARY.match(lines[0])
    assert match, lines[0]
    assert Path(match["root"]) == repo.resolve()
    assert int(match["files"]) == len(PROJECT)
    assert int(match["entities"]) > len(PROJECT) and int(match["edges"]) > 0
    assert 0 <= int(match["resolved"]) <= 100 and float(match["seconds"]) >= 0
    assert proc.stderr == ""  # no progress bar, no escape codes, nothing to warn about
    assert (repo / ".graphctx" / "index.db").exists()
    assert "index.db" in (repo / ".graphctx" / ".gitignore").read_text()


def test_index_again_is_incremental_and_full_rebuilds(repo):
    again = SUMMARY.match(graphctx("index", cwd=repo).stdout.strip())
    assert again and "(0 parsed, 0 removed)" in again.group(0)
    full = graphctx("index", "--full", cwd=repo).stdout.strip()
    assert f"({len(PROJECT)} parsed, 0 removed)" in full


def test_stats_json(repo):
    stats = json.loads(graphctx("stats", "--json", cwd=repo).stdout)
    assert {"files", "entities", "edges"} <= set(stats)
    assert stats["files"] == len(PROJECT)
    assert stats["languages"] == {"python": len(PROJECT)}
    assert stats["entity_kinds"]["method"] == 3
    assert stats["parse_errors"] == 0
    text = graphctx("stats", cwd=repo).stdout
    assert "entities" in text and "edges" in text


def test_search_json(repo):
    answer = json.loads(graphctx("search", "checkout", "--json", cwd=repo).stdout)
    ids = [hit["id"] for hit in answer["hits"]]
    assert ids[0] == "shop/cart.py::Cart.checkout"
    assert {"id", "kind", "path", "start_line", "score"} <= set(answer["hits"][0])
    assert "shop/cart.py::Cart.checkout" in graphctx("search", "check", cwd=repo).stdout  # prefix, text output


def test_show_json_has_incoming_and_outgoing_edges(repo):
    answer = json.loads(graphctx("show", "Cart.checkout", "--json", cwd=repo).stdout)
    assert answer["entity"]["id"] == "shop/cart.py::Cart.checkout"
    assert answer["entity"]["kind"] == "method"
    outgoing = {(e["target"], e["kind"]) for e in answer["outgoing"]}
    incoming = {(e["source"], e["kind"]) for e in answer["incoming"]}
    assert ("shop/pricing.py::total", "calls") in outgoing
    assert ("shop/cart.py::Cart.fee", "calls") in outgoing
    assert ("app.py::main", "calls") in incoming
    assert ("shop/cart.py::Cart", "contains") in incoming
    for edge in answer["outgoing"] + answer["incoming"]:
        assert {"source", "target", "kind", "resolution", "confidence"} <= set(edge)
        assert 0 <= edge["confidence"] <= 1
    text = graphctx("show", "shop/cart.py::Cart.checkout", cwd=repo).stdout
    assert "outgoing" in text and "incoming" in text


def test_show_unknown_name_suggests_and_exits_2(repo):
    proc = graphctx("show", "Cart.chekout", cwd=repo, check=False)
    assert proc.returncode == 2
    assert "did you mean" in proc.stderr and "shop/cart.py::Cart.checkout" in proc.stderr
    assert proc.stdout == ""


def test_show_ambiguous_name_lists_candidates(repo):
    proc = graphctx("show", "load", cwd=repo, check=False)
    assert proc.returncode == 2
    assert "shop/pricing.py::load" in proc.stderr and "store/load.py::load" in proc.stderr
    narrowed = json.loads(graphctx("show", "load", "--file", "store/load.py", "--json", cwd=repo).stdout)
    assert narrowed["entity"]["id"] == "store/load.py::load"


def test_export_json_is_node_link_data(repo):
    data = json.loads(graphctx("export", "--format", "json", cwd=repo).stdout)
    assert data["nodes"] and data["edges"]
    for node in data["nodes"]:
        assert {"id", "kind", "name", "qualified_name", "language", "path", "start_line", "end_line"} <= set(node)
    for edge in data["edges"]:
        assert {"source", "target", "kind", "resolution", "confidence"} <= set(edge)
    ids = {node["id"] for node in data["nodes"]}
    assert {"app.py", "shop/cart.py::Cart", "shop/cart.py::Cart.checkout"} <= ids
    assert all(edge["source"] in ids and edge["target"] in ids for edge in data["edges"])
    graph = nx.node_link_graph(data, edges="edges")
    assert graph.has_edge("app.py::main", "shop/cart.py::Cart.checkout")


def test_export_graphml_parses_with_networkx(repo, tmp_path):
    out = tmp_path / "graph.graphml"
    proc = graphctx("export", "--format", "graphml", "-o", str(out), cwd=repo)
    assert proc.stdout == ""
    graph = nx.read_graphml(out)
    data = json.loads(graphctx("export", cwd=repo).stdout)
    assert graph.number_of_nodes() == len(data["nodes"])
    assert graph.number_of_edges() == len(data["edges"])
    assert graph.nodes["shop/cart.py::Cart"]["kind"] == "class"


def test_repo_option_from_another_folder(repo, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    stats = json.loads(graphctx("stats", "--json", "--repo", str(repo), cwd=elsewhere).stdout)
    assert stats["files"] == len(PROJECT)
    answer = json.loads(graphctx("show", "main", "--json", "--repo", str(repo), cwd=elsewhere).stdout)
    assert answer["entity"]["id"] == "app.py::main"


def test_in_a_git_work_tree_the_default_repo_is_its_top_level(tmp_path):
    root = write_tree(tmp_path / "work", PROJECT)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    graphctx("index", "-q", cwd=root / "shop")
    stats = json.loads(graphctx("stats", "--json", cwd=root / "shop").stdout)
    assert Path(stats["root"]) == root.resolve()


def test_outside_git_the_root_is_the_folder_named_never_an_indexed_ancestor(repo, tmp_path):
    proc = graphctx("stats", cwd=repo / "shop", check=False)
    assert proc.returncode == 2
    assert f"{repo.resolve() / 'shop'} has no index yet" in proc.stderr
    assert f"--repo {repo.resolve()} (that folder has an index)" in proc.stderr
    assert not (repo / "shop" / ".graphctx").exists()
    for given, problem in ((repo / "shop" / "cart.py", "is a file, not a folder"), (tmp_path / "nowhere", "does not exist")):
        for command in (["index", str(given)], ["stats", "--repo", str(given)], ["recall", "x", "--repo", str(given)]):
            proc = graphctx(*command, cwd=tmp_path, check=False)
            assert proc.returncode == 2 and problem in proc.stderr, (command, proc.stderr)


def test_repo_without_index_is_a_clear_error(tmp_path):
    bare = write_tree(tmp_path / "bare", {"a.py": "def f():\n    pass\n"})
    for command in (["stats"], ["show", "f"], ["search", "f"], ["export"]):
        proc = graphctx(*command, "--repo", str(bare), cwd=tmp_path, check=False)
        assert proc.returncode == 2, command
        assert "no index" in proc.stderr and "graphctx index" in proc.stderr


def test_index_errors_are_one_line_messages(tmp_path):
    file = tmp_path / "file.py"
    file.write_text("x = 1\n")
    proc = graphctx("index", str(file), cwd=tmp_path, check=False)
    assert proc.returncode == 2 and "is a file, not a folder" in proc.stderr
    proc = graphctx("index", str(tmp_path / "missing"), cwd=tmp_path, check=False)
    assert proc.returncode == 2 and "does not exist" in proc.stderr
    bad = write_tree(tmp_path / "badconf", {".graphctx/config.toml": "[index]\nmax_file_bytes = 'x'\n", "a.py": "x = 1\n"})
    proc = graphctx("index", str(bad), cwd=tmp_path, check=False)
    assert proc.returncode == 2 and "config.toml" in proc.stderr and "max_file_bytes" in proc.stderr


def test_index_warnings_go_to_stderr(tmp_path):
    root = write_tree(tmp_path / "warn", {"ok.py": "def f():\n    pass\n", "broken.py": "def g(:\n", "blob.py": b"\0\1\2"})
    proc = graphctx("index", str(root), cwd=tmp_path)
    assert SUMMARY.match(proc.stdout.strip())
    assert "skipped 1 binary file (graphctx stats lists them)" in proc.stderr
    assert "warning: broken.py:" in proc.stderr and "syntax error" in proc.stderr


def test_console_script(repo):
    script = Path(sys.executable).parent / "graphctx"
    if not script.exists():
        pytest.skip("the console script is not installed next to this interpreter")
    proc = subprocess.run([str(script), "stats", "--json"], cwd=repo, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["files"] == len(PROJECT)
