"""The feature vector of each candidate entity for free text: what the learned ranker (ranker.py)
scores and what its training corpus records. Every feature is cheap to compute from what text
ranking already gathered (seeds, the walk, the hand-set blend) plus one full-text query that scores
each field apart. FEATURES names them in column order; a model file records the names it was
trained on, so a changed list is caught when the model loads, never silently misread."""

from __future__ import annotations

import math
import re
import sqlite3
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from graphctx.context.seeds import Seeds
from graphctx.context.semantic import text_similarity_of
from graphctx.graph import rank
from graphctx.graph.loader import CodeGraph
from graphctx.index.store import reads
from graphctx.models import CLASS_KINDS, FUNCTION_KINDS
from graphctx.text import STOP_WORDS, camel_pieces, words

FIELDS = ("words", "signature", "doc", "body")  # the full-text columns, each scored alone
FIELD_LIMIT = 2000  # the best rows of the text's full-text query whose fields are scored
FEATURES: tuple[str, ...] = (
    "hand_score", "hand_rank", "walk", "ppr_far", "one_hop", "seed", "seed_frame", "seed_path", "seed_name",
    "seed_text", "own_text", *(f"field_{f}" for f in FIELDS), "file_text", "file_named", "file_rank",
    "same_file_candidates", "parent_score", "name_exact", "name_exact_cased", "qualified_mentioned",
    "parent_mentioned", "name_words", "path_words", "stem_mentioned", "path_mentioned", "aside", "is_test",
    "is_doc_path", "kind_function", "kind_method", "kind_class", "kind_file", "kind_other", "lines", "private",
    "dunder", "degree_in", "degree_out", "text_terms", "text_has_trace", "semantic",
)
# Overlaps with the text grow with its length: commit messages (the training queries) are a tenth as
# long as issues. Each of these also comes relative to its best among the text's candidates, which
# does not depend on the length, so a model can learn "the best overlap here" and carry it to issues.
RELATIVE = ("name_words", "path_words", "file_named", "file_text", "own_text", "field_body", "degree_in")
BASE_FEATURES = FEATURES
FEATURES = FEATURES + tuple(f"{name}_rel" for name in RELATIVE)
INDEX = {name: i for i, name in enumerate(FEATURES)}
_DOC_PATH = re.compile(r"(^|/)(docs?|examples?|benchmarks?)/")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class TextQuery:
    """What one text says, read once for all its candidates."""

    text: str
    identifiers: frozenset[str]  # as written
    lowered: frozenset[str]  # identifiers, lowercased
    terms: frozenset[str]  # split words, lowercased, minus stop words
    has_trace: bool

    @classmethod
    def of(cls, text: str) -> TextQuery:
        idents = frozenset(_IDENT.findall(text))
        terms = frozenset(t for t in words(text).split() if len(t) > 1 and t not in STOP_WORDS)
        return cls(text, idents, frozenset(i.lower() for i in idents), terms,
                   "Traceback (most recent call last)" in text or bool(re.search(r'File "[^"]+", line \d+', text)))


def field_scores(conn: sqlite3.Connection, terms: list[str], limit: int) -> tuple[dict[str, int], np.ndarray]:
    """Each matching entity's BM25 score per full-text field, relative to that field's best (0..1): the
    row of each id, and the rows (one column per field)."""
    if not terms:
        return {}, np.zeros((0, len(FIELDS)))
    match = " OR ".join(f'"{t}"' for t in terms)
    try:
        rows = reads.full_text_fields(conn, match, len(FIELDS), limit)
    except sqlite3.OperationalError:  # an index from before the body column
        return {}, np.zeros((0, len(FIELDS)))
    raw = np.array([r[1:] for r in rows], dtype=np.float64).reshape(len(rows), len(FIELDS))
    best = raw.min(axis=0) if len(rows) else np.zeros(len(FIELDS))
    best = np.where(best == 0.0, -1.0, best)  # a field no row matches: every score there is 0
    relative = np.divide(raw, best, out=np.zeros_like(raw), where=best < 0)
    return {r[0]: i for i, r in enumerate(rows)}, relative


