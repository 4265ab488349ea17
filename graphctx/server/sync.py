"""The `sync` tool: git sync of the team's memory (.graphctx/), grouped by an `action` (status, push,
pull, conflicts, show, resolve, finalize) over Project.work.sync; show, resolve and finalize are the
agent strategy's tools for what a pull could not merge."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult
from pydantic import Field

from graphctx.errors import InvalidRequest
from graphctx.server.records import as_json
from graphctx.server.work import AgentId, Fmt, acting, check_action, tool_adder

SYNC_ARGS = {
    "status": set(), "push": set(), "pull": {"strategy"}, "conflicts": set(), "show": {"path"},
    "resolve": {"path", "take", "content"}, "finalize": set(),
}
REQUIRED = {("sync", "show"): ("path",), ("sync", "resolve"): ("path",)}


def register(server: MCPServer, state: Any) -> None:
    project = state.project
    text = project.work_text
    tool, act = tool_adder(server, state), acting(state)

    @tool
    def sync(
        ctx: Context,
        action: Annotated[Literal["status", "push", "pull", "conflicts", "show", "resolve", "finalize"], Field(
            description="status: ahead/behind and uncommitted memory files; push: commit the memory files and push; "
                        "pull: commit them, then merge the upstream; conflicts: files a pull left; show one with base, "
                        "ours, theirs and the conflicting fields or sections; resolve it; finalize: commit the merge")],
        strategy: Annotated[Literal["ours", "theirs", "agent"], Field(
            description="pull: where both sides changed one field or section, take ours, theirs, or leave it to you "
                        "(agent, the default: then conflicts, show, resolve, finalize)")] = "agent",
        path: Annotated[str | None, Field(description="show, resolve: the conflicted file (as conflicts lists it)")] = None,
        take: Annotated[Literal["ours", "theirs"] | None, Field(
            description="resolve: merge the file taking this side where both changed")] = None,
        content: Annotated[str | None, Field(description="resolve: the resolved file's whole text instead")] = None,
        format: Fmt = "compact",
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Share the team's memory (records, tasks, skills, runs under .graphctx/) through git: push commits those
        files alone and pushes; pull merges records field by field and Markdown section by section, and leaves only
        what both sides changed differently, which you settle with show and resolve, then finalize."""
        given = dict(strategy=None if strategy == "agent" else strategy, path=path, take=take, content=content)

        def answer(me: str) -> CallToolResult | str:
            check_action("sync", action, SYNC_ARGS, given, REQUIRED)
            sync = project.work.sync
            if sync is None:
                raise InvalidRequest("this project has no folder to sync")
            if action == "status":
                status = sync.status()
                return as_json(status, "sync status") if format == "json" else text.sync_status_text(status)
            if action in ("push", "pull", "finalize"):
                result = sync.push() if action == "push" else sync.pull(strategy) if action == "pull" else sync.finalize()
                line = "\n".join([result.message, *result.conflicts])
                return as_json(result, result.message) if format == "json" else line
            if action == "conflicts":
                found = sync.conflicts()
                return "\n".join(found) if found else "nothing is conflicted"
            if action == "show":
                conflict = sync.show(path)
                return as_json(conflict, conflict.path) if format == "json" else text.conflict_text(conflict)
            return sync.resolve(path, take=take, content=content)

        return act(ctx, agent_id, answer)
