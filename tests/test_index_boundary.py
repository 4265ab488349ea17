"""The repository ends at its root: a symbolic link whose target lies outside it is skipped at
discovery and counted under "outside the repository", symlinked folders are not followed, and
every read of source for an answer goes through the same check, so that code from outside the
repository is never served: not by the CLI, not over MCP, not even when an indexed file turns into
such a link after it was indexed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from conftest import index_tables, write_tree
from graphctx import Project
from graphctx.index.indexer import index_repository
from graphctx.index.root import Boundary, OutsideRepository
from graphctx.index.skips import OUTSIDE

SECRET = "TOP-SECRET-OUTSIDE"
OUTSIDE_CODE = f"def leaked_secret():\n    return '{SECRET}'\n"
INSIDE = {
    "app.py": "from util import helper\n\n\ndef main():\n    return helper()\n",
    "util.py": "def helper():\n    '''Help.'''\n    return 1\n",
}
LEAVING = {"leak.py", "pkg/up.py", "chain.py"}  # the links that end outside, one per way of getting there


def make_layout(tmp_path: Path, use_git: bool) -> tuple[Path, Path]:
    outside = write_tree(tmp_path / "outside", {
        "secret.py": OUTSIDE_CODE,
        "lib/ext.py": OUTSIDE_CODE.replace("leaked_secret", "external_helper"),
        "README.md": f"# Outside\n\n{SECRET} prose that is not this project's.\n",
    })
    root = write_tree(tmp_path / "repo", {**INSIDE, "pkg/__init__.py": ""})
    (root / "leak.py").symlink_to(outside / "secret.py")                      # absolute link out
    (root / "pkg" / "up.py").symlink_to(Path("..", "..", "outside", "secret.py"))  # relative link climbing out
    (root / "pkg" / "hop").symlink_to(outside, target_is_directory=True)
    (root / "chain.py").symlink_to(Path("pkg", "hop", "secret.py"))           # a chain of links that ends outside
    (root / "vendorlib").symlink_to(outside / "lib", target_is_directory=True)  # a folder out: not followed
    (root / "alias.py").symlink_to("util.py")                                 # a link that stays inside: indexed
    if use_git:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)  # git tracks links as links
    return root, outside


@pytest.fixture(params=["git", "no-git"])
def layout(request, tmp_path) -> tuple[Path, Path]:
    return make_layout(tmp_path, request.param == "git")


def entity_names(root: Path) -> set[str]:
    return {row[2] for row in index_tables(root)["entities"]}


def test_links_that_leave_the_repository_are_skipped_and_counted(layout):
    root, outside = layout
    result = index_repository(root, workers=1)
    indexed = {row[0] for row in index_tables(root)["files"]}
    assert indexed == {"app.py", "util.py", "alias.py", "pkg/__init__.py"}
    assert {"leaked_secret", "external_helper"}.isdisjoint(entity_names(root))
    skipped = {s.path: s for s in result.skipped if s.reason == OUTSIDE}
    assert set(skipped) == LEAVING
    assert skipped["leak.py"].detail == f"it resolves to {(outside / 'secret.py').resolve()}"
    assert "outside the repository 3" in result.summary()
    assert result.report()["skipped"] == {OUTSIDE: 3}
    assert "alias.py::helper" in {row[0] for row in index_tables(root)["entities"]}


def test_a_tracked_file_under_a_folder_replaced_by_a_link_out_is_skipped(tmp_path):
    outside = write_tree(tmp_path / "outside", {"mod.py": OUTSIDE_CODE})
    root = write_tree(tmp_path / "repo", {**INSIDE, "src/mod.py": "def inside():\n    return 1\n"})
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    (root / "src" / "mod.py").unlink()
    (root / "src").rmdir()
    (root / "src").symlink_to(outside, target_is_directory=True)  # git still lists src/mod.py from its index
    result = index_repository(root, workers=1)
    assert [(s.path, s.reason) for s in result.skipped] == [("src/mod.py", OUTSIDE)]
    assert "leaked_secret" not in entity_names(root)


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "graphctx.cli.main", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def test_the_cli_names_the_skipped_links_and_serves_nothing_from_outside(tmp_path):
    root, outside = make_layout(tmp_path, use_git=False)
    indexed = cli("index", cwd=root)
    assert indexed.returncode == 0
    assert "skipped 3 files outside the repository (graphctx stats lists them)" in indexed.stderr
    assert "outside the repository 3" in indexed.stdout
    stats = json.loads(cli("stats", "--json", cwd=root).stdout)
    assert stats["skipped"] == {OUTSIDE: 3}
    assert sorted(path for path, reason, _ in stats["skipped_files"] if reason == OUTSIDE) == sorted(LEAVING)
    assert f"leak.py: outside the repository (it resolves to {(outside / 'secret.py').resolve()})" in cli(
        "stats", cwd=root).stdout

    file = cli("file", "leak.py", cwd=root)
    assert file.returncode == 2 and SECRET not in file.stdout
    target = (outside / "secret.py").resolve()
    assert f"'leak.py' leads through a symbolic link to {target}, outside the repository" in file.stderr
    assert cli("search", "leaked_secret", cwd=root).returncode == 1
    intent = cli("intent", "debug", "why does leaked_secret return a secret", cwd=root)
    assert SECRET not in intent.stdout and "def leaked_secret" not in intent.stdout


def test_mcp_serves_nothing_from_outside(tmp_path):
    from graphctx.server import build_server  # the MCP SDK is loaded only on the serve path

    root, _ = make_layout(tmp_path, use_git=True)
    (root / "README.md").symlink_to(tmp_path / "outside" / "README.md")  # the onboarding overview reads the README
    index_repository(root, workers=1)
    server = build_server(root, watch=False)

    async def go():
        async with Client(server) as client:
            answers = [
                await client.call_tool("get_context", {"mode": "intent", "intent": "debug",
                                                       "target": "why does leaked_secret return a secret"}),
                await client.call_tool("search", {"query": "leaked_secret"}),
                await client.call_tool("session_init", {}),
            ]
            refused = await client.call_tool("get_file_context", {"file": "leak.py"})
            with pytest.raises(MCPError, match="outside the repository"):
                await client.read_resource("graphctx://file/pkg/up.py")
            return answers, refused

    try:
        answers, refused = anyio.run(go)
    finally:
        server.graphctx_state.fresh.stop()
    for answer in answers:
        text = "".join(c.text for c in answer.content)
        assert SECRET not in text and "::leaked_secret" not in text and "def leaked_secret" not in text
    assert refused.is_error and "outside the repository" in refused.content[0].text


def test_an_indexed_file_that_becomes_a_link_out_is_not_read(tmp_path):
    root = write_tree(tmp_path / "repo", INSIDE)
    outside = write_tree(tmp_path / "outside", {"util.py": f"def helper():\n    '''Help.'''\n    return '{SECRET}'\n"})
    index_repository(root, workers=1)
    (root / "util.py").unlink()
    (root / "util.py").symlink_to(outside / "util.py")  # after indexing: the index still holds util.py::helper
    for answer, text in (Project(root, find=False).context("util.py::helper"), Project(root, find=False).intent("modify", "helper")):
        assert SECRET not in text
        helper = next(item for item in answer.items if item.id == "util.py::helper")
        assert helper.stale and "def helper()" in text  # what the index knows, flagged as changed
    index_repository(root, workers=1)  # and the next run drops it
    assert "helper" not in entity_names(root)


def test_the_boundary_resolves_every_link_before_it_reads(tmp_path):
    outside = write_tree(tmp_path / "outside", {"x.py": "x = 1\n"})
    root = write_tree(tmp_path / "repo", {"in.py": "y = 2\n", "sub/deep.py": "z = 3\n"})
    (outside / "back.py").symlink_to(root / "in.py")
    (root / "round.py").symlink_to(outside / "back.py")  # leaves and comes back: its target is inside
    (root / "sub" / "out").symlink_to(outside, target_is_directory=True)
    boundary = Boundary(root)
    assert boundary.read_text("round.py") == "y = 2\n"
    assert boundary.read_bytes("sub/deep.py") == b"z = 3\n"
    for rel in ("../outside/x.py", str(outside / "x.py"), "sub/out/x.py", "sub/../../outside/x.py", ".."):
        assert boundary.real_path(rel) is None, rel
        with pytest.raises(OutsideRepository, match="outside the repository"):
            boundary.read_bytes(rel)
    with pytest.raises(OSError):  # an OSError like any unreadable file, so every reader copes already
        boundary.read_text("sub/out/x.py")
    assert boundary.read_text("in.py", limit=1) == "y"
    os.mkfifo(root / "pipe.py")  # a named pipe put in a file's place: refused at once, never waited on
    with pytest.raises(OSError, match="not a regular file"):
        boundary.read_bytes("pipe.py")


def test_symlink_loops_are_safe(tmp_path):
    root = write_tree(tmp_path / "repo", INSIDE)
    (root / "a.py").symlink_to("b.py")
    (root / "b.py").symlink_to("a.py")
    (root / "loop").symlink_to(".", target_is_directory=True)
    result = index_repository(root, workers=1)
    assert {row[0] for row in index_tables(root)["files"]} == set(INSIDE)
    assert {p for p, _ in result.warnings} == {"a.py", "b.py"}
    assert Boundary(root).real_path("loop/loop/loop/app.py") == os.path.realpath(root / "app.py")
