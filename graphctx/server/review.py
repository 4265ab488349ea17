"""The `review` tool: the review loop over the team's records, grouped by an `action` (queue, next,
decide, distill, log; and, on explicit request only, the hypothesize loop: hypotheses, hypothesize,
judge), acting as the session's agent over Project and answering in the text the CLI
prints (structured content for format=json)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult
from pydantic import Field

from graphctx.server.records import as_json
from graphctx.server.work import AgentId, Fmt, acting, check_action, tool_adder

REVIEW_ARGS = {
    "queue": set(),
    "next": set(),
    "decide": {"item_id", "decision", "reason", "into", "title", "body"},
    "distill": {"record_ids", "title", "body", "category", "type"},
    "log": set(),
    "hypotheses": {"status"},
    "hypothesize": {"item_id", "title", "body"},
    "judge": {"item_id", "verdict", "reason"},
}
REQUIRED = {("review", "decide"): ("item_id", "decision"), ("review", "distill"): ("record_ids", "title", "body"),
            ("review", "hypothesize"): ("item_id", "title", "body"), ("review", "judge"): ("item_id", "verdict", "reason")}


def register(server: MCPServer, state: Any) -> None:
    project = state.project
    text = project.work_text
    tool, act = tool_adder(server, state), acting(state)

    @tool
    def review(
        ctx: Context,
        action: Annotated[Literal["queue", "next", "decide", "distill", "log", "hypotheses", "hypothesize", "judge"], Field(
            description="queue: every item to review; next: the first item with its evidence; decide one item; "
                        "distill several records into one synthesis record; log: the decisions taken. Only when the "
                        "user asks for hypotheses: hypotheses (synthesis records to draw from, and the hypotheses), "
                        "hypothesize (one falsifiable claim from a synthesis record), judge (confirm or refute one)")],
        item_id: Annotated[str | None, Field(description="decide: the item's id (a record id, or dup:... for "
                                                         "duplicates), as queue and next show it; hypothesize: the "
                                                         "synthesis record; judge: the hypothesis")] = None,
        decision: Annotated[Literal["keep", "verify", "retract", "merge", "rewrite"] | None, Field(
            description="decide: keep (it holds), verify (re-stamp a stale record's anchors), retract, merge "
                        "(duplicates into one: `into`), rewrite (new title or body)")] = None,
        reason: Annotated[str, Field(description="decide: why (kept in the review log); judge: the evidence")] = "",
        verdict: Annotated[Literal["confirmed", "refuted"] | None, Field(description="judge: the verdict")] = None,
        status: Annotated[Literal["open", "confirmed", "refuted"] | None, Field(
            description="hypotheses: only those in this status")] = None,
        into: Annotated[str | None, Field(description="decide merge: the record kept (default the oldest)")] = None,
        title: Annotated[str | None, Field(description="decide rewrite or merge, distill: the new title; hypothesize: "
                                                       "the claim")] = None,
        body: Annotated[str | None, Field(description="decide rewrite or merge, distill: the new Markdown body; "
                                                      "hypothesize: how to test the claim")] = None,
        record_ids: Annotated[list[str] | None, Field(description="distill: the records to merge (two or more)")] = None,
        category: Annotated[str | None, Field(description="distill: the synthesis's category (default the "
                                                          "first record's)")] = None,
        type: Annotated[str | None, Field(description="distill: its knowledge type (default theirs, if one)")] = None,
        format: Fmt = "compact",
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Review the team's knowledge and decisions: walk a queue of records that are stale (their code changed),
        duplicated (same key, or near-identical text) or unused (no answer served them for 30 days), one item at a
        time with its evidence, and decide each (keep, verify, retract, merge, rewrite); distill merges several
        records into one synthesis record that names its originals."""
        given = dict(item_id=item_id, decision=decision, reason=reason, into=into, title=title, body=body,
                     record_ids=record_ids, category=category, type=type, verdict=verdict, status=status)

        def answer(me: str) -> CallToolResult | str:
            check_action("review", action, REVIEW_ARGS, given, REQUIRED)
            if action in ("queue", "next"):
                queue = project.review_queue()
                if format == "json":
                    return as_json(queue if action == "queue" else {"item": queue.items[0].model_dump(mode="json") if queue.items else None},
                                   text.review_counts(queue))
                if not queue.items:
                    return text.review_counts(queue) + "; nothing to review"
                if action == "next":
                    return "\n".join([text.review_counts(queue), text.review_item_text(queue.items[0])])
                return "\n".join([text.review_counts(queue), *map(text.review_line, queue.items)])
            if action == "decide":
                item, done = project.review_decide(item_id, decision, me, reason=reason, into=into, title=title,
                                                   body=body)
                queue = project.review_queue()
                following = text.review_item_text(queue.items[0]) if queue.items else "the queue is empty"
                return "\n".join([*done, f"next: {following}"])
            if action == "distill":
                record, ids = project.distill(record_ids, me, title=title, body=body, category=category, type=type)
                line = f"distilled {', '.join(ids)} into {record.id} '{record.title}' (refs name them; they are retracted)"
                return as_json(record, line) if format == "json" else line
            if action == "hypotheses":
                candidates, found = project.hypotheses(status)
                return text.hypotheses_text(candidates, found, status)
            if action == "hypothesize":
                record = project.hypothesize(item_id, title, body, me)
                return f"hypothesis {record.id} [open] {record.title} (from {item_id})"
            if action == "judge":
                record = project.judge(item_id, verdict, reason, me)
                return f"hypothesis {record.id} [{verdict}] {record.title}"
            events = project.work.review.decisions()
            lines = [f"{e.at:%Y-%m-%d %H:%M} {e.agent} {e.kind} {e.subject}: "
                     + (f"{e.data.get('decision')} ({e.data.get('reason')}) {e.data.get('note', '')}".rstrip()
                        if e.kind == "decided" else f"from {', '.join(e.data.get('records', []))}") for e in events]
            return "\n".join(lines) if lines else "no review decision yet"

        return act(ctx, agent_id, answer)
