"""The context engine: turns get_context (context, intent and path modes) and get_file_context
requests into ranked candidates over the graph and packs them into the caller's token budget
(get_impact lives in impact.py). Ranking and packing follow a RankingPolicy: the intent's default
(intents.py), or one the caller passes (tuning). Every function returns the answer model and its
rendering in the format asked for. The graph comes from the caller's GraphCache, loaded only once
the request is known to be well formed; the records, from the caller's RecordStore."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from graphctx import deadline, inputs
from graphctx.context import anchored, anonymous, features, pool, ranker, semantic
from graphctx.context import seeds as text_seeds
from graphctx.context.blend import blend
from graphctx.context.fieldquery import FieldScores
from graphctx.context.intents import DETAIL_SHAPES, policy_for
from graphctx.context.issuetext import read
from graphctx.context.kept import MAX_KEPT_TEXT, kept
from graphctx.context.learning import Boost, boosted
from graphctx.context.packer import Candidate, pack
from graphctx.context.policy import RankingPolicy, Shape
from graphctx.context.render import SHOWN_HASH_DIGITS
from graphctx.context.tokens import DEFAULT_ENCODING
from graphctx.context.views import Views
from graphctx.errors import Ambiguous, InvalidRequest, NotFound, quote
from graphctx.graph import hierarchy, lookup, paths, rank
from graphctx.graph.loader import CodeGraph, GraphCache
from graphctx.models import ANONYMOUS_KINDS, DEFAULT_BUDGET, FORMATS, FUNCTION_KINDS, MAX_BUDGET, MAX_DEPTH, MIN_BUDGET, ContextAnswer
from graphctx.text import clip

if TYPE_CHECKING:  # the records load only where a caller passes a store (a repository with records)
    from graphctx.records import RecordStore

Answer = tuple[ContextAnswer, str]
MAX_QUERY_CHARS = 120  # free text, as an answer's header repeats it
# The index hashes bodies as 16 hex digits (blake2b, 8 bytes); answers show the first 8, which
# cost a third of the tokens and are plenty to tell one entity's versions apart.
BODY_HASH = re.compile(r"[0-9a-f]{8,16}")


def get_context(graphs: GraphCache, entity: str, *, records: RecordStore | None = None, file: str | None = None, depth: int = 2, token_budget: int = DEFAULT_BUDGET,
                intent: str | None = None, detail_level: str = "full", format: str = "compact",
                include_inferred: bool = True, known_hash: str | None = None, encoding: str = DEFAULT_ENCODING,
                policy: RankingPolicy | None = None, boost: Boost | None = None) -> Answer:
    """The entity and its neighbourhood, ranked by decayed, weighted, confidence-scaled relevance:
    by `policy`, else the default policy of `intent` (or of plain get_context); `boost` raises what a
    task is about."""
    check_request(token_budget, format, depth)
    policy = _policy(intent, policy)
    if detail_level not in DETAIL_SHAPES:
        raise InvalidRequest(f"unknown detail_level {quote(detail_level)}; use summary, neighbors or full")
    known_hash = _check_hash(known_hash)
    g = graphs.get()
    root_id = lookup.resolve_entity(g, entity, file)
    answer = new_answer(g, "context", entity, root_id, token_budget)
    body_hash = g.entity(root_id)["body_hash"]
    if known_hash and body_hash and body_hash.startswith(known_hash):
        answer.notes.append(f"unchanged: {root_id} still has body hash {known_hash}; what you have is current")
        return pack(answer, [Candidate(root_id, 1.0, "root", 0, max_detail="line")], Views(g), format, encoding,
                    full_share=policy.packing.full_share)
    if known_hash:
        answer.notes.append(f"changed: {root_id} has body hash {(body_hash or 'none')[:SHOWN_HASH_DIGITS]} now, not {known_hash}")
    shape = _narrower(policy.shape, DETAIL_SHAPES[detail_level])
    candidates = boosted(g, _around(g, root_id, depth, policy, include_inferred, shape), boost)
    return _pack_served(g, records, answer, candidates, policy, format, encoding)


def get_intent(graphs: GraphCache, intent: str, target: str, *, records: RecordStore | None = None, depth: int = 2, token_budget: int = DEFAULT_BUDGET,
               format: str = "compact", include_inferred: bool = True, encoding: str = DEFAULT_ENCODING,
               policy: RankingPolicy | None = None, boost: Boost | None = None) -> Answer:
    """Context for a purpose: `target` is an entity, a file path, or free text (an issue, a task, a trace),
    ranked by `policy`, else the intent's default policy; `boost` raises what a task is about."""
    check_request(token_budget, format, depth)
    policy = _policy(intent, policy)
    target = (target or "").strip()
    if not target:
        raise InvalidRequest("target is empty: give an entity, a file path or a description of the task")
    g = graphs.get()
    shape = policy.shape
    root_id = _as_entity(g, target)
    if root_id is not None:
        answer = new_answer(g, f"intent/{intent}", target, root_id, token_budget)
        candidates = _around(g, root_id, depth, policy, include_inferred, shape)
    else:
        answer = new_answer(g, f"intent/{intent}", clip(target, MAX_QUERY_CHARS), None, token_budget)
        text = read(g, target)
        candidates = _from_text(g, text, policy, include_inferred)
        seeds = policy.seeds
        if text_seeds.is_truncated(text, seeds):
            answer.notes.append(f"the text has {len(text):,} characters; seeds came from its first "
                                f"{seeds.text_head:,} and last {seeds.text_tail:,}")
        if not candidates:
            answer.notes.append("nothing in the index matches this text; name an entity, a file or an identifier")
    candidates = boosted(g, candidates, boost)
    if shape.files_first:
        candidates.sort(key=lambda c: (g.entity(c.id)["kind"] != "file", -c.score))
    return _pack_served(g, records, answer, candidates, policy, format, encoding)


