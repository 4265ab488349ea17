"""The symbol table of an index's last committed generation, kept between runs in one process (a
server's watcher, a benchmark): an edit replaces the symbols of the files it touched instead of
reading every entity again (resolution.py), and the class hierarchy keeps each file's base pairs,
so no run scans every edge for them."""

from __future__ import annotations

import atexit
import gc
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from graphctx.index import checked
from graphctx.index.walk import FolderListings

if TYPE_CHECKING:  # (a no-op run makes a keeper and loads no resolver: see names_below)
    from graphctx.index.symbols import SymbolTable
    from graphctx.parse.facts import FileFacts

KEPT_RESOLVERS = 256  # file scopes a kept table keeps between runs, with their facts (tens per edit on sympy)
THAWED_EVERY = 64  # kept runs between two in which the collector may walk (and free) what is frozen
Pair = tuple[str, str]  # (class, base)


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
            from graphctx.index import dependencies

            self.below = (self.table.bases, dependencies.names_below(inheritance_names(self.table)))
        return self.below[1]


@dataclass(slots=True)
class KeptFiles:
    """The files table as this process's last run committed it: what the next run compares each
    file's stat with instead of reading every row again. Kept with the run's connection, so it is
    used exactly when that connection is: nothing else wrote the index file since."""

    stats: dict[str, tuple[int, int, str]]  # path -> (size, mtime_ns, content hash), as reads.file_stats
    counts: tuple[int, int, int, int, int, int]  # reads.run_counts: what a run that writes nothing reports


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
        self._connection: tuple[list, Path, sqlite3.Connection, bool, KeptFiles | None] | None = None
        self.listings = FolderListings()  # the last walk's folders, outside git
        self._lock = threading.Lock()

    def take(self, db_path: Path, generation: int) -> KeptTable | None:
        """The table kept for this index file at exactly this generation (no other process wrote it
        since), or None."""
        with self._lock:
            entry, self._entry = self._entry, None
        if entry is None or entry.generation != generation or entry.identity != checked.identity(db_path):
            return None
        return entry

    def put(self, db_path: Path, generation: int, entry: KeptTable) -> None:
        """Keep a table as of the generation just committed."""
        entry.generation, entry.identity = generation, checked.identity(db_path)
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

    def take_connection(self, db_path: Path) -> tuple[sqlite3.Connection, bool, KeptFiles | None] | None:
        """The connection the last run left open on this index file, whether that run checked the
        file (see checked.py) and the files table as it committed it; None when none was kept, or
        the file or its log changed since (another file there, another writer, damage), which a new
        connection looks at afresh."""
        with self._lock:
            kept, self._connection = self._connection, None
        if kept is None:
            return None
        if kept[0] != checked.state(db_path):
            kept[2].close()
            return None
        return kept[2], kept[3], kept[4]

    def put_connection(self, db_path: Path, conn: sqlite3.Connection, was_checked: bool = False,
                       files: KeptFiles | None = None) -> None:
        """Keep a run's connection (outside any transaction) for the next run, with whether the run
        checked the file (or found it as a checked run left it) and the files table it committed;
        one kept before is closed."""
        with self._lock:
            kept, self._connection = self._connection, (checked.state(db_path), db_path, conn, was_checked, files)
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
            state, db_path, conn, was_checked, _ = kept
            untouched = was_checked and state == checked.state(db_path)  # (closing folds the log in: look first)
            conn.close()
            if untouched:
                checked.mark(db_path)


def _freeze() -> None:
    """Freeze every object alive out of the collector's passes until thawed, and thaw them at exit at
    the latest: the collection at shutdown finalises what is left in cycles (a connection to close,
    its write-ahead log to fold into the database). (Registered once however many keepers freeze:
    unregistering removes every earlier registration.)"""
    atexit.unregister(gc.unfreeze)
    atexit.register(gc.unfreeze)
    gc.freeze()


def _no_facts(path: str) -> None:
    raise RuntimeError("a kept symbol table reads facts only during a run")


def inheritance_names(table: SymbolTable) -> list[tuple[str, str]]:
    """(subclass name, base name) of every class and its base in the repository, as the table's last
    run resolved them: what reads.inheritance_names reads from every inherits and implements edge."""
    by_id = table.by_id
    return [(by_id[sub].name, by_id[base].name) for sub, bases in table.bases.items() if sub in by_id
            for base in bases if base in by_id and base != sub]  # (a class naming itself makes no edge)
