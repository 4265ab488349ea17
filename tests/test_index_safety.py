"""Crash safety and schema upgrades: an indexer killed with SIGKILL at any point of its run
leaves the previous index intact and readable, and the next run completes; an index written by
another schema version is rebuilt automatically, with a warning."""

from __future__ import annotations

import logging
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import index_tables, write_tree
from graphctx.index import store
from graphctx.index.indexer import index_repository

# The child indexes the tree and announces where it is on stdout, so the parent can kill it at
# a known point: while parsing (progress), and while writing (after the n-th batch of entities).
CHILD = textwrap.dedent("""
    import sys
    from graphctx.index import indexer, store

    real_insert = store.insert_entities
    written = 0

    def insert_entities(conn, rows):
        global written
        real_insert(conn, rows)
        written += 1
        print(f"wrote {written}", flush=True)

    store.insert_entities = insert_entities

    def progress(phase, done, total):
        if phase == "parsing":
            print(f"parsed {done}/{total}", flush=True)

    indexer.index_repository(sys.argv[1], progress=progress, workers=2)
    print("done", flush=True)
""")


def small_tree() -> dict[str, str]:
    return {
        "app.py": "from lib import helper\n\ndef main():\n    return helper()\n",
        "lib.py": "def helper():\n    return 1\n\nclass Thing:\n    def run(self):\n        return helper()\n",
    }


def big_tree(n: int = 160) -> dict[str, str]:
    """Many modules calling each other: enough work for the run to be interrupted midway."""
    files = {}
    for i in range(n):
        functions = "\n".join(
            f"def f{i}_{j}(x):\n    '''Function {j} of module {i}.'''\n    return helper(x) + f{i}_{(j + 1) % 20}(x)\n"
            for j in range(20)
        )
        files[f"pkg{i % 8}/mod{i}.py"] = (
            f"from lib import helper, Thing\n\nclass C{i}(Thing):\n    def go(self):\n        return self.run()\n\n{functions}"
        )
    for k in range(8):
        files[f"pkg{k}/__init__.py"] = ""
    files["lib.py"] = small_tree()["lib.py"] + "\ndef extra():\n    return helper()\n"
    return files


def counts(root: Path) -> tuple[int, int, int, int]:
    conn = store.connect(store.index_path(root), readonly=True)
    try:
        return (
            store.generation(conn),
            *(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in ("files", "entities", "edges")),
        )
    finally:
        conn.close()


def run_and_kill(root: Path, marker: str | None, delay: float = 0.0) -> str:
    """Start an indexer on root and SIGKILL it (with its workers) when it prints `marker`, or after
    `delay` seconds; returns the last line it printed."""
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(root)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        text=True, start_new_session=True,
    )
    last = ""
    try:
        if marker is None:
            time.sleep(delay)
        else:
            for line in proc.stdout:
                last = line.strip()
                if last.startswith(marker) or last == "done":
                    break
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        proc.stdout.close()
    return last


KILL_POINTS = [
    ("parsed 0/", None),      # as soon as the run has its plan, inside the transaction
    ("parsed 80/", None),     # midway through parsing, workers busy
    ("wrote 1", None),        # after the first file's rows were written
    ("wrote 60", None),       # midway through writing
    ("wrote 169", None),      # every file written, resolution under way
    (None, 0.3),              # by the clock: wherever it is (the whole run takes about a second)
    (None, 0.7),
    (None, 1.1),
    (None, 2.0),              # most likely after the commit: the new index must then be whole
]


@pytest.mark.parametrize("marker,delay", KILL_POINTS, ids=[m or f"after {d}s" for m, d in KILL_POINTS])
def test_kill_mid_run_keeps_previous_index(tmp_path, marker, delay):
    root = write_tree(tmp_path / "repo", small_tree())
    index_repository(root, workers=1)
    before = counts(root)
    tables_before = index_tables(root)

    write_tree(root, big_tree())
    last = run_and_kill(root, marker, delay)
    if marker is not None:
        assert last.startswith(marker), f"the child never reached {marker!r} (last line {last!r})"
    scratch = tmp_path / "full"
    shutil.copytree(root, scratch, ignore=shutil.ignore_patterns(".graphctx"))
    index_repository(scratch, full=True, workers=1)

    # the index opens read-only and holds either the old generation, unchanged, or (a kill by the
    # clock that came after the commit) the complete new one: never anything in between
    after = counts(root)
    if marker is not None or after[0] == before[0]:
        assert after == before
        assert index_tables(root) == tables_before
        # and a normal run finishes and equals a full rebuild
        result = index_repository(root, workers=2)
        assert result.generation == before[0] + 1
        assert result.files == len(big_tree()) + 1
    else:
        assert after[0] == before[0] + 1
    assert index_tables(root) == index_tables(scratch)


def test_reader_sees_previous_generation_while_a_run_writes(tmp_path):
    """WAL: a reader opened during a run sees the last committed index, never a half-written one."""
    root = write_tree(tmp_path / "repo", small_tree())
    index_repository(root, workers=1)
    before = counts(root)
    write_tree(root, big_tree())
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(root)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        for line in proc.stdout:
            if line.strip() == "wrote 100":
                assert counts(root) == before  # the writer holds its transaction open right now
                break
        proc.stdout.read()
        assert proc.wait(timeout=120) == 0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        proc.stdout.close()
    assert counts(root)[0] == before[0] + 1


def test_schema_version_mismatch_rebuilds_with_a_warning(tmp_path, caplog):
    root = write_tree(tmp_path / "repo", small_tree())
    first = index_repository(root, workers=1)
    conn = sqlite3.connect(store.index_path(root))
    conn.execute("UPDATE meta SET value='0' WHERE key='schema_version'")
    conn.execute("DELETE FROM edges")  # what an old schema held is not trusted: it must all be rebuilt
    conn.commit()
    conn.close()
    write_tree(root, {"extra.py": "from app import main\n\ndef again():\n    return main()\n"})

    with caplog.at_level(logging.WARNING, logger="graphctx"):
        result = index_repository(root, workers=1)
    assert any("schema" in r.getMessage() and "rebuilding" in r.getMessage() for r in caplog.records)
    assert result.parsed == 3 and result.files == 3
    assert result.generation == 1  # a new index starts counting again
    assert first.generation == 1

    conn = store.connect(store.index_path(root), readonly=True)
    assert store.schema_version(conn) == store.SCHEMA_VERSION
    conn.close()
    scratch = write_tree(tmp_path / "fresh", {p: (root / p).read_text() for p in ("app.py", "lib.py", "extra.py")})
    index_repository(scratch, workers=1)
    assert index_tables(root) == index_tables(scratch)


def test_newer_schema_version_also_rebuilds(tmp_path, caplog):
    root = write_tree(tmp_path / "repo", small_tree())
    index_repository(root, workers=1)
    conn = sqlite3.connect(store.index_path(root))
    conn.execute("UPDATE meta SET value=? WHERE key='schema_version'", (str(store.SCHEMA_VERSION + 1),))
    conn.commit()
    conn.close()
    with caplog.at_level(logging.WARNING, logger="graphctx"):
        result = index_repository(root, workers=1)
    assert any("rebuilding" in r.getMessage() for r in caplog.records)
    assert result.parsed == 2 and result.entities == before_entities(small_tree())


def before_entities(files: dict[str, str]) -> int:
    """Files plus their definitions, for the small tree: app.py (main), lib.py (helper, Thing, Thing.run)."""
    return len(files) + 4
