"""`graphctx export` end to end through the command: Mermaid text (exact for a tiny graph, well
formed for a larger one with awkward file names), --around/--depth/--edges selection in every
format, the caps and their notes, errors a user can fix, and the self-contained HTML page, drawn
by headless Chromium when it is installed."""

from __future__ import annotations

import contextlib
import functools
import html as html_lib
import io
import json
import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

from conftest import write_tree
from graphctx.cli.main import main

TINY = {
    "shapes.py": (
        "class Shape:\n    def area(self):\n        return 0\n\n\n"
        "class Square(Shape):\n    def area(self):\n        return 1\n"
    ),
    "app.py": (
        "from shapes import Square\n\n\n"
        "def main(thing):\n    square = Square()\n    thing.area()\n    return square.area() + helper()\n"
    ),
    "util.py": "def helper():\n    return 2\n",
}
# Every resolution shows: contains (exact) and imports (import) solid, Square.area (inferred) and
# helper (heuristic) dotted, Shape.area (ambiguous: `thing` could be either shape) dashed.
TINY_MERMAID = """\
---
title: "tiny: the whole graph, 9 entities, 12 edges"
---
flowchart LR
    %% shapes: file subroutine, class and struct rectangle, interface and trait hexagon, enum parallelogram, function rounded, method stadium, constant cylinder, route trapezoid, document subroutine, section inverted trapezoid
    %% lines: solid sure (exact, import, same scope), dotted inferred or heuristic, dashed ambiguous
    n_app_py[["app.py"]]:::kind_file
    n_app_py_main("main"):::kind_function
    n_shapes_py[["shapes.py"]]:::kind_file
    n_shapes_py_Shape["Shape"]:::kind_class
    n_shapes_py_Shape_area(["Shape.area"]):::kind_method
    n_shapes_py_Square["Square"]:::kind_class
    n_shapes_py_Square_area(["Square.area"]):::kind_method
    n_util_py[["util.py"]]:::kind_file
    n_util_py_helper("helper"):::kind_function
    n_app_py -->|contains| n_app_py_main
    n_app_py -->|imports| n_shapes_py_Square
    n_app_py_main -.->|calls| n_shapes_py_Shape_area
    n_app_py_main -->|calls| n_shapes_py_Square
    n_app_py_main -.->|calls| n_shapes_py_Square_area
    n_app_py_main -.->|calls| n_util_py_helper
    n_shapes_py -->|contains| n_shapes_py_Shape
    n_shapes_py -->|contains| n_shapes_py_Square
    n_shapes_py_Shape -->|contains| n_shapes_py_Shape_area
    n_shapes_py_Square -->|inherits| n_shapes_py_Shape
    n_shapes_py_Square -->|contains| n_shapes_py_Square_area
    n_util_py -->|contains| n_util_py_helper
    linkStyle 2 stroke-dasharray:8 4
    classDef kind_class fill:#bfdbfe,stroke:#1d4ed8,color:#111827
    classDef kind_file fill:#e5e7eb,stroke:#6b7280,color:#111827
    classDef kind_function fill:#bbf7d0,stroke:#15803d,color:#111827
    classDef kind_method fill:#ccfbf1,stroke:#0f766e,color:#111827
"""

AWKWARD = "odd \"name\" (v2) {x} <y> #1; & |z| `q`.py"
PROJECT = {
    "shop/__init__.py": "from .cart import Cart\n",
    "shop/cart.py": (
        '"""Shopping carts."""\n'
        "from shop.pricing import total, load\n\n\n"
        "class Cart:\n"
        '    """A cart of items. Never </script><script>document.title="pwned"</script> here."""\n\n'
        "    def __init__(self):\n"
        "        self.items = load()\n\n"
        "    def checkout(self, coupon: str = \"\") -> int:\n"
        "        return total(self.items) + self.fee()\n\n"
        "    def fee(self):\n"
        "        return 1\n"
    ),
    "shop/pricing.py": "def total(items):\n    return sum(items)\n\n\ndef load():\n    return []\n",
    "store/load.py": "import json\n\n\ndef load():\n    return json.loads('[]')\n",
    "app.py": "from shop import Cart\n\n\ndef main():\n    cart = Cart()\n    return cart.checkout()\n",
    "tests/test_cart.py": "from shop.cart import Cart\n\n\ndef test_checkout():\n    assert Cart().checkout() == 1\n",
    "web/[slug]/page.ts": "export function page(): number {\n  return render();\n}\n\nfunction render(): number {\n  return 1;\n}\n",
    AWKWARD: "def odd():\n    return even()\n\n\ndef even():\n    return 0\n",
}

