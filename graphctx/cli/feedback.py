"""Feedback from the CLI: `--task`, `--helpful yes|no` and `--about` on `graphctx context` and `graphctx
intent` (an agent's answers are noted for later feedback when it is named: --agent or $GRAPHCTX_AGENT),
and `graphctx feedback [--reset] [--json]`, what feedback taught the ranking of this repository."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable
from typing import Any

from graphctx.errors import InvalidRequest


def options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--task", help="the task you work on: what it links and its runs touched ranks higher")
    p.add_argument("--helpful", choices=("yes", "no"),
                   help="whether your last answer for this same request helped; the ranking learns from it")
    p.add_argument("--about", nargs="+", metavar="ENTITY", help="with --helpful: the items the feedback is about")
    p.add_argument("--agent", help="who asks (default: $GRAPHCTX_AGENT); a named agent's answers are noted for feedback")


def request(project: Any, args: argparse.Namespace) -> dict[str, Any]:
    """The teaching arguments of a context or intent request."""
    agent = args.agent or os.environ.get("GRAPHCTX_AGENT", "").strip() or None
    if args.helpful and not agent:
        raise InvalidRequest("--helpful is feedback on your last answer: name yourself with --agent or $GRAPHCTX_AGENT "
                             "(on that request too)")
    return {"learner": project.agent_name(agent) if agent else None, "task_id": args.task,
            "helpful": None if args.helpful is None else args.helpful == "yes", "about": args.about}


def register(command: Callable[..., argparse.ArgumentParser]) -> None:
    p = command("feedback", show, "what feedback taught the ranking here: a multiplier per edge kind and text signal")
    p.add_argument("--reset", action="store_true", help="forget it: the ranking goes back to its hand-set weights")
    p.add_argument("--json", action="store_true")


def show(args: argparse.Namespace) -> int:
    from graphctx.project import Project

    view = Project(args.repo, ephemeral=False).feedback(reset=args.reset)
    if args.json:
        print(json.dumps(view.model_dump(mode="json"), indent=2))
        return 0
    if args.reset:
        print("learned weights reset: the ranking uses its hand-set weights")
        return 0
    if not view.feedback:
        print("no feedback yet: say helpful=true|false on get_context (or --helpful on graphctx context)")
        return 1
    print(f"{view.feedback} answers of feedback, last {view.updated_at:%Y-%m-%d %H:%M} UTC")
    for group, values in (("edge kinds", view.edges), ("text signals", view.signals)):
        print(f"{group}: " + (", ".join(f"{k} x{v:.2f}" for k, v in values.items()) or "as hand-set"))
    for item in view.recent[-5:]:
        mark = "helpful" if item["helpful"] else "unhelpful"
        print(f"  {item['at']} {item['agent']} {mark}: {item['query']}")
    return 0
