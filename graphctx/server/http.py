"""Streamable HTTP: the SDK's ASGI app behind a guard, served by uvicorn. The guard refuses
requests from a browser page on another site (an Origin header that is not localhost, 127.0.0.1
or [::1]: 403, against DNS rebinding) and, when GRAPHCTX_TOKEN is set, any request without
`Authorization: Bearer <token>` (401; compared in constant time)."""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import os
import sys
from urllib.parse import urlsplit

log = logging.getLogger("graphctx.server")

TOKEN_ENV = "GRAPHCTX_TOKEN"
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
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        origin = headers.get("origin")
        if origin is not None and not local_origin(origin):
            await _refuse(send, 403, f"origin {origin!r} is not allowed: graphctx accepts only local origins")
            return
        if self.token is not None:
            scheme, _, value = headers.get("authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(), self.token):
                await _refuse(send, 401, f"missing or wrong bearer token (see {TOKEN_ENV})",
                              [(b"www-authenticate", b'Bearer realm="graphctx"')])
                return
        await self.app(scope, receive, send)


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


def run_http(server, host: str = "127.0.0.1", port: int = DEFAULT_PORT, token: str | None = None) -> None:
    """Serve `server` over streamable HTTP at http://host:port/mcp until interrupted."""
    import uvicorn

    token = token if token is not None else (os.environ.get(TOKEN_ENV) or None)
    if not is_loopback(host) and not token:
        log.warning("graphctx: listening on %s without a token: anyone who can reach this port can read the code; "
                    "set %s", host, TOKEN_ENV)
    app = Guard(server.streamable_http_app(host=host), token)
    shown = f"[{host}]" if ":" in host else host
    print(f"graphctx: serving {server.graphctx_state.root} at http://{shown}:{port}/mcp"
          + (" (bearer token required)" if token else ""), file=sys.stderr, flush=True)
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")).run()
