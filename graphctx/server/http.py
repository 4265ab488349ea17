"""Streamable HTTP: the SDK's ASGI app behind a guard, served by uvicorn on a socket bound before
anything else happens (a busy port or a bad address is a one-line error, not a traceback). The
guard refuses requests from a browser page on another site (an Origin header that is not
localhost, 127.0.0.1 or [::1]: 403, against DNS rebinding) and any request without
`Authorization: Bearer <token>` (401; compared in constant time). The token is GRAPHCTX_TOKEN, else
one generated on the first start and kept in .graphctx/private/http-token (mode 0600, out of git),
so hosts registered with it keep working; only --no-auth, on loopback, serves without one."""

from __future__ import annotations

import errno
import hmac
import ipaddress
import json
import logging
import os
import secrets
import socket
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from graphctx.errors import GraphctxError, quote
from graphctx.layout import INDEX_DIR

log = logging.getLogger("graphctx.server")

TOKEN_ENV = "GRAPHCTX_TOKEN"
TOKEN_FILE = ("private", "http-token")  # under .graphctx/, whose .gitignore keeps private/ out of git
DEFAULT_PORT = 8765
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


class Guard:
    """ASGI middleware: Origin check, then bearer token check, then the wrapped app."""

    def __init__(self, app, token: str | None = None):
        self.app = app
        self.token = token.encode() if token else None

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":  # lifespan events pass through
            await self.app(scope, receive, send)
            return
        headers = request_headers(scope)
        if await refused_origin(headers, send):
            return
        if self.token is not None:
            scheme, _, value = headers.get("authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(), self.token):
                await _refuse(send, 401, f"missing or wrong bearer token (see {TOKEN_ENV})",
                              [(b"www-authenticate", b'Bearer realm="graphctx"')])
                return
        await self.app(scope, receive, send)


def request_headers(scope) -> dict[str, str]:
    """An ASGI request's headers, by lower-case name."""
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


async def refused_origin(headers: Mapping[str, str], send) -> bool:
    """Answer 403 to a request from a page on another site (against DNS rebinding): True when refused.
    Both servers' guards, the single-repository one and the team one, check the Origin here."""
    origin = headers.get("origin")
    if origin is None or local_origin(origin):
        return False
    await _refuse(send, 403, f"origin {origin!r} is not allowed: graphctx accepts only local origins")
    return True


def local_origin(origin: str) -> bool:
    try:
        parts = urlsplit(origin)
        host = parts.hostname
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not host:
        return False
    if host in LOCAL_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def _refuse(send, status: int, message: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *(extra or [])]})
    await send({"type": "http.response.body", "body": body})


def is_loopback(host: str) -> bool:
    if host in LOCAL_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


# ---- the token

@dataclass(frozen=True)
class Token:
    value: str | None  # None: --no-auth
    source: str  # "env", "file" (kept from an earlier start), "new" (generated now) or "none"
    path: Path | None = None


def token_path(root: Path) -> Path:
    return root.joinpath(INDEX_DIR, *TOKEN_FILE)


def http_token(root: Path, *, no_auth: bool = False, env: Mapping[str, str] = os.environ) -> Token:
    """The bearer token HTTP requires: GRAPHCTX_TOKEN, else the one kept for this repository, else a new
    one (kept for the next start). An empty or unusable GRAPHCTX_TOKEN is refused, never read as "no auth"."""
    given = env.get(TOKEN_ENV)
    if no_auth:
        if given is not None:
            raise GraphctxError(f"--no-auth and {TOKEN_ENV} contradict each other; unset {TOKEN_ENV} to serve "
                                "without a token, or drop --no-auth")
        return Token(None, "none")
    if given is not None:
        if not given.strip():
            raise GraphctxError(f"{TOKEN_ENV} is set but empty, which would leave the code open to every local "
                                f"process; set it to a secret (export {TOKEN_ENV}=$(openssl rand -hex 32)), or unset "
                                "it and graphctx generates one")
        if not all("!" <= ch <= "~" for ch in given):
            raise GraphctxError(f"{TOKEN_ENV} holds spaces or characters outside printable ASCII, which an HTTP "
                                "header cannot carry; use letters, digits and punctuation only")
        return Token(given, "env")
    path = token_path(root)
    kept = _read_token(path)
    if kept:
        return Token(kept, "file", path)
    return Token(_new_token(root, path), "new", path)


