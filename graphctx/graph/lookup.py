"""Finds entities by what a person or an agent calls them: an id, a qualified name, a bare name
or a file path, narrowed by a file suffix; unknown names get did-you-mean suggestions and
ambiguous ones the list of candidates. Also ranked search over entities: exact, prefix,
full-text (FTS5) and fuzzy matches, and the one BM25 query over the full-text index, its column
weights given by the caller (search here, free-text seeds in context/seeds.py)."""

from __future__ import annotations

import difflib
import re
import sqlite3
from collections import defaultdict
from collections.abc import Sequence

from graphctx import deadline, inputs
from graphctx.errors import Ambiguous, InvalidRequest, NotFound, quote
from graphctx.graph import hierarchy
from graphctx.graph.loader import CodeGraph
from graphctx.index.store import reads
from graphctx.layout import ID_SEPARATOR, short_name, split_entity_id
from graphctx.text import words
from graphctx.models import ANONYMOUS_KINDS, CLASS_KINDS, ENTITY_KINDS

MAX_CANDIDATES_SHOWN = 10
# Search's full text: names weigh most, then signatures, then docs (bodies are for free text).
SEARCH_COLUMNS = ("words", "signature", "doc")
SEARCH_WEIGHTS = (4.0, 1.0, 0.5)
MAX_SEARCH_TERMS = 64
EXACT_ANY_CASE = 0.95  # the query's name in another case: below the exact spelling, above every prefix


def resolve_entity(graph: CodeGraph, name: str, file: str | None = None) -> str:
    """The one entity id that `name` (id, qualified name, bare name or path) denotes, within `file` if given.
    Raises NotFound (with did-you-mean suggestions) or Ambiguous (with the candidate ids).

    Examples
    --------
    >>> g = Project(".").graph
    >>> resolve_entity(g, "graphctx.graph.lookup.resolve_entity")
    'graphctx/graph/lookup.py::resolve_entity'
    >>> resolve_entity(g, "resolve_entity", file="graph/lookup.py")
    'graphctx/graph/lookup.py::resolve_entity'
    """
    name = inputs.check((name or "").strip(), "entity")
    if not name:
        raise InvalidRequest("entity is empty: give an entity id (path::Qualified.name), a qualified name or a name")
    candidates = find_entities(graph, name)
    if file:
        file = file.strip().lstrip("./")
        candidates = [c for c in candidates if _path_matches(graph.entity(c)["path"], file)]
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        where = f" in files matching {quote(file)}" if file else ""
        close = suggest(graph, name)
        hint = "did you mean one of these?" if close else "try `graphctx search` with part of the name"
        raise NotFound(f"no entity named {quote(name)}{where}; {hint}", close)
    shown = sorted(candidates)[:MAX_CANDIDATES_SHOWN]
    more = f" (showing {len(shown)} of {len(candidates)})" if len(candidates) > len(shown) else ""
    raise Ambiguous(
        f"the name {quote(name)} names {len(candidates)} entities{more}; pass one of these ids, or a `file` to narrow it",
        shown,
    )


def find_entities(graph: CodeGraph, name: str) -> list[str]:
    if name in graph:
        return [name]
    if ID_SEPARATOR in name:  # an id whose path is given as a suffix
        path, qualified = split_entity_id(name)
        return [i for i in graph.by_qualified_name.get(qualified, ()) if _path_matches(graph.entity(i)["path"], path)]
    found = graph.by_qualified_name.get(name) or graph.by_name.get(name)
    if found:
        return list(found)
    if "." in name:  # module.qualified: "pkg.mod.Class.method"
        for cut in range(1, name.count(".") + 1):
            deadline.check()
            module, qualified = name.rsplit(".", cut)[0], ".".join(name.split(".")[-cut:])
            hits = [i for i in graph.by_qualified_name.get(qualified, ()) if _module_matches(graph.entity(i)["path"], module)]
            if hits:
                return hits
        hits = _reexported(graph, name) or _inherited(graph, name)
        if hits:
            return hits
    routes = _routes(graph, name)
    if routes:
        return routes
    if "/" in name or "." in name:
        return [p for p in files_named(graph, name.rsplit("/", 1)[-1]) if _path_matches(p, name)]
    return []


def files_named(graph: CodeGraph, file_name: str) -> list[str]:
    """The paths whose last part is `file_name`, in the graph's file order: the only ones a path
    suffix ending in that name can match (kept per graph generation; free text asks for many)."""
    return _files_by(graph, "files_by_name", lambda path: path.rsplit("/", 1)[-1]).get(file_name, [])


