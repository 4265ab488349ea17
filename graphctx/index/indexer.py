"""One index run: discover files, plan what changed since the last run (stat, then content hash),
parse the changed files (parsing.py, in worker processes), re-resolve the files whose edges can have changed,
and write it all in one SQLite transaction. A run that dies midway leaves the last index intact,
and its worker processes die with it; an index file that cannot be used is rebuilt, with a
warning. Progress is reported by phase (discovering, parsing, writing, resolving), every file it
skips is recorded with the reason, and the same tree always gives the same rows in the same order."""

from __future__ import annotations

import json
import logging
import posixpath
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from graphctx.errors import GraphctxError
from graphctx.index import skips as skipping, store
from graphctx.index.parsing import ParsedFile, parse_all
from graphctx.index.store import reads, writes
from graphctx.index.discover import Candidate, Config, discover, load_config
from graphctx.index.languages import RULES, package_languages
from graphctx.index.modules import ModuleMap
from graphctx.index.dependencies import defined_names, names_of, reference_names
from graphctx.index.naming import entity_id, file_stem, is_test_file, tested_stem
from graphctx.index.resolve import FileResolver
from graphctx.index.root import Boundary
from graphctx.index.skips import Skip
from graphctx.index.symbols import SymbolTable
from graphctx.parse.facts import FileFacts

log = logging.getLogger(__name__)

# A file whose mtime is this close to (or after) the moment the previous run looked at it may have
# been rewritten within the same file-system clock tick, same size: its stat proves nothing, so it
# is hashed again (git's "racily clean" entries). Two seconds covers the coarsest common clocks.
RACY_NS = 2_000_000_000
# progress(phase, done, total): total 0 when the phase cannot tell how much is left
Progress = Callable[[str, int, int], None]
DISCOVERING, PARSING, WRITING, RESOLVING = "discovering", "parsing", "writing", "resolving"
PACKAGE_MARKERS = frozenset().union(*(rules.package_markers for rules in RULES))


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
                     workers: int | None = None, verify: bool = False) -> IndexResult:
    """Bring `<root>/.graphctx/index.db` up to date with the files under root, in one transaction.
    `verify` first reads every page of the index (PRAGMA quick_check) before trusting it: what
    `graphctx index` and a starting server do. Damage found at any point rebuilds the index."""
    started = time.perf_counter()
    scanned_ns = time.time_ns()
    root = Path(root)
    if not root.is_dir():
        raise IndexRunError(f"{root} is not a directory; pass the repository's folder (graphctx index PATH)")
    root = root.resolve()
    config = load_config(root)
    candidates, skips, warnings = discover(root, config, _phase(progress, DISCOVERING))
    db_path = store.index_path(root)
    for attempt in (1, 2):
        conn = _open(db_path, verify)
        try:
            result = _transaction(conn, root, config, candidates, skips, full, progress, workers, scanned_ns, warnings)
        except sqlite3.DatabaseError as exc:
            if attempt == 2 or not store.is_damage(exc):
                raise
            log.warning("%s %s: rebuilding it", db_path, store.damage(exc))
            conn.close()
            store.remove(db_path)
            continue
        finally:
            conn.close()
        break
    result.seconds = time.perf_counter() - started
    return result