NODE = re.compile(r'^    (n_\w+)(\[\[|\[\(|\(\[|\{\{|\[/|\[|\()"(.*)"(\]\]|\)\]|\]\)|\}\}|/\]|\]|\)):::(kind_\w+)$')
EDGE = re.compile(r"^    (n_\w+) (-->|-\.->)\|(\w+)\| (n_\w+)$")
ENTITY_CODE = re.compile(r"#(\w+);")


def graphctx(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    """The command in a subprocess, as a user runs it."""
    proc = subprocess.run([sys.executable, "-m", "graphctx.cli.main", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    if check:
        assert proc.returncode == 0, f"graphctx {' '.join(args)} exited {proc.returncode}:\n{proc.stderr}"
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def export(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """`graphctx export ARGS` run in this process from inside repo (the same code path, without a
    Python start-up per call); an exception escaping the command fails the test."""
    out, err, here = io.StringIO(), io.StringIO(), os.getcwd()
    os.chdir(repo)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(["export", *args])
            except SystemExit as exc:  # argparse refusing an argument
                code = exc.code
    finally:
        os.chdir(here)
    if check:
        assert code == 0, f"graphctx export {' '.join(args)} exited {code}:\n{err.getvalue()}"
    return subprocess.CompletedProcess(["graphctx", "export", *args], code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    root = write_tree(tmp_path_factory.mktemp("export") / "tiny", TINY)
    graphctx("index", cwd=root)
    return root


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    root = write_tree(tmp_path_factory.mktemp("export") / "repo", PROJECT)
    graphctx("index", cwd=root)
    return root


@functools.cache
def node_link(repo: Path, *args: str) -> nx.MultiDiGraph:
    """The export as a graph, read once per arguments: the module's tests do not change the index.
    The repository's entities only, unless `--external` is asked for."""
    outside = () if "--external" in args else ("--no-external",)
    return nx.node_link_graph(json.loads(export(repo, "--format", "json", *outside, *args).stdout), edges="edges")


def unescape_mermaid(label: str) -> str:
    named = {"quot": '"', "amp": "&", "lt": "<", "gt": ">"}
    return ENTITY_CODE.sub(lambda m: named.get(m[1]) or chr(int(m[1])), label)


def parse_mermaid(text: str) -> tuple[dict[str, tuple[str, str]], list[tuple[str, str, str, str]]]:
    """{id: (label, class)} and [(source, arrow, kind, target)]; fails on any line it cannot read."""
    nodes, edges = {}, []
    body = text.split("---\n", 2)[2].splitlines()
    assert body[0] == "flowchart LR"
    for line in body[1:]:
        if node := NODE.match(line):
            assert node[1] not in nodes, f"id declared twice: {line}"
            nodes[node[1]] = (node[3], node[5])
        elif edge := EDGE.match(line):
            edges.append((edge[1], edge[2], edge[3], edge[4]))
        else:
            assert re.match(r"^    (%% |linkStyle [\d,]+ stroke-dasharray:8 4$|classDef kind_\w+ fill:#|style n_\w+ stroke-width:3px$)", line), line
    return nodes, edges


# ---- Mermaid

def test_mermaid_for_a_tiny_graph_is_exact(tiny):
    proc = graphctx("export", "--format", "mermaid", cwd=tiny)
    assert proc.stdout == TINY_MERMAID
    assert proc.stderr == ""


def label_of(data: dict) -> str:
    return data["path"] if data["kind"] == "file" else data["qualified_name"]


def test_mermaid_is_well_formed_with_awkward_names(repo):
    text = export(repo, "--format", "mermaid").stdout
    nodes, edges = parse_mermaid(text)
    graph = node_link(repo)
    assert len(nodes) == graph.number_of_nodes() and len(edges) == graph.number_of_edges()
    for source, _, _, target in edges:  # every endpoint declared
        assert source in nodes and target in nodes
    for label, _ in nodes.values():  # nothing in a label that Mermaid reads as syntax
        assert not re.search(r'["\[\](){}<>|`]', label), label
        assert "#" not in ENTITY_CODE.sub("", label), label
    # Both list entities in the same reading order: each label reads back as its entity's name.
    for (label, cls), (_, data) in zip(nodes.values(), graph.nodes(data=True), strict=True):
        assert unescape_mermaid(label) == label_of(data)
        assert cls == f"kind_{data['kind']}"
    shown = {unescape_mermaid(label) for label, _ in nodes.values()}
    assert {AWKWARD, "web/[slug]/page.ts", "Cart.checkout", "render"} <= shown


def test_mermaid_arrows_follow_resolution(repo):
    nodes, edges = parse_mermaid(export(repo, "--format", "mermaid").stdout)
    graph = node_link(repo)
    ids = dict(zip(graph.nodes, nodes, strict=True))
    arrows = {(s, t, k): arrow for s, arrow, k, t in edges}
    assert len(arrows) == graph.number_of_edges()
    guessed = 0
    for source, target, data in graph.edges(data=True):
        inferred = data["resolution"] in ("inferred", "heuristic", "ambiguous")
        guessed += inferred
        assert arrows[ids[source], ids[target], data["kind"]] == ("-.->" if inferred else "-->")
    assert guessed  # the project has guessed calls (cart.checkout() on an instance)


def test_mermaid_around_marks_the_centre(repo):
    text = export(repo, "--format", "mermaid", "--around", "Cart.checkout").stdout
    assert 'title: "repo: around shop/cart.py::Cart.checkout (depth 1), ' in text
    nodes, _ = parse_mermaid(text)
    centre = next(i for i, (label, _) in nodes.items() if label == "Cart.checkout")
    assert text.rstrip().endswith(f"style {centre} stroke-width:3px")


def test_mermaid_cap_says_what_it_left_out(repo):
    total = node_link(repo).number_of_nodes()
    proc = export(repo, "--format", "mermaid", "--max-nodes", "4")
    nodes, edges = parse_mermaid(proc.stdout)
    assert len(nodes) == 4
    assert all(s in nodes and t in nodes for s, _, _, t in edges)
    assert f"4 of {total} entities" in proc.stdout.splitlines()[1]
    note = next(line for line in proc.stdout.splitlines() if "the cap of 4 entities left out" in line)
    assert note.startswith("    %% ") and "--around ENTITY" in note and "--max-nodes" in note
    assert "note: the cap of 4 entities left out" in proc.stderr


# ---- selection, in every format

def test_around_depth_selects_the_neighbourhood(repo):
    whole = node_link(repo).to_undirected(as_view=True)
    centre = "shop/cart.py::Cart.checkout"
    for depth in (0, 1, 2):
        picked = node_link(repo, "--around", "Cart.checkout", "--depth", str(depth))
        expected = set(nx.single_source_shortest_path_length(whole, centre, cutoff=depth))
        assert set(picked.nodes) == expected, depth
        assert picked.graph["around"] == centre and picked.graph["depth"] == depth
        assert {(s, t, k) for s, t, k in picked.edges(keys=True)} == {
            (s, t, k) for s, t, k in node_link(repo).edges(keys=True) if s in expected and t in expected
        }
    assert set(node_link(repo, "--around", "Cart.checkout").nodes) == set(  # depth 1 by default
        nx.single_source_shortest_path_length(whole, centre, cutoff=1))


def test_around_works_for_graphml_too(repo, tmp_path):
    out = tmp_path / "around.graphml"
    proc = export(repo, "--format", "graphml", "--around", "total", "--depth", "1", "-o", str(out))
    assert proc.stdout == "" and "wrote" in proc.stderr
    graph = nx.read_graphml(out)
    assert set(graph.nodes) == set(node_link(repo, "--external", "--around", "total").nodes)
    assert {"shop/pricing.py::total", "shop/cart.py::Cart.checkout", "shop/pricing.py"} <= set(graph.nodes)
    assert graph.graph["around"] == "shop/pricing.py::total"


def test_edges_limits_the_kinds_followed_and_shown(repo):
    calls = node_link(repo, "--edges", "calls")
    assert calls.number_of_edges() > 0
    assert {d["kind"] for *_, d in calls.edges(data=True)} == {"calls"}
    assert all(calls.degree(n) > 0 for n in calls.nodes)  # entities with no call are left out
    only_calls = nx.MultiDiGraph([(s, t) for s, t, d in node_link(repo).edges(data=True) if d["kind"] == "calls"])
    around = node_link(repo, "--around", "main", "--depth", "2", "--edges", "calls")
    expected = set(nx.single_source_shortest_path_length(only_calls.to_undirected(), "app.py::main", cutoff=2))
    assert set(around.nodes) == expected and len(expected) > 3
    assert around.graph["edge_kinds"] == "calls"


def test_data_exports_are_whole_unless_capped(repo):
    whole = json.loads(export(repo).stdout)
    assert whole["graph"] == {}
    capped = json.loads(export(repo, "--max-nodes", "3").stdout)
    assert len(capped["nodes"]) == 3
    assert capped["graph"]["total_nodes"] == len(whole["nodes"])
    assert capped["graph"]["omitted_nodes"] == len(whole["nodes"]) - 3
    assert "the cap of 3 entities left out" in capped["graph"]["note"]


# ---- errors a user can fix

@pytest.mark.parametrize("args, message", [
    (["--depth", "2"], "--around ENTITY"),
    (["--file", "cart.py"], "--around ENTITY"),
    (["--around", "chekout"], "did you mean"),
    (["--around", "load", "--depth", "11"], "use 0 to 10"),
    (["--around", "load", "--depth", "-1"], "use 0 to 10"),
    (["--max-nodes", "0"], "use 1 or more"),
    (["--edges", "cals"], "did you mean calls"),
    (["--edges", ","], "no edge kind given"),
    (["--format", "svg"], "invalid choice"),
    (["-o", "missing/folder/graph.html", "--format", "html"], "the folder missing/folder does not exist"),
    (["-o", "."], "is a folder"),
    (["-o", "app.py/graph.json"], "is a file, not a folder"),
])
def test_bad_input_is_one_clear_error(repo, args, message):
    proc = export(repo, *args, check=False)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert proc.stdout == ""


def test_ambiguous_around_lists_candidates_and_file_narrows_it(repo):
    proc = export(repo, "--around", "load", check=False)
    assert proc.returncode == 2
    assert "'load' names 2 entities" in proc.stderr
    assert "shop/pricing.py::load" in proc.stderr and "store/load.py::load" in proc.stderr
    narrowed = node_link(repo, "--around", "load", "--file", "store/load.py", "--depth", "0")
    assert list(narrowed.nodes) == ["store/load.py::load"]


def test_nothing_to_export_exits_1(repo):
    proc = export(repo, "--format", "mermaid", "--edges", "implements", check=False)
    assert proc.returncode == 1
    assert "nothing to export" in proc.stderr
    assert proc.stdout.startswith("---\ntitle:")


# ---- HTML

def html_page(repo: Path, tmp_path: Path, *args: str) -> tuple[Path, str]:
    out = tmp_path / "graph.html"
    export(repo, "--format", "html", *args, "-o", str(out))
    return out, out.read_text(encoding="utf-8")


def page_data(page: str) -> dict:
    match = re.search(r'<script type="application/json" id="graph-data">(.*?)</script>', page, re.S)
    return json.loads(match[1])


def test_html_is_one_self_contained_file(repo, tmp_path):
    _, page = html_page(repo, tmp_path)
    library = (Path(__file__).parents[1] / "graphctx/export/assets/cytoscape.min.js").read_text(encoding="utf-8")
    assert library.strip()[-200:] in page  # the library, inlined whole
    assert "The Cytoscape Consortium" in page
    assert not re.search(r"<script[^>]*\bsrc=", page) and "<link" not in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "default-src 'none'" in page  # the page may fetch nothing
    data = page_data(page)
    whole = node_link(repo)
    assert {n["id"] for n in data["nodes"]} == set(whole.nodes)
    assert len(data["edges"]) == whole.number_of_edges()
    cart = next(n for n in data["nodes"] if n["id"] == "shop/cart.py::Cart")
    assert cart["kind"] == "class" and "</script>" in cart["doc"]  # the doc survives, escaped in the page
    assert page.count("</script>") == 3  # the data, the library and the viewer: nothing closed early
    checkout = next(n for n in data["nodes"] if n["id"] == "shop/cart.py::Cart.checkout")
    assert checkout["signature"].startswith("def checkout(self, coupon: str")
    assert {e["line"] for e in data["edges"]} <= {"solid", "dotted", "dashed"}
    assert {k["kind"] for k in data["legend"]["kinds"]} == {"file", "class", "method", "function"}


def test_html_cap_note_is_on_the_page(repo, tmp_path):
    _, page = html_page(repo, tmp_path, "--max-nodes", "5")
    assert len(page_data(page)["nodes"]) == 5
    note = re.search(r'<div class="note">(.*?)</div>', page)
    assert note and "the cap of 5 entities left out" in html_lib.unescape(note[1])
    _, whole = html_page(repo, tmp_path)
    assert '<div class="note" hidden></div>' in whole


def test_html_refuses_a_terminal_but_not_a_pipe(repo):
    assert export(repo, "--format", "html").stdout.startswith("<!DOCTYPE html>")  # a pipe: the page
    leader, follower = pty.openpty()
    try:
        proc = subprocess.run([sys.executable, "-m", "graphctx.cli.main", "export", "--format", "html"], cwd=repo,
                              stdout=follower, stderr=subprocess.PIPE, text=True, timeout=120, stdin=subprocess.DEVNULL)
    finally:
        os.close(follower)
        os.close(leader)
    assert proc.returncode == 2
    assert "pass -o FILE.html" in proc.stderr and "Traceback" not in proc.stderr


def test_output_into_a_missing_folder_is_one_clear_error(repo):
    proc = graphctx("export", "--format", "mermaid", "-o", "no/such/folder/graph.mmd", cwd=repo, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == ("error: cannot write no/such/folder/graph.mmd: the folder no/such/folder does not exist; "
                           "create it first or pass another -o\n")
    assert not (repo / "no").exists()


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def render(page: Path, tmp_path: Path, fragment: str = "") -> str:
    """The page's DOM after headless Chromium has loaded it, with every host unresolvable so that
    any network request would fail."""
    proc = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
         "--host-resolver-rules=MAP * ~NOTFOUND", "--virtual-time-budget=20000", "--window-size=1200,800",
         "--dump-dom", page.as_uri() + fragment],
        capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def body_attributes(dom: str) -> dict[str, str]:
    body = re.search(r"<body([^>]*)>", dom)
    return {k: html_lib.unescape(v) for k, v in re.findall(r'([\w-]+)="([^"]*)"', body[1])}


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (Debian: apt-get install chromium)")
def test_chromium_draws_every_node_offline(repo, tmp_path):
    page, text = html_page(repo, tmp_path)
    expected = len(page_data(text)["nodes"])
    attrs = body_attributes(render(page, tmp_path))
    assert "data-render-error" not in attrs, attrs
    assert attrs.get("data-rendered-nodes") == str(expected)
    assert attrs.get("data-rendered-edges") == str(len(page_data(text)["edges"]))
    assert attrs.get("data-resource-requests") == "0"


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (Debian: apt-get install chromium)")
def test_chromium_shows_the_details_of_a_linked_entity(repo, tmp_path):
    page, text = html_page(repo, tmp_path, "--around", "Cart.checkout", "--depth", "1")
    dom = render(page, tmp_path, "#shop%2Fcart.py%3A%3ACart.checkout")
    attrs = body_attributes(dom)
    assert "data-render-error" not in attrs, attrs
    assert attrs.get("data-rendered-nodes") == str(len(page_data(text)["nodes"]))
    details = html_lib.unescape(re.search(r'<div id="details">(.*?)</div>', dom, re.S)[1])
    assert "<dd>shop/cart.py::Cart.checkout</dd>" in details
    assert "<dd>method (python)</dd>" in details
    assert 'def checkout(self, coupon: str = "") -> int' in details
    assert re.search(r"<dd>shop/cart\.py:\d+-\d+</dd>", details)
    assert "pwned" not in re.search(r"<title>(.*?)</title>", dom)[1]  # the doc's markup stayed text


def test_data_exports_carry_external_and_unresolved_calls(tmp_path):
    repo = write_tree(tmp_path / "ext", {"m.py": "import os\n\n\ndef f(callback):\n    callback()\n    os.getcwd()\n"})
    subprocess.run([sys.executable, "-m", "graphctx.cli.main", "index", "-q", str(repo)], check=True, capture_output=True)
    data = json.loads(export(repo, "--format", "json").stdout)
    kinds = {n["id"]: n["kind"] for n in data["nodes"]}
    assert kinds["ext:os.getcwd"] == "external" and kinds["ext:callback"] == "unresolved"
    calls = {(e["source"], e["target"], e["resolution"]) for e in data["edges"] if e["kind"] == "calls"}
    assert calls == {("m.py::f", "ext:os.getcwd", "external"), ("m.py::f", "ext:callback", "unresolved")}
    plain = json.loads(export(repo, "--format", "json", "--no-external").stdout)
    assert not any(n["id"].startswith("ext:") for n in plain["nodes"])
    picture = export(repo, "--format", "mermaid", "--external").stdout
    assert "callback #40;unresolved#41;" in picture and "os.getcwd #40;external#41;" in picture