def _files_by(graph: CodeGraph, cache_key: str, key) -> dict[str, list[str]]:
    """The graph's file paths grouped by `key(path)`, in the graph's file order, kept per generation."""
    groups = graph.cache.get(cache_key)
    if groups is None:
        groups = defaultdict(list)
        for path in graph.files:
            groups[key(path)].append(path)
        graph.cache[cache_key] = groups = dict(groups)
    return groups


_HTTP_METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "ANY", "WS")


def _routes(graph: CodeGraph, name: str) -> list[str]:
    """The routes a request line names: `GET /users` (any case) or a path alone, `/users`, for every
    method (a trailing slash is optional either way)."""
    method, _, path = name.partition(" ") if " " in name else ("", "", name)
    if not path.startswith("/"):
        return []
    methods = (method.upper(),) if method else _HTTP_METHODS
    spellings = {path, path.rstrip("/") or "/", path.rstrip("/") + "/"}
    return [i for m in methods for p in sorted(spellings) for i in graph.by_name.get(f"{m} {p}", ())
            if graph.entity(i)["kind"] == "route"]


def suggest(graph: CodeGraph, name: str, limit: int = 5) -> list[str]:
    """Close names, best first, as ids a caller can pass back."""
    key = short_name(name)
    pool = [n for n in graph.by_name if n[:1].lower() == key[:1].lower()] or list(graph.by_name)
    close = difflib.get_close_matches(key, pool, n=limit, cutoff=0.6)
    lowered = key.lower()
    close += [n for n in pool if lowered in n.lower() and n not in close][: max(0, limit - len(close))]
    return [i for n in close for i in sorted(graph.by_name[n])[:2]][:limit]


def search(graph: CodeGraph, conn: sqlite3.Connection, query: str, kind: str | None = None, limit: int = 20) -> list[tuple[str, float, str]]:
    """Entities matching `query`, best first, as (id, score, how matched). An exact name wins in any
    case (`session` finds `class Session` above prefix and full-text hits), and a `kind` filter
    applies before each source of matches is cut, so it never loses matches to other kinds."""
    query = (query or "").strip()
    if not query:
        raise InvalidRequest("query is empty: give a name, a prefix or words to search for")
    if not 1 <= limit <= 500:
        raise InvalidRequest(f"limit {limit} is out of range: use 1 to 500")
    kind = check_kind(kind)
    scores: dict[str, tuple[float, str]] = {}

    def add(entity_id: str, score: float, how: str) -> None:
        found = graph.entity(entity_id)["kind"]
        if kind and found != kind or not kind and found in ANONYMOUS_KINDS and how != "exact":
            return  # (a lambda is found by its id or with --kind lambda, not as a match of its function's words)
        if scores.get(entity_id, (0.0, ""))[0] < score:
            scores[entity_id] = (score, how)

    for entity_id in find_entities(graph, query):
        add(entity_id, 1.0, "exact")
    for entity_id in _same_name_any_case(graph, query):
        add(entity_id, EXACT_ANY_CASE, "exact")
    lowered = query.lower()
    for number, (name, ids) in enumerate(graph.by_name.items()):
        if number % 1024 == 0:
            deadline.check()
        if name.lower().startswith(lowered) and name.lower() != lowered:
            for entity_id in ids:
                add(entity_id, 0.8 - min(len(name) - len(query), 30) / 300, "prefix")
    for rank, entity_id in enumerate(full_text(conn, query, limit * 3, kind)):
        if entity_id in graph:
            add(entity_id, 0.6 * (1 - rank / (limit * 3)), "full-text")
    if len(scores) < limit:
        deadline.check()
        nodes = graph.nodes
        pool = [n for n, ids in graph.by_name.items() if not kind or any(nodes[i]["kind"] == kind for i in ids)]
        for name in difflib.get_close_matches(query, pool, n=limit, cutoff=0.75):
            for entity_id in graph.by_name[name]:
                add(entity_id, 0.4 * difflib.SequenceMatcher(None, query, name).ratio(), "fuzzy")
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1][0], kv[0]))[:limit]
    return [(entity_id, round(score, 4), how) for entity_id, (score, how) in ranked]


