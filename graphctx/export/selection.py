"""Chooses the part of the graph an export shows: the whole graph, or the neighbourhood of one
entity out to N hops, over chosen edge kinds; capped to a size a reader can take in, keeping the
closest (or, for the whole graph, the most central) entities, and counting what the cap left out."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from graphctx.graph import rank
from graphctx.graph.loader import CodeGraph
from graphctx.index.store import reads
from graphctx.layout import EXTERNAL_PREFIX
from graphctx.models import EDGE_KINDS, INFERRED

SelectedEdge = tuple[str, str, str, str, float]  # (source, target, kind, resolution, confidence)


@dataclass
class Selection:
    nodes: list[str]  # in reading order: by path, the file first, then its entities by line
    edges: list[SelectedEdge]  # sorted by source, target, kind
    around: str | None = None
    depth: int | None = None
    edge_kinds: tuple[str, ...] | None = None  # None: every kind
    distance: dict[str, int] = field(default_factory=dict)  # hops from `around`
    total_nodes: int = 0  # before the caps
    total_edges: int = 0
    omitted_kinds: dict[str, int] = field(default_factory=dict)  # entity kind -> how many the cap left out
    max_nodes: int | None = None
    max_edges: int | None = None
    capped_edges: int = 0  # edges between shown entities that the edge cap left out
    # `ext:` nodes (calls and imports of names outside the repository, calls left unresolved) -> their data
    outside: dict[str, dict] = field(default_factory=dict)

    def node(self, graph: CodeGraph, node_id: str) -> dict:
        """A shown node's attributes: the entity's, or an outside name's (kind external or unresolved)."""
        return self.outside[node_id] if node_id in self.outside else graph.entity(node_id)

    @property
    def omitted_nodes(self) -> int:
        return self.total_nodes - len(self.nodes)

    @property
    def omitted_edges(self) -> int:
        return self.total_edges - len(self.edges)

    def scope(self) -> str:
        """What was asked for, in words: "around X (depth 2)" or "the whole graph"."""
        where = f"around {self.around} (depth {self.depth})" if self.around else "the whole graph"
        return where + (f", {'/'.join(self.edge_kinds)} edges" if self.edge_kinds else "")

    def counts(self) -> str:
        """"12 entities, 20 edges", or "60 of 412 entities, 120 of 800 edges" when capped."""
        def part(shown: int, total: int, noun: str) -> str:
            return f"{shown} {noun}" if shown == total else f"{shown} of {total} {noun}"

        return f"{part(len(self.nodes), self.total_nodes, 'entities')}, {part(len(self.edges), self.total_edges, 'edges')}"

    def note(self) -> str | None:
        """What the caps left out and how to see it, or None when nothing was."""
        if not self.omitted_nodes and not self.omitted_edges:
            return None
        parts = []
        if self.omitted_nodes:
            kinds = sorted(self.omitted_kinds.items(), key=lambda kv: (-kv[1], kv[0]))
            left = ", ".join(f"{n} {_plural(kind, n)}" for kind, n in kinds)
            touching = self.omitted_edges - self.capped_edges
            edges = f", and the {touching} {_plural('edge', touching)} that touch them" if touching else ""
            parts.append(f"the cap of {self.max_nodes} entities left out {left}{edges}")
        if self.capped_edges:
            parts.append(f"the cap of {self.max_edges} edges left out {self.capped_edges} more, the least sure first")
        how = "a smaller --depth or --edges" if self.around else "--around ENTITY --depth N or --edges"
        raise_cap = ", or raise --max-nodes" if self.omitted_nodes else ""
        return f"{'; '.join(parts)}; narrow the picture with {how}{raise_cap}"

    def attributes(self) -> dict[str, str | int]:
        """The selection as flat graph attributes for JSON and GraphML (absent fields left out)."""
        attrs: dict[str, str | int] = {"scope": self.scope(), "total_nodes": self.total_nodes, "total_edges": self.total_edges}
        if self.around:
            attrs.update(around=self.around, depth=self.depth)
        if self.edge_kinds:
            attrs["edge_kinds"] = ",".join(self.edge_kinds)
        if note := self.note():
            attrs.update(omitted_nodes=self.omitted_nodes, omitted_edges=self.omitted_edges, note=note)
        return attrs


