"""The systems under comparison. Each sees the same candidate files (the files graphctx indexed at
the base commit), the same query text, the same tokenizer and the same budget, and returns a
ranked list of entity ids or file paths plus, per budget, a packet: its exact text and the source
lines it shows verbatim (what budgeted recall is measured on).

- graphctx: `rank_text` for the ranked list; the `get_intent` packet at each budget; both by the
  intent's ranking policy, with the settings of a tuning trial (`--policy`) when given.
- bm25-files: BM25 (bm25s) over whole files; the packet is files in rank order, each cut to what is left.
- bm25-functions: BM25 over function, method and class chunks whose spans come from graphctx's
  entity table; the packet is those chunks in rank order, packed greedily.
- repomap: a re-implementation of the repo-map idea (personalised PageRank over the file
  reference graph, then definitions ranked by the rank flowing to them), rendered as file and
  signature lines; see repomap.py. `aider-repomap` runs aider's own RepoMap in a separate environment.
- random: chunks in a random order (seeded by the instance). oracle: the gold first, for scale."""

from __future__ import annotations

import logging
import random
import re
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from graphctx.bench.dependencies import require
from graphctx.bench.instances import Instance, top_keys
from graphctx.context.tokens import count
from graphctx.models import CLASS_KINDS, FUNCTION_KINDS
from graphctx.text import STOP_WORDS, words

SYSTEMS = ("graphctx", "bm25-functions", "bm25-files", "repomap", "aider-repomap", "random", "oracle")
DEFAULT_SYSTEMS = ("graphctx", "bm25-functions", "bm25-files", "repomap", "random", "oracle")
RANK_LIMIT = 500
MAX_EXAMINED = 3000  # chunks a greedy packer looks at before it stops


@dataclass
class Packet:
    text: str
    tokens: int
    covered: dict[str, set[int]] = field(default_factory=dict)  # path -> source lines shown verbatim
    files: set[str] = field(default_factory=set)  # files with any content shown


@dataclass
class Output:
    ranked: list[str]  # entity ids (path::Qualified.name) or file paths, best first
    packets: dict[int, Packet]
    seconds: float  # the query alone (ranking and packing), index and graph load excluded
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Chunk:
    id: str
    path: str
    kind: str
    start: int
    end: int
    exclude: tuple[tuple[int, int], ...] = ()  # member spans left out of a class chunk


class Repo:
    """One indexed base commit: its files, entities and source, read once per instance."""

    def __init__(self, root: Path):
        from graphctx.context import api

        self.root = root
        started = time.perf_counter()
        self.graph = api.graph(root)
        self.load_seconds = time.perf_counter() - started
        g = self.graph.graph
        self.files = sorted(self.graph.files)
        self.entities = {n: d for n, d in g.nodes(data=True)}
        self._lines: dict[str, list[str]] = {}

    def lines(self, path: str) -> list[str]:
        if path not in self._lines:
            try:
                self._lines[path] = (self.root / path).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                self._lines[path] = []
        return self._lines[path]

    @cached_property
    def kinds_by_file(self) -> dict[str, dict[str, str]]:
        out: dict[str, dict[str, str]] = {}
        for d in self.entities.values():
            if d["kind"] != "file":
                out.setdefault(d["path"], {})[d["qualified_name"]] = d["kind"]
        return out

    def keys(self, entity_id: str) -> tuple[str | None, str | None, str | None]:
        """(file, module key, function key) of an entity id or a file path."""
        d = self.entities.get(entity_id)
        if d is None:
            return (entity_id if entity_id in self.graph.files else None), None, None
        if d["kind"] == "file":
            return d["path"], None, None
        module, function = top_keys(d["path"], d["qualified_name"], self.kinds_by_file.get(d["path"], {}))
        return d["path"], module, function

    @cached_property
    def function_spans(self) -> dict[str, tuple[str, int, int]]:
        """Function key -> (path, start, end): the span whose whole body counts as retrieved."""
        out = {}
        for n, d in self.entities.items():
            if d["kind"] in FUNCTION_KINDS:
                _, _, key = self.keys(n)
                if key and key.split(":", 1)[1] == d["qualified_name"]:
                    out[key] = (d["path"], d["start_line"], d["end_line"])
        return out

    @cached_property
    def chunks(self) -> list[Chunk]:
        """Functions and methods (nested functions stay inside their outer one) and classes (their own
        lines: header, doc, attributes, without member bodies), in file order."""
        members: dict[str, list[tuple[int, int]]] = {}
        for d in self.entities.values():
            if d["kind"] in FUNCTION_KINDS | CLASS_KINDS and d.get("parent"):
                members.setdefault(d["parent"], []).append((d["start_line"], d["end_line"]))
        out = []
        for n, d in self.entities.items():
            parent = self.entities.get(d.get("parent") or "")
            if parent is not None and parent["kind"] in FUNCTION_KINDS:
                continue
            if d["kind"] in FUNCTION_KINDS:
                out.append(Chunk(n, d["path"], d["kind"], d["start_line"], d["end_line"]))
            elif d["kind"] in CLASS_KINDS:
                out.append(Chunk(n, d["path"], d["kind"], d["start_line"], d["end_line"], tuple(sorted(members.get(n, ())))))
        out.sort(key=lambda c: (c.path, c.start, c.id))
        return out

    def chunk_lines(self, chunk: Chunk) -> list[int]:
        skip = set()
        for a, b in chunk.exclude:
            skip.update(range(a, b + 1))
        return [i for i in range(chunk.start, chunk.end + 1) if i not in skip]

    def chunk_text(self, chunk: Chunk) -> str:
        lines = self.lines(chunk.path)
        return "\n".join(lines[i - 1] for i in self.chunk_lines(chunk) if i - 1 < len(lines))


