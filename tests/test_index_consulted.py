"""What each file's resolution consulted (the scopes of other files it read, and what those read in
turn) is stored with the index, from every process that resolved; an edit inside a function's value
flow resolves again the files that consulted it, directly or through others, and not the files that
merely name it."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import query_index, write_tree
from graphctx.index.indexer import index_repository
from graphctx.index.keeper import TableKeeper
from test_index_incremental_owners import FLOW, OWNED, assert_same_as_full

# n.py names make and helper, as t.py does, but reads nothing of t.py
NAMING = {**FLOW, "n.py": "def helper():\n    return 1\n\n\ndef make():\n    return helper()\n"}


def consulted_pairs(root: Path) -> set[tuple[str, str]]:
    return set(query_index(root, "SELECT r.path, f.path FROM consulted c JOIN entities r ON r.rowid = c.reader"
                                 " JOIN entities f ON f.rowid = c.file"))


def edited(tmp_path: Path, kept: bool, files: dict[str, str], path: str, text: str):
    """Index `files`, then write `text` to `path`: the tree, the keeper (when `kept`) and how many
    files the edit's run resolved."""
    keeper = TableKeeper() if kept else None
    root = write_tree(tmp_path / "repo", files)
    index_repository(root, workers=1, keeper=keeper)
    (root / path).write_text(text)
    return root, keeper, resolved_files(root, keeper)


