"""session_init: the onboarding packet an agent reads first in a new session. Project overview
(the README's first paragraph), languages and size, index freshness, the main entry points, and
a ranked map of the public API a newcomer needs, packed to the caller's token budget by the same
packer as every other answer.

The map's rule: only public entities of non-test code count (see `_is_public`: no `_name` at any
level, no private module, no nested helper, no Go lower-case, Java/TypeScript `private` or Rust
non-`pub` item; an export is public whatever its name). They are ranked by centrality (PageRank
over calls, inheritance, type uses and imports, restarting uniformly over all non-test code),
with bonuses for the entry points the manifests declare and for exports (`__all__`, or an import
in a package's `__init__.py`, `index.js`/`index.ts`, `lib.rs` or `mod.rs`); the modules imported
by the most other files join the map too. Computed once per index generation.

`project_facts` (facts.py) is the cheap part: SQL counts and a few small files, no graph load."""

from __future__ import annotations

import time
from collections import defaultdict

from graphctx.context.engine import check_request, new_answer
from graphctx.context.facts import project_facts
from graphctx.context.packer import Candidate, pack
from graphctx.context.tokens import DEFAULT_ENCODING
from graphctx.context.views import Views
from graphctx.graph import rank
from graphctx.graph.loader import CodeGraph, GraphCache
from graphctx.index.languages import RULES, rules_for
from graphctx.index.changes import changed_files
from graphctx.index.root import Boundary
from graphctx.models import ANONYMOUS_KINDS, DEFAULT_BUDGET, ContextAnswer, ProjectFacts
from graphctx.records import RecordStore
from graphctx.text import clip_words

# Centrality: relevance flows to what is called, subclassed, used as a type and imported; a class
# gets a little from its members. Tests and files are left out of the map.
CENTRALITY: rank.Weights = {
    "calls": (1.0, 0.0), "inherits": (0.8, 0.0), "implements": (0.8, 0.0), "references": (0.5, 0.0),
    "imports": (0.3, 0.0), "contains": (0.0, 0.3),
}
# Added to an entity's centrality (0-1, the most central public entity = 1): a declared entry point
# comes first (nothing else scores above 1 + EXPORT_BONUS), an export ranks above equally central
# code; the most imported module scores MODULE_WEIGHT.
ENTRY_BONUS = 2.0
EXPORT_BONUS = 0.3
MODULE_WEIGHT = 0.5
MIN_IMPORTERS = 2  # a module joins the map when at least this many other files import it
MAX_MODULES = 10
INDEX_FILES = frozenset().union(*(r.export_files for r in RULES))  # a package's face: what these import, it exports
MAP_CANDIDATES = 150  # the ranked map offers at most this many entities to the packer
MAP_SUMMARIES = 20  # the best ones with signature and doc, the rest one line each
MAX_RECORD_TITLES = 10  # per list: conventions, accepted decisions, stale records
MAX_RECORD_TITLE_CHARS = 80
RECORD_TOKENS_PER_TITLE = 500  # a budget this many tokens larger lists one more title in each list
MAX_OVERVIEW_CHARS = 600


def session_init(graphs: GraphCache, *, records: RecordStore | None = None, token_budget: int = DEFAULT_BUDGET,
                 format: str = "compact", encoding: str = DEFAULT_ENCODING) -> tuple[ContextAnswer, str]:
    """The onboarding packet: overview, languages, freshness and entry points as notes, then the most
    central entities, best first, within `token_budget`; the conventions and decisions of `records`."""
    check_request(token_budget, format)
    g = graphs.get()
    facts = project_facts(g.root, g.connection())
    answer = new_answer(g, "session", facts.name, None, token_budget)
    central = _central_map(g, facts)
    answer.notes = [note for note in (
        f"project {facts.name}: {clip_words(facts.overview, _overview_chars(token_budget))}" if facts.overview else f"project {facts.name}",
        f"size: {facts.files:,} files ({facts.languages_text()}), {facts.entities:,} entities, {facts.edges:,} edges",
        _freshness(g, facts),
        "entry points: " + "; ".join(facts.entry_points) if facts.entry_points else "",
        _central_files(g, central),
        *_record_notes(records, token_budget),
        "next: get_context(entity) for code with its neighbourhood, search(query) to find names, "
        "get_file_context(file) for a file outline, get_impact(symbol) before changing an interface",
    ) if note]
    candidates = [
        Candidate(node, score, relation, 0, max_detail="summary" if i < MAP_SUMMARIES else "line")
        for i, (node, score, relation) in enumerate(central[:MAP_CANDIDATES])
    ]
    return pack(answer, candidates, Views(g, summary_doc_lines=1), format, encoding)


