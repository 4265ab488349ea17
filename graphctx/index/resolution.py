"""The resolution phase of an index run, off the main process where it pays, against a symbol table
built once and kept between runs.

The structure pass (contains, imports, bases) runs here for every target file: uses cannot be
resolved before the whole class hierarchy is known. The uses pass (calls, type uses, tests) is most
of the work; for many files it runs in worker processes forked from this one once the table and the
structure are ready, so they inherit both (copy-on-write, nothing pickled) and send back only edge
rows. Fork is the one start method that shares the table for free: where it is missing (or with few
files, where starting processes costs more than it saves) the pass runs here.

The symbol table is kept between runs in one process (a server's watcher, a benchmark) by a
TableKeeper: an edit replaces the symbols of the files it touched instead of reading every entity
again, and the class hierarchy keeps each file's base pairs, so no run scans every edge for them."""

from __future__ import annotations

import atexit
import gc
import multiprocessing
import os
import queue
import sqlite3
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from graphctx.index import checked, dependencies, workers as worker_pool
from graphctx.index.modules import ModuleMap
from graphctx.index.naming import entity_id
from graphctx.index.resolve import FileResolver
from graphctx.index.scope import Edge
from graphctx.index.symbols import CLASS_KINDS, Symbol, SymbolTable
from graphctx.index.walk import FolderListings
from graphctx.parse.facts import FileFacts
from graphctx.parse.languages import family

KEPT_RESOLVERS = 256  # file scopes a kept table keeps between runs, with their facts (tens per edit on sympy)
FORK_THRESHOLD = 64  # below this many files, forking workers costs more than it saves
CHUNK = 16  # files per task: small enough to balance, large enough to amortise the round trip
WORKER_POLL_SECONDS = 1.0  # how often the main process, waiting for a chunk, checks that its workers live
THAWED_EVERY = 64  # kept runs between two in which the collector may walk (and free) what is frozen
# (id, kind, name, qualified_name, path, language): what the table knows of an entity
SymbolRow = tuple[str, str, str, str, str, str]
Pair = tuple[str, str]  # (class, base)


@dataclass(slots=True)
class Resolved:
    path: str
    edges: list[Edge]
    calls: int
    calls_resolved: int


@dataclass
class KeptTable:
    """A symbol table as of one committed index generation, with the (class, base) pairs found in
    each file: what the next run starts from when nothing else wrote the index meanwhile."""

    identity: tuple[int, int]  # the index file it belongs to (device, inode)
    generation: int
    table: SymbolTable
    bases: dict[str, list[Pair]] = field(default_factory=dict)  # by the file they were found in
    files: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # what the module map was made of
    entity_keys: dict[str, int] = field(default_factory=dict)  # id -> rowid (rows.RowKeys)
    external_keys: dict[str, int] = field(default_factory=dict)
    # the facts of unchanged files that recent edits read (an edit reads the same neighbours again)
    facts: dict[str, FileFacts] = field(default_factory=dict)
    # (the table's bases, base name -> subclass names) as an edit's delta last read them: the same
    # until a run sets the bases again
    below: tuple[dict, dict[str, set[str]]] | None = None

    def names_below(self) -> dict[str, set[str]]:
        """Base name -> the names of the classes directly below it, as the table's last run resolved them."""
        if self.below is None or self.below[0] is not self.table.bases:
            self.below = (self.table.bases, dependencies.names_below(inheritance_names(self.table)))
        return self.below[1]