def _transaction(conn: sqlite3.Connection, root: Path, config: Config, candidates: list[Candidate], skips: list[Skip],
                 full: bool, progress: Progress | None, workers: int | None, scanned_ns: int,
                 warnings: list[tuple[str, str]]) -> IndexResult:
    writes.begin_run(conn)
    try:
        result = _run(conn, root, config, candidates, full, progress, workers, scanned_ns, warnings)
        result.skipped = sorted([*skips, *result.skipped], key=lambda s: s.path)
        writes.replace_skips(conn, [(s.path, s.reason, s.detail) for s in result.skipped])
        if progress:
            progress(WRITING, 0, 0)
        writes.commit(conn)
    except BaseException:
        writes.rollback(conn)
        raise
    return result


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
         progress: Progress | None, workers: int | None, scanned_ns: int,
         discovery_warnings: list[tuple[str, str]]) -> IndexResult:
    fresh = store.ensure_schema(conn)
    if full and not fresh:  # everything goes: emptying each table beats deleting file by file
        writes.clear_files(conn)
    known = reads.file_stats(conn)
    present = {c.path for c in candidates}
    deleted = sorted(set(known) - present)
    racy_after = int(store.get_meta(conn, "scanned_ns", "0")) - RACY_NS
    stale = [c for c in candidates if known.get(c.path, (None, None))[:2] != (c.size, c.mtime_ns) or c.mtime_ns >= racy_after]

    parsed = parse_all(root, config, stale, {p: v[2] for p, v in known.items()}, _phase(progress, PARSING),
                       workers or config.workers)
    result = IndexResult(str(root), warnings=list(discovery_warnings))
    changed: dict[str, FileFacts] = {}
    skipped: list[str] = []
    for item in parsed:
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
        changed[item.path] = facts = FileFacts.from_json(item.facts)
        if facts.error_count:
            result.warnings.append((item.path, f"{facts.error_count} syntax error node(s); kept what parsed"))
    deleted += [p for p in skipped if p in known]
    result.parsed, result.removed = len(changed), len(deleted)

    if changed or deleted or fresh or full:
        _apply(conn, root, changed, {i.path: i for i in parsed}, deleted, full or fresh, progress)
        store.set_meta(conn, generation=store.generation(conn) + 1, indexed_at=f"{time.time():.3f}", root=str(root))
    store.set_meta(conn, scanned_ns=scanned_ns)
    # Warnings of files indexed before and not read again stay; every other path's are this run's.
    writes.replace_warnings(conn, result.warnings, kept=set(reads.file_paths(conn)) - set(changed))
    _count(conn, result)
    return result


def _apply(conn: sqlite3.Connection, root: Path, changed: dict[str, FileFacts], parsed: dict[str, ParsedFile],
           deleted: list[str], everything: bool, progress: Progress | None = None) -> None:
    """Write the changed files' entities, then re-resolve every file whose edges may differ."""
    report = progress or (lambda phase, done, total: None)
    old_facts = {p: _load_facts(conn, p) for p in [*deleted, *(p for p in changed if not everything)]}
    delta: set[str] = set()
    for path, old in old_facts.items():
        new = changed.get(path)
        old_keys = defined_names(old) if old else set()
        new_keys = defined_names(new) if new else set()
        delta |= names_of(old_keys ^ new_keys)
        if old and new and old.package != new.package:  # its definitions moved to another package
            delta |= names_of(k for k in old_keys | new_keys if k[0] == "def")
    added_or_removed = [p for p in changed if old_facts.get(p) is None and not everything] + deleted
    for path in added_or_removed:
        delta |= _module_names(path)
    # A package's __init__.py coming or going changes the names every module below it is importable by.
    packages = {posixpath.dirname(p) + "/" for p in added_or_removed if posixpath.basename(p) in PACKAGE_MARKERS} - {"/"}
    if packages:
        below = set(reads.file_paths(conn)) | set(changed)
        for path in below:
            if path.startswith(tuple(packages)):
                delta |= _module_names(path)

    if not everything:  # (a full or fresh run starts from empty tables)
        writes.delete_files(conn, [*deleted, *changed])
    boundary = Boundary(root)
    for done, (path, facts) in enumerate(changed.items()):
        if done % 64 == 0:
            report(WRITING, done, len(changed))
        item = parsed[path]
        writes.insert_file(conn, path=path, language=facts.language, size=item.size, mtime_ns=item.mtime_ns,
                           hash=item.hash, lines=facts.lines, error_count=facts.error_count,
                           is_test=is_test_file(path), package=facts.package,
                           attribute_types=_attribute_types(facts), facts=item.facts)
        writes.insert_entities(conn, list(_entity_rows(facts)))
        if facts.definitions:  # (a file's own row takes no body: a file-level file is not read again)
            writes.index_bodies(conn, path, _read_text(boundary, path))
        writes.insert_file_refs(conn, path, reference_names(facts))

    if everything:
        targets = reads.file_paths(conn)
    else:
        dependents = reads.paths_referring_to(conn, _through_attributes(conn, delta))
        targets = sorted(set(changed) | (dependents - set(deleted)))
    writes.delete_edges_from(conn, targets)

    cache: dict[str, FileFacts | None] = dict(changed)

    def load(path: str) -> FileFacts | None:
        if path not in cache:
            cache[path] = _load_facts(conn, path)
        return cache[path]

    # Only some languages' module maps use the package declaration (Java's): the others get None.
    with_package = set(package_languages())
    files = {p: (lang, pkg if lang in with_package else None) for p, (lang, pkg) in reads.file_packages(conn).items()}
    table = SymbolTable(reads.definitions(conn), ModuleMap(files, root), load)
    # Two passes over the targets (structure, then uses): the bar counts both.
    steps = 2 * len(targets)
    resolvers = []
    pairs = []
    for done, facts in enumerate(map(load, targets)):
        if done % 64 == 0:
            report(RESOLVING, done, steps)
        if facts is not None:
            resolvers.append(FileResolver(facts, table))
            pairs += resolvers[-1].resolve_structure()
    target_set = set(targets)
    pairs += [
        (s, t) for s, t, origin in reads.inheritance_edges(conn) if origin not in target_set
    ]
    table.set_bases(pairs)
    # Writing every edge: the edge indexes are built once afterwards.
    deferred = writes.drop_edge_indexes(conn) if everything else []
    for done, resolver in enumerate(resolvers):
        if done % 64 == 0:
            report(RESOLVING, len(targets) + done, steps)
        writes.insert_edges(conn, resolver.path, resolver.resolve_uses())
        writes.set_call_counts(conn, resolver.path, resolver.calls, resolver.calls_resolved)
    report(WRITING, 0, 0)
    writes.create_indexes(conn, deferred)