@dataclass(frozen=True)
class EntityFacts:
    """What the features read of one entity that no text changes: worked out once per graph generation
    (graph.cache) and shared by every text it is a candidate of."""

    path: str
    name: str
    name_lower: str
    qualified: str  # the qualified name, when it has a dot ("" otherwise)
    parent_lower: str  # the enclosing class's or module part's name, lowercased ("" without one)
    parent: str | None
    is_function: bool  # a function or a method: what the code embedding's similarity is a feature of
    name_words: frozenset[str]
    fixed: tuple[float, ...]  # the FIXED columns


FIXED = ("is_test", "is_doc_path", "kind_function", "kind_method", "kind_class", "kind_file", "kind_other", "lines",
         "private", "dunder", "degree_in", "degree_out")


@dataclass(frozen=True)
class PathFacts:
    """What the features read of a file path that no text changes, once per graph generation."""

    words: frozenset[str]
    stem_lower: str  # the file's stem (its package's name for __init__), lowercased; "" when under 3 characters
    file_name: str


def extract(graph: CodeGraph, text: str, seeds: Seeds, walk: dict[str, float], scores: dict[str, float],
            candidates: list[str], edges, terms: list[str],
            fields: tuple[dict[str, int], np.ndarray] | None = None) -> np.ndarray:
    """The feature matrix (one row per candidate, FEATURES columns) of candidates ranked by the
    hand-set blend (`scores`), for `text` with its seeds and walk; `fields` is field_scores of the
    `terms` when already found (fieldquery.py). Each column is made for all candidates at once; what
    does not depend on the text comes from `entity_facts` and `path_facts`."""
    query = TextQuery.of(text)
    facts = [entity_facts(graph, c) for c in candidates]
    paths = [f.path for f in facts]
    evidence = seeds.evidence
    top_walk = max(walk.values(), default=0.0) or 1.0
    top_score = max(scores.values(), default=0.0) or 1.0
    top_seed = max(seeds.weights.values(), default=0.0) or 1.0
    seed_weights = seeds.top(60)
    positions = np.fromiter((graph.arrays.index.get(c, -1) for c in candidates), np.int64, len(candidates))
    reasons = [seeds.reasons.get(c, "") for c in candidates]
    field_rows, field_values = fields or field_scores(graph.connection(), terms, FIELD_LIMIT)
    in_fields = np.fromiter((field_rows.get(c, -1) for c in candidates), np.int64, len(candidates))
    by_field = (np.where((in_fields >= 0)[:, None], field_values[in_fields], 0.0) if len(field_values)
                else np.zeros((len(candidates), len(FIELDS))))
    columns: dict[str, object] = {
        "hand_score": [scores.get(c, 0.0) / top_score for c in candidates],
        "hand_rank": [math.log1p(row) for row in range(len(candidates))],
        "walk": [walk.get(c, 0.0) / top_walk for c in candidates],
        "ppr_far": _relative_pagerank(graph, seed_weights, edges, positions, alpha=0.85, iterations=20),
        "one_hop": _relative_pagerank(graph, seed_weights, edges, positions, alpha=1.0, iterations=1),
        "seed": [seeds.weights.get(c, 0.0) / top_seed for c in candidates],
        "seed_frame": [r.startswith("frame") for r in reasons],
        "seed_path": [r.startswith("path") for r in reasons],
        "seed_name": [r.startswith("name") for r in reasons],
        "seed_text": [r.startswith("full-text") for r in reasons],
        "own_text": [evidence.text_scores.get(c, 0.0) for c in candidates],
        **{f"field_{name}": by_field[:, i] for i, name in enumerate(FIELDS)},
        "parent_score": [scores.get(f.parent, 0.0) / top_score if f.parent and f.parent != f.path else 0.0
                         for f in facts],
        "name_exact": [f.name_lower in query.lowered and len(f.name) >= 3 for f in facts],
        "name_exact_cased": [f.name in query.identifiers and len(f.name) >= 3 for f in facts],
        "qualified_mentioned": [bool(f.qualified) and f.qualified in text for f in facts],
        "parent_mentioned": [bool(f.parent_lower) and f.parent_lower in query.lowered for f in facts],
        "name_words": [_overlap(f.name_words, query.terms) for f in facts],
        "text_terms": math.log1p(len(query.terms)),
        "text_has_trace": query.has_trace,
    }
    columns.update(_per_file(graph, query, evidence, candidates, paths, scores))
    fixed = np.array([f.fixed for f in facts], dtype=np.float64).reshape(len(facts), len(FIXED))
    columns.update((name, fixed[:, i]) for i, name in enumerate(FIXED))
    # The code embedding's cosine, for functions alone: what its training pairs hold.
    similar = np.maximum(0.0, text_similarity_of(graph, text, candidates))
    columns["semantic"] = np.where([f.is_function for f in facts], similar, 0.0)
    out = np.zeros((len(candidates), len(BASE_FEATURES)), dtype=np.float64)
    for i, name in enumerate(BASE_FEATURES):
        out[:, i] = columns[name]
    return with_relative(out)


