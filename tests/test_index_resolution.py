"""The symbol table kept between index runs: after an edit, the kept table updated with the edited
files' symbols holds what a table built from scratch over the new tree holds (definitions by id,
file, name and owner, the names set and the class members), whatever the edit did to classes."""

from __future__ import annotations

import textwrap

import pytest

from graphctx.index.modules import ModuleMap
from graphctx.index.parsing import entity_rows
from graphctx.index.tableupdates import update_table
from graphctx.index.symbols import SymbolTable
from graphctx.parse.extract import extract

BEFORE = {
    "shop/models.py": '''
        class Repo:
            def save(self, item):
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
            Repo().save(name)
    ''',
}
EDITS = {
    "a function appended": ("shop/models.py", BEFORE["shop/models.py"] + "\n\ndef helper(x):\n    return x\n"),
    "a method renamed": ("shop/models.py", BEFORE["shop/models.py"].replace("def _write", "def _store")),
    "a class removed": ("shop/models.py", BEFORE["shop/models.py"].split("class CachedRepo")[0]),
    "a class added": ("shop/service.py", BEFORE["shop/service.py"] + "\n\nclass Service:\n    def run(self):\n        pass\n"),
    "a file emptied": ("shop/service.py", ""),
}


def rows_of(files: dict[str, str]) -> dict[str, list[tuple]]:
    """path -> the (id, kind, name, qualified_name, path, language) rows the index would hold."""
    out = {}
    for path, text in files.items():
        facts = extract(path, "python", textwrap.dedent(text).encode())
        out[path] = [(r[0], r[1], r[2], r[3], r[5], r[4]) for r in entity_rows(facts) if r[1] != "file"]
    return out


def table_of(rows: dict[str, list[tuple]]) -> SymbolTable:
    files = {path: ("python", None) for path in rows}
    return SymbolTable([r for path in sorted(rows) for r in rows[path]], ModuleMap(files), lambda path: None)


def contents(table: SymbolTable) -> dict:
    ids = lambda syms: sorted(s.id for s in syms)  # noqa: E731
    return {
        "by_id": {k: (s.kind, s.name, s.qualified_name, s.path, s.family) for k, s in table.by_id.items()},
        "file_defs": {p: {q: s.id for q, s in d.items()} for p, d in table.file_defs.items() if d},
        "top": {k: ids(v) for k, v in table.top_by_name.items() if v},
        "methods": {k: ids(v) for k, v in table.methods_by_name.items() if v},
        "names": table.names,
        "members": {k: {n: s.id for n, s in v.items()} for k, v in table.members.items() if v},
    }


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_kept_table_equals_a_fresh_one(edit):
    path, text = EDITS[edit]
    before = rows_of(BEFORE)
    after = rows_of({**BEFORE, path: text})
    kept = table_of(before)
    assert kept.members  # computed before the edit, so the update has to keep it right
    update_table(kept, [path], after[path], ModuleMap({p: ("python", None) for p in after}), lambda p: None)
    assert contents(kept) == contents(table_of(after))
