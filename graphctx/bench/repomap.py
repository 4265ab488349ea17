"""A re-implementation of the repo-map baseline (after aider's RepoMap), for when aider itself is
not installed: it is not aider's code and its numbers are not aider's.

Definitions are the names of graphctx's entities per file; references are the identifiers that
occur in each file's text. Each identifier defined in one file and referenced in another adds an
edge referencer -> definer weighted sqrt(references) x a multiplier (x10 when the query mentions
the identifier, x10 for long snake/camel names, x0.1 for _private ones and for names defined in
more than five files). PageRank over the files, personalised to files whose path or stem the
query mentions, flows along the edges onto (file, identifier) definitions, which are ranked by it.
The packet is a map: each file's path, then the signature line of its ranked definitions, greedily
up to the budget."""

from __future__ import annotations

import math
import os
import re
import time
from collections import Counter, defaultdict

import networkx as nx

from graphctx.bench.instances import Instance
from graphctx.bench.corpus import Output, Packet, Repo, count

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DEF_LINE = re.compile(r"^\s*(async\s+def|def|class|function|func|fn|pub|export|interface|struct|type)\b")


def _defs_and_refs(repo: Repo):
    cached = repo.graph.cache.get("bench-repomap")
    if cached is not None:
        return cached
    defines: dict[str, set[str]] = defaultdict(set)
    definitions: dict[tuple[str, str], list[str]] = defaultdict(list)
    for n, d in repo.entities.items():
        if d["kind"] != "file":
            defines[d["name"]].add(d["path"])
            definitions[(d["path"], d["name"])].append(n)
    references: dict[str, Counter] = defaultdict(Counter)
    for path in repo.files:
        for word, k in Counter(_WORD.findall("\n".join(repo.lines(path)))).items():
            if word in defines:
                references[word][path] += k
    repo.graph.cache["bench-repomap"] = (defines, definitions, references)
    return defines, definitions, references


def rank(repo: Repo, text: str) -> list[str]:
    defines, definitions, references = _defs_and_refs(repo)
    idents = set(re.split(r"\W+", text))
    words = {w.rstrip(",.!;:?").strip("\"'`*_") for w in text.split()}
    personalization = {}
    share = 100 / max(1, len(repo.files))
    for path in repo.files:
        stem = os.path.splitext(os.path.basename(path))[0]
        parts = set(path.split("/")) | {os.path.basename(path), stem}
        if path in words or parts & idents or (len(stem) >= 5 and stem.lower() in {i.lower() for i in idents}):
            personalization[path] = share
    g = nx.MultiDiGraph()
    g.add_nodes_from(repo.files)
    for ident, definers in defines.items():
        refs = references.get(ident)
        if not refs:
            for definer in definers:
                g.add_edge(definer, definer, weight=0.1, ident=ident)
            continue
        mul = 1.0
        is_snake = "_" in ident and any(c.isalpha() for c in ident)
        is_camel = any(c.isupper() for c in ident) and any(c.islower() for c in ident)
        if ident in idents:
            mul *= 10
        if (is_snake or is_camel) and len(ident) >= 8:
            mul *= 10
        if ident.startswith("_"):
            mul *= 0.1
        if len(definers) > 5:
            mul *= 0.1
        for referencer, n_refs in refs.items():
            for definer in definers:
                g.add_edge(referencer, definer, weight=mul * math.sqrt(n_refs), ident=ident)
    kwargs = {"personalization": personalization, "dangling": personalization} if personalization else {}
    try:
        ranked_files = nx.pagerank(g, weight="weight", **kwargs)
    except ZeroDivisionError:
        ranked_files = nx.pagerank(g, weight="weight")
    ranked_defs: dict[tuple[str, str], float] = defaultdict(float)
    for src in g.nodes:
        out = list(g.out_edges(src, data=True))
        total = sum(d["weight"] for _, _, d in out)
        for _, dst, d in out:
            ranked_defs[(dst, d["ident"])] += ranked_files[src] * d["weight"] / total
    ordered: list[str] = []
    for (path, ident), _ in sorted(ranked_defs.items(), key=lambda kv: (-kv[1], kv[0])):
        ordered += sorted(definitions.get((path, ident), []), key=lambda n: repo.entities[n]["start_line"])
    seen = {repo.entities[n]["path"] for n in ordered}
    ordered += [p for p, _ in sorted(ranked_files.items(), key=lambda kv: -kv[1]) if p not in seen]
    return ordered


def signature_line(repo: Repo, entity_id: str) -> tuple[int, str]:
    """The entity's definition line (past decorators) and its text."""
    d = repo.entities[entity_id]
    src = repo.lines(d["path"])
    for line in range(d["start_line"], min(d["end_line"], d["start_line"] + 20) + 1):
        if line - 1 < len(src) and _DEF_LINE.match(src[line - 1]):
            return line, src[line - 1]
    line = d["start_line"]
    return line, src[line - 1] if line - 1 < len(src) else d["signature"]


def render_map(repo: Repo, ranked: list[str], budget: int) -> Packet:
    """Files in the order their first definition is ranked, each with its definitions' lines in
    line order, as many definitions as fit (exact count)."""
    lo, hi, best = 0, min(len(ranked), budget // 4), None
    while lo <= hi:
        mid = (lo + hi) // 2
        packet = _map(repo, ranked[:mid])
        if packet.tokens <= budget:
            best, lo = packet, mid + 1
        else:
            hi = mid - 1
    return best or Packet("", 0)


def _map(repo: Repo, chosen: list[str]) -> Packet:
    by_file: dict[str, list[tuple[int, str]]] = {}
    for n in chosen:
        d = repo.entities.get(n)
        if d is None or d["kind"] == "file":
            by_file.setdefault(n if d is None else d["path"], [])
            continue
        by_file.setdefault(d["path"], []).append(signature_line(repo, n))
    lines, packet = [], Packet("", 0)
    for path, defs in by_file.items():
        lines.append(f"{path}:")
        packet.files.add(path)
        for line, text in sorted(set(defs)):
            lines.append(f"│{text}")
            packet.covered.setdefault(path, set()).add(line)
    packet.text = "\n".join(lines)
    packet.tokens = count(packet.text)
    return packet


def run_repomap(repo: Repo, inst: Instance, budgets: list[int]) -> Output:
    _defs_and_refs(repo)  # the tag scan: per tree, like aider's tag cache
    started = time.perf_counter()
    ranked = rank(repo, inst.text)
    seconds = time.perf_counter() - started
    return Output(ranked[:500], {b: render_map(repo, ranked, b) for b in budgets}, seconds)
