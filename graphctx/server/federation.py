"""The team server's federated calls: get_context, search and get_impact with `projects`, answered
by the home project and extended with what the other projects contribute (Project.federation):
sections labelled with their project, scores times the decay, the whole within the call's token
budget (the home answer gets its share first)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import anyio.to_thread
from mcp_types import CallToolResult, TextContent

from graphctx.models import DEFAULT_BUDGET, MIN_BUDGET, ContextAnswer

HOME_SHARE = 0.6  # of the token budget, for the home project's own answer when others are asked
HEADINGS = 40  # tokens: the project headings of a compact answer, before they are measured
CHANGED = ("root", "changed", "added", "removed")  # an impact answer's items that are the change itself


def home_arguments(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments the home project answers with, as JSON (re-rendered later); for get_context and
    get_impact, its share of the budget."""
    if name not in ("get_context", "get_impact"):
        return arguments
    budget = arguments.get("token_budget", DEFAULT_BUDGET)
    return {**arguments, "token_budget": max(MIN_BUDGET, int(budget * HOME_SHARE)), "format": "json"}


def _answer(result: CallToolResult) -> ContextAnswer:
    data = dict(result.structured_content or {})
    notes = data.pop("notes", [])
    answer = ContextAnswer.model_validate(data)
    answer.notes += notes
    return answer


async def extend(name: str, result: CallToolResult, arguments: dict[str, Any], home: Any, others: Mapping[str, Any],
                 key: str, decay: float) -> CallToolResult:
    """`result` (the home project's answer) with the other projects' part added."""
    projects = {k: state.project for k, state in others.items()}
    fmt = arguments.get("format", "compact")
    if name == "get_context":
        return await anyio.to_thread.run_sync(_context, result, arguments, home.project, projects, key, decay, fmt)
    if name == "search":
        return await anyio.to_thread.run_sync(_search, arguments, home.project, projects, key, decay, fmt)
    return await anyio.to_thread.run_sync(_impact, result, arguments, home.project, projects, key, fmt)


