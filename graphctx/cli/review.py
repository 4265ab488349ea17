"""`graphctx review queue|next|decide|distill|log|hypotheses|hypothesize|judge`: the CLI twin of the `review` MCP tool (the review
loop over the team's records), over Project. Exit 1 when the queue or the log is empty, 2 on a
refusal or input to fix."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from graphctx.cli.work import action_groups, listing, open_project, show

NOTHING_FOUND = 1


def register(command: Callable[..., argparse.ArgumentParser]) -> None:
    action = action_groups(command, {"review": "review the team's records: queue, next, decide, distill, log"})
    action("review", "queue", review_queue, "every record to review: stale, duplicated, unused (exit 1 when none)")
    action("review", "next", review_next, "the first item to review, with its evidence (exit 1 when none)")
    p = action("review", "decide", review_decide, "decide one item: keep, verify, retract, merge or rewrite")
    p.add_argument("item_id", metavar="ITEM", help="a record id, or dup:... for duplicates")
    p.add_argument("decision", choices=("keep", "verify", "retract", "merge", "rewrite"))
    p.add_argument("--reason", default="")
    p.add_argument("--into", help="merge: the record kept (default the oldest)")
    p.add_argument("--title", help="rewrite or merge: the new title")
    p.add_argument("--body", help="rewrite or merge: the new body")
    p = action("review", "distill", review_distill, "merge several records into one synthesis record naming them")
    p.add_argument("record_ids", nargs="+", metavar="RECORD")
    p.add_argument("--title", required=True)
    p.add_argument("--body", required=True)
    p.add_argument("--category")
    p.add_argument("--type")
    action("review", "log", review_log, "the review decisions taken (exit 1 when none)")
    p = action("review", "hypotheses", review_hypotheses, "synthesis records to draw hypotheses from, and the "
                                                         "hypotheses (exit 1 when there are neither)")
    p.add_argument("--status", choices=("open", "confirmed", "refuted"))
    p = action("review", "hypothesize", review_hypothesize, "write one falsifiable hypothesis from a synthesis record")
    p.add_argument("synthesis_id", metavar="SYNTHESIS")
    p.add_argument("--statement", required=True, help="the claim, one line")
    p.add_argument("--test", required=True, help="how to confirm or refute it")
    p = action("review", "judge", review_judge, "confirm or refute a hypothesis with the evidence")
    p.add_argument("hypothesis_id", metavar="HYPOTHESIS")
    p.add_argument("verdict", choices=("confirmed", "refuted"))
    p.add_argument("--evidence", required=True)


def review_queue(args) -> int:
    project, _ = open_project(args)
    queue = project.review_queue()
    if getattr(args, "json", False):
        show(args, queue, "")
        return 0 if queue.items else NOTHING_FOUND
    print(project.work_text.review_counts(queue))
    for item in queue.items:
        print(project.work_text.review_line(item))
    return 0 if queue.items else NOTHING_FOUND


def review_next(args) -> int:
    project, _ = open_project(args)
    queue = project.review_queue()
    if not queue.items:
        show(args, {"item": None}, project.work_text.review_counts(queue) + "; nothing to review")
        return NOTHING_FOUND
    show(args, queue.items[0], project.work_text.review_item_text(queue.items[0]))
    return 0


def review_decide(args) -> int:
    project, me = open_project(args)
    item, done = project.review_decide(args.item_id, args.decision, me, reason=args.reason, into=args.into,
                                       title=args.title, body=args.body)
    queue = project.review_queue()
    following = project.work_text.review_item_text(queue.items[0]) if queue.items else "the queue is empty"
    show(args, {"item": item.model_dump(mode="json"), "done": done}, "\n".join([*done, f"next: {following}"]))
    return 0


def review_distill(args) -> int:
    project, me = open_project(args)
    record, ids = project.distill(args.record_ids, me, title=args.title, body=args.body, category=args.category,
                                  type=args.type)
    show(args, record, f"distilled {', '.join(ids)} into {record.id} '{record.title}'")
    return 0


def review_log(args) -> int:
    project, _ = open_project(args)
    events = project.work.review.decisions()
    return listing(args, events, lambda e: f"{e.at:%Y-%m-%d %H:%M} {e.agent} {e.kind} {e.subject} {e.data.get('decision', '')}",
                   "no review decision yet")


def review_hypotheses(args) -> int:
    project, _ = open_project(args)
    candidates, found = project.hypotheses(args.status)
    show(args, {"candidates": [h.model_dump(mode="json") for h in candidates],
                "hypotheses": [h.model_dump(mode="json") for h in found]},
         project.work_text.hypotheses_text(candidates, found, args.status))
    return 0 if candidates or found else NOTHING_FOUND


def review_hypothesize(args) -> int:
    project, me = open_project(args)
    record = project.hypothesize(args.synthesis_id, args.statement, args.test, me)
    show(args, record, f"hypothesis {record.id} [open] {record.title} (from {args.synthesis_id})")
    return 0


def review_judge(args) -> int:
    project, me = open_project(args)
    record = project.judge(args.hypothesis_id, args.verdict, args.evidence, me)
    show(args, record, f"hypothesis {record.id} [{args.verdict}] {record.title}")
    return 0
