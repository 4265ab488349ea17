"""`graphctx impact --diff` on real git repositories built here: hunks map to the innermost entities
they touch (the edited function, the changed constant, the class that gained a line; never an
unchanged sibling), their dependents follow in tiers, uncommitted and untracked changes count,
removed entities are reported with what still uses them, the default base comes from origin/HEAD,
an upstream or a main/master/trunk branch, and bad input is one clear error with exit status 2.
Through the CLI in a subprocess, the library, and MCP over the SDK's in-memory client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client

from conftest import write_tree
from graphctx import Project
from graphctx.context import diff as gitdiff
from graphctx.context.tokens import count
from graphctx.errors import InvalidRequest
from graphctx.index.indexer import index_repository

SIBLINGS = 30  # unchanged functions beside the edited one
IMPORTERS = 25  # modules that import the changed constant

BASE = {
    "shop/__init__.py": "",
    "shop/pricing.py": (
        '"""Prices."""\n'
        "RATE = 0.2\n\n\n"
        "def price(amount):\n"
        '    """Gross price."""\n'
        "    return amount * (1 + RATE)\n\n\n"
        "def discount(amount):\n"
        "    return amount * 0.9\n"
        + "".join(f"\n\ndef sibling_{i}(x):\n    return x + {i}\n" for i in range(SIBLINGS))
    ),
    "shop/cart.py": (
        "from shop.pricing import price\n\n\n"
        "class Cart:\n"
        '    """A cart."""\n\n'
        "    def __init__(self):\n"
        "        self.items = []\n\n"
        "    def total(self):\n"
        "        return sum(price(i) for i in self.items)\n"
    ),
    "shop/checkout.py": (
        "from shop.cart import Cart\n\n\n"
        "def checkout(cart: Cart):\n"
        "    return cart.total()\n"
    ),
    "shop/receipt.py": (
        "class Receipt:\n"
        '    """What a customer takes home."""\n\n'
        "    width = 40\n\n"
        "    def lines(self):\n"
        "        return []\n"
    ),
    "shop/legacy.py": (
        "from shop.pricing import discount\n\n\n"
        "def old_total(amount):\n"
        "    return discount(amount)\n"
    ),
    "tests/test_pricing.py": (
        "from shop.pricing import price\n\n\n"
        "def test_price():\n"
        "    assert price(10) == 12.0\n"
    ),
    **{f"shop/report_{i}.py": f"from shop.pricing import RATE\n\n\ndef report_{i}():\n    return RATE * {i}\n"
       for i in range(IMPORTERS)},
}
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com"}


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV})
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout.strip()


def graphctx(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "120"}
    proc = subprocess.run([sys.executable, "-m", "graphctx.cli.main", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def edit(root: Path, path: str, old: str, new: str) -> None:
    file = root / path
    text = file.read_text()
    assert old in text, f"{old!r} not in {path}"
    file.write_text(text.replace(old, new, 1))


def make_repo(root: Path, branch: str = "master") -> Path:
    """The shop on `branch` (one commit), indexed at that commit."""
    write_tree(root, BASE)
    git(root, "init", "-q", "-b", branch)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    index_repository(root)
    return root


def make_change(root: Path) -> None:
    """On a feature branch: a committed edit of a function body, a staged line in a class, and an
    unstaged change of a constant (the index is left as it was at the base)."""
    git(root, "checkout", "-q", "-b", "feature")
    edit(root, "shop/pricing.py", "return amount * (1 + RATE)", "return round(amount * (1 + RATE), 2)")
    git(root, "commit", "-q", "-am", "round prices")
    edit(root, "shop/receipt.py", "    width = 40\n", "    width = 40\n    currency = 'EUR'\n")
    git(root, "add", "shop/receipt.py")
    edit(root, "shop/pricing.py", "RATE = 0.2", "RATE = 0.25")


def items(text: str) -> list[tuple[str, str]]:
    """(relation, id) of each entity heading of a compact answer, in order."""
    out = []
    for line in text.splitlines():
        if line.startswith("## "):
            words = line[3:].split()
            relation = " ".join(words[:2]) if words[0].startswith("tier") else words[0]
            out.append((relation, words[2] if words[0].startswith("tier") else words[1]))
    return out


@pytest.fixture(scope="module")
def changed(tmp_path_factory) -> Path:
    root = make_repo(tmp_path_factory.mktemp("diff") / "shop")
    make_change(root)
    return root


# ---- mapping hunks to entities, and what depends on them

def test_diff_lists_the_edited_function_and_its_callers_first(changed):
    proc = graphctx(changed, "impact", "--diff")
    assert proc.returncode == 0, proc.stderr
    found = items(proc.stdout)
    relations = dict((entity, relation) for relation, entity in found)
    # the innermost entities of the changed lines: committed, staged and unstaged changes all count
    assert relations["shop/pricing.py::price"] == "changed"
    assert relations["shop/pricing.py::RATE"] == "changed"
    assert relations["shop/receipt.py::Receipt"] == "changed"  # a line added in the class body
    assert {e for r, e in found if r == "changed"} == {
        "shop/pricing.py::price", "shop/pricing.py::RATE", "shop/receipt.py::Receipt"}  # no sibling, no file
    assert "note: 2 file(s) changed against the merge base with master" in proc.stdout
    # the edited function comes first, its caller first among the dependents
    assert found[0] == ("changed", "shop/pricing.py::price")
    dependents = [(r, e) for r, e in found if r.startswith("tier")]
    assert dependents[0] == ("tier1 called-by", "shop/cart.py::Cart.total")
    assert relations["tests/test_pricing.py::test_price"].startswith("tier2")
    assert relations["shop/checkout.py::checkout"] == "tier3 called-by"
    tiers = [int(r[4]) for r, _ in dependents]
    assert tiers == sorted(tiers)
    # the unchanged siblings and the unrelated code are no part of it
    assert not any("sibling_" in e or "legacy" in e for _, e in found)


def test_a_changed_constant_does_not_bury_the_callers(changed):
    budget = 500
    proc = graphctx(changed, "impact", "--diff", "--budget", str(budget))
    assert proc.returncode == 0, proc.stderr
    assert count(proc.stdout.rstrip("\n")) <= budget
    order = [e for _, e in items(proc.stdout)]
    assert "shop/cart.py::Cart.total" in order
    importers = [i for i, e in enumerate(order) if e.startswith("shop/report_")]
    assert all(i > order.index("shop/cart.py::Cart.total") for i in importers)
    # the file list puts every entity of the file at stake; the diff only what changed
    by_files = graphctx(changed, "impact", "--files", "shop/pricing.py", "--budget", "4000")
    assert any("sibling_" in e for r, e in items(by_files.stdout) if r == "changed")


def test_json_answer(changed):
    proc = graphctx(changed, "impact", "--diff", "master", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["mode"] == "impact" and answer["query"] == "diff against master"
    by_id = {item["id"]: item for item in answer["items"]}
    assert by_id["shop/pricing.py::price"]["relation"] == "changed"
    assert by_id["shop/cart.py::Cart.total"]["relation"] == "tier1 called-by"
    assert answer["tokens_used"] <= answer["token_budget"]


def test_a_revision_compares_the_working_tree_with_it(changed):
    """HEAD: only what is not committed yet (the staged class line and the unstaged constant)."""
    proc = graphctx(changed, "impact", "--diff", "HEAD")
    assert proc.returncode == 0, proc.stderr
    changed_ids = {e for r, e in items(proc.stdout) if r == "changed"}
    assert changed_ids == {"shop/pricing.py::RATE", "shop/receipt.py::Receipt"}
    assert "diff against HEAD" in proc.stdout


def test_removed_added_and_untracked(tmp_path):
    root = make_repo(tmp_path / "shop")
    # discount is removed but legacy.old_total still calls it; the new function is in a new, untracked file
    edit(root, "shop/pricing.py", "def discount(amount):\n    return amount * 0.9\n", "")
    (root / "shop" / "coupons.py").write_text("from shop.pricing import price\n\n\ndef coupon(x):\n    return price(x)\n")
    index_repository(root)
    answer, text = Project(root, find=False).impact(diff="")
    relations = {item.id: item.relation for item in answer.items}
    assert relations["shop/pricing.py::discount"] == "removed"
    assert relations["shop/legacy.py::old_total"] == "tier1 uses-removed"
    assert relations["shop/coupons.py::coupon"] == "added"
    assert "shop/pricing.py::price" not in relations  # an unchanged neighbour of the removed lines
    removed = next(item for item in answer.items if item.id == "shop/pricing.py::discount")
    assert (removed.start_line, removed.end_line) == (10, 11)  # where the base revision had it
    assert relations["shop/coupons.py"] == "added"  # its import lines are outside every definition
    assert "2 added, 1 removed" in answer.notes[0]


def test_a_deleted_file_is_removed_with_its_entities(tmp_path):
    root = make_repo(tmp_path / "shop")
    git(root, "rm", "-q", "shop/cart.py")
    index_repository(root)
    answer, _ = Project(root, find=False).impact(diff="HEAD")
    relations = {item.id: item.relation for item in answer.items}
    assert {e for e, r in relations.items() if r == "removed"} == {
        "shop/cart.py", "shop/cart.py::Cart", "shop/cart.py::Cart.__init__", "shop/cart.py::Cart.total"}
    users = {e for e, r in relations.items() if r == "tier1 uses-removed"}
    assert users and all(e.startswith("shop/checkout.py") for e in users)  # it imports Cart, which is gone


def test_a_removed_function_nobody_uses_has_no_dependents(tmp_path):
    root = make_repo(tmp_path / "shop")
    edit(root, "shop/pricing.py", "def sibling_3(x):\n    return x + 3\n", "")
    proc = graphctx(root, "impact", "--diff")
    assert proc.returncode == 0, proc.stderr
    assert items(proc.stdout) == [("removed", "shop/pricing.py::sibling_3")]


def test_no_change_is_an_empty_answer_with_exit_1(tmp_path):
    root = make_repo(tmp_path / "shop")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n")  # a text file would be known at file level
    proc = graphctx(root, "impact", "--diff")
    assert proc.returncode == 1
    assert "entities changed" in proc.stdout and items(proc.stdout) == []
    assert "changed files graphctx does not index: logo.png" in proc.stdout


# ---- the default base

def test_default_base_is_the_merge_base_with_master(changed):
    assert gitdiff.default_branch(changed) == "master"
    base, label = gitdiff.resolve_base(changed, None)
    assert base == git(changed, "merge-base", "master", "HEAD") and label == "the merge base with master"
    assert gitdiff.resolve_base(changed, "default") == (base, label)


def test_default_base_prefers_origin_head(tmp_path):
    upstream = make_repo(tmp_path / "upstream", branch="trunk")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(upstream), str(clone))
    git(clone, "branch", "main")  # a local main must not win over the remote's default branch
    assert git(clone, "symbolic-ref", "refs/remotes/origin/HEAD") == "refs/remotes/origin/trunk"
    assert gitdiff.default_branch(clone) == "origin/trunk"
    index_repository(clone)
    edit(clone, "shop/cart.py", "return sum(", "return 0 + sum(")
    proc = graphctx(clone, "impact", "--diff")
    assert proc.returncode == 0, proc.stderr
    assert "against the merge base with origin/trunk" in proc.stdout
    assert items(proc.stdout)[0] == ("changed", "shop/cart.py::Cart.total")
    # without origin/HEAD: the current branch's upstream
    git(clone, "remote", "set-head", "origin", "-d")
    assert gitdiff.default_branch(clone) == "origin/trunk"
    git(clone, "checkout", "-q", "-b", "topic", "--no-track")
    assert gitdiff.default_branch(clone) == "main"  # no upstream now: the local branch named main


# ---- errors a user can fix

def test_outside_git_is_a_clear_error(tmp_path):
    root = write_tree(tmp_path / "plain", {"a.py": "def f():\n    pass\n"})
    index_repository(root)
    proc = graphctx(root, "impact", "--diff")
    assert proc.returncode == 2 and proc.stdout == ""
    assert "is not in a git work tree" in proc.stderr and "--files" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    git(root, "init", "-q")  # a repository, but nothing to compare with yet
    with pytest.raises(InvalidRequest, match="no commits yet"):
        gitdiff.resolve_base(root, "HEAD")


def test_unknown_revision_suggests_branches(changed):
    proc = graphctx(changed, "impact", "--diff", "featur")
    assert proc.returncode == 2
    assert "unknown revision 'featur'" in proc.stderr and "  - feature" in proc.stderr
    with pytest.raises(InvalidRequest, match="unknown revision '--output=x'"):  # never read as a git option
        gitdiff.resolve_base(changed, "--output=x")


def test_one_subject_at_a_time(changed):
    proc = graphctx(changed, "impact", "price", "--diff")
    assert proc.returncode == 2 and "exactly one of them" in proc.stderr


def test_paths_git_quotes(tmp_path):
    root = make_repo(tmp_path / "shop")
    odd = {"shop/naïve module.py": "def café():\n    return 1\n", 'shop/tab\tname.py': "def t():\n    return 2\n"}
    write_tree(root, odd)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "odd names")
    for path in odd:
        edit(root, path, "return", "return 10 +")
    found = {f.path: f for f in gitdiff.read(root, "HEAD").files}
    assert set(found) == set(odd)
    assert found["shop/naïve module.py"].added == [2] and found["shop/naïve module.py"].removed == [2]


def test_patch_lines_that_look_like_headers():
    patch = (
        "diff --git a/x.sql b/x.sql\n--- a/x.sql\n+++ b/x.sql\n@@ -3,2 +3 @@ select\n"
        "--- a comment that starts with two dashes\n-\n+++ plus\n\\ No newline at end of file\n"
        "diff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+a = 1\n+\n"
        "diff --git a/gone.py b/gone.py\ndeleted file mode 100644\n--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-b = 2\n"
    )
    files = gitdiff.parse_patch(patch)
    assert [(f.path, f.status, f.added, f.removed) for f in files] == [
        ("x.sql", "modified", [3], [3]),  # the blank removed line does not count
        ("new.py", "added", [1], []),
        ("gone.py", "deleted", [], [1]),
    ]


# ---- over MCP

def test_get_impact_with_diff_over_mcp(changed):
    from graphctx.server import build_server

    server = build_server(changed, watch=False)

    async def go():
        out = {}
        async with Client(server) as client:
            for key, args in {"default": {"diff": ""}, "keyword": {"diff": "default"}, "head": {"diff": "HEAD"},
                              "json": {"diff": "", "format": "json"}, "bad": {"diff": "nope"},
                              "both": {"diff": "", "symbol": "price"}}.items():
                out[key] = await client.call_tool("get_impact", args)
        async with Client(server, mode="legacy") as client:
            out["legacy"] = await client.call_tool("get_impact", {"diff": "master"})
        return out

    try:
        results = anyio.run(go)
    finally:
        server.graphctx_state.fresh.stop()
    for key in ("default", "keyword", "legacy"):
        result = results[key]
        assert not result.is_error, result.content[0].text
        found = items(result.content[0].text)
        assert found[0] == ("changed", "shop/pricing.py::price")
        assert ("tier1 called-by", "shop/cart.py::Cart.total") in found
    assert {e for r, e in items(results["head"].content[0].text) if r == "changed"} == {
        "shop/pricing.py::RATE", "shop/receipt.py::Receipt"}
    data = results["json"].structured_content
    assert data["mode"] == "impact" and data["items"][0]["id"] == "shop/pricing.py::price"
    assert results["bad"].is_error and "unknown revision 'nope'" in results["bad"].content[0].text
    assert results["both"].is_error and "exactly one of them" in results["both"].content[0].text
