"""The server's file watcher: a background thread that watches the tree (watchfiles) and, after each
quiet spell, marks the change on the project's Freshness and indexes it. What an answer does about
changed files is the library's (graphctx/freshness.py); this object also answers for it, so the
server's tools call `state.fresh.sync()`, `.check(...)` and so on."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from graphctx.layout import INDEX_DIR
from graphctx.project import Project

log = logging.getLogger("graphctx.server")

IGNORED_DIRS = frozenset({
    INDEX_DIR, ".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv", "venv", ".tox", ".nox",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis",
})
STEP_MS = 50  # the watcher yields a batch once no change arrived for this long
DEBOUNCE_MS = 1600  # ... or after this long in a burst of changes


class Watcher:
    def __init__(self, project: Project, *, watch: bool = True):
        self.keeper = project.freshness
        self.root = project.root
        self.watch_enabled = watch
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __getattr__(self, name: str) -> Any:  # sync, check, settle_for_unknown, runs, pending, status...
        return getattr(self.keeper, name)

    def start(self) -> None:
        """Start watching at once, and meanwhile (other threads) run the catch-up, an incremental run
        for files that changed while no server was running (tool calls wait for it), and load the
        graph, the tokenizer and the answering code while the client is still shaking hands (unless
        `graphctx serve` started both already, while the SDK loaded: Freshness.start_catch_up)."""
        if self.watch_enabled:
            self._thread = threading.Thread(target=self._watch, name="graphctx-watch", daemon=True)
            self._thread.start()
        self.keeper.start_catch_up()

    def stop(self) -> None:
        """Stop watching. An index run in progress is let finish (it would roll back if cut short, which
        is safe but wasted); otherwise the daemon thread is not waited for."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10 if self.keeper.indexing else 0.1)

    def _watch(self) -> None:
        try:
            from watchfiles import watch

            self.keeper.watching = True
            for changes in watch(self.root, watch_filter=self._relevant, stop_event=self._stop, step=STEP_MS,
                                 debounce=DEBOUNCE_MS, raise_interrupt=False, ignore_permission_denied=True):
                if changes:
                    self.keeper.mark()
                    self.keeper.sync()
        except Exception as exc:  # a watcher that dies leaves the per-answer checks in charge
            self.keeper.last_error = f"file watcher stopped: {exc}"
            log.warning("graphctx: %s; answers still check the files they name", self.keeper.last_error)
        finally:
            self.keeper.watching = False

    def _relevant(self, _change, path: str) -> bool:
        try:
            parts = Path(path).relative_to(self.root).parts
        except ValueError:
            return False
        return bool(parts) and not any(part in IGNORED_DIRS for part in parts[:-1]) and parts[-1] not in IGNORED_DIRS
