"""The names an edit's changes are reached by: a file is resolved again when it names one of them,
so each must be a name a dependent uses, not one every file uses (`self`, `set`, `None`, a package
path), which would resolve nearly every file again after most edits."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphctx.index.dependencies import names_of
from conftest import query_index, write_tree
from graphctx.index.indexer import index_repository
from graphctx.index.keeper import TableKeeper
from test_index_consulted import edited, edited_and_undone, resolved_files
from test_index_incremental_owners import CLASSES, assert_same_as_full


@pytest.mark.parametrize("key, names", [
    (("bind", "Solver:self.slack:set"), {"Solver", "slack"}),  # the attribute, not `self` nor its type
    (("bind", "make:return:Widget"), {"make"}),  # what callers name
    (("bind", "a::B.f:return:x::Y"), {"a", "B", "f"}),
    (("import", "sympy.core:Basic:None:False"), {"Basic"}),  # the name it binds, not the module's path
    (("import", "pkg:name:alias:False"), {"alias"}),
    (("import", "os.path:None:None:False"), {"os", "path"}),  # a module bound by its path
    (("import", "crate::a::b:None:None:True"), {"crate", "a", "b"}),  # everything of the module
    (("flow", "Solver.__init__>basis|3f2a"), {"Solver", "basis"}),  # the attribute, not the method assigning it
    (("flow", "Solver.step|3f2a"), {"Solver", "step"}),
    (("flow", "f.<lambda1>|3f2a"), {"f"}),
    (("package", "None"), set()),
    (("package", "com.acme"), {"com", "acme"}),
    (("def", "Solver.__init__:method"), {"Solver", "__init__"}),
])
def test_the_names_of_a_changed_key(key, names):
    assert names_of([key]) == names


SOLVER = ("class Solver:\n    def __init__(self):\n        self.slack: set = set()\n\n"
          "    def step(self):\n        return self.slack\n")
# other.py names self, set, None and the package path, as most files do, and nothing of Solver
FILES = {
    "pkg/__init__.py": "",
    "pkg/solver.py": SOLVER,
    "pkg/user.py": "from pkg.solver import Solver\n\n\ndef run():\n    return Solver().step()\n",
    "pkg/other.py": "import pkg.solver\n\n\nclass Other:\n    def __init__(self):\n        self.items = set()\n"
                    "        self.none = None\n\n    def size(self):\n        return len(self.items)\n",
}


@pytest.mark.parametrize("kept", [False, True], ids=["rows", "kept"])
def test_an_attribute_renamed_resolves_again_only_what_reaches_it(tmp_path: Path, kept: bool):
    """Solver's `slack` becomes `basis`: solver.py and user.py (which names Solver) are resolved
    again; other.py, which names `self`, `set`, `None` and `__init__` like every file, is not."""
    root, _, resolved = edited(tmp_path, kept, FILES, "pkg/solver.py", SOLVER.replace("slack", "basis"))
    assert resolved == 2
    assert_same_as_full(root, tmp_path / "full")


WIDGETS = "class Widget:\n    def draw(self):\n        pass\n"
IMPORTING = {
    "widgets.py": WIDGETS,
    "gadgets.py": WIDGETS,
    "pkg/__init__.py": "from .mod import Widget\n",
    "pkg/mod.py": "from gadgets import Widget\n\n\ndef make():\n    return 1\n\n\ndef mod():\n    return 2\n",
    "pkg/everything.py": "from .mod import *\n",
    "direct.py": "from pkg.mod import Widget\n\n\ndef go():\n    Widget().draw()\n",
    "through.py": "from pkg import Widget\n\n\ndef go():\n    Widget().draw()\n",
    "wild.py": "from pkg.everything import Widget\n\n\ndef go():\n    Widget().draw()\n",
    "own.py": "from widgets import Widget\n\n\ndef go():\n    Widget().draw()\n",  # its own Widget
    # names Widget and imports from pkg.mod, but Widget from elsewhere: it passes nothing on
    "pkg/user.py": "from pkg.mod import make\nfrom widgets import Widget\n\n\ndef go():\n    make()\n    Widget().draw()\n",
    "further.py": "from pkg.user import go\nfrom widgets import Widget\n\n\ndef run():\n    go()\n    Widget().draw()\n",
    # reads Widget through the package's path: it sees what pkg.mod binds
    "dotted.py": "import pkg\n\n\ndef go():\n    pkg.mod.Widget().draw()\n",
    # imports the package and names Widget and mod, but reads no path through the package
    "plain.py": "import pkg\nfrom pkg.mod import make\nfrom widgets import Widget\n\n\ndef go():\n    make()\n    Widget().draw()\n",
    # imports a function named as its module, not the module
    "same.py": "from pkg.mod import mod\nfrom widgets import Widget\n\n\ndef run():\n    mod()\n    Widget().draw()\n",
}


@pytest.mark.parametrize("kept", [False, True], ids=["rows", "kept"])
def test_an_import_changed_reaches_only_the_files_importing_through_it(tmp_path: Path, kept: bool):
    """pkg/mod.py takes Widget from widgets.py instead of gadgets.py: the files importing it from
    pkg.mod, from the package that re-exports it, and from a module that wildcard-imports it are
    resolved again and now draw widgets.Widget; own.py, naming Widget through its own import, and
    gadgets.py are not, nor pkg/user.py, which names Widget and imports from pkg.mod but takes Widget
    from elsewhere, nor further.py, importing from it, nor same.py, importing the function `mod`
    of pkg.mod, nor plain.py, importing the package but reading nothing through it; dotted.py,
    reading `pkg.mod.Widget`, is. The rows equal a full rebuild's."""
    root, _, resolved = edited(tmp_path, kept, IMPORTING, "pkg/mod.py",
                               IMPORTING["pkg/mod.py"].replace("from gadgets", "from widgets"))
    # pkg/mod.py, the four importing through it and the package passing it on by name (the
    # wildcard passes on whatever pkg.mod binds: its own edges stay)
    assert resolved == 6
    assert_same_as_full(root, tmp_path / "full")


