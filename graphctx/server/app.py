"""The MCP server: graphctx's library API as MCP tools on the official SDK, with the wiring of the
resources and prompts (surfaces.py) and the record tools (records.py).
Thin by design: the read tools' bodies (tools.py) need no SDK type, so the very same bodies answer
the calls that come before the SDK has loaded (early.py); here each is registered with the SDK,
which builds its schema from the body's parameters. Errors a model can fix come back as isError
results carrying the message and suggestions; nothing a caller sends can take the server down.
Every tool, resource and prompt runs off the event loop under a deadline (workers.py), so no call
can hold up another."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations

from graphctx.project import Project
from graphctx.server import handshake, records, review, skills, surfaces, sync, work
from graphctx.server.agents import Caller
from graphctx.server.instructions import build_instructions
from graphctx.server.results import ToolAnswer, error_result
from graphctx.server.strict import StrictServer
from graphctx.server.tools import ServerState, read_tools
from graphctx.server.workers import DEFAULT_DEADLINE

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


def build_server(root: Path, *, watch: bool = True, transport: str = "stdio", start: bool = True,
                 deadline: float = DEFAULT_DEADLINE, storage: Any = None, project: Project | None = None,
                 instructions: str | None = None, state: ServerState | None = None) -> MCPServer:
    """An MCP server for the indexed repository at `root` (the index must exist); a call still running
    after `deadline` seconds is stopped and answered with an error saying how to ask for less.
    `storage` (a team store project, Project.open_team_store) keeps its records and work; `project`
    is the Project of `root` to serve (`graphctx serve` made it to start loading early), else a new one;
    `instructions` those built from its facts already (and sent in an early `initialize` answer);
    `state` the ServerState that answered calls before the SDK loaded, which this server takes over."""
    state = state or ServerState(root, watch=watch, transport=transport, deadline=deadline, storage=storage,
                                 project=project)
    server = StrictServer(  # every tool refuses unknown arguments and bad values in plain words
        handshake.NAME,
        title=handshake.TITLE,
        version=handshake.server_version(),
        instructions=instructions or build_instructions(state.project.facts()),
        log_level="WARNING",
    )
    server.graphctx_state = state  # type: ignore[attr-defined]  # for tests and the transports
    for body in read_tools(state):
        # One flowing paragraph (hosts show the description as is), read-only hints, and no output
        # schema: results are compact text, or structured content with a short text for format=json.
        server.add_tool(state.off_loop(sdk_tool(body), error_result), annotations=READ_ONLY, structured_output=False,
                        description=tool_description(body))
    records.register(server, state)
    work.register(server, state)
    skills.register(server, state)
    review.register(server, state)
    sync.register(server, state)
    surfaces.register_resources(server, state)
    surfaces.register_prompts(server, state)
    if start:
        state.fresh.start()
    return server


def tool_description(body: Callable) -> str:
    return " ".join(inspect.cleandoc(body.__doc__ or "").split())


def sdk_tool(body: Callable[..., ToolAnswer]) -> Callable[..., Any]:
    """`body` as the SDK calls a tool: its Caller read from the request context `ctx`, which the SDK
    fills in (and leaves out of the schema), its result the SDK's CallToolResult."""
    parameters = list(inspect.signature(body, eval_str=True).parameters.values())[1:]

    @functools.wraps(body)
    def tool(ctx: Context, **arguments: Any) -> Any:
        return body(Caller.of(ctx), **arguments).sdk()

    del tool.__wrapped__  # the SDK reads the signature below, not the body's
    context = inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Context)
    tool.__signature__ = inspect.Signature([context, *parameters])  # type: ignore[attr-defined]
    tool.__annotations__ = {"ctx": Context, **{p.name: p.annotation for p in parameters}}
    return tool
