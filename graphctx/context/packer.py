"""Packs ranked candidates into an exact token budget. Each entity degrades before it is dropped
(full body -> signature and doc -> one line); the rendered answer, in the format asked for, is
counted with the real tokenizer and trimmed until it fits, so it never exceeds the budget."""

from __future__ import annotations

from dataclasses import dataclass, fields
from itertools import islice
from typing import Protocol

from graphctx import deadline
from graphctx.context.policy import DEFAULT_PACKING
from graphctx.context.render import MAX_OMITTED_LISTED, header, heading, item_text, render
from graphctx.context.tokens import count, count_within, joined_within
from graphctx.models import ContextAnswer, Omitted, PacketItem

LEVELS = ("full", "summary", "line")


@dataclass(slots=True, frozen=True)  # frozen: a ranking is kept and handed to several packings (engine.py)
class Candidate:
    id: str
    score: float
    relation: str
    distance: int
    resolution: str = "exact"
    confidence: float = 1.0
    max_detail: str = "full"


def _set_fields(self, id: str, score: float, relation: str, distance: int, resolution: str = "exact",
                confidence: float = 1.0, max_detail: str = "full") -> None:
    # A frozen dataclass's own __init__ sets each field through object.__setattr__ by name, a third
    # of a ranking's time after PageRank (it makes thousands of candidates); the slots' setters do
    # the same in a third of the time, and assignment afterwards still raises.
    _ID(self, id), _SCORE(self, score), _RELATION(self, relation), _DISTANCE(self, distance)
    _RESOLUTION(self, resolution), _CONFIDENCE(self, confidence), _MAX_DETAIL(self, max_detail)


_ID, _SCORE, _RELATION, _DISTANCE, _RESOLUTION, _CONFIDENCE, _MAX_DETAIL = (
    getattr(Candidate, f.name).__set__ for f in fields(Candidate))
Candidate.__init__ = _set_fields


class View(Protocol):
    """What the packer needs of the views: an entity at a detail level, and a cheap lower bound on
    the size of its full view, so that what cannot fit is never read."""

    def __call__(self, candidate: Candidate, detail: str) -> PacketItem: ...

    def min_full_tokens(self, entity_id: str) -> int: ...

    def counted(self) -> dict:
        """Where the counts of views' texts are remembered between answers (tokens.joined_within)."""
        ...


MIN_ITEM_TOKENS = 8  # below this much room not even a heading fits: stop trying
MAX_MISSES = 25  # after this many candidates in a row fit in no form, the rest will not either


