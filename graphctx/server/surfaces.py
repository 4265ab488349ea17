"""The MCP resources (index status, file outlines, entities) and prompts (explain an entity, review a
change, onboard), each computed off the event loop under the call deadline and from a fresh index,
like the tools (ServerState in tools.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

from graphctx.errors import DeadlineExceeded, GraphctxError, NotFound
from graphctx.server.tools import item_paths

if TYPE_CHECKING:
    from graphctx.server.tools import ServerState


def register_resources(server: MCPServer, state: ServerState) -> None:
    project = state.project

    def resource(uri: str, **options: Any) -> Callable:
        def add(fn: Callable) -> Callable:
            server.resource(uri, **options)(state.off_loop(fn, _resource_refusal, what=f"reading {uri}"))
            return fn
        return add

    @resource("graphctx://status", name="status", mime_type="application/json",
              description="Index statistics (files, entities, edges by kind, languages, parse errors, age) "
                          "and the server's freshness state")
    def status() -> str:
        state.fresh.sync()
        data = _resource(lambda: project.stats()).model_dump(mode="json")
        data["server"] = state.fresh.status()
        data["sessions"] = [a.as_dict() for a in state.agents.all()]
        return json.dumps(data, indent=1)

    @resource("graphctx://file/{+path}", name="file", mime_type="text/plain",
              description="Outline of a file: its entities in line order with signatures and doc lines")
    def file_resource(path: str) -> str:
        return _resource(lambda: state.answer(lambda: project.file(path), item_paths)[1])

    @resource("graphctx://entity/{+id}", name="entity", mime_type="application/json",
              description="One entity (id path::Qualified.name) with every edge into and out of it")
    def entity_resource(id: str) -> str:
        return _resource(lambda: state.answer(lambda: (project.show(id), ""), lambda e: [e.entity.path])[0]
                         ).model_dump_json(indent=1)


def _resource_refusal(exc: DeadlineExceeded) -> Any:
    raise ResourceError(exc.message)


def _resource(compute: Callable[[], Any]) -> Any:
    try:
        return compute()
    except NotFound as exc:
        raise ResourceNotFoundError(str(exc)) from None
    except GraphctxError as exc:
        raise ResourceError(str(exc)) from None


def register_prompts(server: MCPServer, state: ServerState) -> None:
    project = state.project

    def prompt(title: str) -> Callable:
        def add(fn: Callable) -> Callable:
            server.prompt(title=title)(state.off_loop(fn, _prompt_refusal))
            return fn
        return add

    @prompt(title="Explain an entity")
    def explain_entity(entity: str) -> str:
        """Explain what an entity does, how it is used and what it relies on, from its code and neighbourhood."""
        _, text, _ = _prompt(lambda: state.answer(
            lambda: project.intent("understand", entity, token_budget=6000), item_paths))
        return (f"Explain `{entity}` in this repository: what it does, how it is used, what it relies on, and anything "
                f"surprising. Cite entity ids. Here is its context from graphctx:\n\n{text}")

    @prompt(title="Review a change")
    def review_change(files: str) -> str:
        """Review a change to some files (comma- or space-separated paths): what it can break and what to test."""
        paths = [p for p in files.replace(",", " ").split() if p]
        _, text, _ = _prompt(lambda: state.answer(
            lambda: project.impact(None, paths, token_budget=6000), item_paths))
        return (f"Review the change to {', '.join(paths)}. Using the dependents below (in tiers: 1 = direct and sure), "
                f"say what could break, which callers and tests to check, and what is missing. Dependents from "
                f"graphctx:\n\n{text}")

    @prompt(title="Onboard")
    def onboard() -> str:
        """A tour of the repository for someone new to it: structure, entry points, central code."""
        _, text, _ = _prompt(lambda: state.answer(lambda: project.session(token_budget=4000), item_paths))
        return ("Give me a tour of this repository: what it is for, how it is organised, where execution starts and "
                f"which code matters most. Here is graphctx's overview:\n\n{text}")


def _prompt_refusal(exc: DeadlineExceeded) -> Any:
    raise ValueError(exc.message)


def _prompt(compute: Callable[[], Any]) -> Any:
    try:
        return compute()
    except GraphctxError as exc:
        raise ValueError(str(exc)) from None
