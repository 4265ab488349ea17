"""The record tools: remember, decide, recall, revise and verify, over the same RecordStore the
context answers read (the server's Project holds it), so what an agent writes shows up at once
beside the code it is about, and the hashes of what it was served become its anchors' stamps.
The author of a write is the session's agent identity unless the call names one (with no identity,
the store's default: $GRAPHCTX_AUTHOR or the git user). Answers are compact text, rendered by
the records' one renderer, as for the CLI; recall with format=json gives structured content and a one-line
text instead, never both in full. A key held by several records (after a git merge) is reported
with the records that hold it. Mistakes a model can fix come back as isError results with
suggestions; a refused stale revision carries the current record, so the agent can re-apply its
change."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from graphctx.errors import GraphctxError, InvalidRequest, StaleEdit
from graphctx.project import Project
from graphctx.server.results import error_result, internal_error

render = Project.record_text  # the same renderer the CLI prints records with

# Writers change the repository's record files; none reaches outside it. remember and decide add
# records (calling twice adds twice, unless remember reuses a key); revise and verify take effect
# once (revise is refused when repeated with the version it consumed; verify of verified anchors
# writes nothing); revise may overwrite fields or retract, so it is the destructive one.
ADDS = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
REVISES = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)
VERIFIES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
READS = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

KnowledgeType = Literal["note", "convention", "fact", "how-to", "pitfall", "hypothesis"]
Status = Literal["proposed", "accepted", "rejected", "superseded", "deprecated"]
Anchors = Annotated[list[str], Field(
    description="ids of the entities it is about (path::Qualified.name, as get_context and search give them) or file paths")]
Scope = Annotated[Literal["shared", "private", "ephemeral"], Field(
    description="shared: committed with the code; private: this clone only; ephemeral: this server process only")]
Author = Annotated[str | None, Field(description="who it comes from, if not you (default: your agent identity)")]
AgentId = Annotated[str | None, Field(description="optional: a name for yourself, kept for this session")]


class KnowledgeEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str | None = Field(None, description="required for a new record without a key; left out, an update keeps "
                                                "the title and a new keyed record takes it from the key")
    body: str | None = Field(None, description="Markdown")
    type: KnowledgeType | None = Field(None, description="default note")
    category: str | None = Field(None, description="dotted lowercase, e.g. infra.database (default general)")
    key: str | None = Field(None, description="unique within the category: the same category and key updates that "
                                              "record, changing only the fields given")
    confidence: float | None = Field(None, ge=0.0, le=1.0, description="0-1 (default 1)")
    tags: list[str] | None = None
    refs: list[str] | None = Field(None, description="URLs or paths")
    anchors: Annotated[list[str] | None, Field(
        description="ids of the entities it is about, or file paths; left out, an update keeps its anchors")] = None
    author: Author = None


class Changes(BaseModel):
    """The fields to change; anything left out stays as it is."""

    model_config = ConfigDict(extra="forbid")

    title: str | None = None
    body: str | None = Field(None, description="knowledge: the Markdown text")
    type: KnowledgeType | None = Field(None, description="knowledge")
    category: str | None = Field(None, description="knowledge")
    key: str | None = Field(None, description="knowledge; null removes the key")
    confidence: float | None = Field(None, ge=0.0, le=1.0, description="knowledge")
    refs: list[str] | None = Field(None, description="knowledge")
    status: Status | None = Field(None, description="decision")
    context: str | None = Field(None, description="decision")
    decision: str | None = Field(None, description="decision")
    consequences: str | None = Field(None, description="decision")
    supersedes: list[str] | None = Field(None, description="decision: the full new list of ids")
    tags: list[str] | None = Field(None, description="the full new list")
    anchors: list[str] | None = Field(None, description="the full new list of entity ids; entities kept keep their stamp")
    author: str | None = None
    scope: Literal["shared", "private", "ephemeral"] | None = Field(None, description="moves the record")
    retracted: bool | None = Field(None, description="false restores a retracted record")


def register(server: MCPServer, state: Any) -> None:
    project = state.project

    def tool(annotations: ToolAnnotations) -> Callable:
        def add(fn: Callable) -> Callable:
            # Off the event loop under the call deadline; a write that has started is seen through.
            server.add_tool(state.off_loop(fn, error_result, writes=not annotations.read_only_hint),
                            description=" ".join(inspect.cleandoc(fn.__doc__ or "").split()),
                            annotations=annotations, structured_output=False)
            return fn
        return add

    def run(ctx: Context, agent_id: str | None, action: Callable[[str | None], CallToolResult | str]) -> CallToolResult:
        """Identify the agent (its identity is the default author; without one the store signs), bring the
        index up to date with the files (anchors are stamped and judged against the code as it is), and answer."""
        author = state.agents.identify(ctx, agent_id).identity
        try:
            state.fresh.sync()
            out = action(author)
        except StaleEdit as exc:
            result = error_result(exc)
            result.content[0].text += "\n\ncurrent record:\n" + render.record_text(exc.current)
            return result
        except GraphctxError as exc:
            return error_result(exc)
        except Exception as exc:  # a bug, not the caller's fault: say so, keep serving
            return internal_error(exc)
        return out if isinstance(out, CallToolResult) else CallToolResult(content=[TextContent(type="text", text=out)])

    @tool(ADDS)
    def remember(ctx: Context, entries: Annotated[list[KnowledgeEntry], Field(min_length=1, max_length=100)],
                 scope: Scope = "shared", agent_id: AgentId = None) -> CallToolResult:
        """Keep knowledge worth keeping (a note, convention, fact, how-to or pitfall), one or many at once,
        anchored to the entities it is about: it then comes with that code in get_context and is flagged when
        the code changes. The same category and key updates that record instead of adding one, changing only
        the fields given (a new keyed record without a title takes it from the key)."""
        drafts = [e.model_dump(exclude_none=True) for e in entries]  # left out: kept (an update) or the default
        return run(ctx, agent_id, lambda me: "\n".join(
            render.written(r) for r in project.records.remember(drafts, scope=scope, author=me)))

    @tool(ADDS)
    def decide(ctx: Context, title: str,
               decision: Annotated[str, Field(description="what was decided")],
               context: Annotated[str, Field(description="why a decision was needed")] = "",
               consequences: Annotated[str, Field(description="what follows from it, good and bad")] = "",
               status: Status = "accepted",
               supersedes: Annotated[list[str] | None, Field(
                   description="ids of decisions this one replaces: they become superseded in the same write")] = None,
               tags: list[str] | None = None, anchors: Anchors | None = None, scope: Scope = "shared",
               author: Author = None, agent_id: AgentId = None) -> CallToolResult:
        """Record a design decision (ADR style: context, decision, consequences, status) anchored to the code it
        governs, so it comes with that code and is flagged when the code changes. To replace earlier decisions,
        pass their ids in `supersedes`."""
        return run(ctx, agent_id, lambda me: render.written(project.records.decide(
            title, decision, context=context, consequences=consequences, status=status, supersedes=supersedes or (),
            tags=tags or (), anchors=anchors or (), scope=scope, author=author or me)))

    @tool(READS)
    def recall(ctx: Context,
               query: Annotated[str, Field(description="words to search for; empty lists records by the filters")] = "",
               id: Annotated[str | None, Field(description="one record's id: read it instead of searching")] = None,
               view: Annotated[Literal["record", "outline", "section", "tables", "history"], Field(
                   description="with id: the whole record, its headings, one section, its tables, or its git history"
               )] = "record",
               heading: Annotated[str | None, Field(
                   description="view=section (or tables): a heading's title, path ('A > B') or '#<line>'")] = None,
               kind: Literal["knowledge", "decision"] | None = None,
               type: KnowledgeType | None = None,
               category: Annotated[str | None, Field(description="this category and those under it")] = None,
               status: Status | None = None,
               tags: Annotated[list[str] | None, Field(description="records with all of these tags")] = None,
               entity: Annotated[str | None, Field(description="records anchored to this entity id, file or folder")] = None,
               min_confidence: Annotated[float | None, Field(ge=0.0, le=1.0)] = None,
               include_retracted: bool = False,
               sort: Annotated[Literal["relevance", "recent"], Field(description="recent: newest first")] = "relevance",
               limit: Annotated[int, Field(ge=1, le=50, description="records per page (history: entries)")] = 10,
               cursor: Annotated[str | None, Field(description="next_cursor from the previous page")] = None,
               format: Annotated[Literal["compact", "json"], Field(
                   description="compact text, or json (structured content)")] = "compact",
               agent_id: AgentId = None) -> CallToolResult:
        """Search the project's knowledge and decisions (words and filters, ranked, a page at a time with a
        cursor), or read one by id: whole, or for a long one its outline, one section, its tables, or its git
        history. Every record says whether the code it is anchored to changed since it was written or verified."""
        store = project.records

        def answer(_: str) -> CallToolResult | str:
            if id is None:
                if view != "record":
                    raise InvalidRequest(f"view={view} needs `id`: the record to read (search first to find it)")
                page = store.recall(query, kind=kind, type=type, category=category, status=status, tags=tags or (),
                                    entity=entity, min_confidence=min_confidence, include_retracted=include_retracted,
                                    sort=sort, limit=limit, cursor=cursor)
                summary = render.page_summary(page)
                if format == "json":
                    return as_json(page, "\n".join([summary, *render.conflict_lines(page.conflicts)]))
                return render.page_text(page, summary)
            if view == "record":
                record = store.get(id)
                warnings = "".join(f"\n{line}" for line in render.conflict_lines(store.conflicts([record.id])))
                return (as_json(record, render.record_head(record) + warnings) if format == "json"
                        else render.record_text(record) + warnings)
            if view == "outline":
                headings = store.outline(id)
                return (as_json({"record_id": id, "headings": headings}, f"{len(headings)} headings") if format == "json"
                        else render.outline_text(headings))
            if view == "section":
                if not heading:
                    raise InvalidRequest("view=section needs `heading` (view=outline lists them)")
                section = store.section(id, heading)
                return as_json(section, section.heading.path) if format == "json" else section.text
            if view == "tables":
                tables = store.tables(id, heading)
                return (as_json({"record_id": id, "tables": tables}, f"{len(tables)} tables") if format == "json"
                        else render.tables_text(tables))
            history = store.history(id, limit=limit)
            return (as_json({"record_id": id, "history": history}, f"{len(history)} commits") if format == "json"
                    else render.history_text(history))

        return run(ctx, agent_id, answer)

    @tool(REVISES)
    def revise(ctx: Context, id: str,
               version: Annotated[int, Field(ge=1, description=(
                   "the version you read; if the record changed since, nothing is written and the current record "
                   "comes back"))],
               changes: Annotated[Changes | None, Field(description="the fields to change")] = None,
               retract: Annotated[bool, Field(description="withdraw the record instead (its file and history stay)")] = False,
               reason: Annotated[str, Field(description="with retract: why")] = "",
               agent_id: AgentId = None) -> CallToolResult:
        """Edit a record's fields or a decision's status, or retract a record that no longer holds. Pass the
        version you read: when someone changed the record since, the call fails with the current record attached
        so you can re-apply your change to it. To replace a decision with a new one, use decide with supersedes."""
        given = changes.model_dump(exclude_unset=True) if changes is not None else {}
        update = {name: value for name, value in given.items() if value is not None or name == "key"}  # null clears a key

        def write(_: str) -> str:
            if retract and update:
                raise InvalidRequest("give either `changes` or retract=true, not both")
            if retract:
                return render.written(project.records.retract(id, version, reason))
            if not update:
                raise InvalidRequest("nothing to change: give `changes` (e.g. {\"status\": \"deprecated\"}) or retract=true")
            return render.written(project.records.revise(id, version, **update))

        return run(ctx, agent_id, write)

    @tool(VERIFIES)
    def verify(ctx: Context, id: str,
               entities: Annotated[list[str] | None, Field(
                   description="only these anchored entities (default: all of the record's anchors)")] = None,
               version: Annotated[int | None, Field(ge=1, description="optional: the version you checked")] = None,
               agent_id: AgentId = None) -> CallToolResult:
        """After checking that a record still holds for the code under it (recall shows it drifted, changed or
        moved), re-stamp its anchors with the code as it is now, so it reads as fresh; a moved entity is
        re-anchored where its code went. If the record no longer holds, revise it instead."""
        return run(ctx, agent_id, lambda _: render.written(project.records.verify(id, version=version, entities=entities)))


def as_json(data: BaseModel | dict[str, Any], summary: str) -> CallToolResult:
    """The answer as structured content, with a one-line text: the payload is sent once."""
    if isinstance(data, BaseModel):
        content = data.model_dump(mode="json", exclude_none=True)
    else:
        content = {k: [v.model_dump(mode="json", exclude_none=True) for v in value] if isinstance(value, list) else value
                   for k, value in data.items()}
    return CallToolResult(content=[TextContent(type="text", text=f"{summary}\n(the full answer is in structuredContent)")],
                          structured_content=content)


__all__ = ["register"]
