"""Keeps the index as fresh as the files an answer names. A background thread watches the tree
(watchfiles) and re-indexes changed files incrementally after each quiet spell; every tool call
first waits for changes the watcher has seen, and after answering checks the files the answer
names against the disk: a changed one triggers an index run and a second answer, and if it is
still out of date the answer says so."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from graphctx.graph.loader import GRAPHS
from graphctx.index import store
from graphctx.index.indexer import IndexResult, index_repository
from graphctx.index.root import Boundary
from graphctx.layout import INDEX_DIR

log = logging.getLogger("graphctx.server")

IGNORED_DIRS = frozenset({
    INDEX_DIR, ".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv", "venv", ".tox", ".nox",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis",
})
STEP_MS = 50  # the watcher yields a batch once no change arrived for this long
DEBOUNCE_MS = 1600  # ... or after this long in a burst of changes
MIN_RETRY_SECONDS = 1.0  # without a watcher, an unknown name re-indexes at most this often
SETTLE_SECONDS = 0.25  # with one, an unknown name waits this long for news of a change


class Freshness:
    def __init__(self, root: Path, *, watch: bool = True):
        self.root = Path(root).resolve()
        self.watch_enabled = watch
        self._lock = threading.Lock()  # one index run at a time
        self._state = threading.Lock()  # guards the counters
        self._seen = 0  # change batches the watcher reported (plus forced runs)
        self._done = 0  # batches covered by a finished index run
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.runs = 0
        self.last_run: IndexResult | None = None
        self.last_run_at: float | None = None
        self.last_error: str | None = None
        self.watching = False

    # ---- lifecycle

    def start(self, catch_up: bool = True) -> None:
        """Start watching at once, and meanwhile (another thread) run the catch-up: an incremental run
        for files that changed while no server was running (tool calls wait for it), then load the
        graph and the tokenizer while the client is still shaking hands."""
        if catch_up:
            self._mark()
        if self.watch_enabled:
            self._thread = threading.Thread(target=self._watch, name="graphctx-watch", daemon=True)
            self._thread.start()
        threading.Thread(target=self._catch_up, name="graphctx-catch-up", daemon=True).start()

    def stop(self) -> None:
        """Stop watching. An index run in progress is let finish (it would roll back if cut short, which
        is safe but wasted); otherwise the daemon thread is not waited for."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10 if self._lock.locked() else 0.1)

    def _catch_up(self) -> None:
        self.sync()
        _warm(self.root)

    def _watch(self) -> None:
        try:
            from watchfiles import watch

            self.watching = True
            for changes in watch(self.root, watch_filter=self._relevant, stop_event=self._stop, step=STEP_MS,
                                 debounce=DEBOUNCE_MS, raise_interrupt=False, ignore_permission_denied=True):
                if changes:
                    self._mark()
                    self.sync()
        except Exception as exc:  # a watcher that dies leaves the per-answer checks in charge
            self.last_error = f"file watcher stopped: {exc}"
            log.warning("graphctx: %s; answers still check the files they name", self.last_error)
        finally:
            self.watching = False

    def _relevant(self, _change, path: str) -> bool:
        try:
            parts = Path(path).relative_to(self.root).parts
        except ValueError:
            return False
        return bool(parts) and not any(part in IGNORED_DIRS for part in parts[:-1]) and parts[-1] not in IGNORED_DIRS

    # ---- index runs

    def _mark(self) -> None:
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
        """Bring the index up to date with every change seen so far (waits for a run in progress)."""
        if not self.pending:
            return
        with self._lock:
            target = self._seen
            if self._done >= target:
                return
            self._run()
            self._done = max(self._done, target)

    def reindex(self) -> None:
        """An incremental run now, whatever the watcher has seen."""
        self._mark()
        self.sync()

    def settle_for_unknown(self) -> bool:
        """Before saying a name does not exist: it may have been written a moment ago. Wait briefly for
        the watcher to report a change (it reports within about STEP_MS of the last write) and index
        it; failing that, index if an indexed file differs from the disk (the watcher may have missed
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
        started = time.perf_counter()
        try:
            # Serial parsing: forking worker processes from a threaded server is not safe.
            result = index_repository(self.root, workers=1)
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
        g = GRAPHS.get(self.root)
        conn = GRAPHS.connection(self.root)
        stale: list[str] = []
        refreshed = False
        for path in dict.fromkeys(paths):
            known = g.files.get(path)
            if known is None:
                continue
            try:
                st = os.stat(self.root / path)
            except OSError:
                stale.append(path)
                continue
            if (st.st_size, st.st_mtime_ns) == (known["size"], known["mtime_ns"]):
                continue
            if self._same_content(conn, g.generation, path):
                known["size"], known["mtime_ns"] = st.st_size, st.st_mtime_ns
                refreshed = True
                continue
            stale.append(path)
            if first_only:
                break
        return stale, refreshed

    def dirty(self) -> bool:
        """Whether any indexed file's content differs from the index (a stat per file)."""
        return bool(self.check(GRAPHS.get(self.root).files, first_only=True)[0])

    def _same_content(self, conn, generation: int, path: str) -> bool:
        """Whether the file's bytes are the ones the loaded generation indexed (the index hashes content)."""
        row = conn.execute("SELECT hash FROM files WHERE path=?", (path,)).fetchone()
        if not row or store.generation(conn) != generation:
            return False
        try:
            data = Boundary(self.root).read_bytes(path)
        except OSError:
            return False
        return store.content_hash(data) == row[0]

    def status(self) -> dict:
        return {
            "watching": self.watching,
            "pending_changes": self.pending,
            "index_runs": self.runs,
            "last_run_seconds_ago": round(time.monotonic() - self.last_run_at, 1) if self.last_run_at else None,
            "last_run": self.last_run.summary() if self.last_run else None,
            "last_error": self.last_error,
        }


def _warm(root: Path) -> None:
    """Load what the first answer needs (the graph, the tokenizer) ahead of it."""
    try:
        from graphctx.context.tokens import count

        GRAPHS.get(root)
        count("warm-up")
    except Exception as exc:  # the first answer will report whatever this was
        log.debug("graphctx: warm-up failed: %s", exc)