class TableKeeper:
    """The symbol table of one index's last committed generation, kept for the next run in the same
    process; owned by whoever indexes a repository again and again (a Project, for its server's
    watcher). A run takes it (and changes it) and puts it back only once it has committed. It also
    keeps the run's connection open for the next run: closing the last connection to the index
    checkpoints its write-ahead log into the database file and syncs it, tens of milliseconds of
    disk wait on every edit (SQLite's own checkpoints still run as the log grows).

    A kept table is hundreds of thousands of long-lived objects, and each full pass of Python's cycle
    collector walks them all (100-250 ms on sympy), which an edit's allocations set off about every
    other run. Once a run is kept, every object alive then is frozen out of the collector's passes
    (gc.freeze); every THAWED_EVERY runs, and when the keeper is cleared, they are thawed again, so
    that what dropped out of the table as cycles meanwhile is freed after all."""

    def __init__(self) -> None:
        self._entry: KeptTable | None = None
        self._kept_runs = 0
        self._connection: tuple[tuple, sqlite3.Connection] | None = None
        self.listings = FolderListings()  # the last walk's folders, outside git
        self._lock = threading.Lock()

    def take(self, db_path: Path, generation: int) -> KeptTable | None:
        """The table kept for this index file at exactly this generation (no other process wrote it
        since), or None."""
        with self._lock:
            entry, self._entry = self._entry, None
        if entry is None or entry.generation != generation or entry.identity != _identity(db_path):
            return None
        return entry

    def put(self, db_path: Path, generation: int, entry: KeptTable) -> None:
        """Keep a table as of the generation just committed."""
        entry.generation, entry.identity = generation, _identity(db_path)
        resolvers = entry.table.resolvers  # the latest made: what the next edit's value flow reads again
        entry.table.resolvers = dict(list(resolvers.items())[-KEPT_RESOLVERS:])
        entry.table.load_facts = _no_facts  # the run's connection is closed: the next run sets its own
        with self._lock:
            self._entry = entry
            self._kept_runs += 1
            if self._kept_runs % THAWED_EVERY:
                _freeze()
            else:
                gc.unfreeze()

    def take_connection(self, db_path: Path) -> tuple[sqlite3.Connection, bool] | None:
        """The connection the last run left open on this index file, and whether that run checked the
        file (see checked.py); None when none was kept, or the file or its log changed since (another
        file there, another writer, damage), which a new connection looks at afresh."""
        with self._lock:
            kept, self._connection = self._connection, None
        if kept is None:
            return None
        if kept[0] != _file_state(db_path):
            kept[2].close()
            return None
        return kept[2], kept[3]

    def put_connection(self, db_path: Path, conn: sqlite3.Connection, checked: bool = False) -> None:
        """Keep a run's connection (outside any transaction) for the next run, with whether the run
        checked the file (or found it as a checked run left it); one kept before is closed."""
        with self._lock:
            kept, self._connection = self._connection, (_file_state(db_path), db_path, conn, checked)
        if kept is not None:
            kept[2].close()

    def clear(self) -> None:
        """Forget the table and close the kept connection; a file a checked run left, written by no
        one since, is then marked as checked (see checked.py), so the next run need not read it all."""
        with self._lock:
            self._entry = None
            if self._kept_runs:
                gc.unfreeze()
            self._kept_runs = 0
            kept, self._connection = self._connection, None
        if kept is not None:
            state, db_path, conn, was_checked = kept
            untouched = was_checked and state == _file_state(db_path)  # (closing folds the log in: look first)
            conn.close()
            if untouched:
                checked.mark(db_path)


_thawed_at_exit: list[bool] = []


def _freeze() -> None:
    """Freeze every object alive out of the collector's passes until thawed, and thaw them at exit at
    the latest: the collection at shutdown finalises what is left in cycles (a connection to close,
    its write-ahead log to fold into the database)."""
    if not _thawed_at_exit:
        atexit.register(gc.unfreeze)
        _thawed_at_exit.append(True)
    gc.freeze()


def _no_facts(path: str) -> None:
    raise RuntimeError("a kept symbol table reads facts only during a run")


def _file_state(db_path: Path) -> tuple:
    """The index file and its write-ahead log as the file system sees them (identity, size, time)."""
    out = []
    for path in (db_path, db_path.with_name(db_path.name + "-wal")):
        try:
            st = os.stat(path)
        except OSError:
            out.append(None)
            continue
        out.append((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns))
    return tuple(out)