def check_kind(kind: str | None) -> str | None:
    """The entity kind to filter by, or None for all; an unknown kind is refused with the known ones."""
    kind = (kind or "").strip().lower()
    if not kind:
        return None
    if kind not in ENTITY_KINDS:
        close = difflib.get_close_matches(kind, ENTITY_KINDS, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise InvalidRequest(f"unknown kind {quote(kind)}; {hint}use one of {', '.join(ENTITY_KINDS)}")
    return kind


def _same_name_any_case(graph: CodeGraph, query: str) -> list[str]:
    """Entities whose name or qualified name is the query in another case."""
    lowered = graph.cache.get("names_by_lowercase")
    if lowered is None:
        lowered = defaultdict(list)
        for table in (graph.by_name, graph.by_qualified_name):
            for name, ids in table.items():
                lowered[name.lower()].extend(ids)
        graph.cache["names_by_lowercase"] = lowered = dict(lowered)
    return list(dict.fromkeys(lowered.get(query.lower(), ())))


def full_text(conn: sqlite3.Connection, text: str, limit: int, kind: str | None = None) -> list[str]:
    """Entity ids ranked by BM25 over names, words of names and paths, signatures and docs; only of
    `kind` when given (filtered in the query, before the limit)."""
    terms = sorted(set(words(text).split()))[:MAX_SEARCH_TERMS]
    return [entity_id for entity_id, _ in bm25(conn, terms, SEARCH_WEIGHTS, limit, columns=SEARCH_COLUMNS, kind=kind)]


def uninformative_words(graph: CodeGraph) -> frozenset[str]:
    """Words in the paths of at least half the entities (`sympy` and `py` in sympy), kept per graph
    generation. Every entity's full-text row holds its path's words, and FTS5's BM25 floors the
    inverse document frequency of a term in half the rows or more at 1e-6: such a term moves no score
    by more than a millionth, yet ORing it into a query makes SQLite score nearly every row."""
    found = graph.cache.get("uninformative-words")
    if found is None:
        per_word: dict[str, int] = defaultdict(int)
        for path, ids in graph.by_path.items():
            for word in set(words(path).split()):
                per_word[word] += len(ids)
        half = len(graph.nodes) / 2
        found = graph.cache["uninformative-words"] = frozenset(w for w, n in per_word.items() if n >= half)
    return found


def bm25(conn: sqlite3.Connection, terms: Sequence[str], weights: Sequence[float], limit: int, *,
         columns: Sequence[str] | None = None, kind: str | None = None) -> list[tuple[str, float]]:
    """Entities matching any of `terms`, best first, as (id, BM25 score: more negative is better).
    `weights` weigh the full-text columns in their order (words of the name and path, signature,
    doc, body); `columns` limits the match to some of them, `kind` to entities of that kind."""
    if not terms:
        return []
    match = " OR ".join(f'"{t}"' for t in terms)
    if columns:
        match = "{" + " ".join(columns) + "} : (" + match + ")"
    return reads.full_text(conn, match, weights, kind, limit)


def _path_matches(path: str, suffix: str) -> bool:
    return path == suffix or path.endswith("/" + suffix.lstrip("/"))


def _module_matches(path: str, module: str) -> bool:
    return _path_matches(_module_stem(path), module.replace(".", "/"))


def _module_stem(path: str) -> str:
    return re.sub(r"(/__init__)?\.[^./]+$", "", path)


def _reexported(graph: CodeGraph, name: str) -> list[str]:
    """What `module.qualified` denotes when the module imports the qualified name's head from elsewhere:
    a package re-exporting its API (`xarray.where` is the `where` of xarray/core/computation.py that
    xarray/__init__.py imports; `requests.Session.send` a method of the class requests imports)."""
    for cut in range(1, name.count(".") + 1):
        deadline.check()
        module, qualified = name.rsplit(".", cut)[0], name.split(".")[-cut:]
        hits = []
        for file in _module_files(graph, module):
            for target, kind in graph.out_kinds(file):
                entity = graph.nodes[target] if kind == "imports" and target in graph else None
                if entity and entity.get("qualified_name") == qualified[0]:
                    hits += [i for i in graph.by_qualified_name.get(".".join(qualified), ())
                             if graph.entity(i)["path"] == entity["path"]]
        if hits:
            return list(dict.fromkeys(hits))
    return []


def _inherited(graph: CodeGraph, name: str) -> list[str]:
    """What `Class.member` denotes when the class inherits the member (see hierarchy.inherited)."""
    owner, _, member = name.rpartition(".")
    classes = [c for c in find_entities(graph, owner) if graph.entity(c)["kind"] in CLASS_KINDS]
    return list(dict.fromkeys(m for c in classes for m in hierarchy.inherited(graph, c, member)))


def _module_files(graph: CodeGraph, module: str) -> list[str]:
    """The files that are the module `module` (a dotted name, matched as a path suffix)."""
    by_last = _files_by(graph, "files_by_module", lambda path: _module_stem(path).rsplit("/", 1)[-1])
    return [p for p in by_last.get(module.rsplit(".", 1)[-1], ()) if _module_matches(p, module)]
