"""`graphctx serve`: find the repository, build its index when there is none (progress on stderr;
in stdio mode stdout carries only the protocol), then serve over stdio or streamable HTTP."""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path

from graphctx.context import api
from graphctx.index import store
from graphctx.server.app import build_server
from graphctx.server.http import DEFAULT_PORT, run_http

# Hosts start servers in their own working directory; these name the project when --repo is absent.
REPO_ENV = ("GRAPHCTX_REPO", "CLAUDE_PROJECT_DIR")


def serve(repo: Path | str | None = None, *, http: bool = False, host: str = "127.0.0.1", port: int = DEFAULT_PORT,
          watch: bool = True) -> int:
    logging.getLogger("graphctx.server").setLevel(logging.INFO)
    root = api.find_root(repo or next((os.environ[v] for v in REPO_ENV if os.environ.get(v)), None))
    ensure_index(root)
    server = build_server(root, watch=watch, transport="http" if http else "stdio")
    try:
        if http:
            run_http(server, host, port)
        else:
            _say(f"serving {root} over stdio")
            server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.graphctx_state.fresh.stop()
    return 0


def ensure_index(root: Path) -> None:
    """Build the index when the repository has none, or rebuild it when the one there cannot be used
    (a first build stopped midway, another version's, a damaged file: the indexer names the problem),
    reporting progress on stderr."""
    if store.index_path(root).exists():
        if store.usable(store.index_path(root)):
            return
    else:
        _say(f"no index for {root} yet; building it (this happens once)")
    started = time.perf_counter()
    last = [0.0, ""]

    def progress(phase: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if phase != last[1] or (total and done == total) or now - last[0] >= 1.0:
            last[0], last[1] = now, phase
            _say(f"indexing: {phase} {done}/{total}" if total else f"indexing: {phase}")

    result = api.index(root, progress=progress, verify=True)
    _say(f"indexed {root}: {result.summary()} ({time.perf_counter() - started:.1f} s)")


def _say(message: str) -> None:
    print(f"graphctx: {message}", file=sys.stderr, flush=True)
