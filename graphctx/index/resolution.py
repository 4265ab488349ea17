"""The resolution phase of an index run, off the main process where it pays, against a symbol table
built once and kept between runs.

The structure pass (contains, imports, bases) runs here for every target file: uses cannot be
resolved before the whole class hierarchy is known. The uses pass (calls, type uses, tests) is most
of the work; for many files it runs in worker processes forked from this one once the table and the
structure are ready, so they inherit both (copy-on-write, nothing pickled) and send back only edge
rows. Fork is the one start method that shares the table for free: where it is missing (or with few
files, where starting processes costs more than it saves) the pass runs here.

The symbol table is kept between runs in one process (a server's watcher, a benchmark) by a
TableKeeper (keeper.py): an edit replaces the symbols of the files it touched (tableupdates.py) instead
of reading every entity again, and the class hierarchy keeps each file's base pairs, so no run scans every
edge for them."""

from __future__ import annotations

import gc
import multiprocessing
import os
import queue
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import chain

from graphctx.index import workers as worker_pool
from graphctx.index.appended import Appended, resolve_appended
from graphctx.index.keeper import KeptTable, Pair
from graphctx.index.modules import ModuleMap
from graphctx.index.resolve import FileResolver
from graphctx.index.scope import Edge
from graphctx.parse.facts import FileFacts

FORK_THRESHOLD = 64  # below this many files, forking workers costs more than it saves
# From this many files, a table read on demand is read whole first: their lookups, one query each,
# cost more than reading every definition once (half a second on sympy), which later runs then keep.
WHOLE_TABLE_FROM = 8
CHUNK = 16  # files per task: small enough to balance, large enough to amortise the round trip
WORKER_POLL_SECONDS = 1.0  # how often the main process, waiting for a chunk, checks that its workers live


@dataclass(slots=True)
class Resolved:
    path: str
    edges: list[Edge]
    calls: int
    calls_resolved: int


def resolve(entry: KeptTable, targets: list[str], load: Callable[[str], FileFacts | None], *, workers: int,
            worker_load: Callable[[], Callable[[str], FileFacts | None]] | None = None,
            progress: Callable[[int, int], None] | None = None, flows_hold: bool = False,
            appended: dict[str, Appended] | None = None) -> Iterator[Resolved]:
    """Resolve the target files, in order: the structure pass here, then the class hierarchy of the
    whole repository (kept pairs of the other files, found pairs of these), then the uses.
    `worker_load()` makes a forked worker its own facts loader (this process's database connection
    is not its to use); without it the uses pass stays here. `flows_hold`: the edit moved no import
    or module, so a kept scope's value flow holds where it read no file resolved again. `appended`:
    the files whose earlier part keeps its edges (appended.py), resolved here only."""
    table = entry.table
    resolvers: list[FileResolver] = []
    steps = 2 * len(targets)  # both passes count on the bar
    if len(targets) >= WHOLE_TABLE_FROM:  # (and for forked workers, which cannot read through this connection)
        table.materialize()
    # The scopes of files neither edited nor resolved again, kept from the last run with their imports
    # bound: what they bind cannot have changed (a file that names anything the edit changed is a
    # target), unless the class hierarchy moved. What their value flow worked out holds likewise
    # where it read only such scopes (_forget_stale_flows); the rest is dropped.
    again = set(targets)
    kept = [resolver for path, resolver in table.resolvers.items() if resolver is not None and path not in again]
    table.resolvers = {resolver.path: resolver for resolver in kept}
    _forget_stale_flows(kept, flows_hold)
    hierarchy = (table.bases, table.external_bases)
    forking = _forks(len(targets), workers, worker_load)
    for done, path in enumerate(targets):
        if progress and done % 64 == 0:
            progress(done, steps)
        facts = load(path)
        entry.bases.pop(path, None)
        if facts is not None:
            resolvers.append(FileResolver(facts, table))
            # (forking: the tables of its scope and its contains edges are made by the worker that
            # resolves its uses, not held by every process until then; no other file reads them)
            entry.bases[path] = resolvers[-1].resolve_structure(contains=not forking)
            if forking:
                resolvers[-1].forget_tables()
    table.set_bases(chain.from_iterable(entry.bases.values()))
    # Each file's resolver is also the scope other files' value flow reads it through, so an answer
    # worked out for one file is there for all. Anything read before the hierarchy was set is dropped.
    table.resolvers.clear()
    if (table.bases, table.external_bases) == hierarchy:
        table.bases, table.external_bases = hierarchy  # the same objects: what was derived from them holds
        _forget_stale_flows(kept, flows_hold)  # (the structure pass may have read the targets' new scopes)
        for resolver in kept:
            table.resolvers[resolver.path] = resolver
    forked = _forks(len(resolvers), workers, worker_load)  # (the uses pass's: files with no facts do not count)
    for resolver in resolvers:
        resolver.forget_flows()
        if forked:  # (what the structure pass read of the file: the worker that needs it reads it again)
            resolver.let_go()
        table.resolvers[resolver.path] = resolver

    if not forked:
        for done, resolver in enumerate(resolvers):
            if progress and done % 64 == 0:
                progress(len(targets) + done, steps)
            found = appended.get(resolver.path) if appended else None
            edges = resolve_appended(resolver, found) if found is not None else None
            yield Resolved(resolver.path, resolver.resolve_uses() if edges is None else edges, resolver.calls,
                           resolver.calls_resolved)
        return
    done = 0
    for results in _in_workers(resolvers, worker_load, workers):
        for path, edges, calls, calls_resolved in results:
            yield Resolved(path, edges, calls, calls_resolved)
        done += len(results)
        if progress:
            progress(len(targets) + done, steps)


