"""The server's state and its read tools (get_context, get_file_context, search, get_impact,
session_init), without the MCP SDK: app.py registers these bodies with the SDK, and early.py runs the
very same ones for the calls that come before the SDK has loaded. Each body checks freshness, calls
one library function, and turns the answer into a tool result (compact text; or, for format=json,
the answer as structured content with a one-line text, so nothing is sent twice). Its first
argument is the Caller; the others are the tool's parameters, from which its schema is built."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from graphctx import deadline
from graphctx.errors import MAX_QUOTED, DeadlineExceeded, GraphctxError, InvalidRequest, NotFound, quote
from graphctx.models import (
    DEFAULT_BUDGET, MAX_BUDGET, MAX_DEPTH, MIN_BUDGET, ContextAnswer, DetailLevel, EntityKind, Format, Intent, Mode,
    SearchAnswer, SessionScope,
)
from graphctx.project import Project
from graphctx.server.agents import Agents, Caller
from graphctx.server.freshness import Watcher
from graphctx.server.results import ToolAnswer, error_answer, internal_answer
from graphctx.server.workers import DEFAULT_DEADLINE, Advice, Workers
from graphctx.text import clip

MAX_SIGNATURE_CHARS = 160  # a search hit's signature, on its one line

# Parameter types: the schema a model sees, with bounds and a line on each.
Budget = Annotated[int, Field(ge=MIN_BUDGET, le=MAX_BUDGET,
                              description=f"most tokens the answer may use ({MIN_BUDGET}-{MAX_BUDGET})")]
Fmt = Annotated[Format, Field(description="compact text (best for reading) or json (structured)")]
EntityName = Annotated[str | None, Field(description="an id (path::Qualified.name), a qualified name or a bare name")]
AgentId = Annotated[str | None, Field(description="optional: a name for yourself, kept for this session")]

# What a call stopped at its deadline is told, by tool: how to ask for less.
ADVICE = {
    "get_context": "narrow the request: a smaller token_budget or depth, or a shorter text",
    "get_file_context": "ask with a smaller token_budget",
    "search": "search with fewer or more specific words",
    "get_impact": "narrow the request: a smaller depth or token_budget, or fewer files",
    "session_init": "ask with a smaller token_budget",
    "recall": "narrow the search with filters or fewer words",
    **dict.fromkeys(("remember", "decide", "revise", "verify"), "nothing was written; retry in a moment"),
}
RETRY = "retry in a moment"


class ServerState:
    """What every tool shares: the repository, its freshness keeper and the agents seen."""

    def __init__(self, root: Path, *, watch: bool = True, transport: str = "stdio", deadline: float = DEFAULT_DEADLINE,
                 storage: Any = None, project: Project | None = None):
        self.root = Path(root).resolve()
        # Holds this process's ephemeral records too; `storage` keeps the rest in the team store.
        self.project = project or Project(self.root, find=False, storage=storage)
        self.fresh = Watcher(self.project, watch=watch)
        self.agents = Agents(transport)
        self.workers = Workers(deadline)

    def off_loop(self, fn: Callable, refuse: Callable[[DeadlineExceeded], Any], *, writes: bool = False,
                 what: str | None = None) -> Callable:
        """`fn` as an async function that runs on a worker thread under the call deadline; a call stopped
        there answers `refuse(error)` (an error result for tools). `what` names it in that error."""
        return self.workers.wrap(fn, what or fn.__name__, self.advice(ADVICE.get(fn.__name__, RETRY)), refuse,
                                 writes=writes)

    def advice(self, usual: str) -> Advice:
        # When an index run held the call up, asking for less would not help; waiting a moment does.
        return lambda: (f"the index was being updated meanwhile; {RETRY}" if self.fresh.indexing else usual)

    # ---- answering

    def answer(self, compute: Callable[[], tuple[Any, str]], names: Callable[[Any], list[str]]) -> tuple[Any, str, list[str]]:
        """Compute an answer from an index no older than the files it names: changes the watcher saw
        are indexed first; a named file that changed anyway is indexed and the answer computed again
        (as it is when the index moved on while answering). Returns the answer, its text and the
        named files still out of date (normally none; the answer flags them)."""
        self.fresh.sync()
        deadline.check()  # the index run it waited for may have taken the call's time
        try:
            model, text = compute()
        except NotFound:
            if not self.fresh.settle_for_unknown():  # perhaps the name was written a moment ago
                raise
            model, text = compute()
        for attempt in range(3):
            stale, refreshed = self.fresh.check(names(model))
            if stale and attempt < 2:
                self.fresh.reindex()
            generation = getattr(model, "generation", None)
            behind = generation is not None and generation != self.project.graph.generation
            if attempt == 2 or not (stale or refreshed or behind):
                break
            deadline.check()
            model, text = compute()
        return model, text, stale


# ---- the read tools

def item_paths(answer: ContextAnswer) -> list[str]:
    """The files an answer names: the ones whose freshness it depends on."""
    return [item.path for item in answer.items]


def read_tools(state: ServerState) -> list[Callable[..., ToolAnswer]]:
    """The read tools' bodies for `state`, in the order they are listed."""
    project = state.project
    bodies: list[Callable[..., ToolAnswer]] = []

    def body(fn: Callable[..., ToolAnswer]) -> Callable[..., ToolAnswer]:
        bodies.append(fn)
        return fn

    @body
    def get_context(
        caller: Caller,
        mode: Annotated[Mode, Field(
            description="context: an entity and its neighbourhood; intent: context shaped for a purpose, around an "
                        "entity, a file or free text (target); path: the call chain from_entity -> to_entity")] = "context",
        entity: EntityName = None,
        file: Annotated[str | None, Field(description="context mode: a path suffix that narrows an ambiguous name")] = None,
        depth: Annotated[int, Field(ge=0, le=MAX_DEPTH, description="hops to follow (context, intent)")] = 2,
        token_budget: Budget = DEFAULT_BUDGET,
        intent: Annotated[Intent | None, Field(
            description="the purpose: required in intent mode; in context mode it reshapes the ranking")] = None,
        detail_level: Annotated[DetailLevel, Field(
            description="context mode: full code, or signatures only (summary, neighbors)")] = "full",
        format: Fmt = "compact",
        include_inferred: Annotated[bool, Field(description="follow guessed (heuristic, ambiguous) edges too")] = True,
        known_hash: Annotated[str | None, Field(
            description="context mode: the entity's body hash from an earlier answer (h:... in an item's heading, "
                        "body_hash in json); if the body is unchanged the answer is one line")] = None,
        target: Annotated[str | None, Field(
            description="intent mode: an entity, a file path, or free text (an issue, a task, a stack trace)")] = None,
        from_entity: Annotated[str | None, Field(description="path mode: where the call chain starts")] = None,
        to_entity: Annotated[str | None, Field(description="path mode: where the call chain ends")] = None,
        task_id: Annotated[str | None, Field(
            description="context, intent: the task you work on (t-...): what it links and its runs touched ranks "
                        "higher")] = None,
        helpful: Annotated[bool | None, Field(
            description="context, intent: whether your last answer for this same entity or target helped; the "
                        "ranking of this repository learns from it, and this call answers again")] = None,
        about: Annotated[list[str] | None, Field(
            description="with helpful: the entity ids of that answer the feedback is about (default: all)")] = None,
        agent_id: AgentId = None,
    ) -> ToolAnswer:
        """Code you need, ranked and packed to a token budget: an entity with its callers, callees, types and
        tests (mode=context), context for a purpose from an entity, file or task text (mode=intent), or the
        call chain between two entities (mode=path). Use it instead of reading whole files. Say whether an
        answer helped (helpful=true|false on the same request) so that the ranking learns."""
        me = state.agents.identify_caller(caller, agent_id).identity  # noted as served, so peers see where it works
        teach = dict(task_id=task_id, helpful=helpful, about=about)

        def compute() -> tuple[ContextAnswer, str]:
            if mode == "context":
                name = entity or target
                if not name:
                    raise InvalidRequest("mode=context needs `entity` (an id, qualified name or name); for a task "
                                         "description use mode=intent with `target`")
                return project.context(name, file=file, depth=depth, token_budget=token_budget, intent=intent,
                                       detail_level=detail_level, format=format, include_inferred=include_inferred,
                                       known_hash=known_hash, agent=me, **teach)
            if mode == "intent":
                if not intent:
                    raise InvalidRequest("mode=intent needs `intent`: modify, understand, review, debug, add or plan")
                subject = target or entity or file
                if not subject:
                    raise InvalidRequest("mode=intent needs `target`: an entity, a file path or a description of the task")
                return project.intent(intent, subject, depth=depth, token_budget=token_budget, format=format,
                                      include_inferred=include_inferred, agent=me, **teach)
            if task_id or helpful is not None or about:
                raise InvalidRequest("task_id, helpful and about apply to mode=context and mode=intent, not mode=path")
            start, end = from_entity or entity, to_entity or target
            if not (start and end):
                raise InvalidRequest("mode=path needs `from_entity` and `to_entity`")
            return project.path(start, end, token_budget=token_budget, format=format,
                                include_inferred=include_inferred)

        return _tool(state, compute, item_paths, format)

    @body
    def get_file_context(
        caller: Caller,
        file: Annotated[str, Field(description="a path inside the repository (relative, or a unique suffix)")],
        token_budget: Budget = DEFAULT_BUDGET,
        format: Fmt = "compact",
        heading: Annotated[str | None, Field(description=(
            "a Markdown document only: one section, by its heading's title, path ('A > B') or '#<line>'"))] = None,
        tables: Annotated[bool, Field(description="a Markdown document only: its tables (of `heading` if given)")] = False,
        agent_id: AgentId = None,
    ) -> ToolAnswer:
        """Outline of one file: every class, function and method in line order with its signature and the first
        line of its doc (a Markdown document: its sections, and routes where a file registers them). Use it to see
        what a file holds before asking for an entity's code; `heading` or `tables` read part of a document."""
        state.agents.identify_caller(caller, agent_id)
        if heading is not None or tables:
            view = "tables" if tables else "section"
            return _tool(state, lambda: project.document(file, view=view, heading=heading, format=format),
                         lambda answer: [answer.path], format)
        return _tool(state, lambda: project.file(file, token_budget=token_budget, format=format),
                     item_paths, format)

    @body
    def search(
        caller: Caller,
        query: Annotated[str, Field(description="a name, a prefix, or words from names, signatures and docs")],
        kind: Annotated[EntityKind | None, Field(description="only entities of this kind")] = None,
        limit: Annotated[int, Field(ge=1, le=100, description="most hits to return (1-100)")] = 20,
        mode: Annotated[Literal["name", "semantic"], Field(
            description="name: exact, prefix, full-text and fuzzy matches of names and words; semantic: the "
                        "functions, methods and classes nearest to the query's meaning (code embedding)")] = "name",
        format: Fmt = "compact",
        agent_id: AgentId = None,
    ) -> ToolAnswer:
        """Find entities by name or words (exact, prefix, full-text, fuzzy), or by meaning (mode semantic: describe
        what the code does), best first, with their ids. Use it when you do not know an entity's exact name or id;
        then call get_context with the id."""
        state.agents.identify_caller(caller, agent_id)
        return _tool(state, lambda: _search(project, query, kind, limit, format, mode), lambda a: [h.path for h in a.hits],
                     format)

    @body
    def get_impact(
        caller: Caller,
        symbol: EntityName = None,
        files: Annotated[list[str] | None, Field(description="instead of a symbol: the files of a change")] = None,
        diff: Annotated[str | None, Field(
            description="instead of a symbol: the working tree's changes (staged, unstaged, untracked) against this "
                        "git revision, a commit, branch or tag (HEAD: uncommitted changes); \"default\" or \"\" "
                        "compares with the merge base of the default branch")] = None,
        depth: Annotated[int, Field(ge=0, le=MAX_DEPTH, description="hops to follow back from the change")] = 3,
        token_budget: Budget = DEFAULT_BUDGET,
        format: Fmt = "compact",
        agent_id: AgentId = None,
    ) -> ToolAnswer:
        """What depends on a symbol, on everything in a set of files, or on the entities whose lines a git diff
        changed (diff): callers, subclasses, importers, then tests, then transitive dependents, in tiers. Use it
        before changing an interface or to review a change."""
        state.agents.identify_caller(caller, agent_id)
        if diff is not None:
            state.fresh.reindex()  # a diff is read from the working tree: the index must describe the same lines
        return _tool(state, lambda: project.impact(symbol, files, diff=diff, depth=depth,
                                                   token_budget=token_budget, format=format), item_paths, format)

    @body
    def session_init(
        caller: Caller,
        token_budget: Budget = DEFAULT_BUDGET,
        format: Fmt = "compact",
        scope: Annotated[SessionScope | None, Field(
            description="with your coordination state first: quick (your claims and runs), standard (+ peers, the "
                        "board, tasks ready to claim), resume (+ the state your last session_end saved and what "
                        "changed in the code since), full (+ every open task, recent runs, agents)")] = None,
        agent_id: AgentId = None,
    ) -> ToolAnswer:
        """Start here in a new session: the project's overview, languages and size, index freshness, entry points,
        its conventions, accepted decisions and stale records, and a ranked map of its public API (declared entry
        points, exports, the most imported modules, the most used public code), within a token budget."""
        me = state.agents.identify_caller(caller, agent_id).identity
        teamwork = scope is not None or agent_id is not None or project.work.has_activity(served=False)
        return _tool(state, lambda: project.session(token_budget=token_budget, format=format, scope=scope or (
            "standard" if teamwork else None), agent=me if teamwork else None), item_paths, format)

    return bodies


