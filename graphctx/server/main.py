"""`graphctx serve`: check the options, bind the HTTP port and settle its token (so a bad option or a
busy port is a one-line error before any work), build the index when there is none (progress on
stderr; in stdio mode stdout carries only the protocol), then serve over stdio or streamable HTTP.
Over stdio the opening `initialize`, `tools/list` and read tool calls are answered before the MCP
SDK, the slowest import of all, loads (handshake.py, early.py); the existing index's every page is
read (a thread of SQLite's work) meanwhile; once that passes, the catch-up index run and the loading
of the graph start on their own threads, so the first answer waits for them but not for the SDK,
which loads once that answer is sent and then takes the session over."""

from __future__ import annotations

import logging
import math
import os
import sys
import threading
import time
from pathlib import Path

from graphctx.errors import GraphctxError, quote
from graphctx.project import Project
from graphctx.server.handshake import Wire
from graphctx.server.workers import DEFAULT_DEADLINE

# Hosts start servers in their own working directory; these name the project when --repo is absent.
REPO_ENV = ("GRAPHCTX_REPO", "CLAUDE_PROJECT_DIR")
# The SDK loads once the first tool call is answered on the wire, or once this long passed with none
# being answered (a host may open a session and wait).
SDK_IMPORT_IDLE_S = 1.0


def serve(repo: Path | str | None = None, *, http: bool = False, host: str | None = None, port: int | None = None,
          watch: bool = True, no_auth: bool = False, deadline: float | None = None, store: str | None = None,
          projects: list[str] | None = None, config: Path | None = None) -> int:
    """Serve the repository until interrupted. `host`, `port` and `no_auth` apply to HTTP only; a call
    still running after `deadline` seconds (default 30) is stopped and answered with an error. A
    `store`, `projects` (KEY=PATH) or a `config` file serve as a team server (teamserve.py)."""
    deadline = DEFAULT_DEADLINE if deadline is None else deadline
    check_options(http=http, host=host, port=port, no_auth=no_auth, deadline=deadline)
    if store or projects or config:
        from graphctx.server.teamserve import serve_team

        return serve_team(repo=Path(repo) if repo else None, projects=projects or [], store=store, config_path=config,
                          http=http, host=host, port=port, no_auth=no_auth, watch=watch, deadline=deadline)
    project = Project(repo or next((os.environ[v] for v in REPO_ENV if os.environ.get(v)), None))
    # Over stdio, stdin is read from now on and an opening `initialize` answered as soon as the
    # instructions are known, long before the SDK below has loaded.
    with Wire.claimed(not http) as wire:
        check = IndexCheck(project, wire)  # every page read, the instructions, then the catch-up and the warm-up
        return _serve(project, check, wire, http=http, host=host, port=port, watch=watch, no_auth=no_auth,
                      deadline=deadline)


def _serve(project: Project, check: IndexCheck, wire: Wire | None, *, http: bool, host: str | None,
           port: int | None, watch: bool, no_auth: bool, deadline: float) -> int:
    # The instructions first (an `initialize` may be waiting for them), then the first tool call,
    # answered on the wire: they and the SDK's import would only take Python's lock in turns.
    check.offered.wait()
    state = None
    if wire is not None:  # the first tools/list and read tool calls are answered before the SDK loads
        from graphctx.server.early import EarlyTools
        from graphctx.server.tools import ServerState

        state = ServerState(project.root, watch=watch, transport="stdio", deadline=deadline, project=project)
        wire.serve(EarlyTools(state, check.usable))
        wire.settled(idle=SDK_IMPORT_IDLE_S)
    import anyio

    from graphctx.server.app import build_server
    from graphctx.server.http import DEFAULT_PORT, check_address, http_token, listen, run_http
    from graphctx.server.stdio import run_stdio

    host, port = host or "127.0.0.1", DEFAULT_PORT if port is None else port
    logging.getLogger("graphctx.server").setLevel(logging.INFO)
    root = project.root
    if http:
        check_address(host, port, no_auth=no_auth)
        sock = listen(host, port)
        token = http_token(root, no_auth=no_auth)
    usable = check.usable()
    ensure_index(project, usable=usable)
    # An `initialize` answered already told the client these; the SDK must say the same.
    instructions = check.instructions if usable or (wire is not None and wire.answered) else None
    server = build_server(root, watch=watch, transport="http" if http else "stdio", deadline=deadline, project=project,
                          instructions=instructions, state=state)
    try:
        if http:
            run_http(server, sock, token)
        else:
            _say(f"serving {root} over stdio")
            anyio.run(run_stdio, server, wire)
    except KeyboardInterrupt:
        pass
    finally:
        server.graphctx_state.fresh.stop()
        server.graphctx_state.workers.shutdown()
    return 0


def check_options(*, http: bool, host: str | None, port: int | None, no_auth: bool, deadline: float) -> None:
    if not http:
        given = [name for name, value in (("--host", host), ("--port", port)) if value is not None]
        given += ["--no-auth"] if no_auth else []
        if given:
            raise GraphctxError(f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} to --http only; "
                                "add --http, or drop it")
    number = isinstance(deadline, int | float) and not isinstance(deadline, bool)
    if not number or not math.isfinite(deadline) or deadline <= 0:
        raise GraphctxError(f"--deadline must be a number of seconds above 0, such as 30; got {quote(deadline)}")


class IndexCheck:
    """The index's checks on a thread of their own. First the quick one (its tables and version) and
    the server's instructions from its facts, offered to the stdio `wire` so that it can answer
    `initialize`; then Project.index_usable(), which reads every page (SQLite's work, which leaves
    Python's lock free); a usable index then starts the catch-up and the warm-up (an unusable one is
    rebuilt first, by ensure_index)."""

    def __init__(self, project: Project, wire: Wire | None = None):
        self._usable: bool | None = None
        self.instructions: str | None = None
        self.offered = threading.Event()
        self._thread = threading.Thread(target=self._check, args=(project, wire), name="graphctx-index-check",
                                        daemon=True)
        self._thread.start()

    def _check(self, project: Project, wire: Wire | None) -> None:
        try:
            if project.has_index() and project.index_usable(thorough=False):
                from graphctx.server.instructions import build_instructions

                self.instructions = build_instructions(project.facts())
        except Exception:  # not readable as it is: ensure_index reports and rebuilds it
            self.instructions = None
        finally:
            if wire is not None:
                wire.offer(self.instructions)
            self.offered.set()
        try:
            self._usable = self.instructions is not None and project.index_usable()
        except Exception:  # ensure_index runs the check again and reports what this was
            self._usable = None
        if self._usable:
            project.freshness.start_catch_up()

    def usable(self) -> bool | None:
        """Whether the index can be used; None when the check could not tell."""
        self._thread.join()
        return self._usable


def ensure_index(project: Project, usable: bool | None = None) -> None:
    """Build the index when the repository has none, or rebuild it when the one there cannot be used
    (a first build stopped midway, another version's, a damaged file: the indexer names the problem),
    reporting progress on stderr. `usable` is the thorough check's answer when it already ran."""
    root = project.root
    if project.has_index():
        if usable if usable is not None else project.index_usable():
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

    result = project.index(progress=progress, verify=True)
    _say(f"indexed {root}: {result.summary()} ({time.perf_counter() - started:.1f} s)")


def _say(message: str) -> None:
    print(f"graphctx: {message}", file=sys.stderr, flush=True)