def select(graph: CodeGraph, around: str | None = None, depth: int = 1, *, edge_kinds: tuple[str, ...] | None = None,
           max_nodes: int | None = None, max_edges: int | None = None, external: bool = False) -> Selection:
    """The entities and edges to show. `around` is a resolved entity id; `max_nodes`/`max_edges`
    of None mean no cap; `external` adds the `ext:` names the entities call or import."""
    g = graph.graph
    wanted = set(edge_kinds) if edge_kinds else None
    follows = lambda data: wanted is None or data["kind"] in wanted  # noqa: E731
    distance: dict[str, int] = {}
    if around is not None:
        distance, closeness = _neighbourhood(graph, around, depth, follows)
        ranked = sorted(distance, key=lambda n: (distance[n], -closeness[n], n))
    else:
        candidates = [n for n in g if wanted is None or any(follows(d) for *_, d in _touching(g, n))]
        ranked = _by_centrality(graph, candidates, wanted) if max_nodes is not None and len(candidates) > max_nodes else candidates
    kept = set(ranked[:max_nodes] if max_nodes is not None else ranked)
    every_edge = [(s, t, d["kind"], d["resolution"], d["confidence"])
                  for s, t, d in g.subgraph(ranked).edges(data=True) if follows(d)]
    edges = [e for e in every_edge if e[0] in kept and e[1] in kept]
    capped = 0
    if max_edges is not None and len(edges) > max_edges:
        # The surest edges say the most; guessed ones go first.
        capped = len(edges) - max_edges
        edges = sorted(edges, key=lambda e: (e[3] in INFERRED, -e[4], e[2], e[0], e[1]))[:max_edges]
    nodes = g.nodes
    left_out = Counter(nodes[n]["kind"] for n in ranked if n not in kept)
    selection = Selection(
        nodes=sorted(kept, key=lambda n: (nodes[n]["path"], nodes[n]["kind"] != "file", nodes[n]["start_line"], n)),
        edges=sorted(edges, key=lambda e: (e[0], e[1], e[2])),
        around=around,
        depth=depth if around is not None else None,
        edge_kinds=tuple(edge_kinds) if edge_kinds else None,
        distance={n: d for n, d in distance.items() if n in kept},
        total_nodes=len(ranked),
        total_edges=len(every_edge),
        omitted_kinds=dict(left_out),
        max_nodes=max_nodes,
        max_edges=max_edges,
        capped_edges=capped,
    )
    if external:
        _add_outside(graph, selection, set(ranked))
    return selection


def _add_outside(graph: CodeGraph, selection: Selection, candidates: set[str]) -> None:
    """Add the names outside the repository that the entities call or import (`ext:` nodes, kind
    `external`) and the calls left unresolved (kind `unresolved`, the call text as the name), those
    of shown entities within what is left of the node cap; the totals count every candidate's."""
    shown = set(selection.nodes)
    kinds = selection.edge_kinds or EDGE_KINDS
    rows = [r for r in reads.edges_outside(graph.connection()) if r[0] in candidates and r[2] in kinds]
    unresolved = {r[1] for r in rows if r[3] == "unresolved"}
    every = list(dict.fromkeys(r[1] for r in rows))
    near = list(dict.fromkeys(r[1] for r in rows if r[0] in shown))
    room = len(near) if selection.max_nodes is None else max(0, selection.max_nodes - len(selection.nodes))
    kept = near[:room]
    for target in kept:
        name = target[len(EXTERNAL_PREFIX):]
        selection.outside[target] = {"kind": "unresolved" if target in unresolved else "external",
                                     "name": name.rpartition(".")[2] or name, "qualified_name": name,
                                     "language": "", "path": "", "start_line": 0, "end_line": 0}
    for target in set(every) - set(kept):
        kind = "unresolved" if target in unresolved else "external"
        selection.omitted_kinds[kind] = selection.omitted_kinds.get(kind, 0) + 1
    selection.nodes += kept
    selection.total_nodes += len(every)
    selection.edges = sorted(selection.edges + [r for r in rows if r[0] in shown and r[1] in selection.outside],
                             key=lambda e: (e[0], e[1], e[2]))
    selection.total_edges += len(rows)


def _touching(g, node: str):
    yield from g.out_edges(node, data=True)
    yield from g.in_edges(node, data=True)


def _neighbourhood(graph: CodeGraph, root: str, depth: int, follows) -> tuple[dict[str, int], dict[str, float]]:
    """Hops from root along edges either way, and how surely each entity is reached: the best
    product of edge confidences along a shortest path, which orders entities at the same distance."""
    g = graph.graph
    distance, closeness = {root: 0}, {root: 1.0}
    frontier = [root]
    for hop in range(1, depth + 1):
        reached: dict[str, float] = {}
        for node in frontier:
            for source, target, data in _touching(g, node):
                other = target if source == node else source
                if not follows(data) or distance.get(other, hop) < hop:
                    continue
                reached[other] = max(reached.get(other, 0.0), closeness[node] * data["confidence"])
        for node, score in reached.items():
            distance[node], closeness[node] = hop, score
        frontier = list(reached)
    return distance, closeness


def _by_centrality(graph: CodeGraph, candidates: list[str], wanted: set[str] | None) -> list[str]:
    """Candidates by PageRank over the chosen edge kinds followed both ways, best first."""
    weights = {kind: (1.0, 1.0) for kind in EDGE_KINDS if wanted is None or kind in wanted}
    scores = rank.pagerank(graph, {n: 1.0 for n in candidates}, weights)
    return sorted(candidates, key=lambda n: (-scores.get(n, 0.0), n))


def _plural(noun: str, n: int) -> str:
    if n == 1:
        return noun
    return noun + ("es" if noun.endswith(("s", "sh", "ch", "x")) else "s")