def _record_notes(store: RecordStore | None, token_budget: int) -> list[str]:
    """Conventions and accepted decisions (titles, capped) and the records whose code changed under
    them, as notes the packer counts like the rest of the answer (so it never exceeds the budget). The
    cap grows with the budget: at the default budget the lists take a sixth of it at most."""
    if store is None:
        return []
    limit = max(2, min(MAX_RECORD_TITLES, token_budget // RECORD_TOKENS_PER_TITLE))
    overview = store.overview(limit)
    counts = overview.counts

    def listing(label: str, hits: list, total: int, more: str, state: bool = False) -> str:
        if not hits:
            return ""
        shown = "; ".join(f"{clip_words(h.title, MAX_RECORD_TITLE_CHARS)} ({h.id}"
                          + (f", {h.staleness.state})" if state and h.staleness else ")") for h in hits)
        extra = f" ({len(hits)} of {total}; {more})" if total > len(hits) else ""
        return f"{label}{extra}: {shown}"

    notes = [
        listing("conventions", overview.conventions, counts.get("conventions", 0), "recall(type=convention) for all"),
        listing("accepted decisions", overview.decisions, counts.get("decisions", 0),
                "recall(kind=decision, status=accepted) for all"),
        listing("stale records (their code changed: recall one, then verify it or revise it)", overview.stale,
                counts.get("stale", 0), "more after these are handled", state=True),
    ]
    if overview.problems:
        notes.append(f"{len(overview.problems)} record file(s) could not be read: "
                     + "; ".join(p.path for p in overview.problems[:3]))
    if counts.get("records"):
        notes.append(f"{counts['records']} knowledge and decision records: recall(query) searches them; "
                     "remember and decide keep what you learn, anchored to the code")
    return notes


# ---- the map: the public API, ranked

def _central_map(g: CodeGraph, facts: ProjectFacts) -> list[tuple[str, float, str]]:
    """(id, score, why) for the map, best first: public entities by centrality plus their bonuses,
    and the most imported modules. Why is entry, export, module or central."""
    entries = {item.split(" -> ")[-1] for item in facts.entry_points if " -> " in item}  # declared in manifests
    key = ("session_map", tuple(sorted(entries)))
    cached = g.cache.get(key)
    if cached is not None:
        return cached
    nodes = g.graph.nodes
    exported = _exports(g)
    public: list[tuple[str, float, str]] = []
    plain = 0
    for node, score in _centrality(g):
        if node in entries:
            public.append((node, score, "entry"))
        elif node in exported:
            public.append((node, score, "export"))
        elif plain < MAP_CANDIDATES * 4 and _is_public(g, node):  # enough: the packer takes MAP_CANDIDATES at most
            public.append((node, score, "central"))
            plain += 1
    top = max((score for _, score, _ in public), default=0.0) or 1.0
    bonus = {"entry": ENTRY_BONUS, "export": EXPORT_BONUS, "central": 0.0}
    scored = [(node, round(score / top + bonus[why], 4), why) for node, score, why in public]
    scored += [(path, score, "entry" if path in entries else "module") for path, score in _modules(g)]
    listed = {node for node, _, _ in scored}
    scored += [(e, ENTRY_BONUS, "entry") for e in entries if e in g and nodes[e]["kind"] == "file" and e not in listed]
    result = sorted(scored, key=lambda item: (-item[1], item[0]))
    g.cache[key] = result
    return result


def _centrality(g: CodeGraph) -> list[tuple[str, float]]:
    """Non-test, non-file entities by PageRank with uniform restart, best first. Private code takes
    part (it passes relevance on to what it calls) and is filtered out later."""
    cached = g.cache.get("session_centrality")
    if cached is not None:
        return cached
    nodes = g.graph.nodes
    keep = [n for n, d in nodes(data=True) if d["kind"] != "file" and not g.files.get(d["path"], {}).get("is_test")]
    scores = rank.pagerank(g, {n: 1.0 for n in keep}, CENTRALITY) if keep else {}
    result = sorted(((n, scores.get(n, 0.0)) for n in keep), key=lambda kv: (-kv[1], kv[0]))
    g.cache["session_centrality"] = result
    return result


def _is_public(g: CodeGraph, node: str) -> bool:
    """Whether an entity belongs to the code's public face, by each language's own convention."""
    e = g.graph.nodes[node]
    if e["kind"] in ("document", "section"):  # the repository's prose: read with `doc`, not mapped as code
        return False
    if e["kind"] in ANONYMOUS_KINDS:  # a lambda is its enclosing code's, not the public face
        return False
    parent = e.get("parent")
    if parent and parent in g and g.graph.nodes[parent]["kind"] in ("function", "method"):
        return False  # a helper nested in a function
    if any(part.startswith(("_", "#")) for part in e["qualified_name"].split(".")):
        return False
    if _private_module(e["path"]):
        return False
    return rules_for(e["language"]).is_public(e["name"], e["kind"], lambda: g.entity(node)["signature"])


def _private_module(path: str) -> bool:
    """A module or package named `_like_this` (`__init__.py` and `__main__.py` are not private)."""
    *folders, filename = path.split("/")
    stem = filename.split(".")[0]
    return any(part.startswith("_") for part in folders) or (stem.startswith("_") and not stem.startswith("__"))


def _exports(g: CodeGraph) -> set[str]:
    """Entities a module or package exports: the names in a Python module's `__all__` (defined there
    or imported into it), and the public names a package index file imports."""
    nodes = g.graph.nodes
    exported: set[str] = set()
    for path, info in g.files.items():
        if info["is_test"]:
            continue
        names = rules_for(info["language"]).declared_exports(g.root / path)
        index_file = path.rpartition("/")[2] in INDEX_FILES
        if names is None and not index_file:
            continue
        imported = [t for _, t, kind in g.graph.out_edges(path, data="kind")
                    if kind == "imports" and nodes[t]["kind"] != "file"]
        if names is not None:
            exported.update(i for name in names for i in g.by_qualified_name.get(name, ()) if nodes[i]["path"] == path)
            exported.update(t for t in imported if nodes[t]["name"] in names)
        else:
            exported.update(t for t in imported if not nodes[t]["name"].startswith("_"))
    return exported


def _modules(g: CodeGraph) -> list[tuple[str, float]]:
    """The public modules most other non-test files import (directly or a name from them), scored up to
    MODULE_WEIGHT."""
    nodes = g.graph.nodes
    importers: dict[str, set[str]] = defaultdict(set)
    for source, target, kind in g.graph.edges(data="kind"):
        if kind != "imports" or g.files.get(source, {}).get("is_test", True):
            continue
        module = nodes[target]["path"]
        if module != source and not g.files.get(module, {}).get("is_test") and not _private_module(module):
            importers[module].add(source)
    ranked = sorted(((len(s), m) for m, s in importers.items() if len(s) >= MIN_IMPORTERS), key=lambda x: (-x[0], x[1]))
    if not ranked:
        return []
    most = ranked[0][0]
    return [(module, round(MODULE_WEIGHT * n / most, 4)) for n, module in ranked[:MAX_MODULES]]


def _central_files(g: CodeGraph, central: list[tuple[str, float, str]], limit: int = 10) -> str:
    by_file: dict[str, float] = defaultdict(float)
    for node, score, _ in central:
        by_file[g.graph.nodes[node]["path"]] += score
    best = sorted(by_file.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    return "central files: " + ", ".join(path for path, _ in best) if best else ""


# ---- freshness

def _freshness(g: CodeGraph, facts: ProjectFacts) -> str:
    changed = changed_files(Boundary(g.root), g.files).changed
    age = f"built {_age(time.time() - facts.indexed_at)} ago" if facts.indexed_at else "build time unknown"
    state = (f"{len(changed)} indexed file(s) changed on disk since: {', '.join(sorted(changed)[:5])}"
             + (" ..." if len(changed) > 5 else "") + "; answers flag them") if changed else "every indexed file matches the disk"
    return f"index: generation {g.generation}, {age}; {state}"


def _overview_chars(budget: int) -> int:
    """At most about a quarter of a small budget for the overview (a token is about four characters)."""
    return max(80, min(MAX_OVERVIEW_CHARS, budget))


def _age(seconds: float) -> str:
    seconds = max(0.0, seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f} {unit}"
    return f"{seconds:.0f} s"


__all__ = ["project_facts", "session_init"]
