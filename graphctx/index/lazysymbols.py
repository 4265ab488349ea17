"""A symbol table read through the index's lookups instead of built from every definition: what a
process with no kept table (`graphctx index` after an edit) resolves its few files against.

Building the whole table reads and indexes every definition (46,000 on sympy, a quarter of a
second); an edit's resolution asks for a few hundred names, ids and files. Each answer is one
query on an indexed column (entities by id, path or name), made once and kept for the run, and
every query sees the run's own rows (the edited files written, within its transaction), so it
answers as a table built from those rows would, in the same order (rowid order, as the full read
gives). Kept for the next run of the process (keeper.py), it keeps its answers but those an edit
can change (`forget`): the next edit reads only what neither read before, where reading the whole
table (half a second on sympy) would cost more than the edit. Before resolution forks workers
(which cannot share the connection) it is made whole (`materialize`): then it is a plain SymbolTable."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable

from graphctx.index.modules import ModuleMap
from graphctx.index.naming import EXTERNAL_PREFIX, external_name
from graphctx.index.store import definitions, reads
from graphctx.index.symbols import Symbol, SymbolTable
from graphctx.parse.facts import FileFacts
from graphctx.parse.languages import family

class _Rows:
    """The run's answers, each row made a Symbol once (one object per id, as the whole table has)."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.symbols: dict[str, Symbol | None] = {}  # id -> its symbol, None: not a symbol

    def made(self, rows: Iterable[definitions.Row]) -> list[Symbol]:
        out = []
        for id_, kind, name, qualified, path, language in rows:
            sym = self.symbols.get(id_)
            if sym is None:
                sym = self.symbols[id_] = Symbol(id_, kind, name, qualified, path, family(language))
            out.append(sym)
        return out

    def ids(self, ids: Iterable[str]) -> None:
        """Read the symbols of many ids at once (the targets of every inheritance pair)."""
        wanted = [i for i in set(ids) if i not in self.symbols]
        self.made(definitions.with_ids(self.conn, wanted))
        for id_ in wanted:
            self.symbols.setdefault(id_, None)


class _ById:
    def __init__(self, rows: _Rows):
        self.rows = rows

    def get(self, id_: str, default=None):
        if id_ not in self.rows.symbols:
            found = self.rows.made(definitions.with_ids(self.rows.conn, (id_,)))
            self.rows.symbols[id_] = found[0] if found else None
        sym = self.rows.symbols[id_]
        return default if sym is None else sym

    def __contains__(self, id_: object) -> bool:
        return isinstance(id_, str) and self.get(id_) is not None

    def __getitem__(self, id_: str) -> Symbol:
        sym = self.get(id_)
        if sym is None:
            raise KeyError(id_)
        return sym


class _ByPath:
    """path -> {qualified name: symbol}, the first definition of a qualified name kept (as the
    table's file_defs, where a later row of the same name replaces the earlier one: there is none,
    a file's entity ids being unique)."""

    def __init__(self, rows: _Rows):
        self.rows, self.cache = rows, {}

    def get(self, path: str, default=None):
        defs = self[path]
        return defs if defs or default is None else default

    def __getitem__(self, path: str) -> dict[str, Symbol]:
        if path not in self.cache:
            self.cache[path] = {sym.qualified_name: sym for sym in self.rows.made(definitions.at(self.rows.conn, path))}
        return self.cache[path]


class _ByName:
    """name -> the symbols of that name: methods, or the others defined at a file's top level."""

    def __init__(self, rows: _Rows, methods: bool):
        self.rows, self.methods, self.cache = rows, methods, {}

    def get(self, name: str, default=()):
        if name not in self.cache:
            found = self.rows.made(definitions.named(self.rows.conn, name, methods=self.methods))
            if not self.methods:
                found = [s for s in found if "." not in s.qualified_name]
            self.cache[name] = found
        return self.cache[name] or default

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and bool(self.get(name))


class _Names:
    """Whether any symbol bears a name."""

    def __init__(self, rows: _Rows):
        self.rows, self.cache = rows, {}

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        if name not in self.cache:
            self.cache[name] = bool(definitions.names_defined(self.rows.conn, (name,)))
        return self.cache[name]

    def read(self, names: Iterable[str]) -> None:
        """Answer many names at once (the external bases' names)."""
        wanted = [n for n in set(names) if n not in self.cache]
        found = definitions.names_defined(self.rows.conn, wanted)
        self.cache.update((n, n in found) for n in wanted)


