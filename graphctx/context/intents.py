"""The purposes an agent can ask for context with, each as a weight table over edge kinds
(how much relevance flows along an edge, and against it) and a packet shape (how much of each
entity to show), and the default ranking policy of each built from them. These tables are the
documented policy; README.md prints them."""

from __future__ import annotations

import difflib

from graphctx.context.policy import RankingPolicy, Shape
from graphctx.errors import InvalidRequest, quote
from graphctx.graph.rank import Weights
from graphctx.models import INTENTS

# Plain `get_context` around an entity: callees and callers first, structure next.
CONTEXT: Weights = {
    "calls": (1.0, 0.9), "contains": (0.6, 0.7), "inherits": (0.8, 0.6), "implements": (0.8, 0.6),
    "references": (0.6, 0.5), "imports": (0.3, 0.3), "tests": (0.5, 0.7), "handles": (1.0, 0.8),
}

WEIGHTS: dict[str, Weights] = {
    # Changing X: who calls it, its tests, what overrides or implements it.
    "modify": {"calls": (0.6, 1.0), "tests": (0.3, 1.0), "inherits": (0.6, 0.9), "implements": (0.6, 0.9),
               "references": (0.5, 0.7), "contains": (0.5, 0.6), "imports": (0.2, 0.4)},
    # Learning X: what it calls, the types it uses, what it is made of.
    "understand": {"calls": (1.0, 0.4), "references": (0.9, 0.3), "contains": (0.8, 0.6), "inherits": (0.8, 0.3),
                   "implements": (0.8, 0.3), "imports": (0.4, 0.1), "tests": (0.2, 0.5)},
    # Reviewing a change to X: callers and tests that rely on it, the contracts it fulfils.
    "review": {"calls": (0.5, 1.0), "tests": (0.3, 1.0), "inherits": (0.8, 0.6), "implements": (0.9, 0.6),
               "references": (0.6, 0.6), "contains": (0.4, 0.5), "imports": (0.2, 0.3)},
    # Debugging: call chains both ways through X.
    "debug": {"calls": (1.0, 1.0), "references": (0.5, 0.3), "contains": (0.4, 0.5), "inherits": (0.6, 0.3),
              "implements": (0.5, 0.3), "tests": (0.2, 0.6), "imports": (0.2, 0.2)},
    # Adding next to X: its module, its siblings, patterns to copy.
    "add": {"contains": (0.9, 1.0), "calls": (0.6, 0.4), "tests": (0.3, 0.6), "inherits": (0.6, 0.6),
            "implements": (0.6, 0.6), "references": (0.4, 0.3), "imports": (0.4, 0.3)},
    # Planning: the module map around X.
    "plan": {"imports": (1.0, 1.0), "contains": (0.8, 0.8), "calls": (0.5, 0.5), "inherits": (0.5, 0.5),
             "implements": (0.5, 0.5), "tests": (0.2, 0.4), "references": (0.3, 0.3)},
}
for _weights in WEIGHTS.values():  # a route is about its handler, and a handler about its routes, for every purpose
    _weights.setdefault("handles", (1.0, 0.8))
__all__ = ["CONTEXT", "CONTEXT_POLICY", "DETAIL_SHAPES", "INTENTS", "POLICIES", "SHAPES", "WEIGHTS", "Shape", "policy_for"]

SHAPES: dict[str, Shape] = {
    "modify": Shape("full", "full"),
    "understand": Shape("full", "summary"),
    "review": Shape("full", "full"),
    "debug": Shape("full", "full"),
    "add": Shape("full", "summary"),
    "plan": Shape("summary", "summary", files_first=True),
}
DETAIL_SHAPES: dict[str, Shape] = {
    "full": Shape("full", "full"),
    "neighbors": Shape("full", "summary"),
    "summary": Shape("summary", "summary"),
}

POLICIES: dict[str, RankingPolicy] = {intent: RankingPolicy(WEIGHTS[intent], SHAPES[intent]) for intent in INTENTS}
CONTEXT_POLICY = RankingPolicy(CONTEXT, DETAIL_SHAPES["full"])  # plain get_context; detail_level narrows its shape


def policy_for(intent: str | None) -> RankingPolicy:
    """The default policy of an intent, or of plain get_context for None; an unknown intent is refused."""
    if intent is None:
        return CONTEXT_POLICY
    if intent not in POLICIES:
        close = difflib.get_close_matches(str(intent), INTENTS, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise InvalidRequest(f"unknown intent {quote(intent)}; {hint}use one of {', '.join(INTENTS)}")
    return POLICIES[intent]
