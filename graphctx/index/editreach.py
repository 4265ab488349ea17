"""Which files an incremental run resolves again beyond those it rewrote: the names whose meaning
the edit may change (its delta) and the files that name them, the files whose resolution consulted
a file that now offers less or otherwise (store/consulted.py), and, for a file edited only inside
its functions, those that consulted it only when it answers their value flow otherwise now
(sameanswers.py). A mixin of Generation, whose run state (`changed`, `conn`, the loaders) it reads."""

from __future__ import annotations

import json
from collections.abc import Iterable

from graphctx.index import tableupdates
from graphctx.index.appended import appended
from graphctx.index.dependencies import (attribute_owners, bound_names, changed_names, code_names, defined_names,
                                        defined_scopes, flow_readers, import_dependents, names_of, reference_names,
                                        used_names)
from graphctx.index.filesmoved import names_moved
from graphctx.index.languages import rules_for
from graphctx.index.sameanswers import Reread, answers_changed, changes_unnamed, inside_only, qualified_names
from graphctx.index.store import consulted, reads
from graphctx.index.store.consulted import top_scope
from graphctx.parse.facts import FileFacts


# The files whose answers an edit's reach is judged by, at most: each costs about as much as resolving it
# twice, and past them the files that consulted them are resolved again, whatever they answer.
MAX_REREAD = 64


def _own_names_of(keys: set[tuple[str, str]]) -> set[str]:
    """The names of the definitions among defined_names keys, each by its own name (`Class.m` -> `m`)."""
    return {qualified.rpartition(".")[2] for qualified in defined_scopes(keys)}


def _rebound(old_keys: set[tuple[str, str]], new_keys: set[tuple[str, str]]) -> set[str] | None:
    """The names a file had that an import it gained binds now, None when a wildcard hides them. What
    another file reaches through such a name (`a.Widget`) is no answer of its value flow: the edit is
    judged by them only if the module binds each as it did (sameanswers.Reread.binds_otherwise)."""
    gained, had = bound_names(new_keys - old_keys), bound_names(old_keys)
    if gained is None or gained and had is None:
        return None
    return gained & (_own_names_of(old_keys) | had)


def _reads_as_before(before: FileFacts, old_keys: set[tuple[str, str]], new_keys: set[tuple[str, str]]) -> bool:
    """Whether a file's old code, asked in the new table (none kept from before the run), answers
    as it did: it uses no definition it gained or lost."""
    before.load_rest()
    return _own_names_of(new_keys - old_keys).isdisjoint(reference_names(before)) \
        and _own_names_of(old_keys - new_keys).isdisjoint(used_names(before))


