"""The links between two projects a team server hosts: an entity of the using project joined to an
entity of the used one, through an import of the used project's package (packages.py) or a call of
one of its HTTP routes (routes.py), each saying how sure it is. A project's links to another are
kept until either index changes (its generation)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from graphctx.parse import httpcalls, languages

IMPORT_CONFIDENCE = 1.0  # an import names the entity: as sure as an import edge within a project
LinkKind = Literal["imports", "http"]


@dataclass(frozen=True, slots=True)
class Link:
    user: str  # the entity of the using project: the importer, or the function calling the route
    used: str  # the entity of the used project: what is imported, or the route's handler
    kind: LinkKind
    resolution: str  # "import" (proven by the import), "inferred" (one route matched), "ambiguous" (several)
    confidence: float
    via: str  # the imported name (`mylib.core.compute`), or the call and the route (`GET /users/{} -> GET /users/{id}`)
    route: str | None = None  # the route entity, for an HTTP link

    def describe(self) -> str:
        how = "imports" if self.kind == "imports" else "calls route"
        return f"{how} {self.via} ({self.resolution} {self.confidence:.2f})"

    def as_dict(self) -> dict[str, Any]:
        return {"link": self.kind, "via": self.via, "resolution": self.resolution, "confidence": self.confidence,
                **({"route": self.route} if self.route else {})}


class Links:
    """The links a project makes to the other projects, and its HTTP client calls, each kept for the
    index generations they were found in."""

    def __init__(self, project: Any):
        self.project = project
        self._to: dict[str, tuple[tuple[int, int], list[Link]]] = {}  # other root -> (generations, links)
        self._calls: tuple[int, list[tuple[str, httpcalls.ClientCall]]] | None = None
        self._parsed: dict[str, tuple[tuple[int, int], list[httpcalls.ClientCall]]] = {}  # path -> (stat, calls)

    def to(self, other: Any) -> list[Link]:
        """Every link from this project's entities to `other`'s: imports first, then route calls."""
        from graphctx.federation import packages, routes  # both make Links: imported here, not in a cycle

        generations = (self.project.graph.generation, other.graph.generation)
        kept = self._to.get(str(other.root))
        if kept is not None and kept[0] == generations:
            return kept[1]
        found = packages.links(self.project, other) + routes.links(self.client_calls(), self.project, other)
        self._to[str(other.root)] = (generations, found)
        return found

    def forget(self) -> None:
        """Drop the links and calls kept, as a new index generation does; the parsed files stay kept."""
        self._to.clear()
        self._calls = None

    def client_calls(self) -> list[tuple[str, httpcalls.ClientCall]]:
        """(calling entity, call) of every HTTP client call in this project naming a URL path."""
        graph = self.project.graph
        if self._calls is not None and self._calls[0] == graph.generation:
            return self._calls[1]
        found = []
        for path in sorted(graph.files):
            language = graph.graph.nodes[path].get("language", "") if path in graph.graph else ""
            if language not in ("python", "javascript", "typescript", "tsx", "go"):
                continue
            found += [(innermost(graph, path, call.line), call) for call in self._file_calls(path, language)]
        self._calls = (graph.generation, found)
        return found

    def _file_calls(self, path: str, language: str) -> list[httpcalls.ClientCall]:
        """A file's client calls, parsed again only when the file changed."""
        try:
            info = (self.project.root / path).stat()
            kept = self._parsed.get(path)
            if kept is not None and kept[0] == (info.st_mtime_ns, info.st_size):
                return kept[1]
            source = (self.project.root / path).read_bytes()
        except OSError:
            return []  # gone since it was indexed: the next index drops it
        calls = httpcalls.find(language, languages.parser(language).parse(source).root_node, source)
        self._parsed[path] = ((info.st_mtime_ns, info.st_size), calls)
        return calls


NOT_CODE = frozenset({"route", "document", "section"})


def innermost(graph: Any, path: str, line: int) -> str:
    """The innermost code entity of `path` whose lines hold `line`, else the file."""
    best, span = path, None
    for entity in graph.by_path.get(path, ()):
        node = graph.graph.nodes[entity]
        if node["kind"] in NOT_CODE or node["kind"] == "file":
            continue
        if node["start_line"] <= line <= node["end_line"]:
            size = node["end_line"] - node["start_line"]
            if span is None or size < span:
                best, span = entity, size
    return best


def calls_out(home: Any, entity_ids: list[str], other: Any) -> list[Link]:
    """The links from the home entities to `other`'s entities."""
    wanted = set(entity_ids)
    return [link for link in home.federation.links.to(other) if link.user in wanted]


def calls_in(home: Any, entity_ids: list[str], other: Any) -> list[Link]:
    """The links from `other`'s entities to the home entities (or to a route among them)."""
    wanted = set(entity_ids)
    return [link for link in other.federation.links.to(home) if link.used in wanted or link.route in wanted]
