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
from graphctx.context.semantic import text_similarity
from graphctx.graph import rank
from graphctx.graph.loader import CodeGraph
from graphctx.index.store import reads
from graphctx.models import CLASS_KINDS, FUNCTION_KINDS
from graphctx.text import STOP_WORDS, camel_pieces, words

FIELDS = ("words", "signature", "doc", "body")  # the full-text columns, each scored alone
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


def field_scores(conn: sqlite3.Connection, terms: list[str], limit: int) -> dict[str, tuple[float, ...]]:
    """Each matching entity's BM25 score per full-text field, relative to that field's best (0..1)."""
    if not terms:
        return {}
    match = " OR ".join(f'"{t}"' for t in terms)
    try:
        rows = reads.full_text_fields(conn, match, len(FIELDS), limit)
    except sqlite3.OperationalError:  # an index from before the body column
        return {}
    best = [min((r[1 + i] for r in rows), default=0.0) or -1.0 for i in range(len(FIELDS))]
    return {r[0]: tuple(r[1 + i] / best[i] if best[i] < 0 else 0.0 for i in range(len(FIELDS))) for r in rows}


def extract(graph: CodeGraph, text: str, seeds: Seeds, walk: dict[str, float], scores: dict[str, float],
            candidates: list[str], edges, terms: list[str], field_limit: int = 2000) -> np.ndarray:
    """The feature matrix (one row per candidate, FEATURES columns) of candidates ranked by the
    hand-set blend (`scores`), for `text` with its seeds and walk."""
    query = TextQuery.of(text)
    nodes = graph.graph.nodes
    fields = field_scores(graph.connection(), terms, field_limit)
    top_walk = max(walk.values(), default=0.0) or 1.0
    top_score = max(scores.values(), default=0.0) or 1.0
    top_seed = max(seeds.weights.values(), default=0.0) or 1.0
    seed_weights = seeds.top(60)
    one_hop = _relative(rank.pagerank(graph, seed_weights, edges, alpha=1.0, iterations=1))
    far = _relative(rank.pagerank(graph, seed_weights, edges, alpha=0.85, iterations=20))
    evidence = seeds.evidence
    file_text = _file_text(graph, evidence.text_scores)
    file_order = _file_order(graph, candidates, scores)
    per_file: dict[str, int] = defaultdict(int)
    for c in candidates:
        per_file[nodes[c]["path"]] += 1
    degree_in, degree_out = _degrees(graph, candidates)
    similar = text_similarity(graph, text)
    out = np.zeros((len(candidates), len(FEATURES)), dtype=np.float64)  # the relative columns come last
    for row, entity_id in enumerate(candidates):
        node = nodes[entity_id]
        path, kind, name = node["path"], node["kind"], node["name"]
        qualified = node.get("qualified_name") or name
        parent = node.get("parent")
        reason = seeds.reasons.get(entity_id, "")
        f = out[row]
        f[INDEX["hand_score"]] = scores.get(entity_id, 0.0) / top_score
        f[INDEX["hand_rank"]] = math.log1p(row)
        f[INDEX["walk"]] = walk.get(entity_id, 0.0) / top_walk
        f[INDEX["ppr_far"]] = far.get(entity_id, 0.0)
        f[INDEX["one_hop"]] = one_hop.get(entity_id, 0.0)
        f[INDEX["seed"]] = seeds.weights.get(entity_id, 0.0) / top_seed
        f[INDEX["seed_frame"]] = reason.startswith("frame")
        f[INDEX["seed_path"]] = reason.startswith("path")
        f[INDEX["seed_name"]] = reason.startswith("name")
        f[INDEX["seed_text"]] = reason.startswith("full-text")
        f[INDEX["own_text"]] = evidence.text_scores.get(entity_id, 0.0)
        for i, value in enumerate(fields.get(entity_id, ())):
            f[INDEX[f"field_{FIELDS[i]}"]] = value
        f[INDEX["file_text"]] = file_text.get(path, 0.0)
        f[INDEX["file_named"]] = min(2.0, evidence.named_in_file.get(path, 0.0))
        f[INDEX["file_rank"]] = math.log1p(file_order.get(path, len(file_order)))
        f[INDEX["same_file_candidates"]] = math.log1p(per_file[path])
        f[INDEX["parent_score"]] = scores.get(parent, 0.0) / top_score if parent and parent != path else 0.0
        f[INDEX["name_exact"]] = name.lower() in query.lowered and len(name) >= 3
        f[INDEX["name_exact_cased"]] = name in query.identifiers and len(name) >= 3
        f[INDEX["qualified_mentioned"]] = "." in qualified and qualified in text
        parent_name = qualified.rsplit(".", 1)[0].rsplit(".", 1)[-1] if "." in qualified else ""
        f[INDEX["parent_mentioned"]] = bool(parent_name) and parent_name.lower() in query.lowered
        f[INDEX["name_words"]] = _overlap(_name_words(name), query.terms)
        f[INDEX["path_words"]] = _overlap(_name_words(*path.split("/")[-2:]), query.terms)
        stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        if stem == "__init__":
            stem = path.rsplit("/", 2)[-2] if "/" in path else stem
        f[INDEX["stem_mentioned"]] = len(stem) >= 3 and stem.lower() in query.lowered
        f[INDEX["path_mentioned"]] = path.rsplit("/", 1)[-1] in text
        f[INDEX["aside"]] = evidence.is_aside(graph, path)
        info = graph.files.get(path) or {}
        f[INDEX["is_test"]] = bool(info.get("is_test"))
        f[INDEX["is_doc_path"]] = bool(_DOC_PATH.search(path))
        f[INDEX["kind_function"]] = kind == "function"
        f[INDEX["kind_method"]] = kind == "method"
        f[INDEX["kind_class"]] = kind in CLASS_KINDS
        f[INDEX["kind_file"]] = kind == "file"
        f[INDEX["kind_other"]] = kind not in FUNCTION_KINDS and kind not in CLASS_KINDS and kind != "file"
        f[INDEX["lines"]] = math.log1p(max(0, node["end_line"] - node["start_line"] + 1))
        f[INDEX["private"]] = name.startswith("_") and not name.startswith("__")
        f[INDEX["dunder"]] = name.startswith("__") and name.endswith("__")
        f[INDEX["degree_in"]] = math.log1p(degree_in.get(entity_id, 0))
        f[INDEX["degree_out"]] = math.log1p(degree_out.get(entity_id, 0))
        f[INDEX["text_terms"]] = math.log1p(len(query.terms))
        f[INDEX["text_has_trace"]] = query.has_trace
        # The code embedding's cosine, for functions alone: what its training pairs hold.
        f[INDEX["semantic"]] = max(0.0, similar.get(entity_id, 0.0)) if kind in FUNCTION_KINDS else 0.0
    return with_relative(out[:, :len(BASE_FEATURES)])


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


