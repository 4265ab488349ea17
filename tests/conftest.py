"""Shared test helpers, small and generic: write a file tree, and read an index's tables back as
comparable collections."""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path

import pytest

ENTITY_COLUMNS = (
    "id, kind, name, qualified_name, language, path, start_line, end_line, signature, doc, sig_hash, body_hash, parent"
)
EDGE_COLUMNS = "source, target, kind, resolution, confidence, line, origin"


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write {relative path: text or bytes} under root (creating folders); returns root."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def index_tables(root: Path) -> dict[str, Counter]:
    """The entities and edges of root's index (rowid excluded), as multisets of row tuples."""
    conn = sqlite3.connect(f"file:{root / '.graphctx' / 'index.db'}?mode=ro", uri=True)
    try:
        return {
            "entities": Counter(conn.execute(f"SELECT {ENTITY_COLUMNS} FROM entities")),
            "edges": Counter(conn.execute(f"SELECT {EDGE_COLUMNS} FROM edges")),
            "files": Counter(conn.execute("SELECT path, language, size, hash, lines, error_count, is_test, facts FROM files")),
        }
    finally:
        conn.close()


@pytest.fixture
def tree(tmp_path: Path):
    """A function that writes {relative path: content} into a fresh folder and returns it."""

    def make(files: dict[str, str | bytes], name: str = "repo") -> Path:
        root = tmp_path / name
        root.mkdir(parents=True, exist_ok=True)
        return write_tree(root, files)

    return make
