"""How a run changes the symbol table it keeps (resolution.py) from one run to the next: the symbols of
the files it rewrote or deleted replaced by their new ones, as a table built from scratch would hold
them, and a view of the table as it was before the run, in which the edited files' old facts are
asked as they were answered (sameanswers.py)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from graphctx.index.lazysymbols import LazySymbolTable
from graphctx.index.modules import ModuleMap
from graphctx.index.naming import entity_id
from graphctx.index.symbols import CLASS_KINDS, Symbol, SymbolTable
from graphctx.parse.facts import FileFacts
from graphctx.parse.languages import family

# (id, kind, name, qualified_name, path, language): what the table knows of an entity
SymbolRow = tuple[str, str, str, str, str, str]


def new_table(symbols: Iterable[SymbolRow], modules: ModuleMap, load: Callable[[str], FileFacts | None]) -> SymbolTable:
    return SymbolTable(symbols, modules, load)


def update_table(table: SymbolTable, removed_paths: Iterable[str], added: Iterable[SymbolRow],
                 modules: ModuleMap | None, load: Callable[[str], FileFacts | None]) -> None:
    """Replace the symbols of `removed_paths` (deleted or rewritten files) by `added`, as a table built
    from scratch would hold them, and take this run's module map and facts loader. A table read on
    demand forgets what it read of them instead (lazysymbols.py)."""
    gone = set(removed_paths)
    if isinstance(table, LazySymbolTable):
        table.forget(gone, list(added), modules_moved=modules is not None)
    else:
        _replace_symbols(table, gone, [Symbol(id_, kind, name, qualified, path, family(language))
                                       for id_, kind, name, qualified, path, language in added])
    if modules is not None:
        table.modules = modules
        table.__dict__.pop("files_by_stem", None)
    table.load_facts = load
    table.forget_derived()  # (read off the members and the files' facts)
    table.flow.new_epoch()  # (so is what value flow made of several files' answers)
    table.flow.new_run()
    if modules is not None:  # a module came or went: what any file's imports bind may differ
        table.resolvers.clear()
    for path in gone:
        table.resolvers.pop(path, None)


@dataclass(frozen=True, slots=True)
class Before:
    """What a kept table held before a run changed it: the definitions of the files the run edits,
    and the class hierarchy (set_bases replaces its dicts, never changes them)."""
    symbols: dict[str, list[Symbol]]
    bases: dict[str, list[str]]
    external_bases: dict[str, list[str]]


def remember_before(table: SymbolTable, paths: Iterable[str]) -> Before | None:
    """What `table` holds of the files `paths` and of the hierarchy, for view_before once the run has
    changed them; None for a table read on demand (it holds only what it was asked)."""
    if isinstance(table, LazySymbolTable):
        return None
    return Before({path: list(table.file_defs.get(path, {}).values()) for path in paths}, table.bases,
                  table.external_bases)


def view_before(table: SymbolTable, before: Before) -> SymbolTable:
    """A view of `table` (SymbolTable.view) as it was before this run: the edited files holding the
    definitions they held, the hierarchy as it was, every other file as it is (no file came or went).
    The edited files' old facts are asked there as they were answered. What it changes is its own."""
    view = table.view()
    view.by_id, view.file_defs, view.names = dict(table.by_id), defaultdict(dict, table.file_defs), set(table.names)
    view.bases, view.external_bases = before.bases, before.external_bases
    view._subclasses, view._below, view._levels = None, {}, {}  # (derived from the hierarchy)
    names = {sym.name for symbols in before.symbols.values() for sym in symbols}  # (the lists it appends to)
    view.top_by_name, view.methods_by_name = (
        defaultdict(list, {**by_name, **{n: list(by_name[n]) for n in names if n in by_name}})
        for by_name in (table.top_by_name, table.methods_by_name))
    view._moved = set()
    if "members" in table.__dict__:
        view.__dict__["members"] = defaultdict(dict, {cid: dict(found) for cid, found in table.members.items()})
    _replace_symbols(view, set(before.symbols), [sym for symbols in before.symbols.values() for sym in symbols])
    return view


def _replace_symbols(table: SymbolTable, gone: set[str], new: list[Symbol]) -> None:
    old = [sym for path in gone for sym in table.file_defs.get(path, {}).values()]
    for path in gone:
        table.file_defs.pop(path, None)
    for sym in old:
        table.by_id.pop(sym.id, None)
    if gone:
        for by_name in (table.top_by_name, table.methods_by_name):
            for name in {sym.name for sym in old}:
                syms = by_name.get(name)
                if syms and any(s.path in gone for s in syms):
                    kept_syms = [s for s in syms if s.path not in gone]
                    if kept_syms:
                        by_name[name] = kept_syms
                    else:
                        del by_name[name]
    for sym in new:
        table.by_id[sym.id] = sym
        table.file_defs[sym.path][sym.qualified_name] = sym
        if sym.kind == "method":
            table.methods_by_name[sym.name].append(sym)
        elif "." not in sym.qualified_name:
            table.top_by_name[sym.name].append(sym)
    gone_names = {sym.name for sym in old} - {sym.name for sym in new}
    table.names.update(sym.name for sym in new)
    if gone_names:  # (one pass over the table, only when a name may have left it)
        table.names -= gone_names - {sym.name for sym in table.by_id.values() if sym.name in gone_names}
    table.moved(((sym.id, sym.name) for sym in old), ((sym.id, sym.name) for sym in new))
    if "members" in table.__dict__ and not _update_members(table, old, new):
        del table.__dict__["members"]  # rebuilt from every symbol when next asked


def _update_members(table: SymbolTable, old: list[Symbol], new: list[Symbol]) -> bool:
    """Update the cached class members in place when the edit kept every class as it was and each
    member sits in its class's own file: then a member's owner cannot have moved, and only the
    members of the files edited change. False (rebuild them all) for anything else: a class
    added, removed or renamed, or a Go or Rust method joining a type from another file."""
    def classes(symbols: list[Symbol]) -> set[tuple[str, str]]:
        return {(s.id, s.kind) for s in symbols if s.kind in CLASS_KINDS}

    def local_owner(sym: Symbol) -> Symbol | None:
        return table.file_defs.get(sym.path, {}).get(sym.qualified_name.rsplit(".", 1)[0])

    if classes(old) != classes(new):
        return False
    members = table.members
    for sym in old:
        if "." not in sym.qualified_name:
            continue
        owner_id = entity_id(sym.path, sym.qualified_name.rsplit(".", 1)[0])
        if owner_id not in table.by_id:
            return False
        if members.get(owner_id, {}).get(sym.name) is sym:
            del members[owner_id][sym.name]
            if not members[owner_id]:
                del members[owner_id]
    for sym in new:
        if "." not in sym.qualified_name:
            continue
        owner = local_owner(sym)
        if owner is None:
            return False
        members[owner.id].setdefault(sym.name, sym)
    return True