def _per_file(graph: CodeGraph, query: TextQuery, evidence, candidates: list[str], paths: list[str],
              scores: dict[str, float]) -> dict[str, list[float]]:
    """The columns that depend on a candidate's file alone, worked out once per file."""
    file_text = _file_text(graph, evidence.text_scores)
    file_order = _file_order(paths, candidates, scores)
    per_file: dict[str, int] = defaultdict(int)
    for path in paths:
        per_file[path] += 1
    by_path = {}
    for path in dict.fromkeys(paths):
        p = path_facts(graph, path)
        by_path[path] = (
            file_text.get(path, 0.0), min(2.0, evidence.named_in_file.get(path, 0.0)),
            math.log1p(file_order.get(path, len(file_order))), math.log1p(per_file[path]),
            _overlap(p.words, query.terms), bool(p.stem_lower) and p.stem_lower in query.lowered,
            p.file_name in query.text, evidence.is_aside(graph, path))
    names = ("file_text", "file_named", "file_rank", "same_file_candidates", "path_words", "stem_mentioned",
             "path_mentioned", "aside")
    return {name: [by_path[path][i] for path in paths] for i, name in enumerate(names)}


def entity_facts(graph: CodeGraph, entity_id: str) -> EntityFacts:
    """The text-independent facts of an entity, kept per graph generation."""
    known = graph.cache.setdefault("feature_entity_facts", {})
    found = known.get(entity_id)
    if found is None:
        found = known[entity_id] = _entity_facts(graph, entity_id)
    return found


def _entity_facts(graph: CodeGraph, entity_id: str) -> EntityFacts:
    node = graph.nodes[entity_id]
    path, kind, name = node["path"], node["kind"], node["name"]
    qualified = node.get("qualified_name") or name
    parent_name = qualified.rsplit(".", 1)[0].rsplit(".", 1)[-1] if "." in qualified else ""
    info = graph.files.get(path) or {}
    incoming, outgoing = _call_degrees(graph)
    row = graph.arrays.index.get(entity_id)
    fixed = (
        bool(info.get("is_test")), bool(_DOC_PATH.search(path)), kind == "function", kind == "method",
        kind in CLASS_KINDS, kind == "file", kind not in FUNCTION_KINDS and kind not in CLASS_KINDS and kind != "file",
        math.log1p(max(0, node["end_line"] - node["start_line"] + 1)),
        name.startswith("_") and not name.startswith("__"), name.startswith("__") and name.endswith("__"),
        math.log1p(int(incoming[row]) if row is not None else 0), math.log1p(int(outgoing[row]) if row is not None else 0))
    return EntityFacts(path, name, name.lower(), qualified if "." in qualified else "", parent_name.lower(),
                       node.get("parent"), kind in FUNCTION_KINDS, frozenset(_name_words(name)),
                       tuple(float(v) for v in fixed))


def path_facts(graph: CodeGraph, path: str) -> PathFacts:
    """The text-independent facts of a file path, kept per graph generation."""
    known = graph.cache.setdefault("feature_path_facts", {})
    found = known.get(path)
    if found is None:
        stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        if stem == "__init__":
            stem = path.rsplit("/", 2)[-2] if "/" in path else stem
        found = known[path] = PathFacts(frozenset(_name_words(*path.split("/")[-2:])),
                                        stem.lower() if len(stem) >= 3 else "", path.rsplit("/", 1)[-1])
    return found


