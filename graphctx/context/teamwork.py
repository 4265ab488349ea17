"""Coordination inside answers, within their token budget: the peers line a context answer carries
(other agents active on the code it shows, and how long ago) and the coordination section session_init
opens with for an agent (graphctx.coord's SessionWork). Both are added after packing and the packet
is packed again smaller when the addition would pass the budget, so the whole answer stays within it."""

from __future__ import annotations

import json
from collections.abc import Callable

from graphctx.context.tokens import count
from graphctx.coord import render as work_text
from graphctx.coord.models import Peer
from graphctx.coord.sessions import SessionWork
from graphctx.models import MIN_BUDGET, ContextAnswer

Packed = tuple[ContextAnswer, str]
Packer = Callable[[int], Packed]  # the answer packed to a budget
QUICK_PACKET = 600  # a quick session's code packet: the overview lines and a few entries
FIT_TRIES = 3  # packets made to fit one answer (each smaller than the last)
CUT_NOTE = "(more cut to fit the budget: ask with a larger token_budget)"


def with_peers(pack: Packer, budget: int, fmt: str, peers_of: Callable[[ContextAnswer], list[Peer]]) -> Packed:
    """The answer with a `peers:` line (compact) or a `peers` list (json) when other agents are active
    on what it shows; without peers, the answer as packed."""
    answer, text = pack(budget)
    peers = peers_of(answer)
    if not peers:
        return answer, text
    fitted, whole = _fitted(pack, (answer, text), budget, lambda packet: _add_peers(packet, peers, fmt))
    return (fitted, whole) if whole is not None else (answer, text)


def _fitted(pack: Packer, packed: Packed, budget: int, join: Callable[[str], str]) -> tuple[ContextAnswer, str | None]:
    """`join(packet)` within `budget`, the packet packed again smaller by what the whole overran, measured
    on the packet as packed (which rarely fills what it was allowed): (the last answer packed, the whole,
    or None when FIT_TRIES packets did not fit or the room left fell below MIN_BUDGET)."""
    answer, text = packed
    for tried in range(1, FIT_TRIES + 1):
        whole = join(text)
        over = count(whole) - budget
        if over <= 0:
            return answer, whole
        room = count(text) - over
        if tried == FIT_TRIES or room < MIN_BUDGET:
            break
        answer, text = pack(room)
    return answer, None


def _add_peers(text: str, peers: list[Peer], fmt: str) -> str:
    if fmt == "json":
        data = json.loads(text)
        data["peers"] = [p.model_dump(mode="json") for p in peers]
        return json.dumps(data, separators=(",", ":"))
    return f"{text}\n{work_text.peers_line(peers)}"


def with_work(pack: Packer, work: SessionWork, budget: int, fmt: str) -> Packed:
    """session_init for an agent: its coordination section first (cut from the end when the budget is
    small), then the code packet in what is left (a small one for the quick scope)."""
    body, cut = work_text.session_lines(work), False
    while True:
        lines = [*body, CUT_NOTE] if cut else body
        section = _section(work, lines, fmt)
        room = budget - count(section) - 2
        if room >= MIN_BUDGET or len(body) <= 1:
            break
        body, cut = body[: max(1, len(body) * 3 // 4)], True  # shorter each time: the loop ends
    if room < MIN_BUDGET:  # no room for a code packet: the coordination section alone, cut to the budget
        answer, _ = pack(MIN_BUDGET)
        if fmt == "json":
            return answer, json.dumps({"work": {"agent": work.agent, "scope": work.scope, "note": CUT_NOTE}})
        return answer, _fit(section, budget)
    room = min(room, QUICK_PACKET) if work.scope == "quick" else room
    answer, whole = _fitted(pack, pack(room), budget, lambda packet: _join(section, packet, fmt))
    if whole is not None:
        return answer, whole
    if fmt == "json":
        return answer, json.dumps({"work": {"agent": work.agent, "scope": work.scope, "note": CUT_NOTE}})
    return answer, _fit(section, budget)


def _fit(text: str, budget: int) -> str:
    """Whole lines of `text` from the start, as many as `budget` tokens hold."""
    kept: list[str] = []
    for line in text.splitlines():
        if count("\n".join([*kept, line])) > budget:
            break
        kept.append(line)
    return "\n".join(kept)


def _section(work: SessionWork, lines: list[str], fmt: str) -> str:
    if fmt != "json":
        return "\n".join(lines)
    data = work.model_dump(mode="json", exclude_defaults=True)
    if lines and lines[-1] == CUT_NOTE:  # the json section shrinks by dropping its longest lists
        for name in ("agents", "recent_runs", "open_tasks", "ready", "board"):
            data.pop(name, None)
        data["note"] = CUT_NOTE
    return json.dumps(data, separators=(",", ":"))


def _join(section: str, packet: str, fmt: str) -> str:
    if fmt == "json":
        data = json.loads(packet)
        data["work"] = json.loads(section)
        return json.dumps(data, separators=(",", ":"))
    return f"{section}\n\n{packet}"
