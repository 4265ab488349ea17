"""The ranking policy: every weight and limit that ranks entities for a request and packs them
into an answer, in one frozen value passed down from the request (intents.py holds the default
policy of each intent). Tuning builds a changed copy (`with_overrides`) and passes it in; nothing
reads a module constant for a tunable value at call time. The text weights were tuned on the
retrieval dev set and the history sets (benchmarks/retrieval), where any nearby setting scores
within a point."""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, get_args

from graphctx.errors import InvalidRequest
from graphctx.graph.rank import Weights
from graphctx.models import EDGE_KINDS, Detail


@dataclass(frozen=True)
class Shape:
    """How much of each entity an answer shows: the root, and the rest at most."""

    root: str  # full | summary | line
    others: str
    files_first: bool = False  # plan: a map of modules before their members


@dataclass(frozen=True)
class SeedPolicy:
    """How free text becomes the weighted seeds of the walk (seeds.py)."""

    frame: float = 3.0  # a stack frame (file and line); the innermost frame weighs up to twice this
    path: float = 2.0  # a file path the text names
    span: float = 2.0  # an identifier inside a code span
    name: float = 1.0  # an identifier in prose, times its rarity
    prose_name: float = 0.3  # ... scaled again when it does not look like code (no _, ., camelCase or capital)
    text: float = 3.0  # a full-text match, times its BM25 score relative to the best
    # BM25 weights of the full-text columns: words of the name and path, signature, doc, body.
    columns: tuple[float, ...] = (4.0, 1.0, 0.5, 1.0)
    full_text_limit: int = 100  # the best full-text matches become seeds ...
    text_scores_limit: int = 300  # ... and this many keep their score for the blend
    max_terms: int = 120  # query terms, in the text's order (a title's words first)
    max_seeds: int = 60  # the walk restarts at the heaviest seeds only
    # Seeds come from the first and last characters of a long text (a title and report open it, the
    # innermost stack frames close it); the answer says when the middle was left out.
    text_head: int = 16_000
    text_tail: int = 4_000
    # Tests echo the names of what they test, and documentation (examples, changelogs, READMEs) echoes
    # the API and the words of past issues, so both match issue text well but are rarely what needs
    # changing. An aside (such a file the text does not name) is scaled twice: its seeds by this factor
    # before the walk, so it spreads less relevance to its neighbours, and its final score by
    # BlendPolicy.aside after it. Together 0.25 x 0.3 for a test the text matched; 0.3 for one the walk reached.
    aside: float = 0.25


@dataclass(frozen=True)
class BlendPolicy:
    """How the final score of an entity for free text adds the text evidence the walk smooths away
    to its walk score (relative to the best walk score) (blend.py)."""

    own_text: float = 0.5  # the entity's BM25 score, relative to the best match
    file_text: float = 0.5  # its file's: the mean of the file's `file_top` best entity scores
    file_top: int = 3
    file_named: float = 0.3  # its file holds an entity the text names (saturating at one plain mention)
    named: float = 0.3  # the text names the entity itself (the same): a walk from many seeds may bury it under hubs
    aside: float = 0.3  # the final score of a test or document the text does not name (see SeedPolicy.aside)
    # The learned ranker (ranker.py) re-orders the blend's best `rerank` candidates when true. Off by
    # default: trained on the commits of 24 repositories it beats the hand-set order on held-out
    # repositories, ties it on the dev issues' function Acc@10 and packs fewer gold functions
    # (benchmarks/retrieval/learned/README.md, The dev set, walked).
    learned: bool = False
    rerank: int = 200
    # Widening the re-ordered pool past the blend's best (pool.py): up to `widen` functions and methods
    # of the `widen_files` best files and one hop from the `widen_neighbours` best candidates. Off (0)
    # by default: 5 and 50 (chosen on the training repositories) at 100 put the gold among the candidates
    # of 3.3 % more held-out commits, but the shipped ranker, trained on the blend's best alone, does not
    # rank them higher (benchmarks/retrieval/learned/README.md, Candidate generation).
    widen: int = 0
    widen_files: int = 5
    widen_neighbours: int = 50
    # The code embedding's cosine of the text and a function (graphctx/semantic/), times this, added to
    # its score relative to the best. Off by default: at 0.5 it gains on held-out repositories' commits
    # and on the history sets, but not on the dev issues, short of the 3 points it needs there (README).
    semantic: float = 0.0


