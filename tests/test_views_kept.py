"""Answers keep the lines of the files they quote between them, and read a file again once its stat
changes: an edit on disk (the same size, no index run since) shows in the next answer at once, and
a class edited since indexing is outlined afresh rather than from the outline kept for its generation."""

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


CLASS_BEFORE = 'class Greeter:\n    """Says hello."""\n\n    def greet(self, name):\n        return "hello " + name\n'
CLASS_AFTER = CLASS_BEFORE.replace("Says hello.", "Says howdy.")  # same size: the kept outline must not answer


def test_an_edited_class_is_outlined_afresh(tmp_path: Path):
    root = write_tree(tmp_path / "repo", {"greeter.py": CLASS_BEFORE})
    index_repository(root)
    with Project(root, find=False) as project:
        _, first = project.context("Greeter", token_budget=1000)
        _, again = project.context("Greeter", token_budget=1000)  # from the outline kept on the graph
        assert '"""Says hello."""' in first and again == first
        (root / "greeter.py").write_text(CLASS_AFTER)
        _, edited = project.context("Greeter", token_budget=1000)
        assert '"""Says howdy."""' in edited and '"""Says hello."""' not in edited  # (the file's outline
        # lists the class by its indexed doc, # Says hello.: that line is the index's, not the disk's)