def with_relative(matrix: np.ndarray, groups: np.ndarray | None = None) -> np.ndarray:
    """BASE_FEATURES columns (one text's candidates, or several texts' numbered by `groups`, each
    text's rows together) widened to FEATURES with the RELATIVE columns: each value over the best of
    its text's candidates (0 where that best is 0). Training derives them from stored rows this way."""
    base = np.asarray(matrix, dtype=np.float64)
    if groups is None:
        groups = np.zeros(len(base), dtype=np.int64)
    cols = [BASE_FEATURES.index(name) for name in RELATIVE]
    values = base[:, cols]
    best = np.zeros((int(groups.max()) + 1 if len(groups) else 0, len(cols)))
    np.maximum.at(best, groups, values)
    top = best[groups]
    relative = np.divide(values, top, out=np.zeros_like(values), where=top > 0)
    return np.hstack([base, relative])


def within_text_ranks(matrix: np.ndarray, columns: list[int], groups: np.ndarray | None = None) -> np.ndarray:
    """`matrix` with each of `columns` replaced by its value's rank among its text's candidates, as a
    share in (0, 1] (the best 1, ties alike, 0 stays 0). A rank does not grow with the text's length,
    so a model trained on short commit messages reads it the same way on long issues."""
    out = np.array(matrix, dtype=np.float64)
    if not len(out) or not columns:
        return out
    if groups is None:
        groups = np.zeros(len(out), dtype=np.int64)
    bounds = np.flatnonzero(np.diff(groups)) + 1  # each text's rows are together
    for start, end in zip(np.r_[0, bounds], np.r_[bounds, len(out)], strict=True):
        block = out[start:end, columns]
        for j in range(block.shape[1]):
            values = block[:, j]
            # the share of the text's candidates at or below each value; 0 for a value of 0
            below = np.searchsorted(np.sort(values), values, side="right") / len(values)
            block[:, j] = np.where(values > 0, below, 0.0)
        out[start:end, columns] = block
    return out


def _relative_pagerank(graph: CodeGraph, seeds: dict[str, float], edges, positions: np.ndarray, *, alpha: float,
                       iterations: int) -> np.ndarray:
    """Personalized PageRank from the seeds at `positions` (-1: not in the graph), relative to the best
    score anywhere (entities under rank.MIN_SCORE count as unreached: 0)."""
    ranks = rank.pagerank_vector(graph, seeds, edges, alpha=alpha, iterations=iterations)
    if ranks is None or not len(positions):
        return np.zeros(len(positions))
    reached = ranks > rank.MIN_SCORE
    top = (float(ranks[reached].max()) if reached.any() else 0.0) or 1.0
    values = np.where(positions >= 0, ranks[positions], 0.0)
    return np.where(values > rank.MIN_SCORE, values / top, 0.0)


def _file_text(graph: CodeGraph, text_scores: dict[str, float], top: int = 3) -> dict[str, float]:
    by_file: dict[str, list[float]] = defaultdict(list)
    nodes = graph.nodes
    for entity_id, score in text_scores.items():
        by_file[nodes[entity_id]["path"]].append(score)
    return {path: sum(sorted(s, reverse=True)[:top]) / top for path, s in by_file.items()}


def _file_order(paths: list[str], candidates: list[str], scores: dict[str, float]) -> dict[str, int]:
    """Each candidate file's place among files ordered by their best candidate."""
    order: dict[str, int] = {}
    for row in sorted(range(len(candidates)), key=lambda row: -scores.get(candidates[row], 0.0)):
        order.setdefault(paths[row], len(order))
    return order


def _call_degrees(graph: CodeGraph) -> tuple[np.ndarray, np.ndarray]:
    """Calls into and out of each entity, by position in the edge arrays (once per graph generation)."""
    found = graph.cache.get("feature_call_degrees")
    if found is None:
        a = graph.arrays
        mask = a.kinds == _CALLS_CODE
        found = graph.cache["feature_call_degrees"] = (np.bincount(a.targets[mask], minlength=len(a.nodes)),
                                                       np.bincount(a.sources[mask], minlength=len(a.nodes)))
    return found


def _name_words(*names: str) -> set[str]:
    return {w for n in names for w in words(*camel_pieces(n) or [n]).split() if len(w) > 1 and w not in STOP_WORDS} | {
        p.lower() for n in names for p in re.split(r"[^A-Za-z0-9]+", n) if len(p) > 1}


def _overlap(name_words: set[str], terms: frozenset[str]) -> float:
    return len(name_words & terms) / len(name_words) if name_words else 0.0


def _calls_code() -> int:
    from graphctx.models import EDGE_KINDS

    return EDGE_KINDS.index("calls")


_CALLS_CODE = _calls_code()