@dataclass(frozen=True)
class WalkPolicy:
    """How relevance spreads over the graph from a root entity or from the seeds of a text (engine.py)."""

    decay: float = 0.6  # per hop, around an entity
    max_nodes: int = 2000  # a hub cannot flood the answer with thousands of weak neighbours
    large_neighbourhood: int = 300  # beyond this many reached entities, personalized PageRank ranks them
    neighbourhood_alpha: float = 0.85  # ... walking this far from the root
    neighbourhood_local: bool = True  # ... among the reached entities only (rank.pagerank_within)
    override_decay: float = 0.9  # per level between a method and the methods it overrides or that override it
    # Free text: a short walk, since the text named the seeds: their neighbours inform but do not outrank them.
    text_alpha: float = 0.5
    max_text_candidates: int = 500


@dataclass(frozen=True)
class PackPolicy:
    """How ranked candidates become a packet (packer.py, anchored.py)."""

    full_share: float = 0.5  # after the first item, one full body may take at most this share of what is left
    record_share: float = 0.95  # a record ranks just below the best entity it is anchored to
    max_anchor_lookups: int = 60  # the best-ranked entities whose records are looked up
    # Files and classes in a text answer come as signature and doc, so the budget goes to function bodies.
    container_detail: str = "summary"


@dataclass(frozen=True)
class RankingPolicy:
    """Everything that ranks and packs one request: the edge weights {kind: (along, against)} and
    the packet shape of its intent, and the seed, blend, walk and packing settings."""

    edges: Weights = field(hash=False)
    shape: Shape
    seeds: SeedPolicy = SeedPolicy()
    blend: BlendPolicy = BlendPolicy()
    walk: WalkPolicy = WalkPolicy()
    packing: PackPolicy = PackPolicy()

    def __post_init__(self) -> None:
        # Read-only, so that a caller cannot change the default policy of the whole process.
        object.__setattr__(self, "edges", MappingProxyType({k: tuple(v) for k, v in self.edges.items()}))

    def __reduce__(self):  # a read-only mapping does not pickle: rebuild from a plain dict (worker processes)
        return type(self), (dict(self.edges), self.shape, self.seeds, self.blend, self.walk, self.packing)

    def describe(self) -> dict[str, Any]:
        """The policy as plain JSON-able data (for a benchmark's record of what it ran)."""
        data = {f.name: dataclasses.asdict(getattr(self, f.name)) for f in dataclasses.fields(self) if f.name != "edges"}
        return {"edges": {kind: list(weights) for kind, weights in self.edges.items()}, **data}


DEFAULT_PACKING = PackPolicy()
DETAILS: tuple[str, ...] = get_args(Detail)


def with_overrides(policy: RankingPolicy, assignments: Iterable[str] | Mapping[str, str]) -> RankingPolicy:
    """A copy of `policy` with settings changed, each as `group.name=value` (`seeds.text=1.5`,
    `walk.text_alpha=0.6`, `packing.full_share=0.4`), an edge weight pair (`edges.calls=0.6,1.0`) or
    a shape part (`shape.others=summary`). A mistyped name is refused with the closest ones."""
    items = assignments.items() if isinstance(assignments, Mapping) else (_split(a) for a in assignments)
    for name, value in items:
        group, _, setting = name.strip().partition(".")
        if group == "edges":
            policy = dataclasses.replace(policy, edges={**policy.edges, _edge_kind(setting): _pair(name, value)})
            continue
        part = getattr(policy, group, None) if group in _GROUPS else None
        if part is None or setting not in {f.name for f in dataclasses.fields(part)}:
            raise InvalidRequest(_unknown(name, policy))
        current = getattr(part, setting)
        policy = dataclasses.replace(policy, **{group: dataclasses.replace(part, **{setting: _parse(name, value, current)})})
    return policy


