"""What one process's index runs keep from one run to the next (a server's watcher, a Project that
indexes again and again): the folder listings, the files table the last run committed and its
counts. Whatever is kept, every change is still seen: a file rewritten within the same clock tick
at the same size, a file added to or removed from a folder, a .gitignore rewritten in place, another
process writing the index between two runs; and the index equals a full rebuild after each."""

from __future__ import annotations

import os
import time
from pathlib import Path

from conftest import write_tree
from graphctx.index import store
from graphctx.index.indexer import IndexResult, index_repository
from graphctx.index.keeper import TableKeeper
from graphctx.index.store import reads
from test_index_incremental import assert_same_as_full, render, starting_project


def counts_now(root: Path) -> tuple[int, ...]:
    conn = store.connect(store.index_path(root), readonly=True)
    try:
        return reads.run_counts(conn)
    finally:
        conn.close()


def reported(result: IndexResult) -> tuple[int, ...]:
    return (result.files, result.entities, result.edges, result.parse_errors, result.calls, result.calls_resolved)


def age(root: Path, seconds_ago: int) -> None:
    """Every file and folder of the tree (not the index) as last changed that long ago."""
    stamp = time.time_ns() - seconds_ago * 1_000_000_000
    for path in [root, *root.rglob("*")]:
        if ".graphctx" not in path.parts:
            os.utime(path, ns=(stamp, stamp))


def test_a_kept_files_table_sees_every_change_a_fresh_read_sees(tmp_path):
    root = write_tree(tmp_path / "repo", {**render(starting_project()), ".gitignore": "skip_*.py\n",
                                          "pkg/skip_me.py": "def hidden():\n    return 1\n"})
    keeper = TableKeeper()
    index_repository(root, workers=1, keeper=keeper)
    # A same-size rewrite that keeps the mtime, right after the run that read the file: its stat
    # proves nothing (the racy window), so it is read again all the same.
    util = root / "util.py"
    st = util.stat()
    util.write_text(util.read_text().replace("def load(", "def lowd("))
    os.utime(util, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert util.stat().st_size == st.st_size
    result = index_repository(root, workers=1, keeper=keeper)
    assert result.parsed == 1 and reported(result) == counts_now(root)
    assert_same_as_full(root, tmp_path / "full-1")

    age(root, 60)  # folders past the racy window: their listings are kept from now on
    index_repository(root, workers=1, keeper=keeper)
    noop = index_repository(root, workers=1, keeper=keeper)
    assert (noop.parsed, noop.removed) == (0, 0) and reported(noop) == counts_now(root)

    # A new file in a folder that was listed before (creating it moves the folder's time).
    write_tree(root, {"pkg/late.py": "from pkg.core import Engine\n\ndef late():\n    return Engine()\n"})
    result = index_repository(root, workers=1, keeper=keeper)
    assert result.parsed == 1 and reported(result) == counts_now(root)
    assert_same_as_full(root, tmp_path / "full-2")

    # A deleted file; then a content edit of another (no folder's time moves for that one).
    age(root, 50)
    (root / "pkg" / "late.py").unlink()
    result = index_repository(root, workers=1, keeper=keeper)
    assert result.removed == 1 and reported(result) == counts_now(root)
    (root / "app.py").write_text((root / "app.py").read_text() + "\n\ndef appended():\n    return 2\n")
    result = index_repository(root, workers=1, keeper=keeper)
    assert result.parsed == 1 and reported(result) == counts_now(root)
    assert_same_as_full(root, tmp_path / "full-3")

    # A .gitignore rewritten in place lets a file in: no folder's time moves, its own does.
    age(root, 40)
    index_repository(root, workers=1, keeper=keeper)
    (root / ".gitignore").write_text("nothing_*.py\n")
    result = index_repository(root, workers=1, keeper=keeper)
    assert "pkg/skip_me.py" in indexed(root) and result.parsed == 2 and reported(result) == counts_now(root)
    assert_same_as_full(root, tmp_path / "full-4")
    keeper.clear()


def test_a_run_after_another_writer_reads_the_files_table_again(tmp_path):
    """The kept files table belongs to the kept connection: when another process indexed meanwhile,
    neither is used, so the file that process indexed is not read again and the counts are today's."""
    root = write_tree(tmp_path / "repo", render(starting_project()))
    age(root, 60)
    keeper = TableKeeper()
    index_repository(root, workers=1, keeper=keeper)
    index_repository(root, workers=1, keeper=keeper)
    (root / "util.py").write_text((root / "util.py").read_text() + "\n\ndef more():\n    return 3\n")
    other = index_repository(root, workers=1)  # another process: `graphctx index` beside a server
    assert other.parsed == 1
    result = index_repository(root, workers=1, keeper=keeper)
    assert (result.parsed, result.removed) == (0, 0)
    assert reported(result) == counts_now(root) == reported(other)
    (root / "pkg" / "extra.py").unlink()
    result = index_repository(root, workers=1, keeper=keeper)
    assert result.removed == 1 and reported(result) == counts_now(root)
    keeper.clear()
    assert_same_as_full(root, tmp_path / "full")


def indexed(root: Path) -> set[str]:
    conn = store.connect(store.index_path(root), readonly=True)
    try:
        return set(reads.file_paths(conn))
    finally:
        conn.close()


def test_a_kept_scope_works_out_again_what_it_read_off_a_file_the_edit_changed(tmp_path):
    """A scope kept between runs keeps its value flow unless it read a file resolved again: here r.py
    returns make(), read off t.py, which an edit of helper() changes without r.py naming helper;
    the file asking r.py what get() returns must get the new answer, as a full rebuild does."""
    root = write_tree(tmp_path / "repo", {
        "w.py": "class Widget:\n    def run(self):\n        return 1\n\n\nclass Engine:\n    def run(self):\n        return 2\n",
        "t.py": "from w import Widget, Engine\n\n\ndef helper():\n    return Widget()\n\n\ndef make():\n    return helper()\n",
        "r.py": "from t import make\n\n\ndef get():\n    return make()\n",
        "u.py": "from r import get\n\n\ndef go():\n    return get().run()\n",
    })
    keeper = TableKeeper()
    index_repository(root, workers=1, keeper=keeper)
    (root / "u.py").write_text((root / "u.py").read_text() + "\n\ndef first():\n    return 1\n")
    index_repository(root, workers=1, keeper=keeper)  # u.py asks r.py, whose scope keeps what it worked out
    assert ("u.py::go", "w.py::Widget.run") in call_edges(root)
    (root / "t.py").write_text((root / "t.py").read_text().replace("return Widget()", "return Engine()"))
    (root / "u.py").write_text((root / "u.py").read_text() + "\n\ndef second():\n    return 2\n")
    index_repository(root, workers=1, keeper=keeper)
    keeper.clear()
    assert ("u.py::go", "w.py::Engine.run") in call_edges(root)
    assert_same_as_full(root, tmp_path / "full")


def call_edges(root: Path) -> set[tuple[str, str]]:
    conn = store.connect(store.index_path(root), readonly=True)
    try:
        return {(s, t) for s, t in conn.execute("SELECT source, target FROM edges WHERE kind = 'calls'")}
    finally:
        conn.close()
