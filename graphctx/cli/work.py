"""The coordination commands, one per MCP tool with the same actions: `graphctx tasks create|list|get|
claim|release|transition|update`, `graphctx runs start|end|fail|list|get`, `graphctx agents register|list|
peers|check-in|check-out|board` and `graphctx session-end`, over Project.work and printed by its one
renderer (Project.work_text), so they read as the MCP tools do. The acting agent is `--agent`, else
$GRAPHCTX_AGENT, else the records' author ($GRAPHCTX_AUTHOR or the git user). `--json` prints the data;
exit 1 when a listing is empty, 2 on a refusal or input to fix."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from graphctx.models import RUN_OUTCOMES, TASK_STATUSES

NOTHING_FOUND = 1


def register(command: Callable[..., argparse.ArgumentParser]) -> None:
    groups = {
        "tasks": "shared tasks: create, list, get, claim (exclusive, leased), release, transition, update",
        "runs": "runs, the append-only audit trail of work: start, end, fail, list, get",
        "agents": "agents: register, list, peers, check-in, check-out, board",
    }
    action = action_groups(command, groups)

    p = action("tasks", "create", tasks_create, "create a task")
    p.add_argument("title")
    _task_fields(p)
    p = action("tasks", "list", tasks_list, "list tasks by priority (exit 1 when none match)")
    p.add_argument("--status", choices=TASK_STATUSES)
    p.add_argument("--ready", action="store_true", help="pending tasks whose dependencies are done")
    p.add_argument("--mine", action="store_true", help="tasks you hold a claim on")
    p.add_argument("--entity", help="tasks about this entity id")
    p.add_argument("--file", help="tasks about this file")
    p = action("tasks", "get", tasks_get, "one task with its history")
    p.add_argument("task_id", metavar="TASK")
    p = action("tasks", "claim", tasks_claim, "claim a task: only one agent holds it, until the lease ends")
    p.add_argument("task_id", metavar="TASK")
    p.add_argument("--lease", type=int, help="seconds the claim holds (default 1800); claiming again renews it")
    p = action("tasks", "release", tasks_release, "give your claim up (an unfinished task goes back to pending)")
    p.add_argument("task_id", metavar="TASK")
    p.add_argument("--reason", default="")
    p = action("tasks", "transition", tasks_transition, "move a task to another status, with a reason")
    p.add_argument("task_id", metavar="TASK")
    p.add_argument("status", choices=TASK_STATUSES)
    p.add_argument("--reason", default="")
    p = action("tasks", "update", tasks_update, "change a task's fields")
    p.add_argument("task_id", metavar="TASK")
    p.add_argument("--title")
    _task_fields(p, defaults=None)

    p = action("runs", "start", runs_start, "start a run; prints its id")
    p.add_argument("--task", help="the task it works on")
    p.add_argument("--ticket", help="an issue or ticket reference")
    p = action("runs", "end", runs_end, "end a run (git branch, head, PR and files touched found when not given)")
    p.add_argument("run_id", metavar="RUN")
    p.add_argument("--outcome", choices=RUN_OUTCOMES, required=True)
    p.add_argument("--summary", default="")
    p.add_argument("--tokens", type=int)
    p.add_argument("--files", nargs="+", help="files touched (default: what git shows changed since the run started)")
    p.add_argument("--branch")
    p.add_argument("--head")
    p.add_argument("--pr")
    p = action("runs", "fail", runs_fail, "record a failure in an open run")
    p.add_argument("run_id", metavar="RUN")
    p.add_argument("--error", required=True)
    p.add_argument("--detail", default="")
    p = action("runs", "list", runs_list, "runs, newest first (exit 1 when none match)")
    p.add_argument("--of", dest="of_agent", help="only this agent's runs")
    p.add_argument("--task")
    p.add_argument("--open", action="store_true", help="only runs not ended")
    p.add_argument("--limit", type=int, default=50)
    p = action("runs", "get", runs_get, "one run")
    p.add_argument("run_id", metavar="RUN")

    p = action("agents", "register", agents_register, "register an agent (the --agent, or NAME)")
    p.add_argument("name", nargs="?")
    p.add_argument("--capability", action="append", default=[], dest="capabilities")
    p.add_argument("--model")
    action("agents", "list", agents_list, "registered agents (exit 1 when none)")
    p = action("agents", "peers", agents_peers, "other agents active on these entities or files (or anywhere)")
    p.add_argument("--entity", action="append", default=[], dest="entities")
    p.add_argument("--file", action="append", default=[], dest="files")
    p = action("agents", "check-in", agents_check_in, "check in on the activity board")
    p.add_argument("--task")
    p.add_argument("--issue")
    p.add_argument("--note", default="")
    p = action("agents", "check-out", agents_check_out, "check out of the activity board")
    p.add_argument("--note", default="")
    action("agents", "board", agents_board, "who is checked in on what (exit 1 when nobody ever checked in)")

    p = command("session-end", session_end, "save your session state and turn what you learned into records")
    p.add_argument("--agent", help="who you are (default: $GRAPHCTX_AGENT, else the git user)")
    p.add_argument("--summary", default="")
    p.add_argument("--learned", action="append", default=[], help="one thing worth keeping (repeat for more)")
    p.add_argument("--current-task")
    p.add_argument("--blocker", action="append", default=[], dest="blockers")


def action_groups(command: Callable[..., argparse.ArgumentParser],
                  groups: dict[str, str]) -> Callable[[str, str, Callable, str], argparse.ArgumentParser]:
    """A command per group whose actions are subcommands; returns action(group, name, run, help), which
    adds one with the options every action takes (--repo, --agent, --json)."""
    parsers = {}
    for name, help in groups.items():
        p = command(name, None, help)
        p.set_defaults(run=lambda args, p=p: _needs_action(p))
        parsers[name] = p.add_subparsers(title="actions", metavar="ACTION")

    def action(group: str, name: str, run: Callable, help: str) -> argparse.ArgumentParser:
        p = parsers[group].add_parser(name, help=help, description=help)
        # SUPPRESS: an option given before the action (`tasks --repo R list`) is not overwritten here.
        p.add_argument("--repo", default=argparse.SUPPRESS, help="the repository (default: the current one)")
        p.add_argument("--agent", default=argparse.SUPPRESS, help="who acts (default: $GRAPHCTX_AGENT, else the git user)")
        p.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print the data as JSON")
        p.set_defaults(run=run)
        return p

    return action


def _needs_action(parser: argparse.ArgumentParser) -> int:
    parser.print_usage(sys.stderr)
    print(f"error: {parser.prog} needs an action; {parser.prog} -h lists them", file=sys.stderr)
    return 2


def _task_fields(p: argparse.ArgumentParser, defaults: Any = "") -> None:
    p.add_argument("--description", default=None if defaults is None else "")
    p.add_argument("--priority", type=int, default=None if defaults is None else 3, help="1 (most urgent) to 5")
    p.add_argument("--depends-on", nargs="+", metavar="TASK")
    p.add_argument("--entity", nargs="+", dest="entities", metavar="ENTITY")
    p.add_argument("--file", nargs="+", dest="files", metavar="FILE")


# ---- running

def open_project(args):
    from graphctx.project import Project

    project = Project(getattr(args, "repo", None), ephemeral=False)
    return project, project.agent_name(getattr(args, "agent", None))


def show(args, data: Any, text: str) -> None:
    if getattr(args, "json", False):
        print(json.dumps(_dump(data), indent=2))
    else:
        print(text)


def _dump(data: Any) -> Any:
    if isinstance(data, list):
        return [_dump(item) for item in data]
    if hasattr(data, "model_dump"):
        return data.model_dump(mode="json")
    return data


def listing(args, items: list, line: Callable, empty: str) -> int:
    if items or getattr(args, "json", False):  # --json prints the empty list too
        show(args, items, "\n".join(map(line, items)))
    if not items:
        print(empty, file=sys.stderr)
        return NOTHING_FOUND
    return 0


def tasks_create(args) -> int:
    project, me = open_project(args)
    task = project.work.tasks.create(args.title, by=me, description=args.description, priority=args.priority,
                                     depends_on=args.depends_on or (), entities=args.entities or (), files=args.files or ())
    show(args, task, f"created {project.work_text.task_line(task)}")
    return 0


def tasks_list(args) -> int:
    project, me = open_project(args)
    t = project.work.tasks
    found = t.list(status=args.status, agent=me if args.mine else None, ready=args.ready, entity=args.entity, file=args.file)
    return listing(args, found, lambda task: project.work_text.task_line(task, t.holder(task.id)),
                    "no task matches; create one with `graphctx tasks create TITLE`")


def tasks_get(args) -> int:
    project, _ = open_project(args)
    task = project.work.tasks.get(args.task_id)
    show(args, task, project.work_text.task_text(task, project.work.tasks.holder(task.id)))
    return 0


def tasks_claim(args) -> int:
    project, me = open_project(args)
    task, claim = project.work.tasks.claim(args.task_id, me, args.lease)
    show(args, claim, project.work_text.claimed(task, claim))
    return 0


def tasks_release(args) -> int:
    project, me = open_project(args)
    task = project.work.tasks.release(args.task_id, me, args.reason)
    show(args, task, f"released {project.work_text.task_line(task)}")
    return 0


def tasks_transition(args) -> int:
    project, me = open_project(args)
    task = project.work.tasks.transition(args.task_id, args.status, me, args.reason)
    show(args, task, project.work_text.task_line(task))
    return 0


def tasks_update(args) -> int:
    project, me = open_project(args)
    task = project.work.tasks.update(args.task_id, by=me, title=args.title, description=args.description,
                                     priority=args.priority, depends_on=args.depends_on, entities=args.entities,
                                     files=args.files)
    show(args, task, f"updated {project.work_text.task_line(task)}")
    return 0


def runs_start(args) -> int:
    project, me = open_project(args)
    run = project.work.start_run(me, task_id=args.task, ticket=args.ticket)
    show(args, run, run.id)
    return 0


def runs_end(args) -> int:
    project, me = open_project(args)
    run = project.work.runs.end(args.run_id, me, outcome=args.outcome, summary=args.summary, tokens=args.tokens,
                                files_touched=args.files, branch=args.branch, head=args.head, pr=args.pr)
    show(args, run, project.work_text.run_text(run))
    return 0


def runs_fail(args) -> int:
    project, me = open_project(args)
    run = project.work.runs.fail(args.run_id, me, args.error, args.detail)
    show(args, run, project.work_text.run_text(run))
    return 0


def runs_list(args) -> int:
    project, _ = open_project(args)
    found = project.work.runs.list(agent=args.of_agent, task_id=args.task, open_only=args.open, limit=args.limit)
    return listing(args, found, project.work_text.run_line, "no run matches")


def runs_get(args) -> int:
    project, _ = open_project(args)
    run = project.work.runs.get(args.run_id)
    show(args, run, project.work_text.run_text(run))
    return 0


def agents_register(args) -> int:
    from graphctx.project import Project

    project = Project(getattr(args, "repo", None), ephemeral=False)
    name = project.agent_name(args.name or getattr(args, "agent", None))
    profile = project.work.team.register(name, capabilities=args.capabilities, model=args.model)
    show(args, profile, f"registered {project.work_text.agent_line(profile)}")
    return 0


def agents_list(args) -> int:
    project, _ = open_project(args)
    return listing(args, project.work.team.agents(), project.work_text.agent_line,
                    "no agent is registered; `graphctx agents register NAME`")


def agents_peers(args) -> int:
    project, me = open_project(args)
    found = project.work.peers(args.entities, args.files, me=me)
    return listing(args, found, project.work_text.peer_text, "no other agent is active there")


def agents_check_in(args) -> int:
    project, me = open_project(args)
    task = project.work.tasks.get(args.task).id if args.task else None
    entry = project.work.team.check_in(me, task_id=task, issue=args.issue, note=args.note)
    show(args, entry, project.work_text.board_line(entry))
    return 0


def agents_check_out(args) -> int:
    project, me = open_project(args)
    entry = project.work.team.check_out(me, args.note)
    show(args, entry, project.work_text.board_line(entry))
    return 0


def agents_board(args) -> int:
    project, _ = open_project(args)
    return listing(args, project.work.team.board(), project.work_text.board_line, "nobody has checked in")


def session_end(args) -> int:
    from graphctx.project import Project

    project = Project(args.repo, ephemeral=False)
    state = project.session_end(args.agent, summary=args.summary, learned=args.learned,
                                current_task=args.current_task, blockers=args.blockers)
    show(args, state, project.work_text.state_text(state))
    return 0
