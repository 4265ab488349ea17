"""Shared test helpers, small and generic: write a file tree, and read an index's tables back as
comparable collections."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
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


def parsed_file(root: Path, path: str, structure_only: bool = True):
    """One file as a parser process hands it to a full build's main process (structure-only facts by
    default), pickled and back."""
    import pickle

    from graphctx.index.discover import load_config
    from graphctx.index.parsing import parse_file

    text = (root / path).read_text()
    item = parse_file((str(root), path, len(text), 0, None, load_config(root), structure_only))
    return pickle.loads(pickle.dumps(item))


def symbol_table(root: Path, items, facts: dict):
    """The symbol table of parsed files (`items`), reading `facts` (path -> facts), as resolution builds it."""
    from graphctx.index import tableupdates
    from graphctx.index.modules import ModuleMap

    symbols = [(r[0], r[1], r[2], r[3], r[5], r[4]) for item in items for r in item.entities if r[1] != "file"]
    return tableupdates.new_table(symbols, ModuleMap({p: ("python", None) for p in facts}, root), facts.get)


def indexed_tree(factory, name: str, files: dict[str, str | bytes]) -> Path:
    """A repository of `files` in a new folder of the pytest tmp_path_factory `factory`, indexed by one worker."""
    from graphctx.index.indexer import index_repository

    root = write_tree(factory.mktemp(name) / "repo", files)
    index_repository(root, workers=1)
    return root


def run_graphctx(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The CLI in a subprocess, as a user runs it; no traceback may reach its standard error."""
    env = {**os.environ, "COLUMNS": "120"}
    env.pop("GRAPHCTX_DEBUG", None)
    proc = subprocess.run([sys.executable, "-m", "graphctx.cli.main", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def indexed_copy(fixtures: Path, root: Path) -> Path:
    """A copy of a fixture tree at `root`, indexed by the CLI."""
    shutil.copytree(fixtures, root)
    run = run_graphctx("index", "-q", cwd=root)
    assert run.returncode == 0, run.stderr
    return root


def query_index(root: Path, sql: str, *params) -> list[tuple]:
    """Rows of one query on the repository's index."""
    conn = sqlite3.connect(root / ".graphctx" / "index.db")
    try:
        return list(conn.execute(sql, params))
    finally:
        conn.close()


def indexed_edges(factory, name: str, files: dict[str, str | bytes]) -> list[tuple[str, str, str, str]]:
    """(source, target, kind, resolution) of every edge of `files` indexed (indexed_tree)."""
    return query_index(indexed_tree(factory, name, files), "SELECT source, target, kind, resolution FROM edges")


def edges_from(edges: list[tuple[str, str, str, str]], source: str, kind: str) -> set[tuple[str, str]]:
    """(target, resolution) of the `kind` edges from `source` among indexed_edges' rows."""
    return {(target, resolution) for s, target, k, resolution in edges if s == source and k == kind}


def call_edges(root: Path) -> set[tuple[str, str, str]]:
    """(source, target, resolution) of every call edge of the repository's index."""
    return set(query_index(root, "SELECT source, target, resolution FROM edges WHERE kind = 'calls'"))


def git_as(cwd: Path, *args: str, author: str = "Dev <dev@example.com>") -> str:
    """git in cwd as `author`, with no user configuration; its standard output."""
    name, email = author[:-1].split(" <")
    env = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_NAME": name,
           "GIT_COMMITTER_EMAIL": email, "HOME": str(cwd), "PATH": "/usr/bin:/bin:/usr/local/bin"}
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout.strip()


def commit_files(work: Path, files: dict[str, str], message: str, author: str = "Dev <dev@example.com>") -> str:
    """Write files into the work tree and commit them all; the new commit's sha."""
    for rel, text in files.items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text(text)
    git_as(work, "add", "-A")
    git_as(work, "commit", "-q", "-m", message, author=author)
    return git_as(work, "rev-parse", "HEAD")


def full_build_tables(root: Path, scratch: Path) -> dict[str, Counter]:
    """index_tables of a full build, in one process, of a copy of root's files at scratch."""
    from graphctx.index.indexer import index_repository

    shutil.copytree(root, scratch, ignore=shutil.ignore_patterns(".graphctx"))
    index_repository(scratch, full=True, workers=1)
    return index_tables(scratch)


def index_tables(root: Path) -> dict[str, Counter]:
    """The entities and edges of root's index (rowid excluded), as multisets of row tuples."""
    conn = sqlite3.connect(f"file:{root / '.graphctx' / 'index.db'}?mode=ro", uri=True)
    try:
        return {
            "entities": Counter(conn.execute(f"SELECT {ENTITY_COLUMNS} FROM entities")),
            "edges": Counter(conn.execute(f"SELECT {EDGE_COLUMNS} FROM edges")),
            "files": Counter(conn.execute(
                "SELECT f.path, language, size, hash, lines, error_count, is_test, facts, bodies"
                " FROM files f JOIN file_data d ON d.path = f.path")),
        }
    finally:
        conn.close()


# The shared fixture project: a small Python shop with known answers (calls, inheritance, a test,
# a README and an entry point).
SHOP = {
    "README.md": "# shop\n\n[![ci](badge.svg)](x)\n\nA tiny shop: items are validated, stored and listed.\n",
    "pyproject.toml": '[project]\nname = "shop"\nversion = "0.1"\n[project.scripts]\nshop = "shop.cli:main"\n',
    "shop/__init__.py": "",
    "shop/models.py": '''
        """Storage models."""


        class Repo:
            """Keeps items."""

            def save(self, item):
                """Store one item."""
                self._write(item)

            def _write(self, item):
                print(item)


        class CachedRepo(Repo):
            def save(self, item):
                super().save(item)
    ''',
    "shop/service.py": '''
        from shop.models import Repo


        def create_item(name):
            """Validate and store a new item."""
            repo = Repo()
            repo.save(name)
            return validate(name)


        def validate(name):
            if not name:
                raise ValueError("empty name")
            return name
    ''',
    "shop/cli.py": '''
        import sys

        from shop.service import create_item


        def main():
            """Create the items named on the command line."""
            for name in sys.argv[1:]:
                create_item(name)
    ''',
    "tests/test_service.py": '''
        from shop.service import create_item, validate


        def test_create_item():
            assert create_item("a") == "a"


        def test_validate():
            assert validate("b") == "b"
    ''',
}


def make_shop(root: Path, index: bool = True) -> Path:
    """The shop project written under root as a git work tree, indexed unless told not to."""
    for rel, text in SHOP.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    if index:
        from graphctx.index.indexer import index_repository

        index_repository(root)
    return root


@pytest.fixture(scope="session")
def shop_repo(tmp_path_factory) -> Path:
    """The shop, indexed once per test session; tests that write to it use their own make_shop copy."""
    return make_shop(tmp_path_factory.mktemp("shop"))


@pytest.fixture
def tree(tmp_path: Path):
    """A function that writes {relative path: content} into a fresh folder and returns it."""

    def make(files: dict[str, str | bytes], name: str = "repo") -> Path:
        root = tmp_path / name
        root.mkdir(parents=True, exist_ok=True)
        return write_tree(root, files)

    return make


# A throwaway PostgreSQL server per test process (tests/pgserver.py), for the team store's tests;
# each test asks `postgres_database` for a database of its own.
@pytest.fixture(scope="session")
def postgres_server():
    import pgserver

    bin_dir = pgserver.binaries()
    if bin_dir is None:
        pytest.skip("PostgreSQL is not installed (Debian: apt-get install postgresql); the team store's tests need it")
    pytest.importorskip("psycopg", reason="the team store's tests need psycopg: pip install -e '.[test]'")
    server = pgserver.PostgresServer(bin_dir).start()
    yield server
    server.stop()


@pytest.fixture
def postgres_database(postgres_server) -> str:
    return postgres_server.new_database()
