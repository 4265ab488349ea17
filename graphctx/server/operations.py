"""The team server's operations and access over HTTP: an ASGI guard in front of the MCP app that
answers `/healthz` (200 while the store answers, 503 when it does not; no token needed, it tells
nothing about the code) and `/metrics` (counts and latencies per tool, any valid token), checks the
Origin as the single-repository server does, and maps the bearer token to the projects it opens
(per-project tokens, or global ones for every project); once stopping, it refuses new sessions
(503) while the calls in flight finish. The grant travels to the tool call as a
request header the guard sets itself (one sent by a client is dropped). Also: the one log line per
tool call (tool, project, agent, ms, outcome) and the metrics it feeds."""

from __future__ import annotations

import hmac
import json
import logging
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping

from graphctx.server.http import _refuse, local_origin

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


class Metrics:
    """Calls, errors and latency per tool since the server started, thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.started = time.time()
        self.calls: dict[tuple[str, str], int] = defaultdict(int)  # (tool, outcome) -> count
        self.ms: dict[str, list[float]] = defaultdict(list)  # tool -> latencies (the last 10,000)
        self.in_flight = 0
        self.draining = False  # stopping: no new calls, the ones in flight finish

    def begin(self) -> None:
        with self._lock:
            self.in_flight += 1

    def end(self, tool: str, outcome: str, ms: float) -> None:
        with self._lock:
            self.in_flight -= 1
            self.calls[(tool, outcome)] += 1
            kept = self.ms[tool]
            kept.append(ms)
            if len(kept) > 10_000:
                del kept[:5_000]

    def snapshot(self) -> dict:
        with self._lock:
            tools: dict[str, dict] = {}
            for (tool, outcome), count in sorted(self.calls.items()):
                tools.setdefault(tool, {"calls": 0, "outcomes": {}})
                tools[tool]["calls"] += count
                tools[tool]["outcomes"][outcome] = count
            for tool, values in self.ms.items():
                ordered = sorted(values)
                tools[tool]["ms_p50"] = round(ordered[len(ordered) // 2], 1)
                tools[tool]["ms_p95"] = round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 1)
            return {"uptime_s": round(time.time() - self.started, 1), "in_flight": self.in_flight, "tools": tools}


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
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        origin = headers.get("origin")
        if origin is not None and not local_origin(origin):
            await _refuse(send, 403, f"origin {origin!r} is not allowed: graphctx accepts only local origins")
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
            await _answer(send, 200, self.metrics.snapshot())
            return
        if self.metrics.draining and "mcp-session-id" not in headers:  # open sessions finish what they do
            await _refuse(send, 503, "the server is stopping; retry in a moment or on another server")
            return
        kept = [(k, v) for k, v in scope.get("headers", []) if k.lower() != GRANT_HEADER]
        await self.app({**scope, "headers": [*kept, (GRANT_HEADER, grant.encode())]}, receive, send)


async def _answer(send, status: int, data: dict) -> None:
    body = json.dumps(data).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def granted(headers: Mapping[str, str] | None) -> frozenset[str] | None:
    """The projects a call may use, from the guard's header (None: every project; stdio has no header)."""
    value = (headers or {}).get(GRANT_HEADER.decode())
    if value is None or value == EVERY_PROJECT:
        return None
    return frozenset(filter(None, value.split(",")))
