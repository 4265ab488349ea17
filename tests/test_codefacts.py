"""The code facts the index offers the layers beside the graph (records judge their anchors through
them), read from a real index: entities by id, several at once, by name and by body hash, the
generation, did-you-mean names, and no facts (not an error) while there is no index."""

from __future__ import annotations

from pathlib import Path

from conftest import write_tree

from graphctx.index.codefacts import CodeFacts, IndexCodeFacts, open_code_facts
from graphctx.index.indexer import index_repository

APP = "def add(a, b):\n    return a + b\n\n\nclass Store:\n    def get(self, key):\n        return self.data[key]\n"
UTIL = "def helper():\n    return 42\n"


def test_facts_from_a_real_index(tmp_path: Path):
    root = write_tree(tmp_path / "repo", {"pkg/app.py": APP, "pkg/util.py": UTIL})
    index_repository(root)
    with open_code_facts(root) as code:
        facts: CodeFacts = code
        assert facts.available and facts.generation == 1
        add = facts.entity("pkg/app.py::add")
        assert (add.kind, add.name, add.path) == ("function", "add", "pkg/app.py") and add.sig_hash and add.body_hash
        whole = facts.entity("pkg/util.py")
        assert whole.kind == "file" and whole.body_hash  # a file's body hash is its content hash
        assert facts.entity("pkg/app.py::nothing") is None
        found = facts.entities(["pkg/app.py::add", "pkg/app.py::Store.get", "pkg/app.py::gone", "pkg/app.py::add"])
        assert set(found) == {"pkg/app.py::add", "pkg/app.py::Store.get"} and found["pkg/app.py::add"] == add
        assert facts.named("Store.get") == facts.named("get") == ["pkg/app.py::Store.get"]
        assert facts.named("app.py::add") == ["pkg/app.py::add"]  # an id suffix
        assert facts.named("nothing") == []
        assert "pkg/app.py::add" in facts.close_names("pkg/app.py::ad")
        assert facts.same_body(add.body_hash, exclude="pkg/app.py::add") == []

    # `add` moves to util.py unchanged, and the file changes: the same body is found at its new place.
    (root / "pkg/app.py").write_text(APP.replace("def add(a, b):\n    return a + b\n\n\n", ""))
    (root / "pkg/util.py").write_text(UTIL + "\n\ndef add(a, b):\n    return a + b\n")
    index_repository(root)
    with open_code_facts(root) as code:
        assert code.generation == 2 and code.entity("pkg/app.py::add") is None
        assert [e.id for e in code.same_body(add.body_hash, exclude="pkg/app.py::add")] == ["pkg/util.py::add"]
        assert code.entity("pkg/util.py").body_hash != whole.body_hash  # the file's content changed


def test_no_index_means_no_facts(tmp_path: Path):
    with IndexCodeFacts(tmp_path) as code:
        assert not code.available and code.generation is None
        assert code.entity("a.py::f") is None and code.entities(["a.py::f"]) == {} and code.named("f") == []
        assert code.same_body("abc", exclude="") == [] and code.close_names("f") == []
