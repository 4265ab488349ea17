"""get_impact: what a change can break. The change is a symbol, the entities of some files, or the
entities whose lines a diff against a git revision touches; the answer lists the changed entities
in one line each, then their dependents in tiers (direct callers, subclasses, importers and type
users; then tests; then transitive dependents), best first within each, to the token budget."""

from __future__ import annotations

from graphctx.context import anonymous, changeset
from graphctx.context.changeset import ChangeSet, OldEntity
from graphctx.context.engine import Answer, _repo_path, check_request, new_answer
from graphctx.context.packer import Candidate, pack
from graphctx.context.tokens import DEFAULT_ENCODING
from graphctx.context.views import Views
from graphctx.errors import InvalidRequest
from graphctx.graph import lookup, rank
from graphctx.graph.loader import CodeGraph, GraphCache
from graphctx.models import DEFAULT_BUDGET, TIER_PREFIX, ChangeRelation, ContextAnswer, PacketItem

IMPACT_WEIGHTS = {"calls": (0.0, 1.0), "imports": (0.0, 0.6), "inherits": (0.0, 0.9), "implements": (0.0, 0.9),
                  "references": (0.0, 0.6), "tests": (0.0, 0.9), "handles": (0.0, 1.0)}  # a handler's routes
DECAY = 0.7
# A name that is gone breaks whoever still uses it: rank such users like sure direct callers.
REMOVED_USE_SCORE = DECAY
Strength = tuple[float, int]  # a change's best direct dependent score, and how many direct dependents it has
TIERS = "tiers: 1 = direct dependents (callers, subclasses, importers, type users); 2 = tests; 3 = transitive"
TOKENS_PER_HEADING = 100  # the changed entities listed before the dependents: one per this many tokens of budget
MIN_HEADINGS = 5
LISTED_FILES = 8


def get_impact(graphs: GraphCache, symbol: str | None = None, files: list[str] | None = None, *, diff: str | None = None,
               depth: int = 3, token_budget: int = DEFAULT_BUDGET, format: str = "compact",
               encoding: str = DEFAULT_ENCODING) -> Answer:
    """What depends on a symbol, on everything defined in a set of files, or on the entities a diff
    touches: `diff` is a revision the working tree is compared with ("" or "default": the merge base
    with the default branch). Callers, importers, subclasses and tests, in tiers."""
    check_request(token_budget, format, depth)
    if sum((bool(symbol), bool(files), diff is not None)) != 1:
        raise InvalidRequest("give either a symbol or a list of files, or diff (a revision to compare the working "
                             "tree with); exactly one of them")
    g = graphs.get()
    if symbol:
        start = lookup.resolve_entity(g, symbol)
        answer = new_answer(g, "impact", symbol, start, token_budget)
        reached, _ = _dependents(g, [start], depth)
        answer.notes.append(f"{TIERS}; {len(reached)} dependents")
        candidates = [Candidate(start, 1.0, "root", 0, max_detail="summary"), *_tiered(g, reached)]
        return pack(answer, candidates, Views(g), format, encoding)
    if files:
        paths = list(dict.fromkeys(_repo_path(g, f) for f in files))
        change = ChangeSet("", "", changed=list(dict.fromkeys(n for p in paths for n in g.by_path.get(p, ()))),
                           files=len(paths))
        answer = new_answer(g, "impact", ", ".join(files), None, token_budget)
        answer.notes.append(f"{len(paths)} file(s), {len(change.changed)} entities in them")
    else:
        change = changeset.from_git(g, diff)
        answer = new_answer(g, "impact", f"diff against {change.label}", None, token_budget)
        answer.notes.append(_diff_note(change))
    return _pack_change(g, answer, change, depth, format, encoding)


