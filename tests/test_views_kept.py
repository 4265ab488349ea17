"""Answers keep the lines of the files they quote between them, and read a file again once its stat
changes: an edit on disk (the same size, no index run since) shows in the next answer at once."""

from __future__ import annotations

from pathlib import Path

from conftest import write_tree
from graphctx import Project
from graphctx.index.indexer import index_repository

BEFORE = 'def greet(name):\n    return "hello " + name\n\n\ndef main():\n    return greet("ann")\n'
AFTER = BEFORE.replace('"hello "', '"howdy "')  # same size: only the stat's times and the bytes move


def test_an_edit_shows_in_the_next_answer_of_the_same_project(tmp_path: Path):
    root = write_tree(tmp_path / "repo", {"app.py": BEFORE})
    index_repository(root)
    with Project(root, find=False) as project:
        _, first = project.context("greet", token_budget=1000)
        assert 'return "hello " + name' in first
        _, again = project.context("main", token_budget=1000)  # quotes app.py again, from what was kept
        assert 'return "hello " + name' in again
        (root / "app.py").write_text(AFTER)
        _, edited = project.context("main", token_budget=1000)
        assert 'return "howdy " + name' in edited and '"hello "' not in edited


def test_a_file_gone_from_disk_is_quoted_no_more(tmp_path: Path):
    root = write_tree(tmp_path / "repo", {"app.py": BEFORE})
    index_repository(root)
    with Project(root, find=False) as project:
        _, first = project.context("greet", token_budget=1000)
        assert 'return "hello " + name' in first
        (root / "app.py").unlink()
        _, gone = project.context("main", token_budget=1000)
        assert '"hello "' not in gone and "main" in gone
