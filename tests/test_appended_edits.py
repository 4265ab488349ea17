"""An edit that only appends functions nothing names keeps the file's edges and resolves only the
new calls (index/appended.py), without the file's call-site index; any other edit, or an appended
function that can change what the rest of the file works out, resolves the file whole. Either way
the index equals a full rebuild, run after run, in a process that keeps its table (a watcher) and in
one that starts on an existing index."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import write_tree
from graphctx.index import store
from graphctx.index.appended import appended
from graphctx.index.indexer import index_repository
from graphctx.index.keeper import TableKeeper
from graphctx.parse.extract import extract
from test_index_incremental import assert_same_as_full

TREE = {
    "m.py": (
        "from lib import apply, make\n\n\n"
        "def helper(f):\n    return f()\n\n\n"
        "def one():\n    return 1\n\n\n"
        "def run(x):\n    return helper(x)\n\n\n"
        "def main():\n    return run(one) + make().size()\n"
    ),
    "lib.py": (
        "class Box:\n    def size(self):\n        return 1\n\n\n"
        "def make():\n    return Box()\n\n\n"
        "def apply(f, x):\n    return f(x)\n"
    ),
    "other.py": "from m import main\n\n\ndef go():\n    return main()\n",
}
# What each edit appends to m.py; whether it only appends functions as its facts say (appended.py);
# whether the run then keeps the file's earlier edges (it also checks the new calls and other files)
APPENDED = [
    ("def added(x):\n    return len(x)\n", True, True),
    ("def added(items):\n    total = len(items)\n    def inner(y):\n        return y\n    return total\n", True, True),
    ("def added():\n    return helper(one)\n", True, False),  # a new call site of helper: its parameter holds more
    ("def added():\n    return Box\n", True, True),  # (a name, no call)
    ("def added(x):\n    return make()\n", True, True),  # a call with no argument: no parameter holds more
    ("def added():\n    return added()\n", False, False),  # the new function names itself
    ("class Added:\n    pass\n", False, False),  # not a function
    ("def later():\n    return 2\n", False, False),  # the earlier part names it (the run first makes it so)
    ("def used():\n    return 3\n", True, False),  # another file names it (the run first makes it so)
    # (last: a function of this file handed to another file's makes an edge from there, which the file
    # resolved whole again makes once more)
    ("def added(x):\n    return apply(one, x)\n", True, False),  # a call with arguments reaching a repository function
]
def _edited(text: str) -> str:
    return TREE["m.py"] + "\n\n" + text


NAMES_LATER = TREE["m.py"].replace("def one():\n    return 1\n", "def one():\n    return later()\n")


def test_what_counts_as_only_appending_functions():
    before = extract("m.py", "python", NAMES_LATER.encode())
    for text, only_functions, _ in APPENDED:
        after = extract("m.py", "python", (NAMES_LATER + "\n\n" + text).encode())
        assert (appended(before, after) is not None) == only_functions, text
    moved = extract("m.py", "python", ("\n" + TREE["m.py"] + "\n\ndef added(x):\n    return len(x)\n").encode())
    assert appended(extract("m.py", "python", TREE["m.py"].encode()), moved) is None  # every line moved down one


@pytest.mark.parametrize("kept", [True, False], ids=["watcher", "new process"])
def test_appending_functions_run_after_run_equals_a_full_rebuild(tmp_path: Path, kept: bool):
    root = write_tree(tmp_path / "repo", TREE)
    keeper = TableKeeper()
    index_repository(root, workers=1, keeper=keeper if kept else None)
    text = TREE["m.py"]
    for number, (added, _, _) in enumerate(APPENDED):
        if added.startswith("def used"):
            write_tree(root, {"other.py": TREE["other.py"] + "\n\ndef also():\n    from m import used\n    return used()\n"})
            index_repository(root, workers=1, keeper=keeper)
        if added.startswith("def later"):
            text = text.replace("def one():\n    return 1\n", "def one():\n    return later()\n")
            write_tree(root, {"m.py": text})
            index_repository(root, workers=1, keeper=keeper)
        name = f"added_{number}"
        text += "\n\n" + added.replace("added", name).replace("Added", f"Added{number}")
        write_tree(root, {"m.py": text})
        index_repository(root, workers=1, keeper=keeper)
        assert_same_as_full(root, tmp_path / "full", [f"appended {name}"])
    keeper.clear()


def _resolver_of(keeper: TableKeeper, root: Path, path: str):
    db_path = store.index_path(root)
    conn = store.connect(db_path, readonly=True)
    generation = store.generation(conn)
    conn.close()
    entry = keeper.take(db_path, generation)
    keeper.put(db_path, generation, entry)
    return entry.table.resolvers[path]


@pytest.mark.parametrize("added, kept_edges", [(text, keep) for text, _, keep in APPENDED[:3]])
def test_only_a_file_that_appended_what_changes_nothing_skips_its_call_site_index(tmp_path: Path, added: str,
                                                                                    kept_edges: bool):
    root = write_tree(tmp_path / "repo", TREE)
    keeper = TableKeeper()
    index_repository(root, workers=1, keeper=keeper)
    write_tree(root, {"m.py": _edited(added)})
    index_repository(root, workers=1, keeper=keeper)
    assert (_resolver_of(keeper, root, "m.py")._sites is None) == kept_edges  # (the whole file's value flow)
    keeper.clear()
    assert_same_as_full(root, tmp_path / "full")


def test_edges_another_file_made_from_the_appended_file_stay(tmp_path: Path):
    """lib.apply calls what it is given: m.py handing it lib.helper makes an edge from lib.apply (so
    does lib.py's own call), two rows a full build has both of; appending to lib.py keeps both."""
    root = write_tree(tmp_path / "repo", {
        "lib.py": "def apply(f):\n    return f()\n\n\ndef helper():\n    return 1\n\n\ndef own():\n    return apply(helper)\n",
        "m.py": "from lib import apply, helper\n\n\ndef go():\n    return apply(helper)\n",
    })
    keeper = TableKeeper()
    index_repository(root, workers=1, keeper=keeper)
    assert_same_as_full(root, tmp_path / "full", ["built"])
    (root / "lib.py").write_text((root / "lib.py").read_text() + "\n\ndef more(x):\n    return len(x)\n")
    index_repository(root, workers=1, keeper=keeper)
    assert _resolver_of(keeper, root, "lib.py")._sites is None  # (its edges kept)
    keeper.clear()
    assert_same_as_full(root, tmp_path / "full", ["appended to lib.py"])
