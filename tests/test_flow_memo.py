"""What value flow remembers beside its answers (a target's values, an attribute over a class's
lineage) is kept only when made of final answers: one made while a cycle was still being worked
out, from that cycle's answer so far, would hand a later reader less than the cycle settles to."""

from __future__ import annotations

import pytest

from conftest import call_edges, write_tree
from graphctx.index import store
from graphctx.index.fixpoint import EMPTY
from graphctx.index.indexer import index_repository
from graphctx.index.keeper import TableKeeper

# a() and b() return each other's results: while a() is worked out, b()'s returns hold only `two`
RETURNS = """\
import os


def one():
    pass


def two():
    pass


def a():
    if os.sep:
        return b()
    return one


def b():
    if os.sep:
        f = a()
        f()
        return f
    return two


def first():
    a()()


def later():
    b()()
"""

# an attribute fed by a constructor call whose argument reads the attribute again
ATTRIBUTES = """\
import os


def one():
    pass


def two():
    pass


class Box:
    def __init__(self, item):
        self.item = item


def wrap():
    return Box(two)


def first():
    box = Box(one)
    if os.sep:
        box = Box(wrap().item)
    box.item()


def later():
    Box(None).item()
"""


def _targets(edges, source: str) -> set[str]:
    return {target for origin, target, _ in edges if origin == source}


@pytest.mark.parametrize("text", [RETURNS, ATTRIBUTES], ids=["returns", "attributes"])
def test_what_was_read_while_its_cycle_was_open_is_asked_again(tmp_path, text):
    root = write_tree(tmp_path / "repo", {"m.py": text})
    index_repository(root, full=True, workers=1)
    edges = call_edges(root)
    assert {"m.py::one", "m.py::two"} <= _targets(edges, "m.py::first")
    assert {"m.py::one", "m.py::two"} <= _targets(edges, "m.py::later")


def test_every_remembered_answer_is_the_one_a_fresh_question_finds(tmp_path):
    """Each answer value flow kept for a file, asked again with nothing remembered anywhere: the same
    (these programs are small, so no bound cuts a question, and a cycle's answer is its fixed point)."""
    for name, text in (("returns", RETURNS), ("attributes", ATTRIBUTES)):
        root = write_tree(tmp_path / name, {"m.py": text})
        keeper = TableKeeper()
        index_repository(root, full=True, workers=1, keeper=keeper)
        (root / "m.py").write_text("# edited\n" + text, encoding="utf-8")  # (an edit keeps the file's resolver)
        result = index_repository(root, workers=1, keeper=keeper)
        table = keeper.take(store.index_path(root), result.generation).table
        resolver = table.resolvers["m.py"]
        remembered = {key: found for key, found in resolver._memo.items() if len(key) == 2}
        assert len(remembered) > 8
        for (path, scope), found in remembered.items():
            for scope_of_file in table.resolvers.values():
                scope_of_file.forget_flows()
            assert resolver.values(path, scope) == found, (name, path, scope)


def test_equal_remembered_answers_are_one_object(tmp_path):
    """Most answers are alike (one class, one function, nothing): each is held once, not per question."""
    text = ATTRIBUTES + RETURNS.replace("import os\n", "")
    root = write_tree(tmp_path / "repo", {"m.py": text})
    keeper = TableKeeper()
    index_repository(root, full=True, workers=1, keeper=keeper)
    (root / "m.py").write_text("# edited\n" + text, encoding="utf-8")  # (an edit keeps the file's resolver)
    result = index_repository(root, workers=1, keeper=keeper)
    table = keeper.take(store.index_path(root), result.generation).table
    answers = [found for resolver in table.resolvers.values() for found in resolver._memo.values()]
    assert len(answers) > len(set(answers))  # (else nothing here is alike)
    assert len({id(found) for found in answers}) == len(set(answers))
    assert all(found is EMPTY for found in answers if not found)
