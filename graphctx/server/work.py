"""The coordination tools, few and grouped by an `action`: `tasks` (create, list, get, claim, release,
transition, update), `runs` (start, end, fail, list, get), `agents` (register, list, peers, check_in,
check_out, board) and `session_end`. Each acts as the session's agent (its agent_id, else the client's
name and version; `agents` register names the session), over Project.work, and answers in the compact
text the CLI prints (or structured content for format=json). An argument the action does not take is
refused naming the ones it does, like every strict tool; refusals (a task claimed by another agent,
a transition the state machine forbids) come back as error results saying what is allowed."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from graphctx.errors import GraphctxError, InvalidRequest
from graphctx.models import RunOutcome, TaskStatus
from graphctx.server.records import as_json
from graphctx.server.results import error_result, internal_error

# Writers append events or replace one task's or agent's file; none reaches outside the repository.
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)

AgentId = Annotated[str | None, Field(description="optional: a name for yourself, kept for this session")]
Fmt = Annotated[Literal["compact", "json"], Field(description="compact text, or json (structured content)")]
TaskId = Annotated[str | None, Field(description="a task's id (t-...), as create and list give it")]
Ids = Annotated[list[str] | None, Field(description="entity ids (path::Qualified.name) or file paths")]

TASK_ARGS = {
    "create": {"title", "description", "priority", "depends_on", "entities", "files"},
    "list": {"status", "ready", "mine", "entity", "file"},
    "get": {"task_id"},
    "claim": {"task_id", "lease_seconds"},
    "release": {"task_id", "reason"},
    "transition": {"task_id", "status", "reason"},
    "update": {"task_id", "title", "description", "priority", "depends_on", "entities", "files"},
}
RUN_ARGS = {
    "start": {"task_id", "ticket"},
    "end": {"run_id", "outcome", "summary", "tokens", "files_touched", "branch", "head", "pr"},
    "fail": {"run_id", "error", "detail"},
    "list": {"task_id", "agent", "open_only", "limit"},
    "get": {"run_id"},
}
AGENT_ARGS = {
    "register": {"name", "capabilities", "model"},
    "list": set(),
    "peers": {"entities", "files"},
    "check_in": {"task_id", "issue", "note"},
    "check_out": {"note"},
    "board": set(),
}
REQUIRED = {("tasks", "create"): ("title",), ("tasks", "transition"): ("task_id", "status"),
            ("runs", "end"): ("run_id", "outcome"), ("runs", "fail"): ("run_id", "error"),
            **{("tasks", a): ("task_id",) for a in ("get", "claim", "release", "update")},
            ("runs", "get"): ("run_id",)}


def check_action(tool: str, action: str, table: dict[str, set[str]], given: dict[str, Any],
                 required: dict[tuple[str, str], tuple[str, ...]] | None = None) -> None:
    """Refuse an argument the action does not take, and a required one left out, in one sentence."""
    allowed = table[action] | {"action", "format", "agent_id"}
    extra = sorted(name for name, value in given.items() if value not in (None, False, "") and name not in allowed)
    if extra:
        takes = ", ".join(sorted(table[action])) or "nothing else"
        raise InvalidRequest(f"{tool} action={action} does not take {', '.join(extra)}; it takes: {takes}")
    missing = [name for name in (required or REQUIRED).get((tool, action), ()) if given.get(name) in (None, "")]
    if missing:
        raise InvalidRequest(f"{tool} action={action} needs {' and '.join(missing)}")


def tool_adder(server: MCPServer, state: Any) -> Callable[[Callable], Callable]:
    """A decorator adding a writing tool that runs off the event loop, described by its docstring."""
    def tool(fn: Callable) -> Callable:
        server.add_tool(state.off_loop(fn, error_result, writes=True), annotations=WRITES, structured_output=False,
                        description=" ".join(inspect.cleandoc(fn.__doc__ or "").split()))
        return fn

    return tool


def acting(state: Any) -> Callable[[Context, str | None, Callable[[str], Any]], CallToolResult]:
    """act(ctx, agent_id, answer): answer(the session's agent name) as a tool result; a refusal as an
    error result, a bug as an internal error (the server keeps serving)."""
    project = state.project

    def act(ctx: Context, agent_id: str | None, answer: Callable[[str], Any]) -> CallToolResult:
        try:
            me = project.agent_name(state.agents.identify(ctx, agent_id).identity)
            out = answer(me)
        except GraphctxError as exc:
            return error_result(exc)
        except Exception as exc:  # a bug, not the caller's fault: say so, keep serving
            return internal_error(exc)
        return out if isinstance(out, CallToolResult) else CallToolResult(content=[TextContent(type="text", text=out)])

    return act


def listed(items: list, line: Callable, fmt: str, what: str, empty: str) -> CallToolResult | str:
    """A listing: its count then one line each (compact), or structured content (json)."""
    summary = f"{len(items)} {what}"
    if fmt == "json":
        return as_json({what: items}, summary)
    return "\n".join([summary, *map(line, items)]) if items else empty


def register(server: MCPServer, state: Any) -> None:
    project = state.project
    work = project.work
    text = project.work_text

    tool = tool_adder(server, state)

    act = acting(state)

    @tool
    def tasks(
        ctx: Context,
        action: Annotated[Literal["create", "list", "get", "claim", "release", "transition", "update"], Field(
            description="create a task; list tasks; get one; claim one (exclusive, with a lease); release your claim; "
                        "transition its status; update its fields")],
        task_id: TaskId = None,
        title: Annotated[str | None, Field(description="create, update: one line saying what is to be done")] = None,
        description: Annotated[str | None, Field(description="create, update: Markdown")] = None,
        priority: Annotated[int | None, Field(ge=1, le=5, description="create, update: 1 (most urgent) to 5; default 3")] = None,
        depends_on: Annotated[list[str] | None, Field(description="create, update: ids of tasks to be done first")] = None,
        entities: Annotated[Ids, Field(description="create, update: entity ids the task is about")] = None,
        files: Annotated[list[str] | None, Field(description="create, update: files the task is about")] = None,
        status: Annotated[TaskStatus | None, Field(
            description="transition: the new status (pending -> in_progress -> done, failed or blocked; blocked and "
                        "failed -> pending); list: only tasks in it")] = None,
        reason: Annotated[str, Field(description="transition, release: why")] = "",
        lease_seconds: Annotated[int | None, Field(ge=1, le=86400, description="claim: how long the claim holds "
                                                   "(default 1800); claiming again renews it")] = None,
        ready: Annotated[bool, Field(description="list: only pending tasks whose dependencies are done")] = False,
        mine: Annotated[bool, Field(description="list: only tasks you hold a claim on")] = False,
        entity: Annotated[str | None, Field(description="list: only tasks about this entity id")] = None,
        file: Annotated[str | None, Field(description="list: only tasks about this file")] = None,
        format: Fmt = "compact",
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Shared tasks for agents working on this repository: create them with a priority, dependencies and the
        entities or files they are about; list the ready ones; claim one before working on it (only one agent holds
        a task; a claim is a lease that ends unless renewed, and a task whose dependencies are not done cannot be
        claimed); transition it to done, failed or blocked with a reason; release it if you stop."""
        given = dict(task_id=task_id, title=title, description=description, priority=priority, depends_on=depends_on,
                     entities=entities, files=files, status=status, reason=reason, lease_seconds=lease_seconds,
                     ready=ready, mine=mine, entity=entity, file=file)

        def answer(me: str) -> CallToolResult | str:
            check_action("tasks", action, TASK_ARGS, given)
            t = work.tasks
            fields = {k: given[k] for k in ("title", "description", "priority", "depends_on", "entities", "files")}
            if action == "list":
                found = t.list(status=status, agent=me if mine else None, ready=ready, entity=entity, file=file)
                return listed(found, lambda task: text.task_line(task, t.holder(task.id)), format, "tasks",
                              "no task matches; create one with action=create")
            if action == "create":
                task = t.create(by=me, **{k: v for k, v in fields.items() if v is not None})
                return as_json(task, f"created {task.id}") if format == "json" else f"created {text.task_line(task)}"
            if action == "claim":
                task, claim = t.claim(task_id, me, lease_seconds)
                return as_json(claim, text.claimed(task, claim)) if format == "json" else text.claimed(task, claim)
            if action == "release":
                task = t.release(task_id, me, reason)
                return f"released {text.task_line(task)}"
            if action == "transition":
                task = t.transition(task_id, status, me, reason)
                return as_json(task, text.task_line(task)) if format == "json" else text.task_line(task)
            if action == "update":
                task = t.update(task_id, by=me, **fields)
                return as_json(task, text.task_line(task)) if format == "json" else f"updated {text.task_line(task)}"
            task = t.get(task_id)
            return as_json(task, text.task_line(task)) if format == "json" else text.task_text(task, t.holder(task.id))

        return act(ctx, agent_id, answer)

    @tool
    def runs(
        ctx: Context,
        action: Annotated[Literal["start", "end", "fail", "list", "get"], Field(
            description="start a run (returns its id); end it with the outcome; record a failure in it; list runs; "
                        "get one")],
        run_id: Annotated[str | None, Field(description="end, fail, get: the run's id (r-...)")] = None,
        task_id: TaskId = None,
        ticket: Annotated[str | None, Field(description="start: an issue or ticket reference")] = None,
        outcome: Annotated[RunOutcome | None, Field(description="end: how it went")] = None,
        summary: Annotated[str, Field(description="end: what was done")] = "",
        tokens: Annotated[int | None, Field(ge=0, description="end: tokens the run used")] = None,
        files_touched: Annotated[list[str] | None, Field(
            description="end: files changed (default: what git shows changed since the run started)")] = None,
        branch: Annotated[str | None, Field(description="end: git branch (default: the current one)")] = None,
        head: Annotated[str | None, Field(description="end: git commit (default: HEAD)")] = None,
        pr: Annotated[str | None, Field(description="end: pull request (default: from the CI environment)")] = None,
        error: Annotated[str | None, Field(description="fail: what went wrong, one line")] = None,
        detail: Annotated[str, Field(description="fail: more, such as an error's output")] = "",
        agent: Annotated[str | None, Field(description="list: only this agent's runs")] = None,
        open_only: Annotated[bool, Field(description="list: only runs not ended")] = False,
        limit: Annotated[int | None, Field(ge=1, le=200, description="list: most runs, newest first")] = None,
        format: Fmt = "compact",
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Runs are the team's audit trail of work: start one when you begin (on a task or ticket) and keep its
        id; record failures on the way; end it with the outcome, a summary, tokens used and files touched (git
        branch, head and files are filled in from the repository when left out). Runs are append-only: an ended
        run is never rewritten."""
        given = dict(run_id=run_id, task_id=task_id, ticket=ticket, outcome=outcome, summary=summary, tokens=tokens,
                     files_touched=files_touched, branch=branch, head=head, pr=pr, error=error, detail=detail,
                     agent=agent, open_only=open_only, limit=limit)

        def answer(me: str) -> CallToolResult | str:
            check_action("runs", action, RUN_ARGS, given)
            if action == "list":
                found = work.runs.list(agent=agent, task_id=task_id, open_only=open_only, limit=limit or 50)
                return listed(found, text.run_line, format, "runs", "no run matches; start one with action=start")
            if action == "start":
                run = work.start_run(me, task_id=task_id, ticket=ticket)
            elif action == "end":
                run = work.runs.end(run_id, me, outcome=outcome, summary=summary, tokens=tokens,
                                    files_touched=files_touched, branch=branch, head=head, pr=pr)
            elif action == "fail":
                run = work.runs.fail(run_id, me, error, detail)
            else:
                run = work.runs.get(run_id)
            return as_json(run, text.run_line(run)) if format == "json" else text.run_text(run)

        return act(ctx, agent_id, answer)

    @tool
    def agents(
        ctx: Context,
        action: Annotated[Literal["register", "list", "peers", "check_in", "check_out", "board"], Field(
            description="register yourself (name, capabilities, model); list registered agents; peers: who else is "
                        "active on some entities or files (or anywhere); check_in / check_out on the activity board; "
                        "board: who is checked in on what")],
        name: Annotated[str | None, Field(description="register: your name (default: your session's identity); "
                                                      "it becomes this session's identity")] = None,
        capabilities: Annotated[list[str] | None, Field(description="register: what you can do")] = None,
        model: Annotated[str | None, Field(description="register: the model you run on")] = None,
        entities: Ids = None,
        files: Annotated[list[str] | None, Field(description="peers: files to look at")] = None,
        task_id: TaskId = None,
        issue: Annotated[str | None, Field(description="check_in: an issue reference")] = None,
        note: Annotated[str, Field(description="check_in, check_out: a line for the others")] = "",
        format: Fmt = "compact",
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Who is working here: register yourself with your capabilities, see the registered agents, see your
        peers (other agents with a claim, an open run or recently served context on the same entities or files,
        and how long ago), and check in to or out of the activity board with what you work on."""
        given = dict(name=name, capabilities=capabilities, model=model, entities=entities, files=files,
                     task_id=task_id, issue=issue, note=note)
        if action == "register" and name:
            agent_id = name  # the registered name becomes the session's identity

        def answer(me: str) -> CallToolResult | str:
            check_action("agents", action, AGENT_ARGS, given)
            team = work.team
            if action == "register":
                profile = team.register(me, capabilities=capabilities or (), model=model)
                return as_json(profile, text.agent_line(profile)) if format == "json" else f"registered {text.agent_line(profile)}"
            if action == "list":
                return listed(team.agents(), text.agent_line, format, "agents", "no agent is registered")
            if action == "peers":
                found = work.peers(entities or (), files or (), me=me)
                return listed(found, text.peer_text, format, "peers", "no other agent is active there")
            if action == "check_in":
                entry = team.check_in(me, task_id=work.tasks.get(task_id).id if task_id else None, issue=issue, note=note)
                return text.board_line(entry)
            if action == "check_out":
                return text.board_line(team.check_out(me, note))
            return listed(team.board(), text.board_line, format, "board", "nobody has checked in")

        return act(ctx, agent_id, answer)

    @tool
    def session_end(
        ctx: Context,
        summary: Annotated[str, Field(description="what this session did, for your next session and the team")] = "",
        learned: Annotated[list[str] | None, Field(
            description="things worth keeping, one per item: each becomes a knowledge record (category learned)")] = None,
        current_task: TaskId = None,
        blockers: Annotated[list[str] | None, Field(description="what stops progress, one per item")] = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """End your session: save your state (summary, current task, blockers) so session_init with scope=resume
        brings it back next time, with what changed in the code since, and keep what you learned as knowledge
        records the whole team reads."""
        return act(ctx, agent_id, lambda me: text.state_text(project.session_end(
            me, summary=summary, learned=learned or (), current_task=current_task, blockers=blockers or ())))
