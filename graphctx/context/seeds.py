"""Turns free text (an issue report, a task, a stack trace) into weighted seed entities: stack
frames (file and line), file paths, code spans, identifiers that name entities (weighted by how
rare the name is), and full-text matches over names, signatures, docs and bodies. It also keeps
the evidence the final ranking blends in: every entity's full-text score, and how strongly the
text names something in each file."""

from __future__ import annotations

import math
import re
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field

from graphctx import deadline
from graphctx.graph.loader import CodeGraph
from graphctx.graph.lookup import find_entities, full_text
from graphctx.index.store import words

# Every pattern here runs on text anyone can send, so each is linear in it: a path may start only
# where a path-like run starts (the lookbehinds), so no position is scanned again from inside a run.
_FRAME = re.compile(
    r'File "(?P<py>[^"\n]{1,1000})", line (?P<pyline>\d{1,9})'  # Python traceback
    r"|(?<![\w./\\-])(?P<path>[\w./\\-]+\.(?:py|pyi|js|jsx|mjs|ts|tsx|go|rs|java)):(?P<line>\d{1,9})"  # path:line
)
_PATH = re.compile(r"(?<![\w/.-])([\w.-]+(?:/[\w.-]+)*\.(?:py|pyi|js|jsx|mjs|cjs|ts|tsx|go|rs|java))\b")
_SPAN = re.compile(r"```.*?```|`[^`\n]+`", re.S)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*")
FRAME_WEIGHT, PATH_WEIGHT, SPAN_WEIGHT, IDENT_WEIGHT, TEXT_WEIGHT = 3.0, 2.0, 2.0, 1.0, 3.0
FULL_TEXT_LIMIT = 100  # the best full-text matches become seeds of the walk
TEXT_SCORES_LIMIT = 300  # ... and this many keep their score for the final blend
MAX_TERMS = 120
# Seeds come from the first and last characters of a long text (a title and report open it, the
# innermost stack frames close it); the answer says when the middle was left out.
TEXT_HEAD, TEXT_TAIL = 16_000, 4_000
MAX_SEEDS = 60
TEST_FACTOR = 0.25
STOP_WORDS = frozenset(
    "a an and are as at be been but by can could did do does for from had has have how i if in into is it its "
    "me my no not of on or our should so than that the their them then there these they this to was we were what "
    "when where which while who why will with would you your".split()
)


@dataclass
class Seeds:
    weights: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    evidence: dict[str, str] = field(default_factory=dict)
    text_scores: dict[str, float] = field(default_factory=dict)  # BM25 relative to the best match, 0..1
    named_in_file: dict[str, float] = field(default_factory=lambda: defaultdict(float))  # path -> weight of names, paths, frames
    truncated: bool = False  # the text was longer than TEXT_HEAD + TEXT_TAIL characters

    def add(self, entity_id: str, weight: float, why: str) -> None:
        self.weights[entity_id] += weight
        self.evidence.setdefault(entity_id, why)

    def top(self, limit: int = MAX_SEEDS) -> dict[str, float]:
        return dict(sorted(self.weights.items(), key=lambda kv: -kv[1])[:limit])


def from_text(graph: CodeGraph, conn: sqlite3.Connection, text: str) -> Seeds:
    seeds = Seeds()
    text, seeds.truncated = bounded(text)
    _frames(graph, text, seeds)
    for named in dict.fromkeys(m.group(1) for m in _PATH.finditer(text)):
        deadline.check()
        for path in _files_matching(graph, named):
            seeds.add(path, PATH_WEIGHT, f"path {named}")
    spans = " ".join(m.group(0).strip("`") for m in _SPAN.finditer(text))
    _identifiers(graph, spans, seeds, SPAN_WEIGHT, code=True)
    _identifiers(graph, _SPAN.sub(" ", text), seeds, IDENT_WEIGHT, code=False)
    for entity_id, weight in seeds.weights.items():  # so far only what the text names: frames, paths, names
        seeds.named_in_file[graph.graph.nodes[entity_id]["path"]] += weight
    matches = [(entity_id, share) for entity_id, share in _full_text(conn, text) if entity_id in graph]
    seeds.text_scores = dict(matches)
    for entity_id, share in matches[:FULL_TEXT_LIMIT]:
        seeds.add(entity_id, TEXT_WEIGHT * share, "full-text")
    _down_weight_tests(graph, text, seeds)
    return seeds


def bounded(text: str) -> tuple[str, bool]:
    """The part of a text that seeds are drawn from, and whether anything was left out."""
    if len(text) <= TEXT_HEAD + TEXT_TAIL:
        return text, False
    return f"{text[:TEXT_HEAD]}\n{text[-TEXT_TAIL:]}", True