def _pack_change(g: CodeGraph, answer: ContextAnswer, change: ChangeSet, depth: int, fmt: str,
                 encoding: str) -> Answer:
    """The changes that have dependents, one line each (at most one per TOKENS_PER_HEADING of budget:
    a big change must not bury what it breaks), then the dependents in tiers, then the other changes."""
    starts = change.changed + change.added
    reached, direct = _dependents(g, starts, depth)
    _add_removed_users(g, change.removed, set(starts), reached, direct)
    if changed_count := len(starts) + len(change.removed):
        answer.notes.append(f"{TIERS}; {len(reached)} dependents of {changed_count} changed entities")
    if change.unindexed:
        more = len(change.unindexed) - LISTED_FILES
        answer.notes.append("changed files graphctx does not index: " + ", ".join(change.unindexed[:LISTED_FILES])
                            + (f" (+{more} more)" if more > 0 else ""))
    headings = _headings(g, change, direct)
    lead = [h for h in headings if direct[h.id][1]][:max(MIN_HEADINGS, answer.token_budget // TOKENS_PER_HEADING)]
    led = {h.id for h in lead}
    candidates = lead + _tiered(g, reached) + [h for h in headings if h.id not in led]
    return pack(answer, candidates, _ChangeViews(g, {gone.id: gone for gone in change.removed}), fmt, encoding)


def _add_removed_users(g: CodeGraph, removed: list[OldEntity], starts: set[str], reached: dict[str, rank.Reached],
                       direct: dict[str, Strength]) -> None:
    """The code that still uses a removed entity's name depends on it directly."""
    conn = g.connection()
    for gone in removed:
        users = [u for u in changeset.referrers(g, conn, gone) if u not in starts]
        direct[gone.id] = (REMOVED_USE_SCORE if users else 0.0, len(users))
        for user in users:
            if user not in reached or reached[user].score < REMOVED_USE_SCORE:
                reached[user] = rank.Reached(user, REMOVED_USE_SCORE, 1, "uses-removed", gone.id, "heuristic", 0.5)


def _headings(g: CodeGraph, change: ChangeSet, direct: dict[str, Strength]) -> list[Candidate]:
    """One line per changed, added and removed entity. Like the dependents, strongest first: those
    whose direct dependents are surest to be affected (a call before an import), then those with
    more of them, then in file and line order."""
    relation: dict[str, ChangeRelation] = {**dict.fromkeys(change.changed, "changed"),
                                           **dict.fromkeys(change.added, "added"),
                                           **{gone.id: "removed" for gone in change.removed}}
    where = {gone.id: (gone.path, gone.start_line) for gone in change.removed}
    for entity in change.changed + change.added:
        node = g.graph.nodes[entity]
        where[entity] = (node["path"], node["start_line"])
    order = sorted(relation, key=lambda e: (-direct[e][0], -direct[e][1], where[e]))
    return [Candidate(e, 1.0, relation[e], 0, max_detail="line") for e in order]


def _dependents(g: CodeGraph, starts: list[str], depth: int) -> tuple[dict[str, rank.Reached], dict[str, Strength]]:
    """Everything that depends on the starts within `depth` hops back, at its best score (the starts
    themselves left out), and for each start the best score of its direct dependents and their count."""
    start_set = set(starts)
    reached: dict[str, rank.Reached] = {}
    direct: dict[str, Strength] = {}
    for start in starts:
        hits = anonymous.named(g, rank.spread(g, start, depth, IMPACT_WEIGHTS, decay=DECAY))
        scores = [hit.score for node, hit in hits.items() if hit.distance == 1 and node not in start_set]
        direct[start] = (max(scores, default=0.0), len(scores))
        for node, hit in hits.items():
            if node not in start_set and (node not in reached or hit.score > reached[node].score):
                reached[node] = hit
    return reached, direct


def _tiered(g: CodeGraph, reached: dict[str, rank.Reached]) -> list[Candidate]:
    ordered = sorted(reached.values(), key=lambda h: (_tier(g, h), -h.score, h.id))
    return [Candidate(h.id, h.score, f"{TIER_PREFIX}{_tier(g, h)} {h.relation}", h.distance, h.resolution, h.confidence,
                      "summary") for h in ordered]


def _tier(g: CodeGraph, hit: rank.Reached) -> int:
    """1: a direct dependent; 2: a test, at any distance; 3: a dependent of a dependent."""
    path = g.graph.nodes[hit.id]["path"]
    if hit.relation == "tested-by" or g.files.get(path, {}).get("is_test"):
        return 2
    return 1 if hit.distance == 1 else 3


def _diff_note(change: ChangeSet) -> str:
    counts = f"{len(change.changed)} entities changed, {len(change.added)} added, {len(change.removed)} removed"
    if not change.files:
        return f"no changes against {change.label} ({change.base[:12]})"
    return f"{change.files} file(s) changed against {change.label} ({change.base[:12]}): {counts}"


class _ChangeViews(Views):
    """The views, plus removed entities: the index no longer holds them, so they show as the base
    revision had them (its lines, its signature)."""

    def __init__(self, graph: CodeGraph, removed: dict[str, OldEntity]):
        super().__init__(graph)
        self.removed = removed

    def __call__(self, candidate: Candidate, detail: str) -> PacketItem:
        gone = self.removed.get(candidate.id)
        if gone is None:
            return super().__call__(candidate, detail)
        return PacketItem(id=gone.id, kind=gone.kind, path=gone.path, start_line=gone.start_line,
                          end_line=gone.end_line, score=float(round(candidate.score, 4)), relation=candidate.relation,
                          distance=0, detail=detail, text="" if detail == "line" else gone.signature,
                          resolution="exact")