def _read_token(path: Path) -> str | None:
    try:
        info = path.stat()
        value = path.read_text(encoding="ascii").strip()
    except (FileNotFoundError, UnicodeDecodeError):
        return None
    except OSError as exc:
        raise GraphctxError(f"cannot read the HTTP token at {path} ({exc.strerror}); fix its permissions, delete it "
                            f"to get a new one, or set {TOKEN_ENV}") from None
    if value and info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):  # others could have read it: ours alone from now
        path.chmod(0o600)
        log.warning("graphctx: %s was readable by others; it is now readable by you only (delete it for a new "
                    "token if others may have copied it)", path)
    return value or None


def _new_token(root: Path, path: Path) -> str:
    """A random token written to `path`, readable by its owner only; if another server wrote one
    first, that one (so both agree)."""
    from graphctx.project import Project

    Project(root, find=False).prepare_folder()  # .graphctx/.gitignore lists private/
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    value = secrets.token_urlsafe(32)
    draft = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="ascii") as out:
            out.write(value + "\n")
        try:
            os.link(draft, path)  # whole or not at all, and never over a token another start just wrote
        except FileExistsError:
            kept = _read_token(path)
            if kept:
                return kept
            os.replace(draft, path)  # an empty or garbled token file: this one takes its place
        finally:
            draft.unlink(missing_ok=True)
    except OSError as exc:
        raise GraphctxError(f"cannot write the HTTP token to {path} ({exc.strerror}); set {TOKEN_ENV} instead"
                            ) from None
    return value


# ---- the socket

def check_address(host: str, port: int, *, no_auth: bool) -> None:
    """Refuse a port out of range, and --no-auth anywhere but loopback, before anything starts."""
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise GraphctxError(f"--port must be between 1 and 65535; got {quote(port)}")
    if no_auth and not is_loopback(host):
        raise GraphctxError(f"--no-auth is for loopback experiments only: on --host {quote(host)} anyone who can "
                            "reach the port could read the code; drop --no-auth (a token is then required) or "
                            "serve on 127.0.0.1")


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to host:port for the server, or a one-sentence error saying why not."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
    except (socket.gaierror, UnicodeError) as exc:
        raise GraphctxError(f"cannot listen on --host {quote(host)}: {getattr(exc, 'strerror', None) or exc}; "
                            "pass an address of this machine, such as 127.0.0.1") from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: restart while old ones linger
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise GraphctxError(f"port {port} on {host} is already in use (another graphctx serve?); stop that "
                                "server or pick another port with --port") from None
        if exc.errno == errno.EACCES:
            raise GraphctxError(f"no permission to listen on port {port} (ports below 1024 need privileges); "
                                "pick another with --port") from None
        raise GraphctxError(f"cannot listen on {host}:{port} ({exc.strerror or exc}); pass an address of this "
                            "machine with --host, such as 127.0.0.1") from None
    return sock


def url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/mcp"


def announce(root: Path, address: str, token: Token) -> None:
    """Say on stderr where the server is and how to reach it; a new token is shown this once."""
    say = lambda line: print(f"graphctx: {line}", file=sys.stderr, flush=True)  # noqa: E731
    say(f"serving {root} at {address}")
    register = f"claude mcp add --transport http graphctx {address} --header"
    if token.value is None:
        say("--no-auth: no token is required, so every process of every user on this machine can read this "
            "repository's code through that address; use it for experiments only")
    elif token.source == "env":
        say(f"requests need 'Authorization: Bearer ${TOKEN_ENV}'; register with: "
            f'{register} "Authorization: Bearer ${TOKEN_ENV}"')
    elif token.source == "new":
        say(f"requests need a bearer token; this one was generated and saved, readable by you only, in {token.path} "
            f"(reused on the next start):\n\n    {token.value}\n")
        say(f'register with: {register} "Authorization: Bearer {token.value}"')
    else:
        say(f"requests need the bearer token saved in {token.path}; register with: "
            f'{register} "Authorization: Bearer $(cat {token.path})"')


def run_http(server, sock: socket.socket, token: Token) -> None:
    """Serve `server` over streamable HTTP on the bound socket until interrupted."""
    import uvicorn

    host, port = sock.getsockname()[:2]
    app = Guard(server.streamable_http_app(host=host), token.value)
    announce(server.graphctx_state.root, url(host, port), token)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])