def pack(answer: ContextAnswer, candidates: list[Candidate], view: View, fmt: str, encoding: str, *,
         full_share: float = DEFAULT_PACKING.full_share) -> tuple[ContextAnswer, str]:
    """Fill `answer` (its header fields set, no items) with candidates, best first, within answer.token_budget.
    After the first item, one full body may take at most `full_share` of what is left (PackPolicy)."""
    budget = answer.token_budget
    listed = min(MAX_OMITTED_LISTED, budget // 200)  # the omitted list may not crowd out the code
    answer.total_candidates = len(candidates)
    by_id = {c.id: c for c in candidates}
    _set_items(answer, [], candidates, by_id, listed)
    answer.tokens_used = budget
    remaining = budget - count(render(answer, fmt), encoding)
    chosen: list[PacketItem] = []
    misses = 0
    for candidate in candidates:
        if remaining < MIN_ITEM_TOKENS or misses >= MAX_MISSES:
            break
        deadline.check()
        fitted = _fit(candidate, view, fmt, encoding, remaining, not chosen, full_share)
        if fitted is None:
            misses += 1
            continue
        misses = 0
        chosen.append(fitted[0])
        remaining -= fitted[1]
    return _finalise(answer, chosen, candidates, by_id, listed, view, fmt, encoding)


def _fit(candidate: Candidate, view: View, fmt: str, encoding: str, remaining: int,
         first: bool, full_share: float) -> tuple[PacketItem, int] | None:
    """The most detailed view of a candidate that fits, with its cost, or None. The one-line view is
    measured first: when even that does not fit, nothing bigger is built or counted. Only the first
    item may fill the budget with its body: a later long body taking more than `full_share` of what is
    left comes as its summary, leaving room for the next candidates' code. Each view is counted only
    up to what it may take (`_cost`): the rest of a body that cannot fit is never counted."""
    line = view(candidate, "line")
    known = view.counted()
    line_cost = _cost(line, fmt, encoding, remaining, known)
    if line_cost is None:
        return None
    for level in LEVELS[LEVELS.index(candidate.max_detail):-1]:
        if level == "full" and view.min_full_tokens(candidate.id) > remaining:
            continue
        item = view(candidate, level)
        limit = remaining if first or level != "full" else min(remaining, int(remaining * full_share))
        cost = _cost(item, fmt, encoding, limit, known)
        if cost is not None:
            return item, cost
    return line, line_cost


def _cost(item: PacketItem, fmt: str, encoding: str, limit: int, known: dict) -> int | None:
    """The tokens an item adds to an answer (its text and the newline before it) if at most `limit`,
    else None. A compact item's text is counted apart from its heading, so its count is remembered."""
    if fmt == "compact" and item.text:
        counted = joined_within(heading(item), item.text, limit - 1, known, encoding)
    else:
        counted = count_within(item_text(item, fmt), limit - 1, encoding)
    return None if counted is None else counted + 1


def _finalise(answer: ContextAnswer, chosen: list[PacketItem], candidates: list[Candidate], by_id: dict[str, Candidate],
              listed: int, view: View, fmt: str, encoding: str) -> tuple[ContextAnswer, str]:
    """Render for real and trim from the lowest-ranked end until the exact count fits."""
    while True:
        deadline.check()
        _set_items(answer, chosen, candidates, by_id, listed)
        text = _render_counted(answer, fmt, encoding)
        if text is not None:
            return answer, text
        if chosen:
            last = chosen[-1]
            lower = LEVELS.index(last.detail) + 1
            if lower < len(LEVELS):
                chosen[-1] = view(by_id[last.id], LEVELS[lower])
            else:
                chosen.pop()
        elif listed:
            listed //= 2
        elif answer.notes:
            answer.notes = answer.notes[:-1]
        else:
            raise ValueError(f"a budget of {answer.token_budget} tokens cannot hold even an empty answer")


def _render_counted(answer: ContextAnswer, fmt: str, encoding: str) -> str | None:
    """The rendering whose `tokens_used` states its own exact token count, or None if it is over budget.
    The count sits inside the text it counts, so settle it: start from the budget (the widest the
    number can be) and repeat until the stated count is the true one. Only the header line changes
    between tries: a compact answer's body is rendered and counted once (tokens.joined_within)."""
    answer.tokens_used = answer.token_budget
    text = render(answer, fmt)
    head = header(answer) if fmt == "compact" else None
    body = text[len(head) + 1:] if head is not None and len(text) > len(head) else None
    known: dict = {}
    for _ in range(4):
        if body is None:
            text = render(answer, fmt)
            used = count_within(text, answer.token_budget, encoding)
        else:
            head = header(answer)
            text = f"{head}\n{body}"
            used = joined_within(head, body, answer.token_budget, known, encoding)
        if used is None:
            return None
        if used == answer.tokens_used:
            return text
        answer.tokens_used = used
    return text if count(text, encoding) <= answer.token_budget else None


def _set_items(answer: ContextAnswer, chosen: list[PacketItem], candidates: list[Candidate],
               by_id: dict[str, Candidate], listed: int) -> None:
    taken = {item.id for item in chosen}
    left_out = (c for c in candidates if c.id not in taken)
    if len(by_id) == len(candidates):  # no id twice (no ranking gives one twice): each chosen item is one candidate
        omitted_count = len(candidates) - len(taken)  # (thousands of candidates: not counted one by one per try)
    else:
        left_out = list(left_out)
        omitted_count = len(left_out)
    answer.items = chosen
    answer.omitted = [Omitted(id=c.id, score=float(round(c.score, 4))) for c in islice(left_out, listed)]
    answer.omitted_count = omitted_count
    answer.truncated = omitted_count > 0 or any(item.detail != by_id[item.id].max_detail for item in chosen)