# ---- packing for the baselines

def render_chunk(path: str, start: int, end: int, body: str) -> str:
    return f"## {path} L{start}-{end}\n{body}"


def pack_chunks(repo: Repo, chunks: list[Chunk], budget: int, *, cut_last: bool = False) -> Packet:
    """Greedy: each chunk in rank order goes in whole if it fits in what is left, else is skipped
    (with cut_last, cut to its first lines instead). The joined text is counted exactly at the end
    and trimmed from the end if token merges across joins pushed it over."""
    parts: list[tuple[str, str, list[int]]] = []
    left = budget
    for examined, chunk in enumerate(chunks):
        if left <= 16 or examined >= MAX_EXAMINED:
            break
        lines = repo.chunk_lines(chunk)
        src = repo.lines(chunk.path)
        body_lines = [src[i - 1] for i in lines if i - 1 < len(src)]
        text = render_chunk(chunk.path, chunk.start, chunk.end, "\n".join(body_lines))
        cost = count(text) + 1
        if cost <= left:
            parts.append((chunk.path, text, lines))
            left -= cost
        elif cut_last:
            keep = _cut_to(chunk.path, lines, body_lines, left - 1)
            if keep:
                shown = lines[:keep]
                parts.append((chunk.path, render_chunk(chunk.path, shown[0], shown[-1], "\n".join(body_lines[:keep])), shown))
                left -= count(parts[-1][1]) + 1
    while True:
        text = "\n".join(p[1] for p in parts)
        tokens = count(text)
        if tokens <= budget or not parts:
            break
        parts.pop()
    packet = Packet(text, tokens)
    for path, _, lines in parts:
        packet.covered.setdefault(path, set()).update(lines)
        packet.files.add(path)
    return packet


def _cut_to(path: str, lines: list[int], body: list[str], left: int) -> int:
    """How many leading lines of a chunk fit in `left` tokens (binary search on the exact count)."""
    lo, hi = 0, len(body)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(render_chunk(path, lines[0], lines[mid - 1], "\n".join(body[:mid]))) <= left:
            lo = mid
        else:
            hi = mid - 1
    return lo


# ---- tokenizer shared by the BM25 baselines and the repo map

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def tokenize(text: str) -> list[str]:
    """Identifiers kept whole and split into their words (snake_case, CamelCase), lowercased, minus stop words."""
    return [t for t in words(*_IDENT.findall(text)).split() if t not in STOP_WORDS and len(t) > 1]


def bm25_rank(docs: list[list[str]], query: list[str]) -> list[int]:
    import bm25s
    import numpy as np

    logging.getLogger("bm25s").setLevel(logging.ERROR)

    if not docs or not query:
        return list(range(len(docs)))
    retriever = bm25s.BM25()
    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(t, len(vocab)) for t in doc] or [vocab.setdefault("", len(vocab))] for doc in docs]
    vocab.setdefault("", len(vocab))
    retriever.index(bm25s.tokenization.Tokenized(ids=ids, vocab=vocab), show_progress=False)
    known = [t for t in query if t in vocab]
    if not known:
        return list(range(len(docs)))
    scores = retriever.get_scores(known)
    order = np.argsort(-scores, kind="stable")
    return [int(i) for i in order]


# ---- systems

def run_graphctx(repo: Repo, inst: Instance, budgets: list[int], intent: str, settings: tuple[str, ...] = ()) -> Output:
    """graphctx's ranking and packets, by the intent's default policy changed by `settings` (group.name=value)."""
    from graphctx.context import api
    from graphctx.context.views import Views

    policy = api.with_overrides(api.policy_for(intent), settings)
    started = time.perf_counter()
    ranked = [entity for entity, _ in api.rank_text(repo.root, inst.text, intent=intent, limit=RANK_LIMIT, policy=policy)]
    rank_seconds = time.perf_counter() - started
    views = Views(repo.graph)
    packets = {}
    pack_seconds = []
    for budget in budgets:
        t = time.perf_counter()
        answer, text = api.get_intent(repo.root, intent, inst.text, token_budget=budget, format="compact", policy=policy)
        pack_seconds.append(time.perf_counter() - t)
        packet = Packet(text, count(text))
        for item in answer.items:
            lines = _verbatim_lines(repo, views, item)
            if lines:
                packet.covered.setdefault(item.path, set()).update(lines)
            if item.text:
                packet.files.add(item.path)
        packets[budget] = packet
    return Output(ranked, packets, rank_seconds, {"intent_seconds": pack_seconds})