class EditReach:
    """The delta and the readers of an incremental run (see the module's doc)."""

    def _delta(self, deleted: list[str]) -> set[str]:
        """The names whose meaning the edit may change: what the changed and deleted files defined
        before and define now, and what files coming or going move (filesmoved.py). Kept scopes' value flow may stand when no import, package
        or mount changed and no file came or went (what a module re-exports is read off its imports)."""
        old = {p: self._stored_facts(p) for p in [*deleted, *self.changed]}
        added_or_removed = [p for p in self.changed if old.get(p) is None] + deleted
        # The kept table as it is before this run changes it: the edited files' old facts are then
        # asked as they were answered (sameanswers.py), whatever names their old code reads.
        self.table_then = tableupdates.remember_before(self.entry.table, old) \
            if self.entry is not None and not added_or_removed else None
        self.old_facts = {p: facts for p, facts in old.items() if facts is not None}
        # The one file changed may keep its edges (appended.py): its earlier part then answers as
        # before, every other file being as it was. (With other files changed, what the earlier part
        # works out through their value flow may differ without it naming them.)
        alone = len(self.changed) == 1 and not deleted
        delta: set[str] = set()
        moved = self.unnamed = False
        for path, before in old.items():
            item = self.changed.get(path)
            old_keys = defined_names(before) if before else set()
            new_keys = set(item.defines) if item else set()
            own, imported = self._own_names(path, before, old_keys, new_keys)
            delta |= own
            self.contributed[path], self.imported[path] = own | imported, imported
            if old_keys - new_keys:
                self.offer_less.append(path)
            rebound = _rebound(old_keys, new_keys) if before and item and old_keys != new_keys \
                and inside_only(old_keys, new_keys) else None
            if rebound is not None and (self.table_then is not None
                                        or not rebound and _reads_as_before(before, old_keys, new_keys)):
                self.inside[path] = before  # (its readers wait for its answers: see sameanswers.py)
                if rebound:
                    self.rebinding[path] = rebound
            moved = moved or any(kind in ("import", "package", "mount") for kind, _ in old_keys ^ new_keys)
            self.unnamed = self.unnamed or changes_unnamed(old_keys, new_keys)
            if before and item and before.package != item.facts.package:  # its definitions moved to another package
                delta |= names_of(k for k in old_keys | new_keys if k[0] == "def")
            found = appended(before, item.facts) if item and alone else None
            if found is not None:
                self.appended[path] = found
        self.flows_hold = not (moved or added_or_removed)
        self.moved_names = names_moved(added_or_removed, lambda: sorted(set(reads.file_paths(self.conn)) | set(self.changed)),
                                       lambda path: self._defined_names(path, old))
        return delta | self.moved_names

    def _own_names(self, path: str, before: FileFacts | None, old_keys: set, new_keys: set) -> tuple[set[str], set[str]]:
        """The names a file's edit changes for every file naming them, and those it changes only in
        its own imports (a file edited, not added or deleted, in a language importing modules by
        their stem), which only the files importing from it, directly or through re-exports, can
        see (import_dependents)."""
        item = self.changed.get(path)
        by_stem = before is not None and item is not None and rules_for(before.language).imports_by_stem
        imported = bound_names(old_keys ^ new_keys) if by_stem else None
        if not imported:
            return changed_names(old_keys, new_keys), set()
        own = changed_names({k for k in old_keys if k[0] != "import"}, {k for k in new_keys if k[0] != "import"})
        return own, imported - own

    def _import_dependents(self) -> set[str]:
        """The files that can see what the edited files import otherwise (see _own_names), kept per
        edited file (`importers`): only they read its changed imports."""
        referring = lambda names: reads.paths_referring_to(self.conn, names)  # noqa: E731
        imports_of = lambda path: facts.imports if (facts := self._load(path)) is not None else ()  # noqa: E731
        uses_of = lambda path: code_names(facts) if (facts := self._load(path)) is not None else set()  # noqa: E731
        self.importers = {path: import_dependents(path, names, referring, imports_of, uses_of)
                          for path, names in self.imported.items() if names}
        return set().union(*self.importers.values())

    def _seen_by(self, path: str) -> set[str]:
        """The names whose binding an edited file's imports changed that `path` can see: its own,
        and those of the files it imports them through."""
        return set().union(*(names for other, names in self.imported.items()
                             if other == path or path in self.importers.get(other, ())))

    def _others(self, path: str) -> set[str]:
        """The names changed for `path` by files other than it, or by files coming and going."""
        seen = self._seen_by(path) - self.imported.get(path, set())
        return self.moved_names.union(seen, *(names - self.imported[other] for other, names in self.contributed.items()
                                              if other != path))

    def _defined_names(self, path: str, old: dict[str, FileFacts | None]) -> set[str]:
        """The names a file defines, before this run and in it."""
        before = old[path] if path in old else self._stored_facts(path)
        item = self.changed.get(path)
        return names_of([*(defined_names(before) if before else ()), *(item.defines if item else ())])

    def _readers(self, delta: set[str], dependents: set[str], seeds: list[int]) -> set[str]:
        """The files whose edges can differ through what their resolution consulted: those that read,
        directly or through the files they read (store/consulted.py), a file whose answers to them
        may differ. Such a file is one the edit left offering less or otherwise than before (`seeds`,
        their file entity rowids), or one whose value flow or attribute types read a name the edit
        changed for it (`delta`, and what it sees of the edited files' imports): `self.tool: Widget`
        in class Engine makes `e.tool.run()` elsewhere depend on Widget; `u.go` reads `r.get()`, which returns `t.make()`, which returns `Helper()`: a change to what
        Helper names reaches u.py through t.py and r.py. (An appended function no file consulted.)
        With the table before the run kept (a server's watcher), such a reader is judged by its
        answers instead, as an asker of an edited file is (`rereading`: _answering_otherwise), unless
        an edit changed what files resolve through without naming it (sameanswers.changes_unnamed)."""
        reading = []
        for path in sorted(dependents | set(self.changed)):
            read = delta | self._seen_by(path)  # (what its own imports changed, only its importers see)
            found = self.appended.get(path)
            if found is not None and found.named_before.isdisjoint(read):
                continue
            facts = self._load(path)
            if path in self.inside:  # (a file edited inside its functions: what it reads of its own changes, its answers tell)
                read -= self.contributed[path] - self._others(path)
            if facts is not None and flow_readers(read, facts) or self._attributes_read(path, read):
                reading.append(path)
        # (judged by their answers once resolved, as the files asking an edited file are, when the
        # table before the run is at hand and nothing changed is resolved through without a name)
        judged = self.table_then is not None and not self.unnamed and len(reading) <= MAX_REREAD
        self.rereading = {path for path in reading if path not in self.changed or path in self.inside} if judged else set()
        self.reading = set(reading) - self.rereading
        self.reached = consulted.readers(self.conn, [*seeds, *consulted.file_rowids(self.conn, self.reading).values()])
        return self.reached

    def _attributes_read(self, path: str, delta: set[str]) -> bool:
        """Whether an attribute type of the file's classes reads a name in `delta` (its stored rows)."""
        rows = json.loads(reads.attribute_types(self.conn, path) or "[]")  # (scope, variable, value, line)
        return bool(attribute_owners(delta, [row[:3] for row in rows]))

    def _answering_otherwise(self, table, targets: list[str]) -> list[str]:
        """The files to resolve again, beyond the targets, because a file edited inside its functions,
        or one reading a name an edit changed (`rereading`), answers other files' value flow otherwise
        now: those that read the answers of a definition that changed, and so on from those whose own
        answers changed (see _asking)."""
        # (those reading a changed name: theirs are targets, or they are judged below; an appended part
        # leaves the rest answering as before; a file no other file asked about reaches none)
        edited = {path: asked for path in self.inside if path not in self.reached and path not in self.rereading
                  and path not in self.appended and (asked := consulted.scopes_asked(self.conn, path))}
        if not edited and not self.rereading and not self.rebinding:
            return []
        tables = (tableupdates.view_before(table, self.table_then) if self.table_then is not None else table, table)
        reread = Reread(tables, self.old_facts if self.table_then is not None else self.inside)
        # Resolved again with every file that consulted them, whatever the answers: a file whose module
        # binds a name otherwise (as an edit beyond its functions), the files that read a definition gone
        # (the new table knows it no more) and those reached already. A file all of whose askers are
        # among them has nothing left to judge.
        rebound = [path for path, names in sorted(self.rebinding.items()) if reread.binds_otherwise(self._load(path), names)]
        gone = consulted.askers(self.conn, self._gone(self.inside))
        covered = self.reached | consulted.readers(self.conn, consulted.file_rowids(self.conn, [*rebound, *gone]).values())

        def judged(path: str, asked: set[str]) -> bool:
            return path not in covered and not consulted.askers(self.conn, {path: asked}) <= covered
        changed = {path: scopes for path, asked in edited.items() if judged(path, asked)
                   and (scopes := answers_changed(tables, self.inside[path], self._complete(path), asked))}
        for path in sorted(self.rereading):  # (every edit is in both views: what it reads, it answers)
            asked = consulted.scopes_asked(self.conn, path)
            asked = asked if asked and judged(path, asked) else set()
            after = self._complete(path) if asked else None
            scopes = reread.changed(after, asked) if asked else set()
            if scopes:
                changed[path] = scopes
        return sorted(((self._asking(reread, changed, covered) if changed else set()) | covered) - set(targets))

    def _gone(self, paths: Iterable[str]) -> dict[str, set[str]]:
        """path -> the top-level definitions holding a definition the edited file no longer has."""
        gone = {path: {top_scope(name) for name in qualified_names(self.inside[path]) - qualified_names(self._load(path))}
                for path in paths}
        return {path: scopes for path, scopes in gone.items() if scopes}

    def _asking(self, reread: Reread, changed: dict[str, set[str]], covered: set[str]) -> set[str]:
        """The files that read the answers of a definition that changed (`changed`: path -> its top-level
        definitions), then those that read the answers a file among them now gives otherwise, and so
        on: an asker's answers are compared with the edited files as they were and as they are
        (sameanswers.Reread), up to MAX_REREAD files in all. Every file that consulted the askers of a
        round that would pass it, or an asker edited otherwise (its readers are not judged by
        answers), directly or through others, is resolved again too. Those `covered` are, with every
        file that consulted them: none of them is judged."""
        wide: set[str] = set()
        found, compared = set(self.rereading), len(self.rereading)
        while changed:
            asking = consulted.askers(self.conn, changed) - found
            found |= asking
            changed = {}
            judged = sorted(path for path in asking - covered if path not in self.changed or path in self.inside)
            wide |= asking - covered - set(judged)
            if compared + len(judged) > MAX_REREAD:  # (past that, what they reach is most of what the rest reach)
                wide.update(judged)
                break
            compared += len(judged)
            for path in judged:
                scopes = reread.changed(self._complete(path), consulted.scopes_asked(self.conn, path))
                if scopes:
                    changed[path] = scopes
        return found | consulted.readers(self.conn, consulted.file_rowids(self.conn, wide).values())

    def _complete(self, path: str) -> FileFacts:
        facts = self._load(path)
        facts.load_rest()
        return facts

