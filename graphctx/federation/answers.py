"""Federated answers, from the links between projects (links.py): entities of other projects joined
to an answer (the code its items import or call over HTTP, and the code of other projects using its
items), scored down by `decay` times the link's confidence and labelled with their project; other
projects' search hits, scored down by the decay; and an entity's dependents in other projects for
impact. Projects are passed in (duck-typed Project objects), keyed by their key."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphctx.federation.links import Link, Links, calls_in, calls_out
from graphctx.models import MIN_BUDGET, SearchHit

MAX_LINKED = 8  # linked entities brought in per other project


def linked(home: Any, answer_ids: list[str], other: Any) -> list[tuple[str, Link]]:
    """(entity of `other`, the link) joined to the answer's entities, surest first, each entity once."""
    pairs = [(link.used, link) for link in calls_out(home, answer_ids, other)]
    pairs += [(link.user, link) for link in calls_in(home, answer_ids, other)]
    pairs.sort(key=lambda pair: -pair[1].confidence)  # stable: the answer's order within one confidence
    surest: dict[str, Link] = {}
    for entity, link in pairs:
        surest.setdefault(entity, link)
    return list(surest.items())[:MAX_LINKED]


def joined_projects(home: Any, answer_ids: list[str], others: Mapping[str, Any]) -> list[tuple[str, Any, list]]:
    """(project key, project, linked entities) for each other project with links to the answer's entities."""
    found = [(key, other, linked(home, answer_ids, other)) for key, other in others.items()]
    return [entry for entry in found if entry[2]]


def linked_context(joined: list[tuple[str, Any, list]], decay: float, budget: int, fmt: str) -> list[tuple[str, Any, str]]:
    """(project key, answer, text) per joined project (joined_projects): that project's context around
    the surest linked entity, its scores times `decay` and the link's confidence, within an equal share
    of `budget`."""
    from graphctx.context.render import render

    joined = joined[:budget // MIN_BUDGET]  # (each a packet of its own: as many as the budget holds)
    out = []
    for key, other, entities in joined:
        share = budget // len(joined)
        root, link = entities[0]
        answer, _ = other.context(root, token_budget=share, depth=1, format=fmt)
        factor = decay * link.confidence
        for item in answer.items:
            item.score = round(item.score * factor, 4)
        shown = "; ".join(f"{entity} ({link.describe()})" for entity, link in entities[:3])
        answer.notes.append(f"from project {key}, linked by {shown}; scores x {factor:g} (decay {decay:g} x link "
                            f"confidence {link.confidence:g})")
        out.append((key, answer, render(answer, fmt)))
    return out


def federated_hits(others: Mapping[str, Any], query: str, kind: str | None, limit: int,
                   decay: float) -> list[tuple[str, SearchHit]]:
    """(project key, hit) from each other project's search, scores times `decay`."""
    out = []
    for key, other in others.items():
        for hit in other.search(query, kind, limit).hits:
            out.append((key, hit.model_copy(update={"score": round(hit.score * decay, 4)})))
    return out


def dependents(home: Any, entity_ids: list[str], others: Mapping[str, Any]) -> list[tuple[str, Link]]:
    """(project key, link) for every entity of another project using one of the home entities: the
    link's `user` is the dependent there, its `used` (or its `route`) the home entity."""
    return [(key, link) for key, other in others.items() for link in calls_in(home, entity_ids, other)]


class Federation:
    """What a Project offers the team server for federation: `project.federation` (kept with the
    project, so that its links are found once per index generation)."""

    def __init__(self, project: Any):
        self.project = project
        self.links = Links(project)

    def joined(self, answer_ids: list[str], others: Mapping[str, Any]) -> list[tuple[str, Any, list]]:
        """The other projects with links to the answer's entities, with those entities (joined_projects)."""
        return joined_projects(self.project, answer_ids, others)

    @staticmethod
    def contexts(joined: list[tuple[str, Any, list]], *, decay: float, budget: int,
                 format: str = "compact") -> list[tuple[str, Any, str]]:
        """The joined projects' context (linked_context), within `budget`."""
        return linked_context(joined, decay, budget, format)

    def linked_context(self, answer_ids: list[str], others: Mapping[str, Any], *, decay: float, budget: int,
                       format: str = "compact") -> list[tuple[str, Any, str]]:
        """The other projects' context linked to the answer's entities."""
        return self.contexts(self.joined(answer_ids, others), decay=decay, budget=budget, format=format)

    @staticmethod
    def hits(others: Mapping[str, Any], query: str, kind: str | None, limit: int, decay: float):
        return federated_hits(others, query, kind, limit, decay)

    def dependents(self, entity_ids: list[str], others: Mapping[str, Any]) -> list[tuple[str, Link]]:
        return dependents(self.project, entity_ids, others)

    def links_to(self, other: Any) -> list[Link]:
        """Every link from this project's entities to `other`'s."""
        return self.links.to(other)

    @staticmethod
    def render(answer: Any, format: str) -> str:
        from graphctx.context.render import render

        return render(answer, format)
