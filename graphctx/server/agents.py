"""Who is asking: the MCP client's name and version (from its initialize request, or the request
envelope on newer protocol versions) and an `agent_id` the agent may give itself, kept per session
so later features (authorship of records) can say who wrote what."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

MAX_SESSIONS = 1000  # the oldest sessions are forgotten beyond this many


@dataclass
class Agent:
    session: str
    client_name: str | None = None
    client_version: str | None = None
    agent_id: str | None = None
    first_seen: float = field(default_factory=time.time)
    last_seen: float = field(default_factory=time.time)
    calls: int = 0

    @property
    def identity(self) -> str | None:
        """The name records will carry: the agent's own id, else the client's name and version; None
        when the client gave neither (the record store then signs with the git user)."""
        if self.agent_id:
            return self.agent_id
        if self.client_name:
            return f"{self.client_name}/{self.client_version}" if self.client_version else self.client_name
        return None

    @property
    def label(self) -> str:
        return self.identity or "unknown"

    def as_dict(self) -> dict[str, Any]:
        return {"session": self.session, "label": self.label, "client_name": self.client_name,
                "client_version": self.client_version, "agent_id": self.agent_id, "calls": self.calls}


@dataclass(frozen=True)
class Caller:
    """Who sent a request: the client's name and version from its initialize request, and the HTTP
    session id when there is one. `Caller.of(ctx)` reads them from the SDK's request context; a call
    answered before the SDK loaded (early.py) makes one from the initialize request it answered."""

    client_name: str | None = None
    client_version: str | None = None
    session_id: str | None = None

    @classmethod
    def of(cls, ctx: Any) -> Caller:
        return cls(*_client_info(ctx), _session_id(ctx))


class Agents:
    """Agents by session key. The key is the streamable HTTP session id when there is one; otherwise
    (stdio, in-process, stateless HTTP) the transport and the client's name and version, since a stdio
    server has one client."""

    def __init__(self, transport: str = "stdio"):
        self.transport = transport
        self._by_session: dict[str, Agent] = {}
        self._lock = threading.Lock()

    def identify(self, ctx: Any, agent_id: str | None = None) -> Agent:
        return self.identify_caller(Caller.of(ctx), agent_id)

    def identify_caller(self, caller: Caller, agent_id: str | None = None) -> Agent:
        name, version = caller.client_name, caller.client_version
        key = caller.session_id or f"{self.transport}:{name or '?'}/{version or '?'}"
        with self._lock:
            agent = self._by_session.get(key)
            if agent is None:
                if len(self._by_session) >= MAX_SESSIONS:
                    oldest = min(self._by_session.values(), key=lambda a: a.last_seen)
                    del self._by_session[oldest.session]
                agent = self._by_session[key] = Agent(key, name, version)
            agent.client_name = agent.client_name or name
            agent.client_version = agent.client_version or version
            if agent_id:
                agent.agent_id = agent_id.strip()[:200] or agent.agent_id
            agent.last_seen = time.time()
            agent.calls += 1
            return agent

    def all(self) -> list[Agent]:
        with self._lock:
            return list(self._by_session.values())


def _client_info(ctx: Any) -> tuple[str | None, str | None]:
    try:
        params = ctx.session.client_params
        info = params.client_info if params else None
    except Exception:  # no request context (a direct call) or an unexpected session shape
        return None, None
    return (info.name, info.version) if info else (None, None)


def _session_id(ctx: Any) -> str | None:
    try:
        headers = ctx.headers
    except Exception:
        return None
    value = headers.get("mcp-session-id") if headers else None
    return f"http:{value}" if value else None
