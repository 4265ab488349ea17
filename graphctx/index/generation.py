"""The write phase of an index run: one new generation of the index from the files that changed.

A full build writes each parsed file as it arrives from the parser processes (while they parse the
next ones), into tables whose indexes are built once at the end. An incremental run first works out
which names the edit changed (its delta), rewrites the changed files and resolves again the files
whose edges can differ. Resolution runs against a symbol table kept from the previous run in this
process, or built once from the rows; its uses pass runs in forked workers when there are many files
(resolution.py). Edges are written as integer rows (rows.py), and the graph snapshot of the new
generation (graph/snapshot.py) is written in the same transaction as a patch to the previous one (a
new base now and then), so that the rows and the snapshot can never disagree."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from graphctx.index import moduleconfig, resolution, routemounts, store, tableupdates, textentities
from graphctx.index.appended import Appended
from graphctx.index.dependencies import subclass_names
from graphctx.index.editreach import EditReach
from graphctx.index.fulltext import fts_row
from graphctx.index.keeper import KeptTable, TableKeeper
from graphctx.index.lazysymbols import LazySymbolTable
from graphctx.index.moduleconfig import WITH_PACKAGE
from graphctx.index.modules import ModuleMap
from graphctx.index.naming import is_test_file
from graphctx.index.parsing import ParsedFile
from graphctx.index.rows import RowKeys
from graphctx.index.spill import SpillFile
from graphctx.index.store import consulted, reads, rewrites, vectors as vector_rows, writes
from graphctx.index.storedfacts import unpack_stored
from graphctx.models import TEXT_KINDS
from graphctx.parse.facts import STRUCTURE_LISTS, FileFacts

if TYPE_CHECKING:
    from graphctx.graph.snapshot import EdgeColumns

# The meta rows with the largest rowids ever given: a key is never given again, so no edge left
# pointing at a removed entity can come to point at another.
LAST_KEYS = ("last_entity_rowid", "last_external_rowid")
Report = Callable[[str, int, int], None]


def is_symbol(kind: str) -> bool:
    """Whether an entity of this kind is a name code can resolve to (routes and documents are not)."""
    return kind != "file" and kind not in TEXT_KINDS


KEPT_FACTS = 1024  # files whose facts one process keeps between edits


class Generation(EditReach):
    """What one index run writes: `add` each parsed file, then `finish` with the deleted ones."""

    def __init__(self, conn: sqlite3.Connection, root: Path, *, everything: bool, workers: int, report: Report,
                 keeper: TableKeeper | None = None):
        self.conn, self.root, self.everything, self.workers, self.report = conn, root, everything, workers, report
        self.db_path = store.index_path(root)
        self.before = store.generation(conn)
        self.changed: dict[str, ParsedFile] = {}  # incremental: held until the delta is known
        self.facts: dict[str, FileFacts | None] = {}  # this run's facts (a full build's: structure only), and the old ones it read
        self.files: dict[str, tuple[str, str | None]] = {}  # path -> (language, package), the files written
        self.symbols: dict[str, list[tuple]] = {}  # path -> its new symbol rows
        self.shared: dict = {}  # equal strings and numbers of what the run holds, as one object each
        self.new_rowids: list[int] = []
        self.deferred: list[str] = []
        self.flows_hold, self.modules_now = False, None  # kept flows may stand (_delta); the map, imports moved (moduleconfig)
        self.appended: dict[str, Appended] = {}  # the changed files that only appended functions (see _delta)
        self.offer_less: list[str] = []  # the changed and deleted files that no longer offer something as they did
        self.inside: dict[str, FileFacts] = {}  # of those, the files edited only inside functions: their old facts
        self.reading: set[str] = set()  # the files whose value flow reads a name the edit changed: readers resolved again
        self.rereading: set[str] = set()  # those of them judged by their answers instead (EditReach._readers)
        self.reached: set[str] = set()  # the files resolved again with every file that consulted them
        self.table_then = None  # the kept table's definitions of the edited files and hierarchy, before the run
        self.old_facts: dict[str, FileFacts] = {}  # the edited files' facts before the run
        self.unnamed = False  # whether an edit changed what files resolve through without naming it
        self.rebinding: dict[str, set[str]] = {}  # of the inside files, those binding names anew by import: the names
        self.contributed: dict[str, set[str]] = {}  # path -> the names its edit changed
        self.moved_names: set[str] = set()  # the names files coming or going move (EditReach._delta)
        self.imported: dict[str, set[str]] = {}  # path -> those of them only its imports changed (EditReach._own_names)
        self.importers: dict[str, set[str]] = {}  # path -> the files that see its imports (EditReach._import_dependents)
        # (incremental) the entities of files not resolved again whose edges this run changed: a file
        # resolved again made edges from them (a function it hands over), before or now
        self.made_elsewhere: set[int] = set()
        self.entry = None if everything or keeper is None else keeper.take(self.db_path, self.before)
        if self.entry is not None:  # (one read on demand goes on reading through this run's connection)
            self.entry.table.reuse(conn)
        self.base_rows: list[tuple] = []  # with no kept table: every inheritance edge, read once before the writes
        vector_rows.ensure_table(conn)
        if everything:
            self.keys = RowKeys({}, {}, 0, 0)
            self.deferred = writes.drop_indexes(conn, store.BULK_INDEXES)
            self.spill = SpillFile()  # every file's packed facts, read again only for the files a question reaches

    # ---- writing files

    def add(self, item: ParsedFile) -> None:
        """A parsed file whose content changed: written now in a full build, else once `finish` has
        read what the file held before."""
        self.facts[item.path] = item.facts
        if self.everything:  # (every file's structure is held to the end of the run: its strings once for all)
            item.facts.share_strings(STRUCTURE_LISTS, self.shared)
            self._write(item, {})
            if not item.facts.complete:  # (written: the bytes are read back from the spill file)
                item.facts.rest = self.spill.put(item.packed_facts)
        else:
            self.changed[item.path] = item

    def _write(self, item: ParsedFile, previous: dict[str, int]) -> None:
        facts = item.facts
        writes.insert_file(self.conn, path=item.path, language=facts.language, size=item.size, mtime_ns=item.mtime_ns,
                           hash=item.hash, lines=facts.lines, error_count=facts.error_count,
                           is_test=is_test_file(item.path), package=facts.package,
                           attribute_types=item.attribute_types, facts=item.packed_facts, bodies=item.packed_bodies)
        rowids = self.keys.assign([row[0] for row in item.entities], previous)
        writes.insert_entities(self.conn, rowids, item.entities, item.texts)
        writes.insert_file_refs(self.conn, item.path, item.references)
        if item.vectors is not None:
            vector_rows.put(self.conn, [(item.path, item.hash, *item.vectors)])
        self.new_rowids += rowids
        self.files[item.path] = (facts.language, facts.package if facts.language in WITH_PACKAGE else None)
        share = self.shared.setdefault
        self.symbols[item.path] = [(r[0], share(r[1], r[1]), share(r[2], r[2]), share(r[3], r[3]), r[5], share(r[4], r[4]))
                                   for r in item.entities if is_symbol(r[1])]

    @property
    def parsed(self) -> int:
        return len(self.facts)

    # ---- the new generation

    def finish(self, deleted: list[str]) -> KeptTable:
        """Write what is left (the changed files of an incremental run), resolve the files whose edges
        can differ, write their edges and the graph snapshot of the new generation; the symbol table
        of the new generation, to be kept once the run commits."""
        conn = self.conn
        previous: dict[str, int] = {}
        self.shared = {}  # (what it shared stays shared)
        if self.everything:  # (each file was written as it came: the phase is over)
            self.report("writing", len(self.files), len(self.files))
            targets = sorted(self.files)
            removed_rowids: list[int] = []
        else:
            last = [int(store.get_meta(conn, key, "0")) for key in LAST_KEYS]
            if self.entry is not None:  # what earlier edits read of the files this one leaves as they were
                for path, facts in self.entry.facts.items():  # (read from here on: _readers reads some)
                    self.facts.setdefault(path, facts)
            kept = self.entry
            # the keys the kept table met, the others read as the edges name them (a no-op run reads none)
            lookup = lambda key_id, external: reads.row_key(conn, key_id, external)  # noqa: E731
            known = (kept.entity_keys, kept.external_keys) if kept is not None else ({}, {})
            self.keys = RowKeys(*known, *last, lookup=lookup)
            # A class whose bases or members changed changes what every class below it inherits; the
            # kept table knows the hierarchy, else every inheritance edge is read.
            if kept is None:
                self.base_rows = reads.inheritance_rows(conn)
            hierarchy = kept.names_below() if kept is not None else \
                [(source, target) for _, _, _, source, target in self.base_rows if target is not None]
            delta = subclass_names(self._delta(deleted), hierarchy)
            imported = set().union(*self.imported.values())  # (names only the edited files' importers see anew)
            previous = reads.entity_keys(conn, [*deleted, *self.changed])
            staying = {row[0] for item in self.changed.values() for row in item.entities}
            # (an edge to a definition that goes is made again by the file that made it, however it got there)
            holding = reads.paths_with_edges_into(conn, [rowid for key, rowid in previous.items() if key not in staying])
            seeds = [previous[path] for path in self.offer_less if path in previous and path not in self.inside]
            removed_rowids = list(previous.values())
            if kept is not None:  # (a table read on demand forgets what it read of them)
                kept.table.before_rewrite([*deleted, *self.changed])
            for path, found in self.appended.items():  # (see _delta)
                found.edges, found.counts = rewrites.edges_made_by(conn, path), rewrites.call_counts(conn, path)
            self.made_elsewhere |= rewrites.sources_made_by(conn, [*deleted, *self.changed])
            writes.delete_files(conn, [*deleted, *self.changed])
            for done, item in enumerate(self.changed.values()):
                if done % 64 == 0:
                    self.report("writing", done, len(self.changed))
                self._write(item, previous)
            self.keys.forget(set(previous) - staying)
            dependents = reads.paths_referring_to(conn, delta) | self._import_dependents() | holding
            readers = self._readers(delta, dependents, seeds)
            consulted.delete(conn, [previous[path] for path in deleted if path in previous])
            targets = sorted(set(self.changed) | ((dependents | readers) - set(deleted)))
            self.modules_now = moduleconfig.moved_by(conn, self.root, [*deleted, *self.changed])
            if self.modules_now is not None:  # what any import means may differ: every file again
                self.flows_hold, self.appended, targets = False, {}, sorted(self.modules_now[0])
            # (when its earlier part names nothing the edit changed nor consulted a file whose answers may
            # differ, and no other file names what it appended)
            self.appended = {path: found for path, found in self.appended.items() if found.named_before.isdisjoint(delta | imported)
                             and path not in readers and reads.paths_referring_to(conn, found.names) <= {path}}
            self.made_elsewhere |= rewrites.sources_made_by(conn, targets)
            writes.delete_edges_from(conn, targets)
        for path in deleted:
            self.facts[path] = None  # (a forked worker reads the committed index, where it still is)

        entry = self._symbol_table(deleted, targets)
        entry.table.mounts = self._mount_table(entry.table, targets)
        from graphctx.graph.snapshot import EdgeColumns  # (numpy: not on a no-op's path)

        snapshot_rows = EdgeColumns()
        self._resolve(entry, targets, previous, removed_rowids, snapshot_rows)
        again = self._answering_otherwise(entry.table, targets)  # (an edit inside functions: see sameanswers.py)
        if again:
            self.made_elsewhere |= rewrites.sources_made_by(conn, again)
            writes.delete_edges_from(conn, again)
            entry.table.mounts = entry.table.mounts or self._mount_table(entry.table, again)
            self._resolve(entry, again, previous, removed_rowids, snapshot_rows, after=len(targets))
            targets = targets + again
        if self.everything:  # every file's scope and facts: not worth the memory until an edit, nor while the snapshot is built
            entry.table.resolvers.clear()
            self.facts = dict.fromkeys(self.facts)  # (the paths stay: they are the files this run indexed)
        writes.insert_externals(conn, self.keys.take_new_externals())
        self.report("writing", 0, 0)
        writes.create_indexes(conn, self.deferred)
        pairs, entry.table.consulted = entry.table.consulted, set()  # every process's (resolution._work), by rowid
        consulted.insert(conn, ((self.keys.entity(read), self.keys.entity(reader), scope) for reader, read, scope in pairs))

        generation = self.before + 1
        self._write_snapshot(generation, removed_rowids, targets, snapshot_rows)
        store.set_meta(conn, generation=generation, last_entity_rowid=self.keys.last_entity,
                       last_external_rowid=self.keys.last_external)
        entry.entity_keys, entry.external_keys = self.keys.entities, self.keys.externals
        entry.facts = self._facts_to_keep()
        return entry

    def _resolve(self, entry: KeptTable, targets: list[str], previous: dict[str, int], removed_rowids: list[int],
                 snapshot_rows, after: int = 0) -> None:
        """Resolve the targets and write their edges (`after`: the files resolved before them in this run)."""
        report = lambda done, total: self.report("resolving", done + 2 * after, total + 2 * after)  # noqa: E731
        for done in resolution.resolve(entry, targets, self._load, workers=self.workers, worker_load=self._worker_load,
                                       flows_hold=self.flows_hold, appended=self.appended, progress=report):
            self._write_routes(done.path, entry.table.mounts, previous, removed_rowids)
            rows = list(self.keys.edge_rows(done.edges, done.path))
            writes.insert_edges(self.conn, rows)
            self.made_elsewhere.update(row[0] for row in rows if row[6] is not None)
            writes.set_call_counts(self.conn, done.path, done.calls, done.calls_resolved)
            snapshot_rows.add([row for row in rows if row[1] > 0])

    def _mount_table(self, table, targets: list[str]) -> routemounts.MountTable | None:
        """The mounts of every file with routers or mounts, when a file to resolve has routes (an edit
        elsewhere reads none of them: the targets' facts are read for their resolution anyway)."""
        if not any(facts is not None and facts.routes for facts in map(self._load, targets)):
            return None
        if self.everything:
            paths = [path for path, facts in self.facts.items() if facts is not None and routemounts.refers(facts)]
        else:
            paths = sorted(reads.paths_referring_to(self.conn, [routemounts.MOUNTS]))
        return routemounts.MountTable(table, paths)

    def _write_routes(self, path: str, mounts: routemounts.MountTable | None, previous: dict[str, int],
                      removed_rowids: list[int]) -> None:
        """A resolved file's routes as they are served now: their paths may come from another file's
        mounts, so they are written with the file's edges, not with its entities. A file resolved
        again without being rewritten first drops the routes it had (keeping their rowids); one whose
        facts hold no route had none, as its facts are the ones it was last resolved with."""
        facts = self._load(path)
        if mounts is None or facts is None or not facts.routes:
            return
        rows = textentities.route_rows(facts, mounts.served(facts))
        if not self.everything and path not in self.changed:
            previous = writes.delete_routes(self.conn, path)
            removed_rowids += previous.values()
            self.keys.forget(set(previous) - {row[0] for row in rows})
        rowids = self.keys.assign([row[0] for row in rows], previous)
        writes.insert_entities(self.conn, rowids, rows, [fts_row(row, "") for row in rows])
        self.new_rowids += rowids

    def _facts_to_keep(self) -> dict[str, FileFacts]:
        """The facts the next edit may read again, the latest last: none after a full build (every
        file's facts would outlive the run), at most KEPT_FACTS after an edit."""
        if self.everything:
            return {}
        read = [(path, facts) for path, facts in self.facts.items() if facts is not None]
        return dict(read[-KEPT_FACTS:])

    def _symbol_table(self, deleted: list[str], targets: list[str]) -> KeptTable:
        """The table of the new generation: a full build's from every definition it wrote, the kept one with the
        edited files' symbols replaced, or, with none kept, one reading the definitions it is asked for (lazysymbols.py)."""
        entry = self.entry
        if entry is None and self.everything:
            symbols = [row for path in sorted(self.symbols) for row in self.symbols[path]]
            self.symbols.clear()  # (the table holds them now)
            modules = ModuleMap(self.files, self.root)
            moduleconfig.remember(self.conn, modules)
            return KeptTable((0, 0), self.before, tableupdates.new_table(symbols, modules, self._load), files=dict(self.files))
        if entry is None:
            files, modules = self.modules_now or moduleconfig.indexed(self.conn, self.root)
            entry = KeptTable((0, 0), self.before, LazySymbolTable(self.conn, modules, self._load), files=dict(files))
            # the pairs of the files not resolved again (the others' edges are gone)
            again = {*deleted, *targets}
            entry.bases = resolution.base_pairs_by_origin(row[:3] for row in self.base_rows if row[2] not in again)
            return entry
        moved = bool(deleted) or self.modules_now is not None or any(entry.files.get(p) != self.files[p] for p in self.files)
        for path in deleted:
            entry.files.pop(path, None)
            entry.bases.pop(path, None)  # (its classes are gone; the files resolved again find theirs anew)
        entry.files.update(self.files)
        modules = (self.modules_now[1] if self.modules_now else ModuleMap(dict(entry.files), self.root)) if moved else None
        tableupdates.update_table(entry.table, [*deleted, *self.changed],
                                [row for path in self.changed for row in self.symbols[path]], modules, self._load)
        return entry

    def _write_snapshot(self, generation: int, removed_rowids: list[int], targets: list[str], rows: EdgeColumns) -> None:
        """The graph of the new generation: after an edit, a patch beside the previous generation's
        snapshot (the nodes of the files this run rewrote out and in, the edges of the files it
        resolved again dropped and added), or, once the patches outweigh their share, a new base
        with every patch folded in; built from every row when there is no snapshot to start from."""
        from graphctx.graph.snapshot import Patch, Snapshot, SnapshotError, compact_due  # (numpy: not on a no-op's path)

        conn = self.conn
        if self.everything:
            writes.write_snapshot(conn, generation, Snapshot.from_rows(self.new_rowids, rows).pack())
            return
        # The patch drops every edge from the entities of the files resolved again, and from those
        # they made edges from, and adds those edges as the rows now hold them: this run's, and
        # those other files' resolution made, which stay.
        keys = reads.entity_keys(conn, targets)
        resolved_again = set(keys.values())
        makers = {keys[path] for path in targets if path in keys}  # (a file's entity id is its path)
        rows.add([row for row in rewrites.rows_between_entities(conn, sorted(resolved_again), made_elsewhere=True)
                  if row[6] not in makers])
        elsewhere = sorted(self.made_elsewhere - resolved_again)
        rows.add([row for row in rewrites.rows_between_entities(conn, elsewhere, made_elsewhere=False)
                  if row[6] not in makers])
        patch = Patch.of(removed_rowids, self.new_rowids, [*resolved_again, *removed_rowids, *elsewhere], rows)
        chain = reads.snapshot_sizes(conn)
        if reads.snapshot_chain_ends(chain, self.before):
            blob = patch.pack()
            if not compact_due(len(chain), sum(size for _, size in chain[1:]) + len(blob), chain[0][1]):
                writes.append_snapshot_patch(conn, generation, blob)
                return
            blobs = reads.snapshot_blobs(conn, self.before)
            try:
                snapshot = Snapshot.unpack(blobs[0]).patched([*map(Patch.unpack, blobs[1:]), patch])
            except SnapshotError:
                snapshot = None
            if snapshot is not None:
                writes.write_snapshot(conn, generation, snapshot.pack())
                return
        nodes, every_row = reads.graph_arrays(conn)
        writes.write_snapshot(conn, generation, Snapshot.from_rows(nodes, every_row).pack())

    # ---- facts

    def _load(self, path: str) -> FileFacts | None:
        if path not in self.facts:
            self.facts[path] = self._stored_facts(path)
        return self.facts[path]

    def _stored_facts(self, path: str) -> FileFacts | None:
        packed = reads.file_facts(self.conn, path)
        return unpack_stored(packed) if packed is not None else None

    def _worker_load(self) -> Callable[[str], FileFacts | None]:
        """A forked worker's loader: this run's facts, else the committed index through its own connection."""
        own = store.connect(self.db_path, readonly=True)
        facts = self.facts

        def load(path: str) -> FileFacts | None:
            if path not in facts:
                packed = reads.file_facts(own, path)
                facts[path] = unpack_stored(packed) if packed is not None else None
            return facts[path]
        return load
