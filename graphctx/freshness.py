"""Keeps a project's index as fresh as the files an answer names. Whoever sees the tree change (the
MCP server's file watcher) marks it; every answer first waits for the changes marked so far to be
indexed, and after answering checks the files it names against the disk (index/changes.py): a
changed one triggers an index run and a second answer, and if it is still out of date the answer
says so. One per Project."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from graphctx.index.changes import changed_files
from graphctx.index.root import Boundary

if TYPE_CHECKING:
    from graphctx.index.indexer import IndexResult
    from graphctx.project import Project

log = logging.getLogger("graphctx.server")

MIN_RETRY_SECONDS = 1.0  # without a watcher, an unknown name re-indexes at most this often
SETTLE_SECONDS = 0.25  # with one, an unknown name waits this long for news of a change


class Freshness:
    def __init__(self, project: Project):
        self.project = project
        self.root = project.root
        self._lock = threading.Lock()  # one index run at a time
        self._state = threading.Lock()  # guards the counters
        self._seen = 0  # change batches reported (plus forced runs)
        self._done = 0  # batches covered by a finished index run
        self.runs = 0
        self.last_run: IndexResult | None = None
        self.last_run_at: float | None = None
        self.last_error: str | None = None
        self.watching = False  # set by a watcher while it runs: an unknown name then waits for its news
        self._started = False  # whether start_catch_up ran

    # ---- index runs

    def start_catch_up(self) -> None:
        """Once per process: on threads of their own, an incremental run for files that changed while no
        process watched (answers wait for it), and the warm-up. A server calls it as soon as its index
        is known usable, so both go on while the MCP SDK loads."""
        with self._state:
            if self._started:
                return
            self._started = True
            self._seen += 1
        threading.Thread(target=self.sync, name="graphctx-catch-up", daemon=True).start()
        threading.Thread(target=self.warm, name="graphctx-warm-up", daemon=True).start()

    def mark(self) -> None:
        """Something changed in the tree: the next sync runs the indexer."""
        with self._state:
            self._seen += 1

    @property
    def pending(self) -> bool:
        return self._seen > self._done

    @property
    def indexing(self) -> bool:
        """Whether an index run is under way (calls wait for it)."""
        return self._lock.locked()

    def sync(self) -> None:
        """Bring the index up to date with every change marked so far (waits for a run in progress)."""
        if not self.pending:
            return
        with self._lock:
            target = self._seen
            if self._done >= target:
                return
            self._run()
            self._done = max(self._done, target)

    def reindex(self) -> None:
        """An incremental run now, whatever has been marked."""
        self.mark()
        self.sync()

    def settle_for_unknown(self) -> bool:
        """Before saying a name does not exist: it may have been written a moment ago. Wait briefly for
        the watcher to report a change (it reports within moments of the last write) and index it;
        failing that, index if an indexed file differs from the disk (the watcher may have missed
        it, or an index run may have read a file half written); without a watcher, index anyway (for
        new files), at most once a second. True when an index run happened."""
        runs = self.runs
        if self.watching:
            deadline = time.monotonic() + SETTLE_SECONDS
            while not self.pending and time.monotonic() < deadline:
                time.sleep(0.01)
            self.sync()
        if self.runs == runs:
            if self.dirty():
                self.reindex()
            elif not self.watching and (self.last_run_at is None
                                        or time.monotonic() - self.last_run_at >= MIN_RETRY_SECONDS):
                self.reindex()
        return self.runs > runs

    def _run(self) -> None:
        from graphctx.index.indexer import index_repository

        started = time.perf_counter()
        try:
            # Serial parsing: forking worker processes from a threaded server is not safe.
            result = index_repository(self.root, workers=1, keeper=self.project.kept_symbols)
        except Exception as exc:
            self.last_error = f"index run failed: {exc}"
            log.warning("graphctx: %s", self.last_error)
            return
        finally:
            self.last_run_at = time.monotonic()
        self.runs += 1
        self.last_run, self.last_error = result, None
        if result.parsed or result.removed:
            log.info("graphctx: re-indexed %d file(s), %d removed, in %.2f s", result.parsed, result.removed,
                     time.perf_counter() - started)

    # ---- checks

    def check(self, paths: Iterable[str], first_only: bool = False) -> tuple[list[str], bool]:
        """The indexed files among `paths` whose content on disk differs from the loaded index, and
        whether some were only touched (same bytes): their stats in the loaded graph are brought up to
        date, so answers stop flagging them (an index run that only re-stats files does not make
        the graph reload)."""
        g = self.project.graph
        changes = changed_files(Boundary(self.root), g.files, paths, first_only=first_only)
        for path, st in changes.touched:
            g.files[path]["size"], g.files[path]["mtime_ns"] = st.st_size, st.st_mtime_ns
        return changes.changed, bool(changes.touched)

    def dirty(self) -> bool:
        """Whether any indexed file's content differs from the index (a stat per file)."""
        return bool(self.check(self.project.graph.files, first_only=True)[0])

    def status(self) -> dict:
        return {
            "watching": self.watching,
            "pending_changes": self.pending,
            "index_runs": self.runs,
            "last_run_seconds_ago": round(time.monotonic() - self.last_run_at, 1) if self.last_run_at else None,
            "last_run": self.last_run.summary() if self.last_run else None,
            "last_error": self.last_error,
        }

    def warm(self) -> None:
        """Load what the first answer needs (the graph, the tokenizer, the answering code) ahead of it."""
        try:
            from graphctx.context import api  # noqa: F401  (the engine, ranking and packing)
            from graphctx.context.tokens import count

            self.project.graph
            count("warm-up")
        except Exception as exc:  # the first answer will report whatever this was
            log.debug("graphctx: warm-up failed: %s", exc)