def is_aside(graph: CodeGraph, path: str, text: str) -> bool:
    """Tests echo the names of what they test, and documentation examples echo the API, so both match
    issue text well but are rarely what needs changing; unless the text names the file itself."""
    info = graph.files.get(path)
    return bool(info and (info.get("is_test") or _ASIDE.search(path)) and path.rsplit("/", 1)[-1] not in text)


def _full_text(conn: sqlite3.Connection, text: str) -> list[tuple[str, float]]:
    """BM25 over entity names, signatures, docs and bodies: (id, score relative to the best), best first.
    Terms keep the text's order (a title's words first) up to MAX_TERMS."""
    terms = [t for t in dict.fromkeys(words(text).split()) if len(t) > 1 and t not in STOP_WORDS][:MAX_TERMS]
    if not terms:
        return []
    match = " OR ".join(f'"{t}"' for t in terms)
    try:
        rows = conn.execute(
            "SELECT e.id, bm25(entities_fts, 4.0, 1.0, 0.5, 1.0) AS s FROM entities_fts f JOIN entities e ON e.rowid = f.rowid"
            " WHERE entities_fts MATCH ? ORDER BY s LIMIT ?",
            (match, TEXT_SCORES_LIMIT),
        ).fetchall()
    except sqlite3.OperationalError:  # an index from before the body column: names, signatures and docs
        return [(i, 1 - rank / FULL_TEXT_LIMIT) for rank, i in enumerate(full_text(conn, text, FULL_TEXT_LIMIT))]
    best = rows[0][1] if rows and rows[0][1] < 0 else -1.0
    return [(entity_id, score / best) for entity_id, score in rows]


def _down_weight_tests(graph: CodeGraph, text: str, seeds: Seeds) -> None:
    """Scale down the seeds in tests and documentation examples (see is_aside)."""
    for entity_id in list(seeds.weights):
        if is_aside(graph, graph.graph.nodes[entity_id]["path"], text):
            seeds.weights[entity_id] *= TEST_FACTOR


_ASIDE = re.compile(r"(^|/)(docs?|examples?|benchmarks?)/")


def _frames(graph: CodeGraph, text: str, seeds: Seeds) -> None:
    frames = list(dict.fromkeys(((m.group("py") or m.group("path")).replace("\\", "/"), int(m.group("pyline") or m.group("line")))
                                for m in _FRAME.finditer(text)))
    for position, (path, line) in enumerate(frames):
        deadline.check()
        weight = FRAME_WEIGHT * (1 + position / max(1, len(frames)))  # the innermost frame is where it broke
        for file in _files_matching(graph, path):
            entity = _innermost(graph, file, line)
            seeds.add(entity, weight, f"frame {path}:{line}")


def _identifiers(graph: CodeGraph, text: str, seeds: Seeds, weight: float, code: bool) -> None:
    total = max(1, graph.graph.number_of_nodes())
    seen: set[str] = set()
    for match in _IDENT.finditer(text):
        deadline.check()
        token = match.group(0).replace("::", ".")
        if token in seen or len(token) < 3:
            continue
        seen.add(token)
        looks_like_code = code or "_" in token or "." in token or re.search(r"[a-z][A-Z]", token) or token[:1].isupper()
        ids = find_entities(graph, token) if "." in token else graph.by_name.get(token, [])
        if not ids and "." in token:
            ids = graph.by_name.get(token.rsplit(".", 1)[-1], [])
        if not ids:
            continue
        rarity = math.log(total / len(ids)) / math.log(total) if total > 1 else 1.0
        share = weight * rarity * (1.0 if looks_like_code else 0.3) / math.sqrt(len(ids))
        for entity_id in ids:
            seeds.add(entity_id, share, f"name {token}")


def _files_matching(graph: CodeGraph, path: str) -> list[str]:
    path = path.lstrip("./")
    parts = path.split("/")
    for start in range(len(parts)):  # absolute paths from another machine: try ever shorter suffixes
        suffix = "/".join(parts[start:])
        hits = [p for p in graph.files if p == suffix or p.endswith("/" + suffix)]
        if hits:
            return hits if len(hits) <= 3 else []
    return []


def _innermost(graph: CodeGraph, path: str, line: int) -> str:
    best, best_span = path, math.inf
    g = graph.graph
    for _, member in _descendants(graph, path):
        e = g.nodes[member]
        if e["start_line"] <= line <= e["end_line"] and e["end_line"] - e["start_line"] < best_span:
            best, best_span = member, e["end_line"] - e["start_line"]
    return best


def _descendants(graph: CodeGraph, path: str):
    stack = [path]
    while stack:
        node = stack.pop()
        for _, child, kind in graph.graph.out_edges(node, data="kind"):
            if kind == "contains" and graph.graph.nodes[child]["path"] == path:
                yield node, child
                stack.append(child)