def _identity(path: Path) -> tuple[int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (-1, -1)
    return st.st_dev, st.st_ino


def new_table(symbols: Iterable[SymbolRow], modules: ModuleMap, load: Callable[[str], FileFacts | None]) -> SymbolTable:
    return SymbolTable(symbols, modules, load)


def update_table(table: SymbolTable, removed_paths: Iterable[str], added: Iterable[SymbolRow],
                 modules: ModuleMap | None, load: Callable[[str], FileFacts | None]) -> None:
    """Replace the symbols of `removed_paths` (deleted or rewritten files) by `added`, as a table built
    from scratch would hold them, and take this run's module map and facts loader."""
    gone = set(removed_paths)
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
    new = []
    for id_, kind, name, qualified, path, language in added:
        sym = Symbol(id_, kind, name, qualified, path, family(language))
        new.append(sym)
        table.by_id[id_] = sym
        table.file_defs[path][qualified] = sym
        if kind == "method":
            table.methods_by_name[name].append(sym)
        elif "." not in qualified:
            table.top_by_name[name].append(sym)
    gone_names = {sym.name for sym in old} - {sym.name for sym in new}
    table.names.update(sym.name for sym in new)
    if gone_names:  # (one pass over the table, only when a name may have left it)
        table.names -= gone_names - {sym.name for sym in table.by_id.values() if sym.name in gone_names}
    if modules is not None:
        table.modules = modules
        table.__dict__.pop("files_by_stem", None)
    table.load_facts = load
    if modules is not None:  # a module came or went: what any file's imports bind may differ
        table.resolvers.clear()
    for path in gone:
        table.resolvers.pop(path, None)
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


def resolve(entry: KeptTable, targets: list[str], load: Callable[[str], FileFacts | None], *, workers: int,
            worker_load: Callable[[], Callable[[str], FileFacts | None]] | None = None,
            progress: Callable[[int, int], None] | None = None) -> Iterator[Resolved]:
    """Resolve the target files, in order: the structure pass here, then the class hierarchy of the
    whole repository (kept pairs of the other files, found pairs of these), then the uses.
    `worker_load()` makes a forked worker its own facts loader (this process's database connection
    is not its to use); without it the uses pass stays here."""
    table = entry.table
    resolvers: list[FileResolver] = []
    steps = 2 * len(targets)  # both passes count on the bar
    # The scopes of files neither edited nor resolved again, kept from the last run with their imports
    # bound: what they bind cannot have changed (a file that names anything the edit changed is a
    # target), unless the class hierarchy moved. What their value flow worked out is dropped.
    again = set(targets)
    kept = [resolver for path, resolver in table.resolvers.items() if resolver is not None and path not in again]
    table.resolvers = {resolver.path: resolver for resolver in kept}
    for resolver in kept:
        resolver.forget_flows()
    hierarchy = (table.bases, table.external_bases)
    for done, path in enumerate(targets):
        if progress and done % 64 == 0:
            progress(done, steps)
        facts = load(path)
        entry.bases.pop(path, None)
        if facts is not None:
            resolvers.append(FileResolver(facts, table))
            entry.bases[path] = resolvers[-1].resolve_structure()
    table.set_bases(pair for pairs in entry.bases.values() for pair in pairs)
    # Each file's resolver is also the scope other files' value flow reads it through, so an answer
    # worked out for one file is there for all. Anything read before the hierarchy was set is dropped.
    table.resolvers.clear()
    if (table.bases, table.external_bases) == hierarchy:
        table.bases, table.external_bases = hierarchy  # the same objects: what was derived from them holds
        for resolver in kept:
            resolver.forget_flows()
            table.resolvers[resolver.path] = resolver
    for resolver in resolvers:
        resolver.forget_flows()
        table.resolvers[resolver.path] = resolver

    if (len(resolvers) < FORK_THRESHOLD or workers <= 1 or worker_load is None
            or "fork" not in multiprocessing.get_all_start_methods()):
        for done, resolver in enumerate(resolvers):
            if progress and done % 64 == 0:
                progress(len(targets) + done, steps)
            yield Resolved(resolver.path, resolver.resolve_uses(), resolver.calls, resolver.calls_resolved)
        return
    table.materialize()  # (a table read on demand reads through this process's connection: workers cannot)
    done = 0
    for results in _in_workers(resolvers, worker_load, workers):
        for path, edges, calls, calls_resolved in results:
            yield Resolved(path, edges, calls, calls_resolved)
        done += len(results)
        if progress:
            progress(len(targets) + done, steps)


ChunkResult = list[tuple[str, list[Edge], int, int]]  # (path, edges, calls, calls resolved) per file


def _in_workers(resolvers: list[FileResolver], worker_load: Callable[[], Callable[[str], FileFacts | None]],
                workers: int) -> Iterator[ChunkResult]:
    """The uses pass in forked workers, chunk by chunk in order. Worker w takes chunks w, w + n, w + 2n...
    always the same ones in the same order: what a worker worked out before a file (the answers its
    value flow remembers, bounded as they are) is then the same in every run, and so are the edges.
    A pool handing chunks to whichever worker is free made two builds of one tree differ."""
    chunks = [(i, min(i + CHUNK, len(resolvers))) for i in range(0, len(resolvers), CHUNK)]
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    processes = [context.Process(target=_work, name=f"graphctx-resolve-{w}", daemon=True,
                                 args=(os.getpid(), resolvers, worker_load, chunks[w::workers], w, workers, results))
                 for w in range(min(workers, len(chunks)))]
    for process in processes:  # forked: the resolvers and the table are inherited, not pickled
        process.start()
    try:
        arrived: dict[int, ChunkResult] = {}
        for number in range(len(chunks)):
            while number not in arrived:
                arrived.update([_next_result(results, processes)])
            yield arrived.pop(number)
    finally:
        for process in processes:
            if process.is_alive():
                process.terminate()
            process.join()
        results.close()


def _next_result(results, processes) -> tuple[int, ChunkResult]:
    """The next chunk any worker finished; a worker that died or failed stops the run with its reason."""
    while True:
        try:
            number, outcome = results.get(timeout=WORKER_POLL_SECONDS)
        except queue.Empty:
            dead = [p for p in processes if p.exitcode not in (None, 0)]
            if dead:
                raise RuntimeError(f"a resolution worker died (exit code {dead[0].exitcode})") from None
            if all(p.exitcode is not None for p in processes):  # all gone, something never sent
                raise RuntimeError("the resolution workers stopped before sending every result") from None
            continue
        if isinstance(outcome, BaseException):
            raise outcome
        return number, outcome


def _work(main_pid: int, resolvers: list[FileResolver], worker_load: Callable[[], Callable[[str], FileFacts | None]],
          chunks: list[tuple[int, int]], first: int, step: int, results) -> None:
    worker_pool.die_with_parent(main_pid)
    resolvers[0].table.load_facts = worker_load()  # this process's own connection, not the parent's
    for number, (start, stop) in zip(range(first, first + step * len(chunks), step), chunks):
        try:
            outcome: ChunkResult | BaseException = [
                (r.path, r.resolve_uses(), r.calls, r.calls_resolved) for r in resolvers[start:stop]]
        except Exception as exc:  # reported to the main process, which stops the run with it
            outcome = exc
        results.put((number, outcome))
        if isinstance(outcome, BaseException):
            return


def inheritance_names(table: SymbolTable) -> list[tuple[str, str]]:
    """(subclass name, base name) of every class and its base in the repository, as the table's last
    run resolved them: what reads.inheritance_names reads from every inherits and implements edge."""
    by_id = table.by_id
    return [(by_id[sub].name, by_id[base].name) for sub, bases in table.bases.items() if sub in by_id
            for base in bases if base in by_id and base != sub]  # (a class naming itself makes no edge)


def base_pairs_by_origin(rows: Iterable[tuple[str, str, str]]) -> dict[str, list[Pair]]:
    """(source, target, origin) rows of inherits and implements edges, grouped by the file that made them."""
    out: dict[str, list[Pair]] = defaultdict(list)
    for source, target, origin in rows:
        out[origin].append((source, target))
    return dict(out)
