"""Every text file graphctx has no grammar for is known at file level: a file entity with its
language guessed from its name or extension, its lines and its first heading or comment as doc,
found by search and shown by `graphctx file`; binary formats, lock files and the files of a
language whose grammar wheel is missing are skipped with their reason, never in silence."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import query_index as rows, write_tree
from graphctx import Project
from graphctx.index.indexer import index_repository
from graphctx.index.skips import tally
from graphctx.parse.textfiles import file_language, first_heading

TREE = {
    "app.py": "def main():\n    return 1\n",
    "README.md": "[![build](badge.svg)](ci)\n\n# Inventory service\n\nKeeps stock.\n",
    "docs/guide.rst": "Operating guide\n===============\n\nStart it.\n",
    "docs/notes.txt": "\nRestart nightly.\nThen check.\n",
    "Dockerfile": "# syntax=docker/dockerfile:1\n# The service image, built in CI.\nFROM python:3.12\n",
    "deploy/values.yaml": "# Helm values for production.\nreplicas: 3\n",
    "config/settings.json": '{"debug": false}\n',
    "db/schema.sql": "-- The stock tables.\nCREATE TABLE items (id INT);\n",
    "scripts/report.pl": "#!/usr/bin/perl\n# Prints the weekly report.\nprint 1;\n",
    "Makefile": "# Build targets.\nall:\n\tpython app.py\n",
    "LICENSE": "MIT License\n\nCopyright (c) the authors\n",
    "assets/logo.png": b"\x89PNG\r\n\x1a\n\0\0\0",
    "assets/font.woff2": b"wOF2\0\0",
    "data/blob": b"\0\1\2\3binary",
    "package-lock.json": '{"lockfileVersion": 3}\n',
}


def test_text_files_are_file_entities_with_language_lines_and_doc(tmp_path):
    root = write_tree(tmp_path / "repo", TREE)
    result = index_repository(root, workers=1)
    files = {path: (language, doc, end) for path, language, doc, end in rows(
        root, "SELECT path, language, doc, end_line FROM entities WHERE kind = 'file'")}
    assert files == {
        "app.py": ("python", "", 3),
        "README.md": ("markdown", "Inventory service", 6),
        "docs/guide.rst": ("restructuredtext", "Operating guide", 5),
        "docs/notes.txt": ("text", "Restart nightly.", 4),
        "Dockerfile": ("dockerfile", "The service image, built in CI.", 4),
        "deploy/values.yaml": ("yaml", "Helm values for production.", 3),
        "config/settings.json": ("json", "", 2),
        "db/schema.sql": ("sql", "The stock tables.", 3),
        "scripts/report.pl": ("perl", "Prints the weekly report.", 4),
        "Makefile": ("makefile", "Build targets.", 4),
        "LICENSE": ("text", "MIT License", 4),
    }
    # app.py's main; of text, only Markdown has entities inside (its document and sections: tests/test_documents.py)
    assert rows(root, "SELECT count(*) FROM entities WHERE kind NOT IN ('file', 'document', 'section')") == [(1,)]
    # skipped with their reason: binary formats by name (never read), binary content, generated lock files
    assert {s.path: s.reason for s in result.skipped} == {
        "assets/logo.png": "binary format", "assets/font.woff2": "binary format", "data/blob": "binary",
        "package-lock.json": "generated",
    }
    assert tally(result.skipped)[0] == {"binary format": 2, "binary": 1, "generated": 1}
    stats = Project(root, find=False).stats()
    assert stats.languages["markdown"] == 1 and stats.languages["perl"] == 1
    assert [path for path, _, _ in stats.skipped_files] == ["data/blob", "package-lock.json"]  # formats are counted


def test_a_file_level_file_costs_one_row_and_no_body_text(tmp_path):
    root = write_tree(tmp_path / "repo", {"README.rst": "Title\n=====\n\n" + "A line of prose.\n" * 200})
    index_repository(root, workers=1)
    assert rows(root, "SELECT kind, doc FROM entities") == [("file", "Title")]
    # The text is not copied into the index: its words find nothing, its heading finds the file.
    assert rows(root, "SELECT count(*) FROM entities_fts WHERE entities_fts MATCH 'prose'") == [(0,)]
    assert rows(root, "SELECT count(*) FROM entities_fts WHERE entities_fts MATCH 'title'") == [(1,)]


def test_an_edited_document_is_read_again(tmp_path):
    root = write_tree(tmp_path / "repo", {"README.md": "# Old title\n"})
    index_repository(root, workers=1)
    (root / "README.md").write_text("# New title\n\nMore.\n")
    result = index_repository(root, workers=1)
    assert result.parsed == 1
    assert rows(root, "SELECT doc, end_line FROM entities WHERE id = 'README.md'") == [("New title", 4)]


def graphctx(*args: str, cwd, blocked: str = "") -> subprocess.CompletedProcess:
    """The CLI in a fresh process; `blocked` names a module that process cannot import (a grammar
    wheel with no build for its platform)."""
    code = (f"import sys; sys.modules[{blocked!r}] = None\n" if blocked else "") + (
        "from graphctx.cli.main import main\nsys.exit(main(sys.argv[1:]))")
    proc = subprocess.run([sys.executable, "-c", "import sys\n" + code, *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def test_search_and_file_know_a_document(tmp_path):
    root = write_tree(tmp_path / "repo", TREE)
    assert graphctx("index", "-q", cwd=root).returncode == 0
    search = graphctx("search", "inventory", "--json", cwd=root)
    assert "README.md" in [hit["id"] for hit in json.loads(search.stdout)["hits"]]
    shown = graphctx("file", "Dockerfile", cwd=root)
    assert shown.returncode == 0 and "The service image, built in CI." in shown.stdout
    refused = graphctx("file", "assets/logo.png", cwd=root)
    assert refused.returncode == 2 and "assets/logo.png was not indexed: binary format" in refused.stderr


def test_a_language_whose_grammar_is_missing_is_skipped_with_a_warning(tmp_path):
    root = write_tree(tmp_path / "repo", {
        "app.py": "def main():\n    return 1\n", "plugin/init.lua": "local function f()\n  return 1\nend\n",
        "plugin/util.lua": "return {}\n",
    })
    run = graphctx("index", "--json", cwd=root, blocked="tree_sitter_lua")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["skipped_languages"] == {"lua": 2} and report["files"] == 1
    assert ["lua", "tree-sitter-lua is not installed on this platform: 2 lua file(s) skipped (pip install "
            "tree-sitter-lua where a wheel exists)"] in report["warnings"]
    why = graphctx("file", "plugin/init.lua", cwd=root, blocked="tree_sitter_lua")
    assert why.returncode == 2
    assert "plugin/init.lua is in lua, whose grammar (tree-sitter-lua) is not installed on this platform" in why.stderr
    assert graphctx("index", "--json", cwd=root).returncode == 0  # where the wheel is installed, they are parsed
    assert json.loads(graphctx("stats", "--json", cwd=root).stdout)["languages"] == {"lua": 2, "python": 1}


def test_language_is_guessed_from_the_name_then_the_extension():
    assert [file_language(p) for p in ("Dockerfile", "src/Makefile", "CMakeLists.txt", "a/b.tf", "x.ipynb",
                                       "Makefile.in", "notes", "setup.cfg", "src/App.swift")] == [
        "dockerfile", "makefile", "cmake", "terraform", "jupyter", "makefile", "text", "ini", "swift"]
    assert first_heading("---\ntitle: Release notes\n---\n# 1.0\n", "markdown") == "Release notes"
    assert first_heading("<html><head><title>Docs home</title>", "html") == "Docs home"
    assert first_heading("# -*- coding: utf-8 -*-\n# Real comment\n", "ini") == "Real comment"
    assert first_heading("key = 1\n# late comment\n", "toml") == ""


def test_no_parsed_extension_is_also_a_file_level_one():
    from graphctx.parse.languages import source_extensions
    from graphctx.parse.textfiles import BINARY_EXTENSIONS, BY_EXTENSION

    assert not set(source_extensions()) & (set(BY_EXTENSION) | BINARY_EXTENSIONS)
    assert not set(BY_EXTENSION) & BINARY_EXTENSIONS