_GROUPS = ("shape", "seeds", "blend", "walk", "packing")


def table_settings(table: Mapping[str, Any]) -> tuple[str, ...]:
    """A TOML table of settings as group.name=value assignments: `blend.semantic = 0.5` (or
    `[ranking.blend]` with `semantic = 0.5`), `edges.calls = [0.6, 1.0]`, `shape.others = "summary"`
    ([ranking] in .graphctx/config.toml). Check them with `with_overrides`."""
    out = []
    for group, values in table.items():
        if not isinstance(values, Mapping):
            raise InvalidRequest(f"{group} = {values!r} names no setting; write group.name = value, "
                                 "e.g. blend.semantic = 0.5")
        for name, value in values.items():
            if isinstance(value, Mapping):
                raise InvalidRequest(f"{group}.{name} is a table; a setting is group.name = value")
            text = ("true" if value else "false") if isinstance(value, bool) else (
                ",".join(map(str, value)) if isinstance(value, list) else str(value))
            out.append(f"{group}.{name}={text}")
    return tuple(out)


def _split(assignment: str) -> tuple[str, str]:
    name, sep, value = assignment.partition("=")
    if not sep or not name.strip():
        raise InvalidRequest(f"policy setting {assignment!r} has no value; write it as group.name=value, e.g. seeds.text=1.5")
    return name, value


def _names(policy: RankingPolicy) -> list[str]:
    names = [f"edges.{kind}" for kind in EDGE_KINDS]
    return names + [f"{group}.{f.name}" for group in _GROUPS for f in dataclasses.fields(getattr(policy, group))]


def _unknown(name: str, policy: RankingPolicy) -> str:
    """Did-you-mean over every setting; then the settings of the group named, or the groups."""
    names = _names(policy)
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    group = name.partition(".")[0]
    if group in _GROUPS:
        return f"unknown policy setting {name!r}; {hint}{group} has {', '.join(n for n in names if n.startswith(group + '.'))}"
    return f"unknown policy setting {name!r}; {hint}the groups are edges, {', '.join(_GROUPS)}"


def _edge_kind(kind: str) -> str:
    if kind not in EDGE_KINDS:
        close = difflib.get_close_matches(kind, EDGE_KINDS, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise InvalidRequest(f"unknown edge kind {kind!r} in edges.{kind}; {hint}use one of {', '.join(EDGE_KINDS)}")
    return kind


def _pair(name: str, value: str) -> tuple[float, float]:
    numbers = _numbers(name, value)
    if len(numbers) != 2:
        raise InvalidRequest(f"{name} takes two weights, along and against the edge (e.g. 0.6,1.0); got {value!r}")
    return numbers[0], numbers[1]


def _numbers(name: str, value: str) -> tuple[float, ...]:
    try:
        return tuple(float(part) for part in value.split(","))
    except ValueError:
        raise InvalidRequest(f"{name} takes numbers separated by commas; got {value!r}") from None


def _parse(name: str, value: str, current: object) -> object:
    """`value` as the type of the setting's current value."""
    text = value.strip()
    if isinstance(current, bool):
        if text.lower() not in ("true", "false"):
            raise InvalidRequest(f"{name} takes true or false; got {value!r}")
        return text.lower() == "true"
    if isinstance(current, tuple):
        numbers = _numbers(name, text)
        if len(numbers) != len(current):
            raise InvalidRequest(f"{name} takes {len(current)} numbers separated by commas; got {value!r}")
        return numbers
    if isinstance(current, str):
        if text not in DETAILS:
            raise InvalidRequest(f"{name} takes a detail level, one of {', '.join(DETAILS)}; got {value!r}")
        return text
    try:
        return int(text) if isinstance(current, int) else float(text)
    except ValueError:
        kind = "a whole number" if isinstance(current, int) else "a number"
        raise InvalidRequest(f"{name} takes {kind}; got {value!r}") from None