class _Members:
    """class id -> its members by name, each the first symbol (in rowid order) of that name whose
    owner (SymbolTable.owner_of) is the class: what the whole table's `members` holds."""

    def __init__(self, table: LazySymbolTable):
        self.table, self.cache = table, {}

    def get(self, class_id: str, default=None):
        return _ClassMembers(self, class_id)


class _ClassMembers:
    def __init__(self, members: _Members, class_id: str):
        self.members, self.class_id = members, class_id

    def get(self, name: str, default=None):
        key = (self.class_id, name)
        cache = self.members.cache
        if key not in cache:
            # A member's owner (SymbolTable.owner_of) is a definition of its owner name in the member's
            # file or package, or the one top-level class of that name: so its qualified name is the
            # class's, or the class's name, then the member's. The answer rests on the definitions of
            # those owner names too (kept with it, for `forget`).
            table, found, owners = self.members.table, None, set()
            cls = table.by_id.get(self.class_id)
            if cls is not None:
                owners = {cls.qualified_name, cls.name}
                for sym in table.rows.made(definitions.named_as(table.rows.conn, name, [f"{o}.{name}" for o in owners])):
                    owner = table.owner_of(sym)
                    if owner is not None and owner.id == self.class_id:
                        found = sym
                        break
            cache[key] = (found, owners)
        found = cache[key][0]
        return default if found is None else found

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None


class LazySymbolTable(SymbolTable):
    """A SymbolTable whose definitions are read on demand through `conn` (see the module's doc)."""

    def __init__(self, conn: sqlite3.Connection, modules: ModuleMap, load_facts: Callable[[str], FileFacts | None]):
        super().__init__((), modules, load_facts)
        self.rows = _Rows(conn)
        self.by_id = _ById(self.rows)
        self.file_defs = _ByPath(self.rows)
        self.top_by_name = _ByName(self.rows, methods=False)
        self.methods_by_name = _ByName(self.rows, methods=True)
        self.names = _Names(self.rows)
        self.__dict__["members"] = _Members(self)  # (the cached_property of the whole table, taken)
        self.rewritten: list[definitions.Row] = []  # what the files an edit rewrites defined before it

    def reuse(self, conn: sqlite3.Connection) -> None:
        """Read through `conn`, the next run's connection to the index this table was read from."""
        self.rows.conn = conn

    def before_rewrite(self, paths: list[str]) -> None:
        self.rewritten += definitions.at_paths(self.rows.conn, paths)

    def forget(self, paths: set[str], added: list[definitions.Row], modules_moved: bool) -> None:
        """Forget every answer the rows of `paths` (as `before_rewrite` found them, and as `added`
        now has them) can change: those by their paths, ids, names and qualified names; a class's
        members by the member's name and by the owner names they looked up (when modules moved,
        a Go method's package files may differ: every class's members)."""
        self.moved(((row[0], row[2]) for row in self.rewritten), ((row[0], row[2]) for row in added))
        rows, self.rewritten = [*self.rewritten, *added], []
        names = {row[2] for row in rows} | {row[3] for row in rows}
        for id_ in {row[0] for row in rows}:
            self.rows.symbols.pop(id_, None)
        for path in paths:
            self.file_defs.cache.pop(path, None)
        for cache in (self.top_by_name.cache, self.methods_by_name.cache, self.names.cache):
            for name in names:
                cache.pop(name, None)
        members = self.__dict__["members"]
        members.cache = {} if modules_moved else {
            key: answer for key, answer in members.cache.items() if key[1] not in names and answer[1].isdisjoint(names)}

    def _make_bases(self, pairs: frozenset[tuple[str, str]]) -> None:
        # (what the whole table's asks, and the keeper's names_below, in a few queries)
        self.rows.ids(id_ for pair in pairs for id_ in pair if not id_.startswith(EXTERNAL_PREFIX))
        self.names.read(external_name(target) for _, target in pairs if target.startswith(EXTERNAL_PREFIX))
        super()._make_bases(pairs)

    def materialize(self, conn: sqlite3.Connection | None = None) -> None:
        """Become the whole table, read from the rows as they are now through `conn` (default the
        run's own: the generation this run wrote, before it commits; the next run passes its own
        connection to the committed one): what forked workers and the next run need."""
        whole = SymbolTable(reads.definitions(conn or self.rows.conn), self.modules, self.load_facts)
        for name in ("by_id", "file_defs", "top_by_name", "methods_by_name", "names"):
            setattr(self, name, getattr(whole, name))
        self.__dict__.pop("members", None)
        self.__dict__.pop("files_by_stem", None)
        del self.rows, self.rewritten
        self.__class__ = SymbolTable
