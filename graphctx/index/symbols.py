"""The symbol table: what resolving one file needs to know about the whole repository, built
from the store's entities on every run: definitions by file, by name and by owner, module names,
and the class hierarchy once the bases are resolved."""

from __future__ import annotations

import copy
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from graphctx.index.fixpoint import FlowQuestions
from graphctx.index.languages import rules_for
from graphctx.index.modules import ModuleMap
from graphctx.index.naming import EXTERNAL_PREFIX, external_name, file_stem
from graphctx.models import CLASS_KINDS
from graphctx.parse.facts import FileFacts
from graphctx.parse.languages import family


@dataclass(slots=True)
class Symbol:
    id: str
    kind: str
    name: str
    qualified_name: str
    path: str
    family: str


def value_kind(sym: Symbol) -> str:
    """The kind of value a definition is when a name stands for it."""
    return "class" if sym.kind in CLASS_KINDS else "function"


class SymbolTable:
    """What resolution needs to know about the whole repository: definitions by file, name and owner,
    module names, and the class hierarchy. Built from the store's entities on every run."""

    def __init__(
        self,
        entities: Iterable[tuple[str, str, str, str, str, str]],
        modules: ModuleMap,
        load_facts: Callable[[str], FileFacts | None],
    ):
        self.modules = modules
        self.load_facts = load_facts
        self.by_id: dict[str, Symbol] = {}
        self.file_defs: dict[str, dict[str, Symbol]] = defaultdict(dict)
        self.top_by_name: dict[str, list[Symbol]] = defaultdict(list)
        self.methods_by_name: dict[str, list[Symbol]] = defaultdict(list)
        self.names: set[str] = set()
        for id_, kind, name, qualified, path, language in entities:
            sym = Symbol(id_, kind, name, qualified, path, family(language))
            self.by_id[id_] = sym
            self.file_defs[path][qualified] = sym
            self.names.add(name)
            if kind == "method":
                self.methods_by_name[name].append(sym)
            elif "." not in qualified:
                self.top_by_name[name].append(sym)
        self.bases: dict[str, list[str]] = {}
        self.resolvers: dict[str, Any] = {}  # path -> a FileResolver with its imports bound, made on demand
        # (reader, consulted, top-level scope): a file whose scope this process's resolver of the reader
        # read, and which definition's answers there (scope.top_scope), since the run last stored them (a
        # forked worker sends its own); every resolver adds, dropped or kept
        self.consulted: set[tuple[str, str, str]] = set()
        self.external_bases: dict[str, list[str]] = {}
        self._subclasses: dict[str, list[str]] | None = None  # base -> the classes directly below it
        # Derived from the bases, asked for the same classes at every call site: made once per hierarchy.
        self._below: dict[str, list[str]] = {}  # class -> subclass_ids
        self._levels: dict[str, list[list[str]]] = {}  # class -> its lineage, level by level
        self.nearest_properties: dict[tuple[str, str], tuple] = {}  # (class, name) -> properties.py's answer
        # What the evidence rules (evidence.py) ask of each candidate method at every call of its name:
        # id -> its owner, and id -> the function its class is local to (None for neither).
        self.owners: dict[str, Symbol | None] = {}
        self.local_classes: dict[str, str | None] = {}
        # What the hierarchy was made of, and the ids and names whose standing (a symbol, a name some
        # symbol bears) an edit has moved since: unchanged pairs naming none of them give the same bases.
        self._base_pairs: frozenset[tuple[str, str]] | None = None
        self._base_names: set[str] = set()  # their targets, and the names of those outside the repository
        self._moved: set[str] = set()
        self.flow = FlowQuestions()  # value-flow questions under way, across files
        self.mounts = None  # the run's route mounts across files (routemounts.MountTable), set by each run

    def materialize(self, conn: Any = None) -> None:
        """Hold every definition in memory: this table does (index/lazysymbols.py reads them on demand)."""

    def reuse(self, conn: Any) -> None:
        """Serve the next run, which writes through `conn`: this table holds every definition itself."""

    def before_rewrite(self, paths: list[str]) -> None:
        """Called before the rows of `paths` are rewritten or deleted (a table read on demand notes
        what it may have read of them); this one is told what changed by tableupdates.update_table."""

    def set_bases(self, inherits: Iterable[tuple[str, str]]) -> None:
        """The resolved (class, base) pairs of the whole repository, for method lookup through bases;
        bases outside the repository (`ext:` targets) are kept apart, as where unknown members live.
        The pairs an edit left as they were, naming no symbol or name it moved, keep the hierarchy as
        it is (the same objects: what was derived from it holds); on a large repository that is most
        edits, and the hierarchy costs an edit as much as the rest of its resolution."""
        pairs = frozenset(inherits)
        if pairs != self._base_pairs or not self._moved.isdisjoint(self._base_names):
            self._make_bases(pairs)
            self._subclasses = None  # derived from the bases, so made again when next asked
            self._below, self._levels = {}, {}
            targets = {target for _, target in pairs}
            self._base_names = targets | {external_name(t) for t in targets if t.startswith(EXTERNAL_PREFIX)}
        self._base_pairs, self._moved = pairs, set()
        self.flow.new_epoch()
        self.forget_derived()

    def view(self) -> SymbolTable:
        """A table sharing this one's symbols, modules and class hierarchy, with value-flow state,
        resolvers and derived answers of its own: questions asked through it leave this one as it was."""
        view = copy.copy(self)
        view.resolvers, view.flow, view.consulted = {}, FlowQuestions(), set()
        view.forget_derived()
        return view

    def forget_derived(self) -> None:
        """Drop what was read off the definitions and the hierarchy: a run changed them."""
        self.nearest_properties, self.owners, self.local_classes = {}, {}, {}

    def moved(self, before: Iterable[tuple[str, str]], after: Iterable[tuple[str, str]]) -> None:
        """Note the ids and names whose standing may differ now that the definitions (id, name) `before`
        are `after`: what the next set_bases cannot take as it was."""
        for id_, name in set(before) ^ set(after):
            self._moved.update((id_, name))

    def _make_bases(self, pairs: frozenset[tuple[str, str]]) -> None:
        bases: dict[str, list[str]] = defaultdict(list)
        external: dict[str, list[str]] = defaultdict(list)
        for source, target in pairs:
            if target in self.by_id:
                bases[source].append(target)
            elif target.startswith(EXTERNAL_PREFIX) and external_name(target) not in self.names:
                external[source].append(target)  # (a name the repository defines is unresolved, not external)
        self.bases = {k: sorted(set(v)) for k, v in bases.items()}
        self.external_bases = {k: sorted(set(v)) for k, v in external.items()}

    @cached_property
    def files_by_stem(self) -> dict[str, list[str]]:
        """File stem (see file_stem) -> the repository's files of that stem, for tests-by-name edges."""
        out: dict[str, list[str]] = defaultdict(list)
        for path in self.modules.files:
            out[file_stem(path)].append(path)
        return out

    @cached_property
    def members(self) -> dict[str, dict[str, Symbol]]:
        """Class id -> {member name: symbol}; a Go or Rust method defined away from its type joins it
        when the type is found in the same folder (Go) or is the only one of that name (Rust)."""
        members: dict[str, dict[str, Symbol]] = defaultdict(dict)
        for sym in self.by_id.values():
            if "." not in sym.qualified_name:
                continue
            owner = self.owner_of(sym)
            if owner is not None:
                members[owner.id].setdefault(sym.name, sym)
        return members

    def owner_of(self, sym: Symbol) -> Symbol | None:
        owner_name = sym.qualified_name.rsplit(".", 1)[0]
        owner = self.file_defs[sym.path].get(owner_name)
        if owner is not None or "." in owner_name:
            return owner
        if rules_for(sym.family).methods_join_package_types:
            for path in self.modules.package_files(sym.path, None) or ():
                owner = self.file_defs[path].get(owner_name)
                if owner is not None:
                    return owner
            return None
        candidates = [s for s in self.top_by_name.get(owner_name, ()) if s.kind in CLASS_KINDS and s.family == sym.family]
        return candidates[0] if len(candidates) == 1 else None

    def find_member(self, class_id: str, name: str) -> tuple[Symbol, int] | None:
        """The member `name` of a class or its bases (breadth first), with the depth it was found at."""
        for depth, level in enumerate(self._lineage(class_id)):
            for cid in level:
                found = self.members.get(cid, {}).get(name)
                if found is not None:
                    return found, depth
        return None

    def external_base(self, class_id: str) -> str | None:
        """The nearest base outside the repository in a class's hierarchy (an `ext:` id), if any."""
        for level in self._lineage(class_id):
            for cid in level:
                if cid in self.external_bases:
                    return self.external_bases[cid][0]
        return None

    def lineage(self, class_id: str) -> Iterator[list[str]]:
        return iter(self._lineage(class_id))

    def lineage_ids(self, class_id: str) -> list[str]:
        return [cid for level in self._lineage(class_id) for cid in level]

    def subclass_ids(self, class_id: str) -> list[str]:
        """Every repository class below `class_id` in the hierarchy, level by level (a class below
        two classes of one level is listed once per path to it there). Not to be changed by callers."""
        found = self._below.get(class_id)
        if found is not None:
            return found
        if self._subclasses is None:
            self._subclasses = {}
            for cls, bases in self.bases.items():
                for base in bases:
                    self._subclasses.setdefault(base, []).append(cls)
        below = self._subclasses
        out: list[str] = []
        seen: set[str] = set()  # (what `out` holds: a list searched for each class was quadratic on sympy's Basic)
        frontier = [class_id]
        while frontier:
            frontier = [c for cid in frontier for c in below.get(cid, ()) if c not in seen]
            out += frontier
            seen.update(frontier)
        self._below[class_id] = out
        return out

    def _lineage(self, class_id: str) -> list[list[str]]:
        """A class, then its repository bases, level by level."""
        levels = self._levels.get(class_id)
        if levels is not None:
            return levels
        levels = []
        seen = {class_id}
        frontier = [class_id]
        while frontier:
            levels.append(frontier)
            frontier = [b for cid in frontier for b in self.bases.get(cid, ()) if b not in seen]
            seen.update(frontier)
        self._levels[class_id] = levels
        return levels

    def top_level(self, paths: Iterable[str], name: str) -> Symbol | None:
        for path in paths:
            sym = self.file_defs.get(path, {}).get(name)
            if sym is not None:
                return sym
        return None