SEEING = {
    "shapes.py": "class Box:\n    def open(self):\n        pass\n\n\ndef sqrt(x):\n    return Box()\n",
    "crates.py": "class Crate:\n    def open(self):\n        pass\n\n\ndef sqrt(x):\n    return Crate()\n",
    "a.py": "from shapes import sqrt\n\n\ndef make(n):\n    k = n\n    return sqrt(k)\n",
    "reader.py": "from a import make\n\n\ndef go():\n    make(1).open()\n",
    "b.py": "from shapes import sqrt\n\n\ndef area(n):\n    return sqrt(n)\n",
}


@pytest.mark.parametrize("kept", [False, True], ids=["rows", "kept"])
def test_an_import_changed_is_seen_only_by_its_importers(tmp_path: Path, kept: bool):
    """One run edits a.py inside `make` (same answers) and makes b.py take `sqrt` from crates.py:
    a.py reads a `sqrt` of its own, so it answers reader.py as before and reader.py is not resolved
    again; the two edited files are. The rows equal a full rebuild's."""
    keeper = TableKeeper() if kept else None
    root = write_tree(tmp_path / "repo", SEEING)
    index_repository(root, workers=1, keeper=keeper)
    (root / "a.py").write_text(SEEING["a.py"].replace("k = n", "k = n + 0"))
    (root / "b.py").write_text(SEEING["b.py"].replace("from shapes", "from crates"))
    assert resolved_files(root, keeper) == 2
    assert_same_as_full(root, tmp_path / "full")


def _keys(source: str) -> set[tuple[str, str]]:
    from graphctx.index.dependencies import defined_names
    from graphctx.parse.extract import extract
    return defined_names(extract("m.py", "python", source.encode()))


def test_a_function_filling_its_own_list_offers_no_module_variable():
    """`found.append(x)` fills the module's `found` only when the function binds no `found` of its own
    (value flow stores it where it is bound): only then is `found` a module-level name of the file."""
    own = _keys("def make():\n    found = []\n    found.append(1)\n    return found\n")
    module = _keys("found = []\n\n\ndef make():\n    found.append(1)\n")
    nested = _keys("def outer():\n    found = []\n\n    def inner():\n        found.append(1)\n    return inner\n")
    assert not any(key.startswith(":found|") for _, key in own | nested)
    alone = _keys("found = []\n\n\ndef make():\n    pass\n")
    assert {k for k in module if k[1].startswith(":found|")}.isdisjoint(alone)  # make's store is part of it