def _read_text(boundary: Boundary, path: str) -> str:
    try:
        return boundary.read_text(path)
    except OSError:
        return ""


def _entity_rows(facts: FileFacts) -> Iterable[tuple]:
    path = facts.path
    yield (path, "file", posixpath.basename(path), path, facts.language, path, 1, facts.lines, "", facts.doc, "", "", None)
    qualified_names = {d.qualified_name for d in facts.definitions}
    seen: set[str] = set()
    for d in facts.definitions:
        if d.qualified_name in seen:  # a redefinition (if/else branches): the first one names the entity
            continue
        seen.add(d.qualified_name)
        owner = d.qualified_name.rpartition(".")[0]
        parent = entity_id(path, owner) if owner in qualified_names else path
        yield (entity_id(path, d.qualified_name), d.kind, d.name, d.qualified_name, facts.language, path,
               d.start_line, d.end_line, d.signature, d.doc, d.sig_hash, d.body_hash, parent)


def _attribute_types(facts: FileFacts) -> str:
    """The bindings of `self.x` attributes as JSON rows: what _through_attributes follows across files."""
    return json.dumps([[b.scope, b.variable, b.type_name, b.line] for b in facts.bindings if b.variable.startswith("self.")],
                      separators=(",", ":"))


def _module_names(path: str) -> set[str]:
    """Names under which other files can refer to a file as a module or a tested file."""
    stem = path.rsplit(".", 1)[0]
    names = {p for p in stem.replace("\\", "/").replace(".", "/").split("/") if p}
    names.add(file_stem(path))
    tested = tested_stem(path)
    if tested:
        names.add(tested)
    return names


def _through_attributes(conn: sqlite3.Connection, delta: set[str]) -> set[str]:
    """Delta grown by the classes whose attribute types may have changed meaning: `self.tool = Widget()`
    in class Engine makes `e.tool.run()` elsewhere depend on Widget through Engine, so a change to
    Widget adds Engine (and, through chains of attributes, whatever holds an Engine)."""
    delta = set(delta)
    frontier = set(delta)
    while frontier:
        found: set[str] = set()
        for path in reads.paths_referring_to(conn, frontier):
            for scope, variable, type_name, _line in json.loads(reads.attribute_types(conn, path) or "[]"):
                if variable.startswith("self.") and not frontier.isdisjoint(type_name.split(".")):
                    found.update(p for p in scope.split(".") if p)
        frontier = found - delta
        delta |= frontier
    return delta


def _load_facts(conn: sqlite3.Connection, path: str) -> FileFacts | None:
    text = reads.file_facts(conn, path)
    return FileFacts.from_json(text) if text is not None else None


def _count(conn: sqlite3.Connection, result: IndexResult) -> None:
    (result.files, result.entities, result.edges, result.parse_errors,
     result.calls, result.calls_resolved) = reads.run_counts(conn)
    result.generation = store.generation(conn)
