"""The symbol table read on demand (index/lazysymbols.py) answers every lookup resolution makes as
the whole table built from every definition does, on a real index of several languages (Go methods
joining their package's types, Rust impls in another file, Python classes and bases), and becomes
that table when made whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import write_tree
from graphctx.index import store
from graphctx.index.generation import WITH_PACKAGE
from graphctx.index.indexer import index_repository
from graphctx.index.keeper import TableKeeper
from graphctx.index.lazysymbols import LazySymbolTable
from graphctx.index.modules import ModuleMap
from graphctx.index.resolution import WHOLE_TABLE_FROM
from graphctx.index.store import reads
from graphctx.index.symbols import SymbolTable

TREE = {
    "app/models.py": (
        "class Base:\n    def save(self):\n        return 1\n\n"
        "class User(Base):\n    def name(self):\n        return 'u'\n    def save(self):\n        return 2\n\n"
        "def make():\n    return User()\n"
    ),
    "app/views.py": (
        "from app.models import User, make\nimport json\n\n"
        "class View(json.JSONEncoder):\n    def show(self):\n        return make().name()\n\n"
        "def save():\n    return User().save()\n"
    ),
    "app/more.py": "def make():\n    return 2\n\nclass User:\n    pass\n",
    "go/server.go": "package web\n\ntype Server struct{}\n\nfunc New() *Server { return &Server{} }\n",
    "go/handlers.go": "package web\n\nfunc (s *Server) Run() int { return s.Stop() }\nfunc (s *Server) Stop() int { return 0 }\n",
    "rs/shape.rs": "pub struct Shape { w: u32 }\npub fn area() -> u32 { 1 }\n",
    "rs/impls.rs": "use crate::shape::Shape;\nimpl Shape {\n    pub fn area(&self) -> u32 { self.w }\n}\n",
}


@pytest.fixture
def tables(tmp_path: Path):
    root = write_tree(tmp_path / "repo", TREE)
    index_repository(root, workers=1)
    conn = store.connect(store.index_path(root))
    files = {p: (lang, pkg if lang in WITH_PACKAGE else None) for p, (lang, pkg) in reads.file_packages(conn).items()}
    whole = SymbolTable(reads.definitions(conn), ModuleMap(files, root), lambda path: None)
    lazy = LazySymbolTable(conn, ModuleMap(files, root), lambda path: None)
    yield conn, whole, lazy
    conn.close()


def _ids(symbols) -> list[str]:
    return [s.id for s in symbols]


def test_every_lookup_answers_as_the_whole_table(tables):
    _, whole, lazy = tables
    assert len(whole.by_id) > 10
    assert_answers_as(lazy, whole)
    assert whole.members["go/server.go::Server"]["Run"].path == "go/handlers.go"  # (the cases worth comparing)
    assert whole.members["rs/shape.rs::Shape"]["area"].path == "rs/impls.rs"


def assert_answers_as(lazy: LazySymbolTable, whole: SymbolTable, more_names: tuple[str, ...] = (),
                      more_ids: tuple[str, ...] = ()) -> None:
    """Every lookup resolution makes answers the same through both tables."""
    ids = list(whole.by_id)
    for id_ in [*ids, "app/models.py::Nope", "ext:json.JSONEncoder", *more_ids]:
        assert lazy.by_id.get(id_) == whole.by_id.get(id_)
        assert (id_ in lazy.by_id) == (id_ in whole.by_id)
    for path in [*TREE, "missing.py"]:
        assert lazy.file_defs.get(path, {}) == whole.file_defs.get(path, {})
    names = {s.name for s in whole.by_id.values()} | {"nothing_has_this_name", *more_names}
    for name in names:
        assert _ids(lazy.top_by_name.get(name, ())) == _ids(whole.top_by_name.get(name, ()))
        assert _ids(lazy.methods_by_name.get(name, ())) == _ids(whole.methods_by_name.get(name, ()))
        assert (name in lazy.names) == (name in whole.names)
    for sym in whole.by_id.values():
        assert lazy.owner_of(lazy.by_id[sym.id]) == whole.owner_of(sym)
    classes = [s.id for s in whole.by_id.values() if s.kind in ("class", "struct")]
    assert "go/server.go::Server" in classes and "rs/shape.rs::Shape" in classes
    for cid in classes:
        for name in names:
            assert lazy.members.get(cid, {}).get(name) == whole.members.get(cid, {}).get(name), (cid, name)
            assert (name in lazy.members.get(cid, {})) == (name in whole.members.get(cid, {}))


def test_the_class_hierarchy_is_the_same(tables):
    conn, whole, lazy = tables
    pairs = [(source, target) for source, target, _ in reads.inheritance_edges(conn)]
    assert ("app/models.py::User", "app/models.py::Base") in pairs
    whole.set_bases(pairs)
    lazy.set_bases(pairs)
    assert (lazy.bases, lazy.external_bases) == (whole.bases, whole.external_bases)
    assert lazy.external_bases  # json.JSONEncoder, outside the repository
    assert lazy.find_member("app/models.py::User", "save") == whole.find_member("app/models.py::User", "save")


def test_made_whole_it_is_the_whole_table(tables):
    _, whole, lazy = tables
    _ = lazy.by_id.get("app/models.py::User")  # (something read on demand first)
    lazy.materialize()
    assert type(lazy) is SymbolTable
    assert lazy.by_id == whole.by_id and dict(lazy.file_defs) == dict(whole.file_defs)
    assert dict(lazy.top_by_name) == dict(whole.top_by_name) and dict(lazy.methods_by_name) == dict(whole.methods_by_name)
    assert lazy.names == whole.names and lazy.members == whole.members


def test_kept_between_edits_it_forgets_what_each_edit_changes(tmp_path: Path):
    """A process that starts on an existing index reads its first edit's table on demand and keeps it
    for the next edits, with every answer it read: each edit's files' answers are read again, so that
    after the edit every lookup answers as a table read whole from the rows does."""
    root = write_tree(tmp_path / "repo", TREE)
    index_repository(root, workers=1)  # (another process's build: nothing kept)
    keeper, db_path = TableKeeper(), store.index_path(root)
    ids_before: set[str] = set()  # (asked again after each edit: some are gone)
    steps = [
        {"app/more.py": "def make():\n    return 3\n\nclass User:\n    pass\n",
         "rs/other.rs": "pub fn helper() -> u32 { 2 }\n"},
        {  # a method gone, one renamed, a class and a top-level function added, a member moving owner
            "app/models.py": (
                "class Base:\n    pass\n\n"
                "class User(Base):\n    def title(self):\n        return 'u'\n    def save(self):\n        return 2\n\n"
                "class Extra(User):\n    def name(self):\n        return 'e'\n\n"
                "def make():\n    return User()\n\ndef added():\n    return Extra()\n"
            ),
            "go/extra.go": "package web\n\nfunc (s *Server) Name() string { return \"s\" }\n",
        },
        {"app/more.py": "def save():\n    return 1\n",  # a class gone, a name now top-level elsewhere
         # (no module comes or goes) impls.rs's Shape no longer the one: its area has no owner
         "rs/other.rs": "pub fn helper() -> u32 { 2 }\npub struct Shape { h: u32 }\n"},
    ]
    for number, files in enumerate(steps):
        write_tree(root, files)
        index_repository(root, workers=1, keeper=keeper)
        conn = store.connect(db_path, readonly=True)
        generation = store.generation(conn)
        files_now = {p: (lang, pkg if lang in WITH_PACKAGE else None) for p, (lang, pkg) in reads.file_packages(conn).items()}
        whole = SymbolTable(reads.definitions(conn), ModuleMap(files_now, root), lambda path: None)
        conn.close()
        entry = keeper.take(db_path, generation)
        assert entry is not None and isinstance(entry.table, LazySymbolTable), number  # (never read whole)
        assert_answers_as(entry.table, whole, ("name", "title", "save", "added", "Extra", "Name"), tuple(sorted(ids_before)))
        ids_before |= set(whole.by_id)
        keeper.put(db_path, generation, entry)  # (every answer read now: the next edit must forget some)
    keeper.clear()


def test_an_edit_that_resolves_many_files_reads_it_whole_first(tmp_path: Path):
    """Each lookup of a table read on demand is a query: an edit that resolves many files again
    (WHOLE_TABLE_FROM) reads it whole first, and later runs keep it whole; one that resolves a few
    goes on reading on demand."""
    callers = {f"use_{i}.py": f"from base import shared\n\n\ndef run_{i}():\n    return shared().strip()\n"
               for i in range(WHOLE_TABLE_FROM)}  # (each reads what shared returns: base.py's scope)
    root = write_tree(tmp_path / "repo", {"base.py": "def shared():\n    return 1\n", "alone.py": "def alone():\n    return 1\n",
                                          **callers})
    index_repository(root, workers=1)
    keeper, db_path = TableKeeper(), store.index_path(root)
    for path, text, whole in [("alone.py", "def alone():\n    return 2\n", False),
                              ("base.py", "def shared():\n    return []\n", True)]:  # (every caller resolved again)
        write_tree(root, {path: text})
        index_repository(root, workers=1, keeper=keeper)
        conn = store.connect(db_path, readonly=True)
        generation = store.generation(conn)
        conn.close()
        entry = keeper.take(db_path, generation)
        assert (type(entry.table) is SymbolTable) == whole, path
        keeper.put(db_path, generation, entry)
    keeper.clear()


@pytest.mark.parametrize("read", [reads.inheritance_rows, reads.inheritance_edges, reads.inheritance_names])
def test_the_class_hierarchy_is_read_through_its_index(tables, read):
    """An edit's run reads every inheritance edge: through their partial index, not a scan of every edge."""
    conn, _, _ = tables
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        assert read(conn)
    finally:
        conn.set_trace_callback(None)
    plan = " ".join(row[-1] for sql in statements for row in conn.execute("EXPLAIN QUERY PLAN " + sql))
    assert "edge_keys_lineage" in plan and "SCAN e" not in plan, plan