def _forks(files: int, workers: int, worker_load) -> bool:
    """Whether the uses pass of this many files runs in forked workers."""
    return (files >= FORK_THRESHOLD and workers > 1 and worker_load is not None
            and "fork" in multiprocessing.get_all_start_methods())


def _forget_stale_flows(kept: list[FileResolver], flows_hold: bool) -> None:
    """Drop the value flow of each kept scope that read (itself, or through the answers of scopes it
    read, and so on) a scope that is not kept with its flows: a file resolved again, one no longer
    kept. The others' answers rest only on files and names the edit left as they were. Without
    `flows_hold` (an import or a module moved), every kept scope's flows are dropped."""
    holding = {resolver.path for resolver in kept} if flows_hold else set()
    read = {resolver.path: {path for path, _ in resolver.asked} for resolver in kept}  # (the files each consulted)
    while True:
        stale = {path for path in holding if not read[path] <= holding}
        if not stale:
            break
        holding -= stale
    for resolver in kept:
        if resolver.path not in holding:
            resolver.forget_flows()
            resolver.asked.clear()  # (what its flows read: they are worked out again)


ChunkResult = list[tuple[str, list[Edge], int, int]]  # (path, edges, calls, calls resolved) per file
# A chunk's files, and the (reader, consulted, top-level scope) the worker's resolvers added meanwhile
ChunkSent = tuple[ChunkResult, list[tuple[str, str, str]]]


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
        arrived: dict[int, ChunkSent] = {}
        for number in range(len(chunks)):
            while number not in arrived:
                arrived.update([_next_result(results, processes)])
            files, consulted = arrived.pop(number)
            resolvers[0].table.consulted.update(consulted)  # (what the worker's resolvers read, for the store)
            yield files
    finally:
        for process in processes:
            if process.is_alive():
                process.terminate()
            process.join()
        results.close()


def _next_result(results, processes) -> tuple[int, ChunkSent]:
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
    # What value flow works out lives as long as the worker too (its answers, for the chunks to come),
    # and a sympy build's workers left no object in a cycle: the collector looks only at what a chunk
    # made, once, when the chunk is sent. Its full passes over the remembered answers were a sixth of
    # a cold build's time.
    worker_pool.no_collector()
    table = resolvers[0].table
    table.load_facts = worker_load()  # this process's own connection, not the parent's
    table.consulted = set()  # (the parent's own are its to store)
    numbers = range(first, first + step * len(chunks), step)
    done_with = _projects_done(resolvers, chunks, numbers, table.modules)
    for number, (start, stop) in zip(numbers, chunks):
        try:
            files = [(r.path, r.resolve_uses(), r.calls, r.calls_resolved) for r in resolvers[start:stop]]
            outcome: ChunkSent | BaseException = (files, list(table.consulted))
            table.consulted.clear()
            for resolver in resolvers[start:stop]:  # sent: what the worker need not hold for later chunks
                resolver.edges = {}
                resolver.facts.unload_rest()  # (read again, the same, should a later question reach it)
        except Exception as exc:  # reported to the main process, which stops the run with it
            outcome = exc
        results.put((number, outcome))
        for path in done_with.get(number, ()):
            scope = table.resolvers.get(path)
            if scope is not None:
                scope.let_go()
        gc.collect(0)
        if isinstance(outcome, BaseException):
            return


def _projects_done(resolvers: list[FileResolver], chunks: list[tuple[int, int]], numbers: range,
                   modules: ModuleMap) -> dict[int, list[str]]:
    """The files a worker may let go of after each of its chunks: those of the projects (Python
    package roots) none of its later chunks resolves a file of. Copies of a project side by side and
    services each with its own package read their own project's files; what a worker worked out
    for one it is done with would stay with it to the end. (A file a later question reaches after
    all is made again from its facts.)"""
    project_of = {path: modules.project_of(path) for path in resolvers[0].table.resolvers}  # (every resolver's too)
    files: dict[str, list[str]] = defaultdict(list)
    for path, project in project_of.items():
        if project is not None:
            files[project].append(path)
    last = {project_of[r.path]: number for number, (start, stop) in zip(numbers, chunks)
            for r in resolvers[start:stop] if project_of[r.path] is not None}
    done: dict[int, list[str]] = defaultdict(list)
    for project, number in last.items():
        done[number].extend(files[project])
    return done


def base_pairs_by_origin(rows: Iterable[tuple[str, str, str]]) -> dict[str, list[Pair]]:
    """(source, target, origin) rows of inherits and implements edges, grouped by the file that made them."""
    out: dict[str, list[Pair]] = defaultdict(list)
    for source, target, origin in rows:
        out[origin].append((source, target))
    return dict(out)