@pytest.mark.parametrize("source, readers", [
    ("__all__ = ['Max']\n\n\ndef top():\n    return Max()\n", {"top"}),  # a string names nothing
    ("def valid(character):\n    return character.strip()\n", set()),  # its own parameter
    ("def valid(text):\n    for character in text:\n        def inner():\n            return character.strip()\n"
     "        return inner\n", set()),  # the variable of the function around it
    ("def valid(text):\n    return character.strip()\n", {"valid"}),  # a name it does not bind
    ("def valid(character):\n    return text.character\n", {"valid"}),  # an attribute of that name
])
def test_the_names_a_flow_reads(source: str, readers: set[str]):
    """A change to Max, or to a definition named character, reaches the flows that read that name."""
    from graphctx.index.dependencies import flow_readers
    from graphctx.parse.extract import extract
    assert flow_readers({"Max", "character"}, extract("m.py", "python", source.encode())) == readers


@pytest.mark.parametrize("method, names", [
    ("def check(self):\n        return self.size", {"check"}),  # reached by its name alone
    ("def __iter__(self):\n        return iter([])", {"Part", "__iter__"}),  # called without its name
])
def test_a_method_gained_changes_its_name_not_its_class(method: str, names: set[str]):
    from graphctx.index.dependencies import changed_names
    before = "class Base:\n    pass\n\n\nclass Part(Base):\n    size = 1\n"
    after = before + f"\n    {method}\n"
    assert changed_names(_keys(before), _keys(after)) == names


@pytest.mark.parametrize("edit, unnamed", [
    (("    size = 1\n", "    size = 2\n"), False),  # a value: what the class answers
    (("    size = 1\n", "    size = 1\n\n    def check(self):\n        return 1\n"), False),  # reached by its name
    (("    size = 1\n", "    size = 1\n\n    def __call__(self):\n        return 1\n"), True),  # `p()`, no name
    (("class Part(Base):", "class Part:"), True),  # what every method of Part resolves through
    (("    size = 1\n", "    @property\n    def size(self):\n        return 1\n"), True),  # `p.size` reads a getter
])
def test_what_an_edit_changes_without_a_name(edit: tuple[str, str], unnamed: bool):
    from graphctx.index.sameanswers import changes_unnamed
    before = "class Base:\n    pass\n\n\nclass Part(Base):\n    size = 1\n"
    assert changes_unnamed(_keys(before), _keys(before.replace(*edit))) is unnamed


# n.build names Leaf, whose base Base gains a method; v.go reads what n.build returns
GAINING = {
    "b.py": "class Base:\n    def run(self):\n        pass\n\n\nclass Leaf(Base):\n    pass\n",
    "n.py": "from b import Leaf\n\n\ndef build():\n    made = Leaf()\n    return made\n",
    "v.py": "from n import build\n\n\ndef go():\n    build().run()\n",
}


@pytest.mark.parametrize("kept", [False, True], ids=["rows", "kept"])
@pytest.mark.parametrize("caller, resolved", [
    ("build().run()", 1),  # n.py and v.py hold and call what they did: b.py alone
    ("build().check()", 2),  # v.go names check: v.py too, now calling Base.check
])
def test_a_class_gaining_a_method_reaches_only_the_files_naming_it(tmp_path: Path, kept: bool, caller: str,
                                                                   resolved: int):
    files = {**GAINING, "v.py": GAINING["v.py"].replace("build().run()", caller)}
    edit = GAINING["b.py"].replace("class Leaf", "    def check(self):\n        return 1\n\n\nclass Leaf")
    edited_and_undone(tmp_path, kept, files, edit, resolved, None, path="b.py")