def rank_text(graphs: GraphCache, text: str, *, intent: str = "debug", limit: int = 100,
              policy: RankingPolicy | None = None) -> list[tuple[str, float]]:
    """The entities most relevant to free text, best first, as (id, score): the ranking intent mode
    packs, by `policy`, else the intent's default policy."""
    policy = _policy(intent, policy)
    g = graphs.get()
    return [(c.id, c.score) for c in _from_text(g, read(g, text), policy, True)[:limit]]


def get_path(graphs: GraphCache, source: str, target: str, *, token_budget: int = DEFAULT_BUDGET, format: str = "compact",
             include_inferred: bool = True, encoding: str = DEFAULT_ENCODING) -> Answer:
    """The shortest call chain from `source` to `target`, preferring sure edges, with the code along it."""
    check_request(token_budget, format)
    g = graphs.get()
    start, end = lookup.resolve_entity(g, source), lookup.resolve_entity(g, target)
    answer = new_answer(g, "path", f"{source} -> {target}", start, token_budget)
    chain = paths.call_chain(g, start, end, include_inferred)
    if chain is None:
        out_n, out_depth = paths.reach(g, start, forward=True)
        in_n, in_depth = paths.reach(g, end, forward=False)
        answer.notes.append(
            f"no call chain from {start} to {end}. {start} reaches {out_n} entities (up to {out_depth} calls deep); "
            f"{end} is reached from {in_n} entities (up to {in_depth} calls up)"
        )
        candidates = [Candidate(start, 1.0, "from", 0, max_detail="summary"), Candidate(end, 1.0, "to", 0, max_detail="summary")]
    else:
        answer.notes.append(" -> ".join(node for node, _ in chain))
        candidates = [
            Candidate(node, 1.0 / (i + 1), "root" if edge is None else "calls", i,
                      edge["resolution"] if edge else "exact", edge["confidence"] if edge else 1.0)
            for i, (node, edge) in enumerate(chain)
        ]
    return pack(answer, candidates, Views(g), format, encoding)


def get_file_context(graphs: GraphCache, file: str, *, token_budget: int = DEFAULT_BUDGET, format: str = "compact",
                     encoding: str = DEFAULT_ENCODING) -> Answer:
    """Every entity in a file, in line order, with its signature and the first line of its doc."""
    check_request(token_budget, format)
    g = graphs.get()
    path = _repo_path(g, file)
    entities = sorted(
        (n for n in _file_entities(g, path) if n != path and g.entity(n)["kind"] not in ANONYMOUS_KINDS),
        key=lambda n: (g.entity(n)["start_line"], g.entity(n)["end_line"]),
    )
    answer = new_answer(g, "file", path, path, token_budget)
    candidates = [Candidate(path, 1.0, "file", 0, max_detail="summary")]
    candidates += [Candidate(n, 1.0, g.entity(n)["kind"], 0, max_detail="summary") for n in entities]
    return pack(answer, candidates, Views(g, summary_doc_lines=1), format, encoding)