def _text(text: str, data: dict | None = None) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def _context(result: CallToolResult, arguments: dict[str, Any], home: Any, projects: Mapping[str, Any], key: str,
             decay: float, fmt: str) -> CallToolResult:
    """The home answer, then the linked projects' part in what it left of the budget: packed, measured
    whole (headings and each linked answer's note included) and packed again smaller by what it overran."""
    answer = _answer(result)
    budget = arguments.get("token_budget", DEFAULT_BUDGET)
    ids = [item.id for item in answer.items]
    joined_projects = home.federation.joined(ids, projects)
    linked = [other for other, _, _ in joined_projects]
    if not linked:
        return _joined(answer, [], home, key, decay, fmt, f"note: no code of {', '.join(projects)} is linked to "
                       "this answer (neither imports the other's package nor calls its HTTP routes here)")[0]
    left = budget - answer.tokens_used - HEADINGS
    for _ in range(4):
        if left < MIN_BUDGET:
            break
        found = home.federation.contexts(joined_projects, decay=decay, budget=left, format=fmt)
        joined, size = _joined(answer, found, home, key, decay, fmt)
        if size <= budget:
            return joined
        left -= max(size - budget, MIN_BUDGET // 4)  # (a packet rarely shrinks by exactly the overrun)
    return _joined(answer, [], home, key, decay, fmt, f"note: the code of {', '.join(linked)} linked to this answer "
                   "did not fit in the budget: ask with a larger token_budget")[0]


def _joined(answer: ContextAnswer, found: list, home: Any, key: str, decay: float, fmt: str,
            note: str = "") -> tuple[CallToolResult, int]:
    """The federated answer and its size in tokens (of its JSON, or of its text)."""
    if fmt == "json":
        whole = {**answer.model_dump(mode="json"), "project": key,
                 "federated": [{"project": k, **a.model_dump(mode="json")} for k, a, _ in found]}
        if note:
            whole["notes"] = [*whole.get("notes", []), note]
        summary = f"{home.header(answer)} | project {key} + {len(found)} linked project(s)"
        return (_text(f"{summary}\n(the full answer is in structuredContent)", whole),
                home.count_tokens(json.dumps(whole, separators=(",", ":"))))
    parts = [f"# project {key}", home.federation.render(answer, "compact")]
    for other, _, text in found:
        parts += [f"# project {other} (linked; scores x {decay:g} x the link's confidence)", text]
    text = "\n".join([*parts, note] if note else parts)
    return _text(text), home.count_tokens(text)


def _search(arguments: dict[str, Any], home: Any, projects: Mapping[str, Any], key: str, decay: float,
            fmt: str) -> CallToolResult:
    query, kind, limit = arguments.get("query", ""), arguments.get("kind"), arguments.get("limit", 20)
    hits = [(key, hit) for hit in home.search(query, kind, limit).hits]
    hits += home.federation.hits(projects, query, kind, limit, decay)
    hits.sort(key=lambda pair: -pair[1].score)
    hits = hits[:limit]
    if fmt == "json":
        data = {"query": query, "decay": decay, "hits": [{"project": k, **h.model_dump()} for k, h in hits]}
        return _text(f"# graphctx search over {key}, {', '.join(projects)} | {len(hits)} hits", data)
    lines = [f"# graphctx search over {key}, {', '.join(projects)} (scores from other projects x {decay:g}) | "
             f"{len(hits)} hits"]
    lines += [f"[{k}] {h.id} {h.kind} L{h.start_line} {h.match} {h.score:.2f}" for k, h in hits]
    return _text("\n".join(lines))


def _impact(result: CallToolResult, arguments: dict[str, Any], home: Any, projects: Mapping[str, Any], key: str,
            fmt: str) -> CallToolResult:
    answer = _answer(result)
    # What changed: the symbol (the answer's root, shown or not), or the changed, added and removed
    # entities of a diff or of the files, and every entity of the files named.
    ids = [answer.root] if answer.root else []
    ids += [item.id for item in answer.items if item.relation in CHANGED]
    for path in arguments.get("files") or []:
        ids += home.graph.by_path.get(path, [])
    found = home.federation.dependents(list(dict.fromkeys(ids)), projects)
    budget, shown = arguments.get("token_budget", DEFAULT_BUDGET), len(found)
    while True:  # as many dependents as the budget holds, the first ones
        joined, size = _with_dependents(answer, found, shown, home, projects, key, fmt)
        if size <= budget or shown == 0:
            return joined
        shown = min(shown - 1, shown * budget // size)


def _with_dependents(answer: ContextAnswer, found: list, shown: int, home: Any, projects: Mapping[str, Any], key: str,
                     fmt: str) -> tuple[CallToolResult, int]:
    """The impact answer with the first `shown` cross-project dependents, and its size in tokens."""
    more = len(found) - shown
    if fmt == "json":
        data = {**answer.model_dump(mode="json"),
                "cross_project": [{"project": k, "dependent": link.user, "uses_project": key, "uses": link.used,
                                   **link.as_dict()}
                                  for k, link in found[:shown]]}
        if more:
            data["cross_project_omitted"] = more
        return (_text(f"{home.header(answer)} | {len(found)} cross-project dependents\n(the full answer is in "
                      "structuredContent)", data), home.count_tokens(json.dumps(data, separators=(",", ":"))))
    lines = [home.federation.render(answer, "compact"), f"## cross-project dependents ({len(found)})"]
    lines += [f"[{k}] {link.user} uses {link.used}: {link.describe()}" for k, link in found[:shown]] or \
        ([] if more else ["none in " + ", ".join(projects)])
    if more:
        lines.append(f"({more} more: ask with a larger token_budget)")
    text = "\n".join(lines)
    return _text(text), home.count_tokens(text)
