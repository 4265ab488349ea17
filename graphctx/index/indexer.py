"""One index run: discover files, plan what changed since the last run (stat, then content hash),
parse the changed files in worker processes (parsing.py), write the new generation and resolve again
the files whose edges can have changed (generation.py), all in one SQLite transaction. A run that dies
midway leaves the last index intact, and its worker processes die with it; an index file that cannot
be used is rebuilt, with a warning. Progress is reported by phase (discovering, parsing, writing,
resolving), every file it skips is recorded with the reason, and the same tree always gives the same
rows in the same order."""

from __future__ import annotations

import gc
import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from graphctx.errors import GraphctxError
from graphctx.index import checked, skips as skipping, store
from graphctx.index.discover import Candidate, Config, discover, load_config
from graphctx.index.skips import Skip
from graphctx.index.store import reads, writes

if TYPE_CHECKING:  # (a no-op run loads neither the parser and resolver nor the kept table's code)
    from graphctx.index.keeper import KeptFiles, KeptTable, TableKeeper

log = logging.getLogger(__name__)

# A file whose mtime is this close to (or after) the moment the previous run looked at it may have
# been rewritten within the same file-system clock tick, same size: its stat proves nothing, so it
# is hashed again (git's "racily clean" entries). Two seconds covers the coarsest common clocks.
RACY_NS = 2_000_000_000
SKIPPED_STATS = "skipped_stats"  # meta: the stats of the files the last run read and skipped, with their verdicts' basis
CONTENT_JUDGE = 1  # the version of the binary, minified and generated checks (parse/textfiles.py, discover.py)
# progress(phase, done, total): total 0 when the phase cannot tell how much is left
Progress = Callable[[str, int, int], None]
DISCOVERING, PARSING, WRITING, RESOLVING = "discovering", "parsing", "writing", "resolving"


class IndexRunError(GraphctxError):
    """A run that cannot start: the message names the problem and the fix."""


@dataclass
class IndexResult:
    root: str
    files: int = 0
    parsed: int = 0
    removed: int = 0
    entities: int = 0
    edges: int = 0
    calls: int = 0
    calls_resolved: int = 0
    parse_errors: int = 0
    seconds: float = 0.0
    generation: int = 0
    warnings: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)

    @property
    def per_file_skips(self) -> dict[str, int]:
        """How many files each per-file reason (binary, minified, too large...) skipped, in that reasons' order."""
        reasons, _ = skipping.tally(self.skipped)
        return {reason: reasons[reason] for reason in skipping.PER_FILE if reason in reasons}

    @property
    def resolved_share(self) -> float:
        return self.calls_resolved / self.calls if self.calls else 1.0

    def summary(self) -> str:
        line = (
            f"{self.files:,} files ({self.parsed:,} parsed, {self.removed:,} removed), {self.entities:,} entities, "
            f"{self.edges:,} edges, {self.resolved_share:.0%} of calls resolved, {self.seconds:.2f} s"
        )
        if self.skipped:
            line += "; skipped " + skipping.describe(*skipping.tally(self.skipped))
        return line

    def report(self) -> dict:
        """The run as plain data (graphctx index --json): counts, warnings, and skips by reason and language."""
        reasons, languages = skipping.tally(self.skipped)
        return {
            "root": self.root, "files": self.files, "parsed": self.parsed, "removed": self.removed,
            "entities": self.entities, "edges": self.edges, "calls": self.calls, "calls_resolved": self.calls_resolved,
            "parse_errors": self.parse_errors, "seconds": round(self.seconds, 3), "generation": self.generation,
            "warnings": [list(w) for w in self.warnings], "skipped": reasons, "skipped_languages": languages,
            "skipped_files": [[s.path, s.reason, s.detail] for s in self.skipped if s.reason in skipping.PER_FILE],
        }