@pytest.mark.parametrize("kept", [False, True], ids=["rows", "kept"])
def test_a_list_local_to_an_edited_function_reaches_no_file_naming_it(tmp_path: Path, kept: bool):
    """make now fills a list of its own, `found`: w.py's flows read a `found` of their own, and v.py
    consulted w.py; neither is resolved again, and the rows equal a full rebuild's."""
    files = {
        "t.py": "class Part:\n    pass\n\n\ndef make():\n    return Part()\n",
        "w.py": "from t import make\n\n\ndef found():\n    return make()\n\n\ndef look():\n    return found()\n",
        "v.py": "from w import look\n\n\ndef go():\n    look().run()\n",
    }
    edit = files["t.py"].replace("    return Part()", "    found = []\n    found.append(Part())\n    return Part()")
    root, _, count = edited(tmp_path, kept, files, "t.py", edit)
    assert count == 1
    assert_same_as_full(root, tmp_path / "full")


@pytest.mark.parametrize("edit, names", [
    (("Widget()", "Engine()"), {"tool"}),  # its type
    (("        self.tool = Widget()\n", "        self.tool = Widget()\n        self.spare = make()\n"), {"spare"}),
])
def test_an_attribute_changed_changes_its_name_not_its_class(edit: tuple[str, str], names: set[str]):
    """Readers of `obj.tool` name tool: what a kept class's methods store into an attribute changes
    the attribute's name, not the class's."""
    from graphctx.index.dependencies import changed_names
    before = "class Part:\n    def __init__(self):\n        self.tool = Widget()\n"
    assert changed_names(_keys(before), _keys(before.replace(*edit))) == names


# t.Holder's __init__ sets what its part holds; u.go reads it by name; n.make returns a Holder, and
# v.use reads what n.make returns
HOLDING = {
    "w.py": CLASSES,
    "t.py": "from w import Widget, Engine\n\n\nclass Holder:\n    def __init__(self):\n        self.part = Widget()\n",
    "u.py": "from t import Holder\n\n\ndef go():\n    Holder().part.run()\n",
    "n.py": "from t import Holder\n\n\ndef make():\n    made = Holder()\n    return made\n",
    "v.py": "from n import make\n\n\ndef use():\n    make().part.run()\n",
    "x.py": "from n import make\n\n\ndef other():\n    return make()\n",
}


@pytest.mark.parametrize("kept", [False, True], ids=["rows", "kept"])
def test_an_attribute_type_changed_inside_is_judged_by_answers(tmp_path: Path, kept: bool):
    """Holder's part becomes an Engine: u.py and v.py, which read part by name and asked t.py about
    Holder, are resolved again and now call Engine.run; n.py, which names Holder but reads nothing of
    it (n.make returns a Holder either way), is not, nor x.py, which read what n.make returns. The
    rows equal a full rebuild's, and do again once the edit is undone."""
    root, keeper, count = edited(tmp_path, kept, HOLDING, "t.py", HOLDING["t.py"].replace("Widget()", "Engine()"))
    assert count == 3
    assert {("u.py::go", "w.py::Engine.run"), ("v.py::use", "w.py::Engine.run")} <= set(
        query_index(root, "SELECT source, target FROM edges"))
    assert_same_as_full(root, tmp_path / "full")
    (root / "t.py").write_text(HOLDING["t.py"])
    resolved_files(root, keeper)
    assert_same_as_full(root, tmp_path / "full")


@pytest.mark.parametrize("kept", [False, True], ids=["rows", "kept"])
def test_an_attribute_no_longer_stored_is_judged_by_answers(tmp_path: Path, kept: bool):
    """Holder's __init__ stops storing spare: what Holder answers changed, so u.py and v.py, which
    asked t.py about Holder, are resolved again; what u.go returns did not, so y.py, which read it,
    is not (before, every file that consulted t.py, directly or through others, was). The rows
    equal a full rebuild's, and do again once the edit is undone."""
    files = {**HOLDING, "t.py": HOLDING["t.py"] + "        self.spare = Widget()\n",
             "y.py": "from u import go\n\n\ndef again():\n    go().run()\n"}
    edited_and_undone(tmp_path, kept, files, HOLDING["t.py"], 3, None)