def resolved_files(root: Path, keeper: TableKeeper | None) -> int:
    """Index root; the number of files the run resolved (both passes count on its bar)."""
    seen = [0]

    def progress(phase: str, done: int, total: int) -> None:
        if phase == "resolving":
            seen[0] = max(seen[0], total // 2)
    index_repository(root, workers=1, keeper=keeper, progress=progress)
    return seen[0]


def edited_and_undone(tmp_path: Path, kept: bool, files: dict[str, str], text: str, resolved: int,
                      undone: int | None, path: str = "t.py") -> None:
    """Write `text` to `path`, then `path` back as `files` has it: each run resolves `resolved`, then
    `undone` files (None: any number), and leaves the rows a full rebuild makes."""
    root, keeper, count = edited(tmp_path, kept, files, path, text)
    assert count == resolved
    assert_same_as_full(root, tmp_path / "full")
    (root / path).write_text(files[path])
    count = resolved_files(root, keeper)
    assert undone is None or count == undone
    assert_same_as_full(root, tmp_path / "full")


def test_a_full_build_stores_what_each_file_consulted(tmp_path: Path):
    """u.go reads what r.get returns, which reads what t.make returns: u consulted r, r consulted t;
    deleting r.py forgets its pairs."""
    root = write_tree(tmp_path / "repo", FLOW)
    index_repository(root, full=True, workers=1)
    pairs = consulted_pairs(root)
    assert {("u.py", "r.py"), ("r.py", "t.py")} <= pairs
    assert not any("w.py" == reader for reader, _ in pairs)  # (w.py reads no other file)
    scopes = set(query_index(root, "SELECT r.path, f.path, c.scope FROM consulted c JOIN entities r ON r.rowid = c.reader"
                                   " JOIN entities f ON f.rowid = c.file"))
    assert {("u.py", "r.py", "get"), ("r.py", "t.py", "make")} <= scopes  # (what each read there)
    assert ("r.py", "t.py", "helper") not in scopes  # (t.py's own resolver read helper for make)
    (root / "r.py").unlink()
    index_repository(root, workers=1)
    assert not any("r.py" in pair for pair in consulted_pairs(root))


def test_forked_workers_send_what_their_resolvers_consulted(tmp_path: Path):
    """Enough files to resolve their uses in two forked workers: each file's read of t.py, made in a
    worker, is stored by the main process."""
    files = {**FLOW, **{f"use{i}.py": "from t import make\n\n\ndef go():\n    make().run()\n" for i in range(80)}}
    root = write_tree(tmp_path / "repo", files)
    index_repository(root, full=True, workers=2)
    pairs = consulted_pairs(root)
    assert {(f"use{i}.py", "t.py") for i in range(80)} <= pairs


SPARE = {**FLOW, "t.py": FLOW["t.py"] + "\n\ndef spare():\n    return Widget()\n"}


@pytest.mark.parametrize("kept", [False, True], ids=["rows", "kept"])
@pytest.mark.parametrize("edit, resolved", [
    # what spare returns, which no other file read (r.py read make's): t.py alone
    (("def spare():\n    return Widget()", "def spare():\n    return Engine()"), 1),
    # what helper returns, which make returns: r.py, which read make's, and u.py, which read r.py's
    (("def helper():\n    return Widget()", "def helper():\n    return Engine()"), 3),
])
def test_a_changed_answer_resolves_again_the_files_that_read_it(tmp_path: Path, kept: bool, edit: tuple[str, str],
                                                                 resolved: int):
    """A file that answers otherwise now resolves again the files that read the answers of a
    definition that changed, and those that consulted them, not every file that consulted it.
    The rows equal a full rebuild's, and do again once the edit is undone."""
    edited_and_undone(tmp_path, kept, SPARE, SPARE["t.py"].replace(*edit), resolved, resolved)


# o.steady reads what t.make returns and answers 2 whatever it is; p.use reads what o.steady returns
STEADY = {**SPARE, "o.py": "import t\n\n\ndef steady():\n    made = t.make()\n    made.run()\n    return 2\n",
          "p.py": "from o import steady\n\n\ndef use():\n    steady().run()\n"}


@pytest.mark.parametrize("kept", [False, True], ids=["rows", "kept"])
def test_a_reader_whose_answers_stay_the_same_reaches_no_further(tmp_path: Path, kept: bool):
    """What helper returns changes, so what make returns does: r.py and o.py read make's answers and
    are resolved again (o.steady now calls Engine.run); r.get returns what make does, so u.py, which
    read r.get's, is too; o.steady answers 2 as before, so p.py, which read it, is not. The rows
    equal a full rebuild's, and do again once the edit is undone."""
    edit = ("def helper():\n    return Widget()", "def helper():\n    return Engine()")
    edited_and_undone(tmp_path, kept, STEADY, STEADY["t.py"].replace(*edit), 4, 4)
    assert ("o.py::steady", "w.py::Widget.run") in set(query_index(tmp_path / "repo", "SELECT source, target FROM edges"))


# r.get reads an attribute `shape` of what t.make returns (a Widget, which has none)
READING = {**FLOW, "r.py": "import t\n\n\ndef get():\n    made = t.make()\n    probe = made.shape\n    return made\n"}


@pytest.mark.parametrize("kept", [False, True], ids=["rows", "kept"])
def test_a_file_reading_a_changed_name_is_judged_by_its_answers(tmp_path: Path, kept: bool):
    """t.py gains a function `shape`, a name r.get's value flow reads: r.py is resolved again, and
    with the table kept from before the edit it is judged by its answers, which stay the same (a
    Widget has no shape), so u.py, which read r.get's, is not. Without a kept table every file that
    consulted r.py is resolved again. The rows equal a full rebuild's, and do again once undone."""
    resolved = 2 if kept else 3
    edited_and_undone(tmp_path, kept, READING, READING["t.py"] + "\n\ndef shape():\n    return 3\n", resolved, resolved)


# t.make calls a method `tune` of the Widget it makes
TUNING = {**FLOW, "t.py": FLOW["t.py"].replace("    return helper()\n", "    made = helper()\n    made.tune()\n    return made\n")}


@pytest.mark.parametrize("kept", [False, True], ids=["rows", "kept"])
def test_an_edit_gaining_a_name_its_old_code_reads_is_judged_by_its_answers(tmp_path: Path, kept: bool):
    """t.make now passes tune an argument, and t.py gains a function `tune`, a name its old code
    reads (`made.tune()`). Its old code asked in the table before the edit answers as it did, so
    with that table kept the files that consulted t.py (r.py, and u.py through it) are not resolved
    again: make returns a Widget either way. Without it every one is. The rows equal a full
    rebuild's, and do again once undone."""
    text = TUNING["t.py"].replace("made.tune()", "made.tune(1)") + "\n\ndef tune():\n    return 0\n"
    resolved = 1 if kept else 3
    edited_and_undone(tmp_path, kept, TUNING, text, resolved, resolved)


# t.py sets a module constant that l.limit returns, which v.check reads
SETTING = {**FLOW, "t.py": FLOW["t.py"] + "\n\nLIMIT = 3\n", "l.py": "import t\n\n\ndef limit():\n    return t.LIMIT\n",
           "v.py": "from l import limit\n\n\ndef check():\n    return limit()\n"}


@pytest.mark.parametrize("kept", [False, True], ids=["rows", "kept"])
def test_a_module_constant_removed_is_judged_by_the_modules_answers(tmp_path: Path, kept: bool):
    """t.py's LIMIT goes, then comes back: l.py, which names it, is resolved again; r.py and u.py,
    which read only what t.make returns, are not (a module's constant gone was an edit beyond its
    functions: every file that consulted t.py was), nor is v.py. The rows equal a full rebuild's
    each time."""
    edited_and_undone(tmp_path, kept, SETTING, FLOW["t.py"], 2, 2)


# z.py passes x's Widget on: a.py may take it from either
PASSED_ON = {**OWNED, "z.py": "from x import Widget\n"}


@pytest.mark.parametrize("kept", [False, True], ids=["rows", "kept"])
def test_an_import_binding_the_same_class_anew_reaches_only_its_importers(tmp_path: Path, kept: bool):
    """a.py takes Widget from z.py instead of x.py: the same class. b.py, which reads a.Widget, is
    resolved again; with the table kept from before the edit, a.py's module is seen to bind Widget
    as it did, so c.py, which consulted b.py, is not (without it, every file that consulted a.py,
    directly or through others, is). The rows equal a full rebuild's, and do again once undone."""
    resolved = 2 if kept else 3
    edited_and_undone(tmp_path, kept, PASSED_ON, "from z import Widget\n", resolved, resolved, path="a.py")


ALIASED = {
    "f.py": "def foo():\n    return 1\n\n\ndef keep():\n    return 2\n",
    "g.py": "from f import foo as bar\n\n\ndef get():\n    return bar\n",
    "r.py": "from g import get\n\n\ndef go():\n    get()()\n",
}


@pytest.mark.parametrize("kept", [False, True], ids=["rows", "kept"])
def test_a_definition_removed_resolves_again_the_files_with_edges_to_it(tmp_path: Path, kept: bool):
    """r.go calls f.foo, which it reached through g's alias without naming foo or asking f.py
    anything; foo goes: r.py is resolved again, its call now unresolved (it kept an edge to
    nothing before), as a full rebuild has it."""
    root, _, _ = edited(tmp_path, kept, ALIASED, "f.py", "def keep():\n    return 2\n")
    assert ("r.py::go", "ext:get()") in set(query_index(root, "SELECT source, target FROM edges"))
    assert_same_as_full(root, tmp_path / "full")


# g.py reads spare under another name; r2.py reads it through g.get, naming neither spare nor t.py
SPARED = {**SPARE, "g.py": "from t import spare as fresh\n\n\ndef get():\n    return fresh()\n",
          "r2.py": "from g import get\n\n\ndef go():\n    get().run()\n"}


@pytest.mark.parametrize("kept", [False, True], ids=["rows", "kept"])
def test_a_function_removed_inside_resolves_again_the_files_that_read_it(tmp_path: Path, kept: bool):
    """t.py loses spare (and make's local changes): g.py, which names it, and r2.py, which read
    what g.get returns (what spare returned), are resolved again; r.py and u.py, which read only
    make, are not. The rows equal a full rebuild's."""
    edit = SPARED["t.py"].replace("\n\ndef spare():\n    return Widget()\n", "").replace("return helper()", "made = helper()\n    return made")
    root, _, count = edited(tmp_path, kept, SPARED, "t.py", edit)
    assert count == 3
    assert_same_as_full(root, tmp_path / "full")


# t.py with lambdas below the edit: one t.make hands on, one at module level
LAMBDAS = {**NAMING, "t.py": FLOW["t.py"].replace("return helper()", "return (lambda: helper())()")
           + "\n\nchooser = lambda: make()\n"}


@pytest.mark.parametrize("kept", [False, True], ids=["rows", "kept"])
def test_lines_moved_above_a_lambda_change_nothing_other_files_read(tmp_path: Path, kept: bool):
    """A lambda is named by its place among its definition's lambdas, not by its line: a comment
    added above t.make's and the module's lambdas moves them, keeps their ids, and resolves t.py
    alone again (named by line, every file reading t.py was resolved again); the rows equal a full
    rebuild's."""
    keeper = TableKeeper() if kept else None
    root = write_tree(tmp_path / "repo", LAMBDAS)
    index_repository(root, workers=1, keeper=keeper)
    lambdas = set(query_index(root, "SELECT id FROM entities WHERE kind = 'lambda'"))
    assert lambdas == {("t.py::make.<lambda1>",), ("t.py::<lambda1>",)}
    (root / "t.py").write_text("# moves every line below\n\n" + LAMBDAS["t.py"])
    assert resolved_files(root, keeper) == 1
    assert set(query_index(root, "SELECT id FROM entities WHERE kind = 'lambda'")) == lambdas
    assert_same_as_full(root, tmp_path / "full")


@pytest.mark.parametrize("kept", [False, True], ids=["rows", "kept"])
@pytest.mark.parametrize("edit, resolved", [
    # a local variable nothing returns, and a call's result no one keeps: t.py alone
    (("    return Widget()\n", "    unused = Engine()\n    print(unused)\n    return Widget()\n"), 1),
    # and a new import that only such a local reads
    (("from w import", "import os\nfrom w import", "    return Widget()\n", "    here = os.getcwd()\n    return Widget()\n"), 1),
    # what helper returns: t.py, and r.py and u.py that read it through make and get (n.py, which
    # only names helper and make, is not)
    (("    return Widget()\n", "    made = Engine()\n    return made\n"), 3),
    (("return Widget()", "return Engine()"), 3),
])
def test_an_edit_inside_a_function_resolves_again_its_readers_only_when_its_answers_change(
        tmp_path: Path, kept: bool, edit: tuple[str, str], resolved: int):
    """helper's flows change either way; only when what it returns changes do the files that
    consulted t.py (directly or through others) read anything different, and only then are they
    resolved again. The rows equal a full rebuild's, and do again once the edit is undone."""
    edited_and_undone(tmp_path, kept, NAMING, FLOW["t.py"].replace(*edit[:2]).replace(*edit[2:] or ("", "")),
                      resolved, resolved)


HANDING = {
    "q.py": "def apply(fn, x):\n    return fn(x)\n",
    "p.py": "from q import apply\n\n\ndef one(x):\n    return x\n\n\ndef use():\n    return apply(one, 1)\n",
}


@pytest.mark.parametrize("kept", [False, True], ids=["rows", "kept"])
def test_a_function_that_stops_calling_its_parameter_resolves_again_who_hands_one_on(tmp_path: Path, kept: bool):
    """apply's answers (what it returns) stay unknown, but it no longer calls `fn`: p.py, whose
    resolution made the edge apply -> one, is resolved again and the edge goes."""
    keeper = TableKeeper() if kept else None
    root = write_tree(tmp_path / "repo", HANDING)
    index_repository(root, workers=1, keeper=keeper)
    assert ("q.py::apply", "p.py::one") in set(query_index(root, "SELECT source, target FROM edges"))
    (root / "q.py").write_text("def apply(fn, x):\n    return x\n")
    assert resolved_files(root, keeper) == 2
    assert ("q.py::apply", "p.py::one") not in set(query_index(root, "SELECT source, target FROM edges"))
    assert_same_as_full(root, tmp_path / "full")


BASED = {
    "b.py": "class Tool:\n    def run(self):\n        pass\n",
    "t.py": "from b import Tool\n\n\nclass Part:\n    pass\n\n\ndef make():\n    made = Part()\n    return made\n",
    "u.py": "from t import make\n\n\ndef go():\n    make().run()\n",
}


@pytest.mark.parametrize("kept", [False, True], ids=["rows", "kept"])
def test_a_class_gaining_a_base_with_an_edit_inside_resolves_again_its_readers(tmp_path: Path, kept: bool):
    """Part now inherits Tool and make's local changes: the symbol table's hierarchy differs, so
    make's answers cannot be compared within it; u.go, which names neither Part nor Tool, now
    calls Tool.run."""
    edit = BASED["t.py"].replace("class Part:", "class Part(Tool):").replace("made = Part()", "built = Part()\n    made = built")
    root, _, _ = edited(tmp_path, kept, BASED, "t.py", edit)
    assert ("u.py::go", "b.py::Tool.run") in set(query_index(root, "SELECT source, target FROM edges"))
    assert_same_as_full(root, tmp_path / "full")


LOCAL = ("made = Part()", "built = Part()\n    made = built")  # an edit inside make: same answers


@pytest.mark.parametrize("kept", [False, True], ids=["rows", "kept"])
@pytest.mark.parametrize("edit, resolved, undone", [
    # a method no other file names: t.py alone
    (("class Part:\n    pass", "class Part:\n    def check(self):\n        return 1"), 1, 2),
    # a new function and what it returns
    (("\n\ndef make", "\n\ndef spare():\n    return Tool()\n\n\ndef make"), 1, 1),
    # a return annotation that says what make returns anyway, added and taken away: u.py names make
    (("def make():", "def make() -> Part:"), 2, 2),
    # one that says otherwise: u.py too, now calling Tool.run
    (("def make():", "def make() -> Tool:"), 2, 2),
    # a method u.go calls by name: u.py too, now calling Part.run
    (("class Part:\n    pass", "class Part:\n    def run(self):\n        pass"), 2, 2),
])
def test_an_edit_inside_with_new_definitions_is_judged_by_its_answers(
        tmp_path: Path, kept: bool, edit: tuple[str, str], resolved: int, undone: int):
    """make's local changes, and t.py gains a definition or an annotation: what it answered before
    it answers the same, so u.py, which consulted t.py, is resolved again only when it names what
    t.py gained or annotated. Undone, a definition goes: a function no other file read goes with
    t.py alone; a method still reaches what consulted t.py. The rows equal a full rebuild's both
    times."""
    edited_and_undone(tmp_path, kept, BASED, BASED["t.py"].replace(*LOCAL).replace(*edit), resolved, undone)


@pytest.mark.parametrize("kept", [False, True], ids=["rows", "kept"])
@pytest.mark.parametrize("edit, resolved", [
    # a method, with nothing else changed: make's flows read Part, which the edit changed, but make
    # answers as before, so u.py, which consulted t.py, is not resolved again
    (("class Part:\n    pass", "class Part:\n    def check(self):\n        return 1"), 1),
    # an import that binds a name the file defines (make): not judged by its answers (two meanings
    # where there was one); u.py, importing make from t.py, is resolved again
    (("from b import Tool\n", "from b import Tool\nfrom b import Tool as make\n"), 2),
])
def test_a_file_that_only_gains_is_judged_by_its_answers(tmp_path: Path, kept: bool, edit: tuple[str, str],
                                                         resolved: int):
    """t.py gains a definition or an import and changes nothing else. The rows equal a full rebuild's."""
    root, _, count = edited(tmp_path, kept, BASED, "t.py", BASED["t.py"].replace(*edit))
    assert count == resolved
    assert_same_as_full(root, tmp_path / "full")


@pytest.mark.parametrize("kept", [False, True], ids=["rows", "kept"])
def test_a_class_gaining_a_member_with_an_edit_inside_resolves_again_its_readers(tmp_path: Path, kept: bool):
    """Part gains __call__ and make's local changes: what Part's instances answer differs, so make's
    answers cannot be compared within the new table; u.go, which names neither Part nor __call__
    (`make()()`), now calls Part.__call__."""
    files = {**BASED, "u.py": "from t import make\n\n\ndef go():\n    make()()\n"}
    edit = BASED["t.py"].replace("class Part:\n    pass", "class Part:\n    def __call__(self):\n        pass") \
        .replace("made = Part()", "built = Part()\n    made = built")
    root, _, _ = edited(tmp_path, kept, files, "t.py", edit)
    assert ("u.py::go", "t.py::Part.__call__") in set(query_index(root, "SELECT source, target FROM edges"))
    assert_same_as_full(root, tmp_path / "full")