def index_repository(root: Path | str, *, full: bool = False, progress: Progress | None = None,
                     workers: int | None = None, verify: bool = False, keeper: TableKeeper | None = None) -> IndexResult:
    """Bring `<root>/.graphctx/index.db` up to date with the files under root, in one transaction.
    `verify` first reads every page of the index (PRAGMA quick_check) before trusting it: what
    `graphctx index` and a starting server do. Damage found at any point rebuilds the index. A
    `keeper` keeps the run's symbol table for the next run of this process, which then starts from
    it instead of reading every definition."""
    started = time.perf_counter()
    scanned_ns = time.time_ns()
    root = Path(root)
    if not root.is_dir():
        raise IndexRunError(f"{root} is not a directory; pass the repository's folder (graphctx index PATH)")
    root = root.resolve()
    config = load_config(root)
    candidates, skips, warnings = discover(root, config, _phase(progress, DISCOVERING),
                                           keeper.listings if keeper is not None else None)
    db_path = store.index_path(root)
    if config.embedding_model and not db_path.exists():  # a first build embeds: one that cannot, leaves no file
        _model(root, config)
    for attempt in (1, 2):
        # A file exactly as a checked run left it needs no second check (checked.py); a kept
        # connection's file is as this process's last run left it.
        kept, files = _kept_connection(db_path, keeper), None
        if kept is not None and (kept[1] or not verify):
            conn, trusted, files = kept
        else:
            if kept is not None:
                kept[0].close()
            trusted = verify
            conn = _open(db_path, verify and not checked.unchanged(db_path))
        done = False
        try:
            result, files = _transaction(conn, root, config, candidates, skips, full, progress, workers, scanned_ns,
                                         warnings, keeper, files)
            done = True
        except sqlite3.DatabaseError as exc:
            if attempt == 2 or not store.is_damage(exc):
                raise
            log.warning("%s %s: rebuilding it", db_path, store.damage(exc))
            conn.close()
            store.remove(db_path)
            continue
        finally:
            if done and keeper is not None:
                keeper.put_connection(db_path, conn, was_checked=trusted, files=files)
            else:
                conn.close()
                if done and trusted:
                    checked.mark(db_path)
        break
    result.seconds = time.perf_counter() - started
    return result


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector off for the run. What a run allocates is freed by reference counts
    (a full build of sympy leaves about 2,500 objects in cycles), while each full collection walks
    everything alive: the symbol table, the kept tables, every answer value flow has remembered, up to
    100 ms at a time on a large repository (more than an edit's own work; 1.4 s in 13 passes of a
    full sympy build's main process). Worker processes keep it off too (workers.no_collector). What
    the run leaves as cycles is collected after it: after the keeper froze what it keeps
    (keeper.py), where there is one, so that the collector's first pass does not walk every object
    the run made and the table keeps."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _transaction(conn: sqlite3.Connection, root: Path, config: Config, candidates: list[Candidate], skips: list[Skip],
                 full: bool, progress: Progress | None, workers: int | None, scanned_ns: int,
                 warnings: list[tuple[str, str]], keeper: TableKeeper | None,
                 files: KeptFiles | None) -> tuple[IndexResult, KeptFiles | None]:
    writes.begin_run(conn)
    with ExitStack() as collector:  # (_run may pause the cycle collector until the table is kept)
        try:
            result, kept, files = _run(conn, root, config, candidates, full, progress, workers, scanned_ns, warnings,
                                       keeper, collector, files)
            result.skipped = sorted([*skips, *result.skipped], key=lambda s: s.path)
            rows = [(s.path, s.reason, s.detail) for s in result.skipped]
            if sorted(rows) != sorted(reads.skipped(conn)):  # (a run with nothing new writes nothing)
                writes.replace_skips(conn, rows)
            if progress:
                progress(WRITING, 0, 0)
            writes.commit(conn)
        except BaseException:
            writes.rollback(conn)
            raise
        if keeper is not None and kept is not None:  # only a committed generation's table is worth keeping
            keeper.put(store.index_path(root), result.generation, kept)
    return result, files


def _kept_connection(db_path: Path, keeper: TableKeeper | None) -> tuple[sqlite3.Connection, bool, KeptFiles | None] | None:
    """The connection the keeper kept from the last run on this file, whether that run checked the
    file and the files table it committed, when the index it opens is still usable as it is (else
    None: `_open` says what is wrong and rebuilds)."""
    kept = keeper.take_connection(db_path) if keeper is not None else None
    if kept is None:
        return None
    try:
        if store.diagnose(kept[0]) is None:
            return kept
    except sqlite3.Error:
        pass
    kept[0].close()
    return None


