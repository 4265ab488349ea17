"""The team server: one MCP endpoint for several repositories, each a project with a key, their
records and coordination in the team store (PostgreSQL). Each project is served by its own server
(app.build_server, with its watcher and index); this one publishes their tools with an optional
`project` argument (default: the first project) and `projects` + `cross_domain_decay` on the
federated tools, checks that the caller's token opens every project the call names, hands the call
to that project's server, adds what the other projects contribute (federation.py), and logs one
line per call with its metrics."""

from __future__ import annotations

import difflib
import time
from collections.abc import Mapping
from typing import Any

from mcp.server.mcpserver.exceptions import ResourceError
from mcp_types import Tool

from graphctx.errors import GraphctxError
from graphctx.server import federation
from graphctx.server.results import error_result, internal_error
from graphctx.server.operations import Metrics, granted, log_call
from graphctx.server.strict import StrictServer, refusal

FEDERATED = ("get_context", "search", "get_impact")
PROJECT_ARGUMENT = {"type": "string", "description": "the project to ask (a key this server hosts; default: the first)"}
PROJECTS_ARGUMENT = {"type": "array", "items": {"type": "string"},
                     "description": "other projects to bring in: their entities linked to this answer (where one "
                                    "project imports the other's package or calls its HTTP routes), labelled "
                                    "with their project"}
DECAY_ARGUMENT = {"type": "number", "minimum": 0, "maximum": 1, "default": 0.5,
                  "description": "how much an entity from another project counts (0-1) against one of this project"}


class TeamServer(StrictServer):
    """Routes each call to its project's server; resources and prompts are the first project's."""

    def __init__(self, servers: Mapping[str, Any], store: Any, **options: Any):
        self.servers = dict(servers)
        self.default = next(iter(self.servers))
        self.store = store
        self.metrics = Metrics()
        first = self.servers[self.default]
        keys = ", ".join(self.servers)
        super().__init__("graphctx", title="graphctx team server", version=first.version,
                         instructions=f"{first.instructions}\n\nThis server hosts the projects {keys}: every tool takes "
                                      f"`project` (default {self.default}); get_context and search take `projects` "
                                      "to bring in linked code from other projects.", log_level="WARNING", **options)

    def project_states(self) -> dict[str, Any]:
        return {key: server.graphctx_state for key, server in self.servers.items()}

    async def list_tools(self) -> list[Tool]:
        tools = await self.servers[self.default].list_tools()
        for tool in tools:
            properties = tool.input_schema.setdefault("properties", {})
            properties["project"] = dict(PROJECT_ARGUMENT)
            if tool.name in FEDERATED:
                properties["projects"] = dict(PROJECTS_ARGUMENT)
            if tool.name in ("get_context", "search"):
                properties["cross_domain_decay"] = dict(DECAY_ARGUMENT)
        return tools

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        started = time.perf_counter()
        self.metrics.begin()
        arguments = dict(arguments)
        key = arguments.pop("project", None) or self.default
        agent = str(arguments.get("agent_id") or arguments.get("agent") or _client_name(context) or "")
        outcome = "error"
        try:
            result = await self._call(name, key, arguments, context)
            outcome = "error" if getattr(result, "is_error", False) else "ok"
            return result
        finally:
            ms = (time.perf_counter() - started) * 1000
            self.metrics.end(name, outcome, ms, key if key in self.servers else "(unknown)")
            log_call(name, key, agent, ms, outcome)

    async def _call(self, name: str, key: str, arguments: dict[str, Any], context: Any) -> Any:
        others = arguments.pop("projects", None) if name in FEDERATED else None
        decay = arguments.pop("cross_domain_decay", None) if name in ("get_context", "search") else None
        allowed = granted(getattr(context, "headers", None) if context is not None else None)
        problem = self._refused(key, allowed) or next(
            (p for other in (others or []) if (p := self._refused(other, allowed))), None)
        if problem:
            return refusal(problem)
        if others is not None and (not isinstance(others, list) or not all(isinstance(o, str) for o in others)):
            return refusal("projects must be a list of project keys, such as [\"web\"]")
        if decay is not None and (isinstance(decay, bool) or not isinstance(decay, int | float) or not 0 <= decay <= 1):
            return refusal(f"cross_domain_decay must be a number between 0 and 1; got {str(decay)[:40]}")
        others = [o for o in dict.fromkeys(others or []) if o != key]
        asked = federation.home_arguments(name, arguments) if others else arguments
        result = await self.servers[key].call_tool(name, asked, context)
        if not others or getattr(result, "is_error", False):
            return result
        states = self.project_states()
        try:
            return await federation.extend(name, result, arguments, states[key], {o: states[o] for o in others},
                                           key, 0.5 if decay is None else float(decay))
        except GraphctxError as exc:
            return error_result(exc)
        except Exception as exc:  # a bug in the federated part: said so, the call still answered
            return internal_error(exc)

    def _refused(self, key: Any, allowed: frozenset[str] | None) -> str | None:
        if not isinstance(key, str) or key not in self.servers:
            close = difflib.get_close_matches(str(key), list(self.servers), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            return f"no project {str(key)[:80]!r} on this server{hint}; it hosts {', '.join(self.servers)}"
        if allowed is not None and key not in allowed:
            return (f"your token does not open project {key!r}; use a token for {key} or a global one "
                    f"(yours opens {', '.join(sorted(allowed)) or 'no project'})")
        return None

    # Resources and prompts: the default project's, for a token that opens it.
    async def list_resources(self):
        return await self.servers[self.default].list_resources()

    async def list_resource_templates(self):
        return await self.servers[self.default].list_resource_templates()

    async def read_resource(self, uri: Any, context: Any = None):
        if problem := self._default_refused(context):
            raise ResourceError(problem)
        return await self.servers[self.default].read_resource(uri, context)

    async def list_prompts(self):
        return await self.servers[self.default].list_prompts()

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None, context: Any = None):
        if problem := self._default_refused(context):
            raise ValueError(problem)
        return await self.servers[self.default].get_prompt(name, arguments, context)

    def _default_refused(self, context: Any) -> str | None:
        problem = self._refused(self.default, granted(getattr(context, "headers", None) if context else None))
        return f"{problem} (resources and prompts are project {self.default}'s)" if problem else None

    def stop(self) -> None:
        for server in self.servers.values():
            server.graphctx_state.fresh.stop()
            server.graphctx_state.workers.shutdown()
            server.graphctx_state.project.close()
        if self.store is not None:
            self.store.close()


def _client_name(context: Any) -> str | None:
    try:
        info = context.session.client_params.client_info
        return f"{info.name}/{info.version}"
    except Exception:  # noqa: BLE001 - no session (a direct call): no client name
        return None

