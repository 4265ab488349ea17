"""The seam between what feedback taught and the ranking: a policy with learned multipliers applied
(one per edge kind, on both directions of its weight; one per text signal, on the seed weights of
that signal), a task's boost applied to ranked candidates, and which edge kind or text signal brought
each item of an answer (what a piece of feedback is credited to). The ranking code itself knows
nothing of feedback: it ranks by the policy it is given."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from graphctx.context.packer import Candidate
from graphctx.context.policy import RankingPolicy
from graphctx.context.seeds import from_text
from graphctx.graph.loader import CodeGraph
from graphctx.graph.rank import RELATION
from graphctx.models import EDGE_KINDS

# Text signals, each scaling the seed weights of one kind of evidence a text gives (SeedPolicy).
SIGNAL_FIELDS: dict[str, tuple[str, ...]] = {
    "frame": ("frame",),  # a stack frame's file and line
    "path": ("path",),  # a file path the text names
    "name": ("span", "name"),  # an identifier, in a code span or in prose
    "text": ("text",),  # a full-text match
}
SIGNALS: tuple[str, ...] = tuple(SIGNAL_FIELDS)
_REASON_SIGNAL = {"frame": "frame", "path": "path", "name": "name", "full-text": "text"}
# How an item's relation to the root reads -> the edge kind that brought it.
RELATION_KINDS: dict[str, str] = {name: kind for kind, names in RELATION.items() for name in names}
RELATION_KINDS |= {"overrides": "inherits", "overridden-by": "inherits"}
TASK_RELATION = "task"


def with_learned(policy: RankingPolicy, edges: Mapping[str, float], signals: Mapping[str, float]) -> RankingPolicy:
    """`policy` with each edge kind's weights and each text signal's seed weights multiplied as learned."""
    new_edges = {kind: tuple(w * edges.get(kind, 1.0) for w in pair) for kind, pair in policy.edges.items()}
    seeds = dataclasses.replace(policy.seeds, **{
        name: getattr(policy.seeds, name) * signals.get(signal, 1.0)
        for signal, names in SIGNAL_FIELDS.items() for name in names})
    return dataclasses.replace(policy, edges=new_edges, seeds=seeds)


@dataclass(frozen=True)
class Boost:
    """What a task makes more relevant: its linked entities, and the files it names or its runs touched."""

    entities: frozenset[str] = frozenset()
    files: frozenset[str] = frozenset()
    factor: float = 1.5  # a boosted candidate's score is multiplied by this
    added: float = 0.5  # a linked entity the ranking did not reach comes in at this share of the best score
    task_id: str = field(default="", compare=False)

    def __bool__(self) -> bool:
        return bool(self.entities or self.files)


def boosted(graph: CodeGraph, candidates: list[Candidate], boost: Boost | None) -> list[Candidate]:
    """The candidates re-ranked with the task's boost: the root (a distance-0 first candidate) stays
    first; a linked entity nobody reached joins the ranking."""
    if not boost or not candidates:
        return candidates
    nodes = graph.nodes
    head = candidates[:1] if candidates[0].distance == 0 and candidates[0].relation == "root" else []
    rest = candidates[len(head):]
    top = max((c.score for c in rest), default=1.0) or 1.0
    seen = {c.id for c in candidates}
    out = []
    for c in rest:
        hit = c.id in boost.entities or nodes[c.id]["path"] in boost.files if c.id in nodes else False
        out.append(dataclasses.replace(c, score=c.score * boost.factor) if hit else c)
    for entity_id in sorted(boost.entities - seen):
        if entity_id in nodes:
            out.append(Candidate(entity_id, top * boost.added * boost.factor, TASK_RELATION, 1))
    out.sort(key=lambda c: -c.score)
    return head + out


def credit(graph: CodeGraph, items: Iterable[tuple[str, str]], text: str | None, policy: RankingPolicy) -> dict[str, tuple[str | None, str | None]]:
    """For each answer item (id, relation): the edge kind that brought it (from its relation) and, for
    an answer to free text, the text signal that made it a seed (recomputed from the text)."""
    reasons: dict[str, str] = {}
    if text:
        reasons = from_text(graph, graph.connection(), text, policy.seeds).reasons
    out = {}
    for entity_id, relation in items:
        kind = RELATION_KINDS.get(relation)
        reason = reasons.get(entity_id, "").split(" ", 1)[0]
        out[entity_id] = (kind if kind in EDGE_KINDS else None, _REASON_SIGNAL.get(reason))
    return out