def _open(db_path: Path, verify: bool) -> sqlite3.Connection:
    """A writer connection to the index. An existing file that cannot be used is announced in one
    line; a damaged one, or one that is not SQLite, is deleted first (the records live in their own
    files and are never touched), the others are rebuilt inside the run's transaction."""
    existed = db_path.exists()
    conn = None
    try:
        conn = store.connect(db_path)
        problem = store.diagnose(conn, thorough=verify) if existed else None
    except sqlite3.DatabaseError as exc:  # setting WAL on a file that is not SQLite; or no permission
        if not store.is_damage(exc):
            raise IndexRunError(f"cannot open {db_path} ({exc}); check the permissions of the file and its folder"
                                ) from None
        problem = store.damage(exc)
    if problem:
        log.warning("%s %s: rebuilding it", db_path, problem)
    if conn is None or store.needs_new_file(problem):
        if conn is not None:
            conn.close()
        store.remove(db_path)
        try:
            conn = store.connect(db_path)
        except sqlite3.Error as exc:
            raise IndexRunError(f"cannot create {db_path} ({exc}); check that its folder is writable") from None
    return conn


def _phase(progress: Progress | None, phase: str) -> Callable[[int, int], None] | None:
    """A (done, total) callback that reports under `phase`."""
    return None if progress is None else lambda done, total: progress(phase, done, total)


def _run(conn: sqlite3.Connection, root: Path, config: Config, candidates: list[Candidate], full: bool,
         progress: Progress | None, workers: int | None, scanned_ns: int, discovery_warnings: list[tuple[str, str]],
         keeper: TableKeeper | None, collector: ExitStack,
         files: KeptFiles | None) -> tuple[IndexResult, KeptTable | None, KeptFiles | None]:
    fresh = store.ensure_schema(conn)
    if full and not fresh:  # everything goes: emptying each table beats deleting file by file
        writes.clear_files(conn)
    if full or fresh:
        files = None
    # The files table as this process's last run left it, when nothing else wrote the index since
    # (keeper.py), else as read now: what every file's stat is compared with.
    known = files.stats if files is not None else reads.file_stats(conn)
    present = {c.path for c in candidates}
    deleted = sorted(set(known) - present)
    racy_after = int(store.get_meta(conn, "scanned_ns", "0")) - RACY_NS
    stale = [c for c in candidates if known.get(c.path, (None, None))[:2] != (c.size, c.mtime_ns) or c.mtime_ns >= racy_after]
    result = IndexResult(str(root), warnings=list(discovery_warnings))
    # A file skipped for its content (binary, minified, generated) last time and not touched since is
    # skipped again without reading it: its stat then is kept beside the index (SKIPPED_STATS).
    verdicts = _verdicts(config)
    kept_stats = {} if full or fresh else json.loads(store.get_meta(conn, SKIPPED_STATS, "{}"))
    before = kept_stats.get("files", {}) if kept_stats.get("verdicts") == verdicts else {}
    still = {c.path: before[c.path] for c in stale if c.path not in known and before.get(c.path) == [c.size, c.mtime_ns]
             and c.mtime_ns < racy_after}
    if still:
        stale = [c for c in stale if c.path not in still]
        result.skipped += [Skip(*row) for row in reads.skipped(conn) if row[0] in still]
    # A no-op (no file new, gone, changed or within the last scan's racy window) writes nothing, so
    # that the index file stays as it was: its scan time too, as no file is within its window. It
    # loads no parser, resolver or kept table either (the keeper keeps it for the next real run).
    no_op = not (stale or deleted or fresh or full)
    kept, read_now = None, set()
    if not no_op:
        if config.embedding_model:  # a model that cannot load stops the run before it parses anything
            _model(root, config)
        kept, read_now, deleted = _write(conn, root, config, stale, known, deleted, full, fresh, progress, workers,
                                         keeper, collector, result)
        read_and_skipped = {s.path for s in result.skipped if s.reason in skipping.BY_CONTENT}.difference(still)
        stats = {**still, **{c.path: [c.size, c.mtime_ns] for c in stale if c.path in read_and_skipped}}
        store.set_meta(conn, scanned_ns=scanned_ns,
                       **{SKIPPED_STATS: json.dumps({"verdicts": verdicts, "files": stats}, sort_keys=True)})
    if _embedding_changed(conn, root, config):  # another model configured, no file written: the vectors alone
        _embed(conn, root, config)
    # Warnings of files indexed before and not read again stay; every other path's are this run's.
    # (the files indexed now are those known before, less the deleted, plus the written, which were read now)
    kept_warnings = set(known).difference(deleted, read_now)
    if not no_op or reads.warnings_of_unindexed(conn) != sorted(w for w in result.warnings if w[0] not in kept_warnings):
        writes.replace_warnings(conn, result.warnings, kept=kept_warnings)
    if keeper is None:
        _count(conn, result, None)
        return result, kept, None
    if not no_op or files is None:  # the rows of the files this run looked at again, as it leaves them
        from graphctx.index.keeper import KeptFiles

        changed = {c.path for c in stale}.union(deleted)
        stats = {path: row for path, row in known.items() if path not in changed} if changed else dict(known)
        files = KeptFiles(stats | reads.file_stats(conn, sorted(changed)), reads.run_counts(conn))
    _count(conn, result, files.counts)
    return result, kept, files


