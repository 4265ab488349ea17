"""Feedback that teaches the ranking: every answer served to an agent is noted (its query and items,
each with the edge kind or text signal that brought it); `helpful=true|false` on a later request
about the same query is recorded against that answer and moves the repository's learned multipliers
(one per edge kind, one per text signal) toward what helped. The multipliers are bounded, fade back
toward 1 with every later piece of feedback and with time, can be read whole (`graphctx feedback`)
and reset. Kept behind the WorkRepository (the weights, and the answers and feedback as a stream)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from datetime import datetime

from pydantic import BaseModel, Field

from graphctx.coord.errors import InvalidRequest, NotFound
from graphctx.coord.models import Event, LearnedWeights, new_id, now
from graphctx.coord.repository import WorkRepository

LEARNING_RATE = 0.25  # a step in log space: one answer's worth of feedback moves a multiplier by at most ~28%
FADE = 0.95  # every piece of feedback first fades what was learned before toward 1 ...
HALF_LIFE_DAYS = 30.0  # ... and what was learned halves (in log space) every 30 days without feedback
LOW, HIGH = 0.25, 4.0  # a learned multiplier stays within these
MAX_ITEMS = 60  # items noted per answer: feedback is about what the agent read, the top of the answer
RECENT_FEEDBACK = 20

Credit = Mapping[str, tuple[str | None, str | None]]  # item id -> (edge kind, text signal) that brought it


class NotedAnswer(BaseModel):
    id: str
    agent: str
    at: datetime
    mode: str  # context, intent/<name>
    query: str
    items: list[list] = Field(default_factory=list)  # [entity id, relation], best first


class FeedbackView(BaseModel):
    """The learned weights as the ranking uses them now (faded to this moment), and recent feedback."""

    edges: dict[str, float]
    signals: dict[str, float]
    feedback: int
    updated_at: datetime | None
    recent: list[dict] = Field(default_factory=list)


class Feedback:
    def __init__(self, repo: WorkRepository):
        self.repo = repo

    # ---- answers

    def note_answer(self, agent: str, mode: str, query: str, items: list[tuple[str, str]]) -> str:
        answer_id = new_id("a-")
        self.repo.append("feedback", Event(kind="answer", subject=answer_id, agent=agent, at=now(), data={
            "mode": mode, "query": query[:2000], "items": [list(i) for i in items[:MAX_ITEMS]]}))
        return answer_id

    def last_answer(self, agent: str, mode: str, query: str) -> NotedAnswer:
        """The latest answer served to `agent` for this mode and query: what its feedback is about."""
        for event in reversed(self.repo.events("feedback", [agent])):
            if event.kind == "answer" and event.data.get("mode") == mode and event.data.get("query") == query[:2000]:
                return NotedAnswer(id=event.subject, agent=agent, at=event.at, **event.data)
        raise NotFound(f"helpful refers to the last answer for {query[:80]!r} served to {agent}, and there is none; "
                       "ask for it first (without helpful), then say whether it helped")

    # ---- learning

    def give(self, answer: NotedAnswer, helpful: bool, credit: Credit, about: list[str] | None = None) -> FeedbackView:
        """Record feedback on an answer and learn from it: the edge kinds and text signals that brought the
        items it is `about` (default: every item but the root) move up when helpful, down when not, each
        by its share of those items."""
        items = dict((entity_id, relation) for entity_id, relation in answer.items)
        if about:
            unknown = [entity_id for entity_id in about if entity_id not in items]
            if unknown:
                raise InvalidRequest(f"{unknown[0]} was not in that answer; `about` names items of the answer "
                                     f"({', '.join(list(items)[:5])}, ...)")
            chosen = list(dict.fromkeys(about))
        else:
            chosen = [entity_id for entity_id, relation in items.items() if relation != "root"]
        kinds = Counter(k for entity_id in chosen if (k := credit.get(entity_id, (None, None))[0]))
        signals = Counter(s for entity_id in chosen if (s := credit.get(entity_id, (None, None))[1]))
        sign = 1.0 if helpful else -1.0
        with self.repo.transaction():
            stored = self.repo.get_weights()
            at = now()
            edges, sigs = _faded(stored, at)
            edges = _step({k: v * FADE for k, v in edges.items()}, kinds, len(chosen), sign)
            sigs = _step({k: v * FADE for k, v in sigs.items()}, signals, len(chosen), sign)
            weights = LearnedWeights(edges=_as_multipliers(edges), signals=_as_multipliers(sigs),
                                     feedback=(stored.feedback if stored else 0) + 1, updated_at=at,
                                     version=(stored.version + 1) if stored else 1)
            self.repo.put_weights(weights, stored.version if stored else None)
            self.repo.append("feedback", Event(kind="helpful" if helpful else "unhelpful", subject=answer.id,
                                               agent=answer.agent, at=at, data={
                                                   "query": answer.query[:200], "about": chosen[:MAX_ITEMS],
                                                   "edges": dict(kinds), "signals": dict(signals)}))
        return self.view()

    def multipliers(self) -> tuple[dict[str, float], dict[str, float]]:
        """(edge kind -> multiplier, text signal -> multiplier) as the ranking uses them now; empty when
        nothing was learned."""
        stored = self.repo.get_weights()
        if stored is None:
            return {}, {}
        edges, signals = _faded(stored, now())
        return _as_multipliers(edges), _as_multipliers(signals)

    def view(self) -> FeedbackView:
        stored = self.repo.get_weights()
        edges, signals = self.multipliers()
        recent = [{"at": e.at.isoformat(timespec="seconds"), "agent": e.agent, "helpful": e.kind == "helpful",
                   "answer": e.subject, "query": e.data.get("query", ""), "edges": e.data.get("edges", {}),
                   "signals": e.data.get("signals", {})}
                  for e in self.repo.events("feedback") if e.kind in ("helpful", "unhelpful")][-RECENT_FEEDBACK:]
        return FeedbackView(edges=edges, signals=signals, feedback=stored.feedback if stored else 0,
                            updated_at=stored.updated_at if stored else None, recent=recent)

    def reset(self) -> FeedbackView:
        """Forget what was learned: the ranking goes back to its hand-set weights (the feedback log stays)."""
        with self.repo.transaction():
            self.repo.drop_weights()
            self.repo.append("feedback", Event(kind="reset", agent="-", at=now()))
        return self.view()


def _faded(stored: LearnedWeights | None, at: datetime) -> tuple[dict[str, float], dict[str, float]]:
    """The stored multipliers in log space, faded by the time since they were learned."""
    if stored is None:
        return {}, {}
    days = max(0.0, (at - stored.updated_at).total_seconds() / 86400)
    keep = 0.5 ** (days / HALF_LIFE_DAYS)
    return ({k: math.log(v) * keep for k, v in stored.edges.items()},
            {k: math.log(v) * keep for k, v in stored.signals.items()})


def _step(logs: dict[str, float], counts: Counter, total: int, sign: float) -> dict[str, float]:
    out = dict(logs)
    for name, count in counts.items():
        value = out.get(name, 0.0) + sign * LEARNING_RATE * count / max(1, total)
        out[name] = min(math.log(HIGH), max(math.log(LOW), value))
    return out


def _as_multipliers(logs: dict[str, float]) -> dict[str, float]:
    """Multipliers rounded for reading; those that faded back to (about) 1 are left out."""
    return {k: round(math.exp(v), 4) for k, v in sorted(logs.items()) if abs(v) >= 1e-3}
