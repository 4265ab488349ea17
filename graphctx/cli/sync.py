"""`graphctx sync status|push|pull|conflicts|show|resolve|finalize`: the CLI twin of the `sync` MCP tool,
git sync of the team's memory under `.graphctx/` (see graphctx.coord.sync), and `sync merge-driver`,
the merge driver git runs (configured by sync itself). Exit 1 when pull leaves conflicts or nothing is
conflicted, 2 on a refusal or input to fix."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from graphctx.cli.work import action_groups, open_project, show
from graphctx.errors import InvalidRequest

NOTHING_FOUND = 1


def register(command: Callable[..., argparse.ArgumentParser]) -> None:
    action = action_groups(command, {"sync": "git sync of the team's memory (.graphctx/): status, push, pull, "
                                             "conflicts, show, resolve, finalize"})
    action("sync", "status", sync_status, "branch, upstream, ahead/behind, uncommitted memory files, conflicts")
    action("sync", "push", sync_push, "commit the team's memory files alone, then push")
    p = action("sync", "pull", sync_pull, "commit the memory files, then pull and merge (exit 1 when conflicts are left)")
    p.add_argument("--strategy", choices=("ours", "theirs", "agent"), default="agent",
                   help="what to do where both sides changed the same field or section (default: leave it to you)")
    action("sync", "conflicts", sync_conflicts, "the files a pull left conflicted (exit 1 when none)")
    p = action("sync", "show", sync_show, "one conflicted file: how each field and section merges, base, ours, theirs")
    p.add_argument("path", metavar="FILE")
    p = action("sync", "resolve", sync_resolve, "settle one conflicted file")
    p.add_argument("path", metavar="FILE")
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--take", choices=("ours", "theirs"), help="merge, taking this side where both changed")
    group.add_argument("--content", type=Path, help="the resolved file (- reads standard input)")
    action("sync", "finalize", sync_finalize, "commit the merge once nothing is conflicted")
    p = action("sync", "merge-driver", merge_driver, "(run by git) merge %%O %%A %%B of file %%P")
    for name in ("base", "ours", "theirs"):
        p.add_argument(name, type=Path)
    p.add_argument("path")


def _sync(args):
    project, _ = open_project(args)
    return project, project.work.sync


def sync_status(args) -> int:
    project, sync = _sync(args)
    status = sync.status()
    show(args, status, project.work_text.sync_status_text(status))
    return 0


def sync_push(args) -> int:
    project, sync = _sync(args)
    result = sync.push()
    show(args, result, result.message)
    return 0


def sync_pull(args) -> int:
    project, sync = _sync(args)
    result = sync.pull(args.strategy)
    show(args, result, "\n".join([result.message, *result.conflicts]))
    return NOTHING_FOUND if result.conflicts else 0


def sync_conflicts(args) -> int:
    project, sync = _sync(args)
    found = sync.conflicts()
    show(args, found, "\n".join(found))
    if not found:
        print("nothing is conflicted", file=sys.stderr)
    return 0 if found else NOTHING_FOUND


def sync_show(args) -> int:
    project, sync = _sync(args)
    conflict = sync.show(args.path)
    show(args, conflict, project.work_text.conflict_text(conflict))
    return 0


def sync_resolve(args) -> int:
    project, sync = _sync(args)
    content = None
    if args.content is not None:
        try:
            content = sys.stdin.read() if str(args.content) == "-" else args.content.read_text(encoding="utf-8")
        except OSError as exc:
            raise InvalidRequest(f"cannot read {args.content} ({exc.__class__.__name__}); give a readable file") from None
    message = sync.resolve(args.path, take=args.take, content=content)
    show(args, {"message": message}, message)
    return 0


def sync_finalize(args) -> int:
    project, sync = _sync(args)
    result = sync.finalize()
    show(args, result, result.message)
    return 0


def merge_driver(args) -> int:
    from graphctx.project import Project

    return Project.merge_memory_file(args.base, args.ours, args.theirs, args.path)
