"""`graphctx serve --project KEY=PATH ... [--store postgresql://...] [--config FILE]`: the team server's
start. It reads the projects (and optionally the store, the tokens, host and port) from the options
or a TOML file, opens the store (migrating its schema), indexes each project that needs it, and
serves them all over one endpoint (team.py) until interrupted; a stop (Ctrl-C, SIGTERM) lets the
calls in flight finish first. Tokens never come from the command line: the global one is
$GRAPHCTX_TOKEN (else the first project's kept or generated token, as for one repository), a
project's own tokens are $GRAPHCTX_TOKEN_<KEY> (upper case, other characters as _) or the file's."""

from __future__ import annotations

import logging
import os
import re
import sys
import threading
import time
import tomllib
from pathlib import Path
from typing import Any

import anyio

from graphctx.errors import GraphctxError
from graphctx.project import Project
from graphctx.server.app import build_server
from graphctx.server.http import DEFAULT_PORT, TOKEN_ENV, check_address, http_token, listen, url
from graphctx.server.operations import Grants, TeamGuard
from graphctx.server.stdio import run_stdio
from graphctx.server.team import TeamServer

KEY = re.compile(r"[a-z0-9][a-z0-9_.-]{0,62}")


def project_token_env(key: str) -> str:
    return f"{TOKEN_ENV}_{re.sub(r'[^A-Z0-9]', '_', key.upper())}"


def read_config(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise GraphctxError(f"cannot read the server configuration {path} ({exc.strerror}); check the path") from None
    except tomllib.TOMLDecodeError as exc:
        raise GraphctxError(f"the server configuration {path} is not valid TOML ({exc}); fix it") from None


def projects_from(options: list[str], config: dict[str, Any], repo: Path | None) -> dict[str, tuple[Path, list[str]]]:
    """key -> (root, its tokens from the file), from --project KEY=PATH, the file's [projects.KEY], or the repository."""
    found: dict[str, tuple[Path, list[str]]] = {}
    for key, table in (config.get("projects") or {}).items():
        if not isinstance(table, dict) or "path" not in table:
            raise GraphctxError(f"[projects.{key}] in the configuration needs path = \"/abs/path/to/repo\"")
        found[key] = (Path(table["path"]), [str(t) for t in table.get("tokens", [])])
    for option in options:
        key, sep, path = option.partition("=")
        if not sep or not path:
            raise GraphctxError(f"--project takes KEY=PATH, such as --project api=/srv/api; got {option!r}")
        if key in found:
            raise GraphctxError(f"project {key!r} is named twice; give each project one key")
        found[key] = (Path(path), [])
    if not found:
        root = Project(repo, ephemeral=False).root
        found[re.sub(r"[^a-z0-9_.-]+", "-", root.name.lower()).strip("-.") or "default"] = (root, [])
    for key, (root, _) in found.items():
        if not KEY.fullmatch(key):
            raise GraphctxError(f"project key {key!r}: use 1-63 lower-case letters, digits, '.', '_' or '-'")
        if not root.is_dir():
            raise GraphctxError(f"project {key}: {root} is not a folder; pass the repository's path")
    return found


def serve_team(*, repo: Path | None, projects: list[str], store: str | None, config_path: Path | None, http: bool,
               host: str | None, port: int | None, no_auth: bool, watch: bool, deadline: float) -> int:
    from graphctx.server.main import ensure_index

    config = read_config(config_path) if config_path else {}
    hosted = projects_from(projects, config, repo)
    store_url = store or config.get("store")
    host = host or config.get("host") or "127.0.0.1"
    port = port if port is not None else int(config.get("port", DEFAULT_PORT))
    logging.getLogger("graphctx.server").setLevel(logging.INFO)
    if http:
        check_address(host, port, no_auth=no_auth)
        sock = listen(host, port)
        grants = None if no_auth else _grants(hosted, config)
    team_store = Project.open_team_store(store_url) if store_url else None
    servers = {}
    try:
        for key, (root, _) in hosted.items():
            project = Project(root, ephemeral=False, find=False)
            ensure_index(project)
            servers[key] = build_server(project.root, watch=watch, transport="http" if http else "stdio",
                                        deadline=deadline, storage=team_store.project(key) if team_store else None)
        server = TeamServer(servers, team_store)
    except BaseException:
        for built in servers.values():
            built.graphctx_state.fresh.stop()
        if team_store is not None:
            team_store.close()
        raise
    where = f"records and work in {team_store.where}" if team_store else "records and work in each repository's files"
    _say(f"serving {len(servers)} project(s): " + ", ".join(f"{k}={r}" for k, (r, _) in hosted.items()) + f"; {where}")
    try:
        if http:
            _run_http(server, sock, grants, team_store)
        else:
            anyio.run(run_stdio, server)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


def _grants(hosted: dict[str, tuple[Path, list[str]]], config: dict[str, Any]) -> Grants:
    global_tokens = [str(t) for t in config.get("tokens", [])]
    if not global_tokens or os.environ.get(TOKEN_ENV) is not None:
        first_root = next(iter(hosted.values()))[0]
        token = http_token(first_root)  # $GRAPHCTX_TOKEN, else kept or generated as for one repository
        global_tokens.append(token.value)
        if token.source == "new":
            _say(f"a global token was generated and saved in {token.path}:\n\n    {token.value}\n")
        elif token.source == "file":
            _say(f"the global token is the one saved in {token.path}")
    per_project = {}
    for key, (_, tokens) in hosted.items():
        named = os.environ.get(project_token_env(key), "").strip()
        per_project[key] = tokens + ([named] if named else [])
    return Grants(global_tokens, per_project)


def _run_http(server: TeamServer, sock, grants: Grants | None, team_store: Any) -> None:
    import uvicorn

    host, port = sock.getsockname()[:2]
    healthy = team_store.reachable if team_store is not None else (lambda: True)
    app = TeamGuard(server.streamable_http_app(host=host), grants, healthy, server.metrics)
    _say(f"at {url(host, port)}; health at /healthz, metrics at /metrics; per-project tokens: "
         + ", ".join(project_token_env(k) for k in server.servers))
    grace = server.servers[server.default].graphctx_state.workers.seconds + 5
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on", timeout_graceful_shutdown=2)
    Draining(config, server.metrics, grace).run(sockets=[sock])


class Draining:
    """uvicorn's server, stopped gracefully: the first Ctrl-C or SIGTERM refuses new requests (the guard
    answers 503) and waits up to `grace` seconds for the calls in flight to be answered, then stops
    uvicorn (whose own shutdown would cut the MCP streams of calls still running); a second signal
    stops at once."""

    def __new__(cls, config, metrics, grace: float):
        import uvicorn

        class Server(uvicorn.Server):
            def handle_exit(self, sig, frame) -> None:
                if metrics.draining:
                    super().handle_exit(sig, frame)
                    return
                metrics.draining = True
                _say(f"stopping: {metrics.in_flight} call(s) in flight finish first (up to {grace:g} s; again to stop now)")
                threading.Thread(target=self._drain, daemon=True).start()

            def _drain(self) -> None:
                limit = time.monotonic() + grace
                while metrics.in_flight > 0 and time.monotonic() < limit:
                    time.sleep(0.05)
                self.should_exit = True

        return Server(config)


def _say(message: str) -> None:
    print(f"graphctx: {message}", file=sys.stderr, flush=True)
