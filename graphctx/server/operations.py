"""The team server's operations and access over HTTP: an ASGI guard in front of the MCP app that
answers `/healthz` (200 while the store answers, 503 when it does not; no token needed, it tells
nothing about the code) and `/metrics` (counts and latencies per project and tool, as JSON or
Prometheus text; any valid token), checks the Origin with the single-repository server's check
(http.refused_origin), and maps the bearer token to the projects it opens (per-project tokens, or
global ones for every project); once stopping, it refuses new sessions (503) while the calls in
flight finish. The grant travels to the tool call as a request header the guard sets itself (one
sent by a client is dropped). Also: the one log line per tool call (tool, project, agent, ms,
outcome)."""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Callable, Iterable, Mapping

from graphctx.server.http import _refuse, refused_origin, request_headers
from graphctx.server.metrics import Metrics, wants_prometheus

log = logging.getLogger("graphctx.server.requests")

GRANT_HEADER = b"x-graphctx-grant"  # set by the guard: the projects the caller's token opens, or *
EVERY_PROJECT = "*"


class Grants:
    """token -> the project keys it opens (None: every project)."""

    def __init__(self, global_tokens: Iterable[str], project_tokens: Mapping[str, Iterable[str]]):
        self._entries: list[tuple[bytes, frozenset[str] | None]] = [(t.encode(), None) for t in global_tokens]
        for key, tokens in project_tokens.items():
            self._entries += [(t.encode(), frozenset({key})) for t in tokens]

    def lookup(self, token: str) -> tuple[bool, frozenset[str] | None]:
        """(known, projects); compares against every entry in constant time each, so timing says nothing."""
        given, opened, known = token.encode(), set(), False
        every = False
        for value, projects in self._entries:
            if hmac.compare_digest(given, value):
                known = True
                if projects is None:
                    every = True
                else:
                    opened |= projects
        return known, None if every else frozenset(opened)


def log_call(tool: str, project: str, agent: str, ms: float, outcome: str) -> None:
    log.info("call tool=%s project=%s agent=%s ms=%.1f outcome=%s", _word(tool), _word(project), _word(agent), ms,
             outcome)


def _word(value: object) -> str:
    """A caller's value as one short token for the log: no spaces or control characters to forge lines."""
    text = "".join(ch if ch.isprintable() and not ch.isspace() else "_" for ch in str(value))[:80]
    return text or "-"


class TeamGuard:
    """ASGI middleware: /healthz, Origin check, bearer token -> grant header, /metrics, then the app."""

    def __init__(self, app, grants: Grants | None, healthy: Callable[[], bool], metrics: Metrics):
        self.app, self.grants, self.healthy, self.metrics = app, grants, healthy, metrics

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = request_headers(scope)
        if await refused_origin(headers, send):
            return
        if scope.get("path") == "/healthz":
            import anyio.to_thread

            ok = await anyio.to_thread.run_sync(self.healthy)
            await _answer(send, 200 if ok else 503, {"status": "ok" if ok else "store unreachable", "store": ok})
            return
        grant = EVERY_PROJECT
        if self.grants is not None:
            scheme, _, value = headers.get("authorization", "").partition(" ")
            known, projects = self.grants.lookup(value.strip()) if scheme.lower() == "bearer" else (False, None)
            if not known:
                await _refuse(send, 401, "missing or wrong bearer token (see GRAPHCTX_TOKEN and the project tokens)",
                              [(b"www-authenticate", b'Bearer realm="graphctx"')])
                return
            grant = EVERY_PROJECT if projects is None else ",".join(sorted(projects))
        if scope.get("path") == "/metrics":
            if wants_prometheus(scope.get("query_string", b"").decode("latin-1"), headers.get("accept", "")):
                await _send(send, 200, self.metrics.prometheus().encode(), b"text/plain; version=0.0.4; charset=utf-8")
            else:
                await _answer(send, 200, self.metrics.snapshot())
            return
        if self.metrics.draining and "mcp-session-id" not in headers:  # open sessions finish what they do
            await _refuse(send, 503, "the server is stopping; retry in a moment or on another server")
            return
        kept = [(k, v) for k, v in scope.get("headers", []) if k.lower() != GRANT_HEADER]
        await self.app({**scope, "headers": [*kept, (GRANT_HEADER, grant.encode())]}, receive, send)


async def _answer(send, status: int, data: dict) -> None:
    await _send(send, status, json.dumps(data).encode(), b"application/json")


async def _send(send, status: int, body: bytes, content_type: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def granted(headers: Mapping[str, str] | None) -> frozenset[str] | None:
    """The projects a call may use, from the guard's header (None: every project; stdio has no header)."""
    value = (headers or {}).get(GRANT_HEADER.decode())
    if value is None or value == EVERY_PROJECT:
        return None
    return frozenset(filter(None, value.split(",")))