def _relative(scores: dict[str, float]) -> dict[str, float]:
    top = max(scores.values(), default=0.0) or 1.0
    return {k: v / top for k, v in scores.items()}


def _file_text(graph: CodeGraph, text_scores: dict[str, float], top: int = 3) -> dict[str, float]:
    by_file: dict[str, list[float]] = defaultdict(list)
    for entity_id, score in text_scores.items():
        by_file[graph.graph.nodes[entity_id]["path"]].append(score)
    return {path: sum(sorted(s, reverse=True)[:top]) / top for path, s in by_file.items()}


def _file_order(graph: CodeGraph, candidates: list[str], scores: dict[str, float]) -> dict[str, int]:
    """Each candidate file's place among files ordered by their best candidate."""
    order: dict[str, int] = {}
    for c in sorted(candidates, key=lambda c: -scores.get(c, 0.0)):
        order.setdefault(graph.graph.nodes[c]["path"], len(order))
    return order


def _degrees(graph: CodeGraph, candidates: list[str]) -> tuple[dict[str, int], dict[str, int]]:
    """Calls into and out of each candidate, from the edge arrays."""
    a = graph.arrays
    index = graph.cache.get("feature_rowids")
    if index is None:
        index = graph.cache["feature_rowids"] = {n: i for i, n in enumerate(a.nodes)}
    calls = _CALLS_CODE
    mask = a.kinds == calls
    incoming = np.bincount(a.targets[mask], minlength=len(a.nodes))
    outgoing = np.bincount(a.sources[mask], minlength=len(a.nodes))
    d_in, d_out = {}, {}
    for c in candidates:
        i = index.get(c)
        if i is not None:
            d_in[c], d_out[c] = int(incoming[i]), int(outgoing[i])
    return d_in, d_out


def _name_words(*names: str) -> set[str]:
    return {w for n in names for w in words(*camel_pieces(n) or [n]).split() if len(w) > 1 and w not in STOP_WORDS} | {
        p.lower() for n in names for p in re.split(r"[^A-Za-z0-9]+", n) if len(p) > 1}


def _overlap(name_words: set[str], terms: frozenset[str]) -> float:
    return len(name_words & terms) / len(name_words) if name_words else 0.0


def _calls_code() -> int:
    from graphctx.models import EDGE_KINDS

    return EDGE_KINDS.index("calls")


_CALLS_CODE = _calls_code()
