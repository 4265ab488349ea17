"""The purposes an agent can ask for context with, each as a weight table over edge kinds
(how much relevance flows along an edge, and against it) and a packet shape (how much of each
entity to show). These tables are the documented policy; README.md prints them."""

from __future__ import annotations

from dataclasses import dataclass

from graphctx.graph.rank import Weights
from graphctx.models import INTENTS

# Plain `get_context` around an entity: callees and callers first, structure next.
CONTEXT: Weights = {
    "calls": (1.0, 0.9), "contains": (0.6, 0.7), "inherits": (0.8, 0.6), "implements": (0.8, 0.6),
    "references": (0.6, 0.5), "imports": (0.3, 0.3), "tests": (0.5, 0.7),
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
__all__ = ["CONTEXT", "DETAIL_SHAPES", "INTENTS", "SHAPES", "WEIGHTS", "Shape"]


@dataclass(frozen=True)
class Shape:
    """How much of each entity an answer shows: the root, and the rest at most."""

    root: str  # full | summary | line
    others: str
    files_first: bool = False  # plan: a map of modules before their members


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