def _search(project: Project, query: str, kind: str | None, limit: int, fmt: str,
            mode: str = "name") -> tuple[SearchAnswer, str]:
    answer = project.search(query, kind, limit, mode)
    if fmt == "json":
        return answer, answer.model_dump_json()
    lines = [search_header(answer)]
    lines += [f"{h.id} {h.kind} L{h.start_line} {h.match} {h.score:.2f}"
              + (f" | {clip(h.signature, MAX_SIGNATURE_CHARS)}" if h.signature else "") for h in answer.hits]
    if not answer.hits:
        lines.append(f"no entity matches {quote(query)}; try fewer or other words, or a prefix")
    return answer, "\n".join(lines)


def _tool(state: ServerState, compute: Callable[[], tuple[Any, str]], names: Callable[[Any], list[str]],
          fmt: str) -> ToolAnswer:
    try:
        model, text, stale = state.answer(compute, names)
    except GraphctxError as exc:
        return error_answer(exc)
    except Exception as exc:  # a bug, not the caller's fault: say so, keep serving
        return internal_answer(exc)
    # A context answer flags such items itself ("file changed since indexing") within its budget;
    # other answers get a note.
    warning = (f"note: changed on disk while answering, may differ from the index: {', '.join(stale)}"
               if stale and not isinstance(model, ContextAnswer) else "")
    if fmt == "json":
        data = json.loads(text)
        if warning:
            data["notes"] = [warning.removeprefix("note: ")]
        summary = Project.header(model) if isinstance(model, ContextAnswer) else text_summary(model)
        short = f"{summary}\n(the full answer is in structuredContent)" + (f"\n{warning}" if warning else "")
        return ToolAnswer(short, data)
    return ToolAnswer(f"{text}\n{warning}" if warning else text)


def text_summary(model: BaseModel) -> str:
    if isinstance(model, SearchAnswer):
        return search_header(model)
    return f"# graphctx {type(model).__name__}"


def search_header(answer: SearchAnswer) -> str:
    """The first line of a search answer; it names the query by its first words only."""
    return f"# graphctx search: {clip(answer.query, MAX_QUOTED)} | gen {answer.generation} | {len(answer.hits)} hits"
