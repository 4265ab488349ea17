"""Federation: answers that reach into other projects a team server hosts. Two projects are linked
where one imports the other's package: the importing project's graph keeps such a name as an
external node (`ext:mylib.core.compute`), which names an entity of the other project by its module
path. From those links: entities of other projects joined to an answer (the code its items call,
and the code of other projects calling its items), scored down by `decay` and labelled with their
project; other projects' search hits, scored down the same way; and an entity's dependents in
other projects for impact. Projects are passed in (duck-typed Project objects), keyed by their key."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from graphctx.errors import GraphctxError
from graphctx.index.store import reads
from graphctx.models import SearchHit

EXTERNAL = "ext:"
MAX_LINKED = 8  # linked entities brought in per other project
SOURCE_ROOTS = ("src", "lib")


def top_names(project: Any) -> set[str]:
    """The names a package or module of `project` can be imported by first: its top-level folders and
    files, also under the usual source roots (src/, lib/)."""
    names = set()
    for path in project.graph.files:
        parts = path.split("/")
        if parts[0] in SOURCE_ROOTS and len(parts) > 1:
            parts = parts[1:]
        names.add(parts[0].rsplit(".", 1)[0] if len(parts) == 1 else parts[0])
    return names


def resolve(project: Any, dotted: str, tops: set[str] | None = None) -> str | None:
    """The entity a module path (`mylib.core.compute`, or a longer path into it) names in `project`."""
    parts = dotted.split(".")
    if parts[0] not in (tops if tops is not None else top_names(project)):
        return None  # not one of this project's packages: no look-up (and no fuzzy suggestions) needed
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        try:
            entity = project.show(name).entity
        except GraphctxError:
            continue
        if entity.kind != "file" or end == len(parts):
            return entity.id
        return None  # only the module matched: the name is something the module does not define
    return None


def outside_uses(project: Any) -> list[tuple[str, str]]:
    """(entity, dotted name) of every use of a name imported from outside the project."""
    rows = reads.edges_outside(project.graph.connection())
    return [(source, target[len(EXTERNAL):]) for source, target, _, resolution, _ in rows if resolution == "external"]


def calls_out(home: Any, entity_ids: Iterable[str], other: Any) -> list[tuple[str, str]]:
    """(home entity, entity of `other`) for every external name the home entities use that `other` defines."""
    wanted, tops = set(entity_ids), top_names(other)
    links = []
    for source, name in outside_uses(home):
        if source in wanted:
            found = resolve(other, name, tops)
            if found and (source, found) not in links:
                links.append((source, found))
    return links


def calls_in(home: Any, entity_ids: Iterable[str], other: Any) -> list[tuple[str, str]]:
    """(entity of `other`, home entity) for every use in `other` of a name that one of the home entities is."""
    wanted, tops = set(entity_ids), top_names(home)
    resolved: dict[str, str | None] = {}
    links = []
    for user, name in outside_uses(other):
        if name not in resolved:
            resolved[name] = resolve(home, name, tops)
        if resolved[name] in wanted and (user, resolved[name]) not in links:
            links.append((user, resolved[name]))
    return links


def linked_context(home: Any, answer_ids: list[str], others: Mapping[str, Any], decay: float, budget: int,
                   fmt: str) -> list[tuple[str, Any, str]]:
    """(project key, answer, text) per other project with links to the answer's entities: that project's
    context around the linked entities, its scores times `decay`, within an equal share of `budget`."""
    from graphctx.context.render import render

    found = []
    for key, other in others.items():
        linked = [theirs for _, theirs in calls_out(home, answer_ids, other)]
        linked += [theirs for theirs, _ in calls_in(home, answer_ids, other)]
        linked = list(dict.fromkeys(linked))[:MAX_LINKED]
        if linked:
            found.append((key, other, linked))
    out = []
    for key, other, linked in found:
        share = max(100, budget // len(found))
        answer, _ = other.context(linked[0], token_budget=share, depth=1, format=fmt)
        for item in answer.items:
            item.score = round(item.score * decay, 4)
        answer.notes.append(f"from project {key}, linked by {', '.join(linked[:3])}; scores x {decay:g}")
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


def dependents(home: Any, entity_ids: list[str], others: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(project key, dependent entity there, home entity it uses) across the other projects."""
    return [(key, theirs, mine) for key, other in others.items() for theirs, mine in calls_in(home, entity_ids, other)]


class Federation:
    """What a Project offers the team server for federation: `project.federation`."""

    def __init__(self, project: Any):
        self.project = project

    def linked_context(self, answer_ids: list[str], others: Mapping[str, Any], *, decay: float, budget: int,
                       format: str = "compact") -> list[tuple[str, Any, str]]:
        return linked_context(self.project, answer_ids, others, decay, budget, format)

    @staticmethod
    def hits(others: Mapping[str, Any], query: str, kind: str | None, limit: int, decay: float):
        return federated_hits(others, query, kind, limit, decay)

    def dependents(self, entity_ids: list[str], others: Mapping[str, Any]) -> list[tuple[str, str, str]]:
        return dependents(self.project, entity_ids, others)

    @staticmethod
    def render(answer: Any, format: str) -> str:
        from graphctx.context.render import render

        return render(answer, format)