# ---- helpers

def _policy(intent: str | None, policy: RankingPolicy | None) -> RankingPolicy:
    """The policy a request ranks by: the one given, else the intent's default. An unknown intent is
    refused either way (it also names the answer's mode)."""
    default = policy_for(intent)
    return policy or default


def _pack_served(g: CodeGraph, store: RecordStore | None, answer: ContextAnswer, candidates: list[Candidate],
                 policy: RankingPolicy, fmt: str, encoding: str) -> Answer:
    """Pack with the records of `store` anchored to the candidates, and remember in it which code the
    agent was served (a record it writes next anchors to the hashes of what it saw). No store: no records."""
    candidates, records = anchored.with_records(store, candidates, policy.packing)
    answer, text = pack(answer, candidates, Views(g, records=records), fmt, encoding, full_share=policy.packing.full_share)
    if store is None:
        return answer, text
    nodes = g.nodes  # the hashes are node attributes: no need for the lazily read details
    store.note_served(
        {"id": item.id, "sig_hash": nodes[item.id]["sig_hash"], "body_hash": nodes[item.id]["body_hash"],
         "generation": g.generation}
        for item in answer.items if item.id in g
    )
    return answer, text


def _around(g: CodeGraph, root_id: str, depth: int, policy: RankingPolicy, include_inferred: bool,
            shape: Shape) -> list[Candidate]:
    """The ranked neighbourhood of root_id (kept: see kept.py)."""
    key = ("around", root_id, depth, tuple(sorted(policy.edges.items())), policy.walk, include_inferred, shape)
    return kept(g, key, lambda: _rank_around(g, root_id, depth, policy, include_inferred, shape))


def _rank_around(g: CodeGraph, root_id: str, depth: int, policy: RankingPolicy, include_inferred: bool,
                 shape: Shape) -> list[Candidate]:
    weights, walk = policy.edges, policy.walk
    reached = rank.spread(g, root_id, depth, weights, include_inferred=include_inferred, decay=walk.decay,
                          max_nodes=walk.max_nodes)
    if len(reached) > walk.large_neighbourhood:
        among = list(reached)
        if walk.neighbourhood_local:
            pr = rank.pagerank_within(g, {root_id: 1.0}, weights, among, include_inferred=include_inferred,
                                      alpha=walk.neighbourhood_alpha)
        else:
            pr = rank.pagerank_among(g, {root_id: 1.0}, weights, among, include_inferred=include_inferred,
                                     alpha=walk.neighbourhood_alpha, limit=len(reached) * 4)
        top = pr[among.index(root_id)] or 1.0
        for hit, score in zip(reached.values(), np.minimum(0.99, pr / top).tolist()):
            hit.score = score
        reached[root_id].score = 1.0
    if g.entity(root_id)["kind"] == "method" and depth > 0:
        _add_overrides(g, root_id, reached, weights, walk.override_decay)
    reached = anonymous.named(g, reached, keep=root_id)  # a lambda: the code holding it
    ordered = rank.best_first(list(reached.values()), root_id)
    return [
        Candidate(h.id, h.score, h.relation, h.distance, h.resolution, h.confidence,
                  shape.root if h.id == root_id else shape.others)
        for h in ordered
    ]


def _add_overrides(g: CodeGraph, method_id: str, reached: dict[str, rank.Reached], weights: rank.Weights,
                   decay: float) -> None:
    """Methods this one overrides, and those that override or implement it, scored like inheritance."""
    forward, backward = weights.get("inherits", (0.5, 0.5))
    for upward, weight, relation in ((True, forward, "overrides"), (False, backward, "overridden-by")):
        for other, steps in hierarchy.related_methods(g, method_id, upward):
            score = weight * decay ** (steps - 1)
            if other not in reached or reached[other].score < score:
                reached[other] = rank.Reached(other, score, steps, relation, method_id)


def _from_text(g: CodeGraph, text: str, policy: RankingPolicy, include_inferred: bool) -> list[Candidate]:
    """The entities ranked for free text, as `read` leaves it (kept, unless the text is long: see kept.py)."""
    rank_now = lambda: _rank_text(g, text, policy, include_inferred)  # noqa: E731
    return rank_now() if len(text) > MAX_KEPT_TEXT else kept(g, ("text", text, policy, include_inferred), rank_now)


