"""The systems under comparison. Each sees the same candidate files (the files graphctx indexed at
the base commit), the same query text, the same tokenizer and the same budget, and returns a
ranked list of entity ids or file paths plus, per budget, a packet: its exact text and the source
lines it shows verbatim (what budgeted recall is measured on).

- graphctx: `rank_text` for the ranked list; the `get_intent` packet at each budget; both by the
  intent's ranking policy, with the settings of a tuning trial (`--policy`) when given.
  The variants are the rungs of an ablation, each the default policy changed by a few settings
  (VARIANTS): graphctx-text, the text's own evidence alone (seeds and the blend's text scores, no
  walk over the graph: `walk.text_alpha=0`); graphctx, text + graph (the default); graphctx-learned,
  + the learned ranker (`blend.learned=true`: the shipped model re-orders the hand-set blend's best
  candidates); graphctx-semantic, + the code embedding's cosine in the blend (`blend.semantic=0.5`,
  the weight cross-validation chose).
- bm25-files: BM25 (bm25s) over whole files; the packet is files in rank order, each cut to what is left.
- bm25-functions: BM25 over function, method and class chunks whose spans come from graphctx's
  entity table; the packet is those chunks in rank order, packed greedily.
  Both are honest baselines: they tokenize as graphctx's text search does (identifiers kept whole
  and split at snake_case and CamelCase) and leave out the files graphctx sets aside for the text
  (tests, documents and docs/examples/benchmarks files the text does not name; `Project.asides`), so
  test files that echo the issue's names do not crowd out the code, and they read the text as graphctx
  does, without markup, link addresses, version listings and the repository's issue-template lines
  (`Project.issue_text.read`).
- repomap: a re-implementation of the repo-map idea (personalised PageRank over the file
  reference graph, then definitions ranked by the rank flowing to them), rendered as file and
  signature lines; see repomap.py. `aider-repomap` runs aider's own RepoMap in a separate environment.
- random: chunks in a random order (seeded by the instance). oracle: the gold first, for scale."""

from __future__ import annotations

import logging
import random
import re
import time

from graphctx.bench.corpus import Chunk, Output, Packet, Repo, pack_chunks
from graphctx.bench.dependencies import require
from graphctx.bench.instances import Instance
from graphctx.models import CLASS_KINDS
from graphctx.project import Project
from graphctx.text import STOP_WORDS, words

# graphctx's variants: the settings (group.name=value) each adds to the intent's policy and a trial's.
VARIANTS: dict[str, tuple[str, ...]] = {
    "graphctx-text": ("walk.text_alpha=0",),  # the walk stays at the seeds: no edge is followed
    "graphctx": (),
    "graphctx-learned": ("blend.learned=true",),
    "graphctx-semantic": ("blend.semantic=0.5",),
}
SYSTEMS = (*VARIANTS, "bm25-functions", "bm25-files", "repomap", "aider-repomap", "random", "oracle")
DEFAULT_SYSTEMS = tuple(name for name in SYSTEMS if name != "aider-repomap")
RANK_LIMIT = 500


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
    project = repo.project
    policy = Project.policy(intent, settings)
    started = time.perf_counter()
    ranked = [entity for entity, _ in project.rank_text(inst.text, intent=intent, limit=RANK_LIMIT, policy=policy)]
    rank_seconds = time.perf_counter() - started
    packets = {}
    pack_seconds = []
    for budget in budgets:
        t = time.perf_counter()
        answer, text = project.intent(intent, inst.text, token_budget=budget, format="compact", policy=policy)
        pack_seconds.append(time.perf_counter() - t)
        packet = Packet(text, Project.count_tokens(text))
        for item in answer.items:
            lines = _verbatim_lines(repo, item)
            if lines:
                packet.covered.setdefault(item.path, set()).update(lines)
            if item.text:
                packet.files.add(item.path)
        packets[budget] = packet
    return Output(ranked, packets, rank_seconds, {"intent_seconds": pack_seconds})


def _verbatim_lines(repo: Repo, item) -> list[int]:
    """Source lines a graphctx packet item shows verbatim: a function's body at full detail; a class's
    header and doc (up to its first member) at full detail; nothing for summaries and headings."""
    if item.detail != "full" or item.kind == "file":
        return []
    if item.kind in CLASS_KINDS:
        members = repo.project.members(item.id)
        if members:
            first = repo.entities[members[0]]["start_line"]
            return list(range(item.start_line, min(first - 1, item.end_line) + 1))
    return list(range(item.start_line, item.end_line + 1))


def _honest_query(repo: Repo, inst: Instance) -> tuple[set[str], list[str]]:
    """(the files graphctx sets aside for the issue, the query's tokens), both from the issue as graphctx reads it."""
    return repo.project.asides(inst.text), tokenize(Project.issue_text.read(repo.project.graph, inst.text))


def run_bm25_functions(repo: Repo, inst: Instance, budgets: list[int]) -> Output:
    require("bm25s", "bm25-functions")
    started = time.perf_counter()
    asides, query = _honest_query(repo, inst)
    chunks = [c for c in repo.chunks if c.path not in asides]
    docs = [tokenize(c.path) + tokenize(repo.chunk_text(c)) for c in chunks]
    order = bm25_rank(docs, query)
    ranked_chunks = [chunks[i] for i in order]
    seconds = time.perf_counter() - started
    return Output([c.id for c in ranked_chunks[:RANK_LIMIT]],
                  {b: pack_chunks(repo, ranked_chunks, b) for b in budgets}, seconds)


def run_bm25_files(repo: Repo, inst: Instance, budgets: list[int]) -> Output:
    require("bm25s", "bm25-files")
    started = time.perf_counter()
    asides, query = _honest_query(repo, inst)
    files = [p for p in repo.files if p not in asides]
    docs = [tokenize(p) + tokenize("\n".join(repo.lines(p))) for p in files]
    order = bm25_rank(docs, query)
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
    if name in VARIANTS:
        return run_graphctx(repo, inst, budgets, options.get("intent", "debug"), (*options.get("policy", ()), *VARIANTS[name]))
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