def _verbatim_lines(repo: Repo, views, item) -> list[int]:
    """Source lines a graphctx packet item shows verbatim: a function's body at full detail; a class's
    header and doc (up to its first member) at full detail; nothing for summaries and headings."""
    if item.detail != "full" or item.kind == "file":
        return []
    if item.kind in CLASS_KINDS:
        members = views.members(item.id)
        if members:
            first = repo.entities[members[0]]["start_line"]
            return list(range(item.start_line, min(first - 1, item.end_line) + 1))
    return list(range(item.start_line, item.end_line + 1))


def run_bm25_functions(repo: Repo, inst: Instance, budgets: list[int]) -> Output:
    require("bm25s", "bm25-functions")
    started = time.perf_counter()
    chunks = repo.chunks
    docs = [tokenize(c.path) + tokenize(repo.chunk_text(c)) for c in chunks]
    order = bm25_rank(docs, tokenize(inst.text))
    ranked_chunks = [chunks[i] for i in order]
    seconds = time.perf_counter() - started
    return Output([c.id for c in ranked_chunks[:RANK_LIMIT]],
                  {b: pack_chunks(repo, ranked_chunks, b) for b in budgets}, seconds)


def run_bm25_files(repo: Repo, inst: Instance, budgets: list[int]) -> Output:
    require("bm25s", "bm25-files")
    started = time.perf_counter()
    files = repo.files
    docs = [tokenize(p) + tokenize("\n".join(repo.lines(p))) for p in files]
    order = bm25_rank(docs, tokenize(inst.text))
    ranked = [files[i] for i in order]
    seconds = time.perf_counter() - started
    file_chunks = [Chunk(p, p, "file", 1, max(1, len(repo.lines(p)))) for p in ranked]
    return Output(ranked[:RANK_LIMIT], {b: pack_chunks(repo, file_chunks, b, cut_last=True) for b in budgets}, seconds)


def run_random(repo: Repo, inst: Instance, budgets: list[int]) -> Output:
    started = time.perf_counter()
    chunks = list(repo.chunks)
    random.Random(inst.instance_id).shuffle(chunks)
    seconds = time.perf_counter() - started
    return Output([c.id for c in chunks[:RANK_LIMIT]], {b: pack_chunks(repo, chunks, b) for b in budgets}, seconds)


def run_oracle(repo: Repo, inst: Instance, budgets: list[int]) -> Output:
    """Gold functions first (smallest first, so the most fit), then chunks holding edited lines, then
    the rest of the gold files: an upper reference, not a contender."""
    started = time.perf_counter()
    gold_functions = set(inst.gold_functions)
    edited = {(p, line) for p, lines in inst.edited_lines.items() for line in lines}

    def tier(c: Chunk) -> tuple:
        _, _, key = repo.keys(c.id)
        if key in gold_functions and key.split(":", 1)[1] == repo.entities[c.id]["qualified_name"]:
            return (0, c.end - c.start)
        if any((c.path, line) in edited for line in repo.chunk_lines(c)):
            return (1, c.end - c.start)
        if c.path in inst.gold_files:
            return (2, c.start)
        return (3, 0)

    chunks = sorted((c for c in repo.chunks if tier(c)[0] < 3), key=tier)
    ranked = [c.id for c in chunks] + [p for p in inst.gold_files if p in repo.graph.files]
    seconds = time.perf_counter() - started
    return Output(ranked, {b: pack_chunks(repo, chunks, b) for b in budgets}, seconds)


def run_system(name: str, repo: Repo, inst: Instance, budgets: list[int], options: dict) -> Output:
    if name == "graphctx":
        return run_graphctx(repo, inst, budgets, options.get("intent", "debug"), options.get("policy", ()))
    if name == "bm25-functions":
        return run_bm25_functions(repo, inst, budgets)
    if name == "bm25-files":
        return run_bm25_files(repo, inst, budgets)
    if name == "repomap":
        from graphctx.bench.repomap import run_repomap

        return run_repomap(repo, inst, budgets)
    if name == "aider-repomap":
        from graphctx.bench.aider_adapter import run_aider

        return run_aider(repo, inst, budgets, options)
    if name == "random":
        return run_random(repo, inst, budgets)
    if name == "oracle":
        return run_oracle(repo, inst, budgets)
    raise ValueError(f"unknown system {name!r}; use one of {', '.join(SYSTEMS)}")