def _rank_text(g: CodeGraph, text: str, policy: RankingPolicy, include_inferred: bool) -> list[Candidate]:
    fields = FieldScores.of_text(g, text, policy.seeds) if policy.blend.learned else None  # while the rest ranks
    ranked = _text_ranking(g, text, policy, include_inferred)
    if ranked is None:
        return []
    found, walk, scores, ordered = ranked
    if policy.blend.learned:
        ordered = _learned_order(g, found, walk, scores, ordered, policy, fields)
    seed_weights = found.top(policy.seeds.max_seeds)
    top = (ordered[0][1] if ordered else 0.0) or 1.0
    # Code is what a task needs: containers (files, classes) come as signature and doc, so the budget
    # goes to function bodies; a nested function is left to its enclosing function's body.
    nodes = g.nodes
    out = []
    for node, score in ordered:
        parent = nodes[node].get("parent")
        if parent in scores and nodes[parent]["kind"] in FUNCTION_KINDS:
            continue
        detail = policy.shape.others
        if detail == "full" and nodes[node]["kind"] not in FUNCTION_KINDS:
            detail = policy.packing.container_detail
        out.append(Candidate(node, score / top, "seed" if node in seed_weights else "related",
                             0 if node in seed_weights else 1, max_detail=detail))
    return out


def _text_ranking(g: CodeGraph, text: str, policy: RankingPolicy, include_inferred: bool):
    """(seeds, walk, blend scores, the best `max_text_candidates` (id, score) by the hand-set blend),
    or None when the text names and matches nothing."""
    found = text_seeds.from_text(g, g.connection(), text, policy.seeds)
    deadline.check()
    seed_weights = found.top(policy.seeds.max_seeds)
    if not seed_weights:
        return None
    # A short walk: the text named these seeds, so their neighbours inform but do not outrank them.
    limit = policy.walk.max_text_candidates
    walk = rank.pagerank(g, seed_weights, policy.edges, include_inferred=include_inferred, alpha=policy.walk.text_alpha,
                         limit=limit)
    scores = blend(g, found.evidence, walk, policy.blend)
    if policy.blend.semantic:
        scores = semantic.with_similarity(g, text, scores, policy.blend.semantic)
    ordered = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    return found, walk, scores, ordered


def _learned_order(g: CodeGraph, found, walk: dict[str, float], scores: dict[str, float],
                   ordered: list[tuple[str, float]], policy: RankingPolicy, fields: FieldScores) -> list[tuple[str, float]]:
    """The hand-set order with its best `blend.rerank` candidates (widened: pool.py) re-ordered by the
    shipped learned ranker; each place keeps the score it had."""
    candidates = pool.candidate_pool(g, found, scores, ordered, policy)
    matrix = text_features(g, found, walk, scores, candidates, policy, fields)
    order = ranker.shipped().order(matrix)
    taken = set(candidates)
    # The widened places share the last score of the blend's best, so scores still fall along the list.
    head_scores = [score for _, score in ordered[:policy.blend.rerank]]
    places = head_scores + [head_scores[-1] if head_scores else 0.0] * (len(candidates) - len(head_scores))
    return [(candidates[i], places[place]) for place, i in enumerate(order)] + [kv for kv in ordered if kv[0] not in taken]


def text_features(g: CodeGraph, found, walk: dict[str, float], scores: dict[str, float], candidates: list[str],
                  policy: RankingPolicy, fields: FieldScores | None = None):
    """The learned ranker's feature matrix for candidates of a text (see features.py)."""
    terms = text_seeds.query_terms(found.evidence.text, policy.seeds)
    return features.extract(g, found.evidence.text, found, walk, scores, candidates, policy.edges, terms,
                            fields.result() if fields else None)


