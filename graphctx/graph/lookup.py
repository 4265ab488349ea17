"""Finds entities by what a person or an agent calls them: an id, a qualified name, a bare name
or a file path, narrowed by a file suffix; unknown names get did-you-mean suggestions and
ambiguous ones the list of candidates. Also ranked search over entities: exact, prefix,
full-text (FTS5) and fuzzy matches."""

from __future__ import annotations

import difflib
import re
import sqlite3

from graphctx.errors import Ambiguous, InvalidRequest, NotFound
from graphctx.graph.loader import CodeGraph
from graphctx.index.store import words

MAX_CANDIDATES_SHOWN = 10


def resolve_entity(graph: CodeGraph, name: str, file: str | None = None) -> str:
    """The one entity id that `name` (id, qualified name, bare name or path) denotes, within `file` if given."""
    name = (name or "").strip()
    if not name:
        raise InvalidRequest("entity is empty: give an entity id (path::Qualified.name), a qualified name or a name")
    candidates = find_entities(graph, name)
    if file:
        file = file.strip().lstrip("./")
        candidates = [c for c in candidates if _path_matches(graph.entity(c)["path"], file)]
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        where = f" in files matching {file!r}" if file else ""
        close = suggest(graph, name)
        hint = "did you mean one of these?" if close else "try `graphctx search` with part of the name"
        raise NotFound(f"no entity named {name!r}{where}; {hint}", close)
    shown = sorted(candidates)[:MAX_CANDIDATES_SHOWN]
    more = f" (showing {len(shown)} of {len(candidates)})" if len(candidates) > len(shown) else ""
    raise Ambiguous(
        f"{name!r} names {len(candidates)} entities{more}; pass one of these ids, or a `file` to narrow it",
        shown,
    )


def find_entities(graph: CodeGraph, name: str) -> list[str]:
    if name in graph:
        return [name]
    if "::" in name:  # an id whose path is given as a suffix
        path, _, qualified = name.partition("::")
        return [i for i in graph.by_qualified_name.get(qualified, ()) if _path_matches(graph.entity(i)["path"], path)]
    found = graph.by_qualified_name.get(name) or graph.by_name.get(name)
    if found:
        return list(found)
    if "." in name:  # module.qualified: "pkg.mod.Class.method"
        for cut in range(1, name.count(".") + 1):
            module, qualified = name.rsplit(".", cut)[0], ".".join(name.split(".")[-cut:])
            hits = [i for i in graph.by_qualified_name.get(qualified, ()) if _module_matches(graph.entity(i)["path"], module)]
            if hits:
                return hits
    if "/" in name or "." in name:
        return [p for p in graph.files if _path_matches(p, name)]
    return []


def suggest(graph: CodeGraph, name: str, limit: int = 5) -> list[str]:
    """Close names, best first, as ids a caller can pass back."""
    key = name.rsplit("::", 1)[-1].rsplit(".", 1)[-1]
    pool = [n for n in graph.by_name if n[:1].lower() == key[:1].lower()] or list(graph.by_name)
    close = difflib.get_close_matches(key, pool, n=limit, cutoff=0.6)
    lowered = key.lower()
    close += [n for n in pool if lowered in n.lower() and n not in close][: max(0, limit - len(close))]
    return [i for n in close for i in sorted(graph.by_name[n])[:2]][:limit]


def search(graph: CodeGraph, conn: sqlite3.Connection, query: str, kind: str | None = None, limit: int = 20) -> list[tuple[str, float, str]]:
    """Entities matching `query`, best first, as (id, score, how matched)."""
    query = (query or "").strip()
    if not query:
        raise InvalidRequest("query is empty: give a name, a prefix or words to search for")
    if not 1 <= limit <= 500:
        raise InvalidRequest(f"limit {limit} is out of range: use 1 to 500")
    scores: dict[str, tuple[float, str]] = {}

    def add(entity_id: str, score: float, how: str) -> None:
        if kind and graph.entity(entity_id)["kind"] != kind:
            return
        if scores.get(entity_id, (0.0, ""))[0] < score:
            scores[entity_id] = (score, how)

    for entity_id in find_entities(graph, query):
        add(entity_id, 1.0, "exact")
    lowered = query.lower()
    for name, ids in graph.by_name.items():
        if name.lower().startswith(lowered) and name.lower() != lowered:
            for entity_id in ids:
                add(entity_id, 0.8 - min(len(name) - len(query), 30) / 300, "prefix")
    for rank, entity_id in enumerate(full_text(conn, query, limit * 3)):
        if entity_id in graph:
            add(entity_id, 0.6 * (1 - rank / (limit * 3)), "full-text")
    if len(scores) < limit:
        for name in difflib.get_close_matches(query, list(graph.by_name), n=limit, cutoff=0.75):
            for entity_id in graph.by_name[name]:
                add(entity_id, 0.4 * difflib.SequenceMatcher(None, query, name).ratio(), "fuzzy")
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1][0], kv[0]))[:limit]
    return [(entity_id, round(score, 4), how) for entity_id, (score, how) in ranked]


def full_text(conn: sqlite3.Connection, text: str, limit: int) -> list[str]:
    """Entity ids ranked by BM25 over names, words of names and paths, signatures and docs."""
    terms = sorted(set(words(text).split()))
    if not terms:
        return []
    match = "{words signature doc} : (" + " OR ".join(f'"{t}"' for t in terms[:64]) + ")"
    rows = conn.execute(
        "SELECT e.id FROM entities_fts f JOIN entities e ON e.rowid = f.rowid"
        " WHERE entities_fts MATCH ? ORDER BY bm25(entities_fts, 4.0, 1.0, 0.5) LIMIT ?",
        (match, limit),
    ).fetchall()
    return [r[0] for r in rows]


def _path_matches(path: str, suffix: str) -> bool:
    return path == suffix or path.endswith("/" + suffix.lstrip("/"))


def _module_matches(path: str, module: str) -> bool:
    stem = re.sub(r"(/__init__)?\.[^./]+$", "", path)
    return _path_matches(stem, module.replace(".", "/"))