def _verdicts(config: Config) -> str:
    """What a content verdict depends on besides the bytes: the settings, and how this code judges
    (raise CONTENT_JUDGE when the binary, minified or generated checks change)."""
    return f"{CONTENT_JUDGE}:{config.skip_generated}:{config.max_file_bytes}"


def _write(conn: sqlite3.Connection, root: Path, config: Config, stale: list[Candidate],
           known: dict[str, tuple], deleted: list[str], full: bool, fresh: bool, progress: Progress | None,
           workers: int | None, keeper: TableKeeper | None, collector: ExitStack,
           result: IndexResult) -> tuple[KeptTable | None, set[str], list[str]]:
    """Parse the stale files, write them and resolve what they change: (the table to keep, the paths
    whose facts were read, the deleted paths with the files no longer indexable)."""
    from graphctx.index.parsing import parse_all

    workers = workers or config.workers or os.cpu_count() or 1
    report = progress or (lambda phase, done, total: None)
    run = None  # the generation, made when something is written (re-reading skipped files writes nothing)

    def generation():
        nonlocal run
        if run is None:
            from graphctx.index.generation import Generation

            run = Generation(conn, root, everything=full or fresh, workers=workers, report=report, keeper=keeper)
        return run

    if full or fresh:
        generation()
    skipped: list[str] = []
    collector.enter_context(_collector_paused())
    hashes = {p: v[2] for p, v in known.items()}
    for item in parse_all(root, config, stale, hashes, _phase(progress, PARSING), workers, structure_only=full or fresh):
        if item.warning:
            result.warnings.append((item.path, item.warning))
        if item.skip:
            result.skipped.append(Skip(item.path, *item.skip))
        if item.facts is None:
            if item.hash and item.path in known:  # touched, same content: just remember the new stat
                writes.update_file_stat(conn, item.path, item.size, item.mtime_ns)
            elif not item.hash:
                skipped.append(item.path)
            continue
        if item.facts.error_count:
            result.warnings.append((item.path, f"{item.facts.error_count} syntax error node(s); kept what parsed"))
        generation().add(item)
    deleted = deleted + [p for p in skipped if p in known]
    if deleted:
        generation()
    result.parsed, result.removed = (run.parsed if run else 0), len(deleted)
    if run is None:
        return None, set(), deleted

    kept = run.entry
    if run.parsed or deleted or fresh or full:
        kept = run.finish(deleted)
        _embed(conn, root, config)
        store.set_meta(conn, indexed_at=f"{time.time():.3f}", root=str(root))
    return kept, set(run.facts), deleted


def _embed(conn: sqlite3.Connection, root: Path, config: Config) -> None:
    """Vectors for the files with none current, by the configured model (with the shipped one, each
    parsed file brought its own); the index notes the model, which every reader then embeds with."""
    from graphctx.semantic import local, vectors  # (numpy: a no-op run never loads it)

    name = local.model_name(root, config.embedding_model)
    vectors.refresh(conn, local.chosen(name))
    store.set_meta(conn, **{local.EMBEDDING_META: name})


def _model(root: Path, config: Config):
    """The configured embedding model, loaded (once per process), else the shipped one."""
    from graphctx.semantic import local

    return local.chosen(local.model_name(root, config.embedding_model))


def _embedding_changed(conn: sqlite3.Connection, root: Path, config: Config) -> bool:
    from graphctx.semantic.local import EMBEDDING_META, model_name

    return store.get_meta(conn, EMBEDDING_META, "") != model_name(root, config.embedding_model)


def _count(conn: sqlite3.Connection, result: IndexResult, counts: tuple[int, ...] | None) -> None:
    (result.files, result.entities, result.edges, result.parse_errors,
     result.calls, result.calls_resolved) = counts if counts is not None else reads.run_counts(conn)
    result.generation = store.generation(conn)