def rank_text_features(graphs: GraphCache, text: str, *, intent: str = "debug", policy: RankingPolicy | None = None,
                       limit: int | None = None):
    """(candidate ids in the hand-set blend's order, their feature matrix) for free text: what the
    learned ranker is trained on. `limit` defaults to the learned ranker's pool (pool.candidate_pool)."""
    policy = _policy(intent, policy)
    g = graphs.get()
    text = read(g, text)
    ranked = _text_ranking(g, text, policy, True)
    if ranked is None:
        return [], features.extract(g, text, text_seeds.Seeds(text_seeds.TextEvidence(text)), {}, {}, [], policy.edges, [])
    found, walk, scores, ordered = ranked
    ids = [entity for entity, _ in ordered[:limit]] if limit else pool.candidate_pool(g, found, scores, ordered, policy)
    return ids, text_features(g, found, walk, scores, ids, policy)


def _as_entity(g: CodeGraph, target: str) -> str | None:
    """The entity a target names, or None when it reads as free text."""
    if any(ch.isspace() for ch in target):
        return None
    try:
        return lookup.resolve_entity(g, target)
    except NotFound:
        return None
    except Ambiguous:
        raise


def _file_entities(g: CodeGraph, path: str) -> list[str]:
    return list(g.by_path.get(path, ()))


def _repo_path(g: CodeGraph, file: str) -> str:
    """A repository-relative path for `file`; paths outside the repository are refused."""
    if not file or not file.strip():
        raise InvalidRequest("file is empty: give a path inside the repository")
    inputs.check(file, "file")
    deadline.check()  # impact resolves many files one by one
    candidate = Path(file)
    absolute = (candidate if candidate.is_absolute() else g.root / candidate).resolve()
    try:
        relative = absolute.relative_to(g.root.resolve()).as_posix()
    except ValueError:
        lexical = os.path.normpath(candidate if candidate.is_absolute() else g.root / candidate)
        if lexical.startswith(os.path.join(str(g.root), "")):  # inside by its name: a link took it out
            raise InvalidRequest(f"the path {quote(file)} leads through a symbolic link to {absolute}, outside the repository "
                                 f"{g.root}; graphctx serves only the repository's code") from None
        raise InvalidRequest(f"the path {quote(file)} is outside the repository {g.root}; give a path inside it") from None
    if relative in g.files:
        return relative
    hits = [p for p in g.files if p.endswith("/" + file.lstrip("./"))]
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise Ambiguous(f"the path {quote(file)} matches {len(hits)} indexed files; give more of the path", sorted(hits)[:10])
    from graphctx.index import skips  # (with pathspec: only a path that is no indexed file needs it)

    why = skips.explain(g.connection(), relative)  # a language with no parser yet, or a skipped file
    raise NotFound(why or f"the path {quote(file)} is not an indexed source file",
                   [p for p in g.files if Path(p).name == Path(file).name][:5])


def _narrower(a: Shape, b: Shape) -> Shape:
    order = ("full", "summary", "line")
    pick = lambda x, y: order[max(order.index(x), order.index(y))]  # noqa: E731
    return Shape(pick(a.root, b.root), pick(a.others, b.others), a.files_first)


def new_answer(g: CodeGraph, mode: str, query: str, root_id: str | None, budget: int) -> ContextAnswer:
    """An empty answer with its header fields set, for the packer to fill."""
    return ContextAnswer(
        mode=mode, query=query, root=root_id, items=[], truncated=False, omitted=[], omitted_count=0,
        total_candidates=0, tokens_used=0, token_budget=budget, generation=g.generation)


def check_request(budget: int, fmt: str, depth: int | None = None) -> None:
    """Refuse a budget, format or depth out of range, saying what is allowed."""
    if not isinstance(budget, int) or not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise InvalidRequest(f"token_budget {quote(budget)} is out of range: use {MIN_BUDGET} to {MAX_BUDGET}")
    if fmt not in FORMATS:
        raise InvalidRequest(f"unknown format {quote(fmt)}; use compact or json")
    if depth is not None and (not isinstance(depth, int) or not 0 <= depth <= MAX_DEPTH):
        raise InvalidRequest(f"depth {quote(depth)} is out of range: use 0 to {MAX_DEPTH}")


def _check_hash(known_hash: str | None) -> str | None:
    """The body hash a caller already has, as an item heading shows it (`h:` optional), or None."""
    if known_hash is None or not known_hash.strip():
        return None
    value = known_hash.strip().removeprefix("h:")
    if not BODY_HASH.fullmatch(value):
        raise InvalidRequest(f"known_hash {quote(known_hash)} is not a body hash; pass the h: value of an item's heading "
                             "(8 to 16 hexadecimal digits) from an earlier answer")
    return value
