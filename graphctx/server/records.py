"""The record tools: remember, decide, recall, revise and verify, over the same RecordStore the
context answers read (one per repository per process), so what an agent writes shows up at once
beside the code it is about. The author of a write is the session's agent identity."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from graphctx.context.anchored import store_for
from graphctx.errors import GraphctxError, InvalidRequest
from graphctx.records import StaleVersion, WriteResult

WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
REVISES = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)
READS = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

Anchors = Annotated[list[str], Field(description="entity ids (path::Qualified.name) or file paths the record is about")]
Scope = Annotated[Literal["shared", "private", "ephemeral"], Field(
    description="shared: committed with the code; private: this clone only; ephemeral: this server only")]
AgentId = Annotated[str | None, Field(description="optional: a name for yourself, kept for this session")]


class KnowledgeEntry(BaseModel):
    title: str
    body: str = Field(description="Markdown")
    type: Literal["note", "convention", "fact", "how-to", "pitfall"] = "note"
    category: str = Field("general", description="dotted, e.g. infra.database")
    key: str | None = Field(None, description="unique within the category: writing the same key updates the record")
    confidence: float = Field(1.0, ge=0.0, le=1.0)
    tags: list[str] = Field(default_factory=list)
    refs: list[str] = Field(default_factory=list, description="URLs or paths")
    anchors: list[str] = Field(default_factory=list, description="entity ids or file paths the record is about")


def register(server: MCPServer, state: Any, error_result: Callable[[GraphctxError], CallToolResult]) -> None:
    root = state.root

    def tool(annotations: ToolAnnotations) -> Callable:
        def add(fn: Callable) -> Callable:
            server.add_tool(fn, description=" ".join(inspect.cleandoc(fn.__doc__ or "").split()),
                            annotations=annotations, structured_output=False)
            return fn
        return add

    def run(ctx: Context, agent_id: str | None, action: Callable[[str], str]) -> CallToolResult:
        author = state.agents.identify(ctx, agent_id).label
        try:
            state.fresh.sync()  # anchors and staleness are judged against an index as new as the files
            return CallToolResult(content=[TextContent(type="text", text=action(author))])
        except StaleVersion as exc:
            result = error_result(exc)
            result.content.append(TextContent(type="text", text=f"current record:\n{exc.current.model_dump_json()}"))
            return result
        except GraphctxError as exc:
            return error_result(exc)

    @tool(WRITES)
    def remember(ctx: Context, entries: Annotated[list[KnowledgeEntry], Field(min_length=1, max_length=100)],
                 scope: Scope = "shared", agent_id: AgentId = None) -> CallToolResult:
        """Write knowledge worth keeping (a note, convention, fact, how-to or pitfall), one or many at once,
        anchored to the entities it is about: it will show up with that code and be flagged when it changes.
        The same category and key updates a record instead of adding one."""
        return run(ctx, agent_id, lambda author: "\n".join(
            _written(r) for r in store_for(root).remember([e.model_dump() for e in entries], scope=scope, author=author)))

    @tool(WRITES)
    def decide(ctx: Context, title: str, decision: str, context: str = "", consequences: str = "",
               status: Literal["proposed", "accepted", "rejected", "superseded", "deprecated"] = "accepted",
               supersedes: Annotated[list[str], Field(description="ids of decisions this one replaces")] = [],  # noqa: B006
               tags: list[str] = [], anchors: Anchors = [], scope: Scope = "shared",  # noqa: B006
               agent_id: AgentId = None) -> CallToolResult:
        """Record a design decision (ADR style) anchored to the code it governs; pass `supersedes` to replace
        earlier decisions in the same write."""
        return run(ctx, agent_id, lambda author: _written(store_for(root).decide(
            title, decision, context=context, consequences=consequences, status=status, supersedes=supersedes,
            tags=tags, anchors=anchors, scope=scope, author=author)))

    @tool(READS)
    def recall(ctx: Context,
               query: Annotated[str, Field(description="words to search for; empty lists records by the filters")] = "",
               id: Annotated[str | None, Field(description="read one record whole (with its version and staleness)")] = None,
               view: Annotated[Literal["record", "outline", "section", "tables", "history"], Field(
                   description="with id: the record, its headings, one section, its tables, or its git history")] = "record",
               heading: Annotated[str | None, Field(description="with view=section or tables: the heading")] = None,
               kind: Literal["knowledge", "decision"] | None = None,
               type: Literal["note", "convention", "fact", "how-to", "pitfall"] | None = None,
               category: str | None = None,
               status: Literal["proposed", "accepted", "rejected", "superseded", "deprecated"] | None = None,
               tags: list[str] = [],  # noqa: B006
               entity: Annotated[str | None, Field(description="records anchored to this entity id, file or folder")] = None,
               min_confidence: Annotated[float | None, Field(ge=0.0, le=1.0)] = None,
               sort: Literal["relevance", "recent"] = "relevance",
               limit: Annotated[int, Field(ge=1, le=50)] = 10,
               cursor: str | None = None, agent_id: AgentId = None) -> CallToolResult:
        """Find knowledge and decisions (full-text and filters, ranked, with a cursor for more), or read one by
        id: whole, as an outline of headings, one section, its tables or its history. Each record says
        whether the code it is anchored to changed since it was written."""
        store = store_for(root)

        def answer(_: str) -> str:
            if id:
                if view == "outline":
                    return "\n".join(f"{'#' * h.level} {h.title}" for h in store.outline(id))
                if view == "section":
                    if not heading:
                        raise InvalidRequest("view=section needs `heading` (recall with view=outline lists them)")
                    return store.section(id, heading).model_dump_json()
                if view == "tables":
                    return "\n".join(t.model_dump_json() for t in store.tables(id, heading)) or "no tables"
                if view == "history":
                    return "\n".join(h.model_dump_json() for h in store.history(id)) or "no history (not committed yet)"
                return store.get(id).model_dump_json()
            page = store.recall(query, kind=kind, type=type, category=category, status=status, tags=tags,
                                entity=entity, min_confidence=min_confidence, sort=sort, limit=limit, cursor=cursor)
            lines = [f"{h.id} {h.kind} {h.status or h.type} {h.title}" for h in page.hits]
            lines.append(f"{len(page.hits)} of {page.total}" + (f"; more with cursor={page.next_cursor}" if page.next_cursor else ""))
            return "\n".join(lines)

        return run(ctx, agent_id, answer)

    @tool(REVISES)
    def revise(ctx: Context, id: str,
               version: Annotated[int, Field(ge=1, description="the version you read: a newer one is refused, with it attached")],
               changes: Annotated[dict[str, Any], Field(
                   description="fields to change, e.g. {\"status\": \"deprecated\"} or {\"body\": \"...\"}")] = {},  # noqa: B006
               retract: Annotated[bool, Field(description="withdraw the record instead (it stays in history)")] = False,
               reason: str = "", agent_id: AgentId = None) -> CallToolResult:
        """Edit a record's fields or status, or retract it. Pass the version you read; if someone changed the
        record since, nothing is written and the current record comes back so you can re-apply your change."""
        store = store_for(root)
        if retract:
            return run(ctx, agent_id, lambda _: _written(store.retract(id, version, reason)))
        if not changes:
            return error_result(InvalidRequest("give `changes` (fields to change) or retract=true"))
        return run(ctx, agent_id, lambda _: _written(store.revise(id, version, **changes)))

    @tool(WRITES)
    def verify(ctx: Context, id: str, agent_id: AgentId = None) -> CallToolResult:
        """After checking that a record still holds for the code it is anchored to, re-stamp its anchors with the
        code as it is now (a moved entity is re-anchored where its code went)."""
        return run(ctx, agent_id, lambda _: _written(store_for(root).verify(id)))


def _written(result: WriteResult) -> str:
    record = result.record
    state = record.staleness.state if record.staleness else "unknown"
    also = f"; also changed {', '.join(result.changed)}" if result.changed else ""
    return f"{result.action} {record.kind} {record.id} v{record.version} {record.title!r} (anchors {state}){also}"
