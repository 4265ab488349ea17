"""Why the gold function is not among the candidates, and what widening the pool recovers, on the
history sets (training and held-out repositories; never the dev set). Each commit is ranked on its
parent tree as `corpus.py features` does (one work tree per repository, oldest first, --window reuse);
for each, the hand-set blend's best 200 (the pool the learned ranker re-orders) and each gold function
missing from it sorted by where it stands:

- absent: not an entity of the index (a nested or unparsed definition);
- cap: the blend scored it, below its best 200 (its rank is kept);
- file: not scored, but its file is one of the pool's 5 best files;
- graph: one call, containment or inheritance edge from the pool's 50 best, or a method of their class;
- path: the text names its file's stem or directory;
- other.

A gold function may carry several of these flags. It then measures the pool's recall (all gold among the
candidates) for the blend's best 200, 300 and 500 and for pools widened by `context/pool.py` (best files'
members and graph neighbours, past the best 200), and the shipped ranker's function Acc@10 over some of
them (features computed for the widened pool as the engine computes them).

    python benchmarks/retrieval/learned/candidates.py study --repos-dir REPOS --only a/b,c/d --window 10
    python benchmarks/retrieval/learned/candidates.py report [--folds 3] [--json out.json]

`study` writes candidates/<owner__name>.jsonl under the data folder; `report` sums them by role, picks
the widening on the training repositories by cross-validation (leave repositories out) and reports it
on the held-out ones."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from graphctx.bench.instances import load_jsonl
from graphctx.bench.metrics import acc_at
from graphctx.context import engine, ranker
from graphctx.context.pool import widened
from graphctx.context.seeds import query_terms
from graphctx.graph.loader import CodeGraph
from graphctx.models import CLASS_KINDS
from graphctx.project import Project
from graphctx.text import words

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import DEFAULT_DATA, REPOS_FILE, labels, repositories_to_walk, say  # noqa: E402

HEAD = 200  # the pool the learned ranker re-orders today
CAPS = (300, 500)
# (best files, best candidates whose neighbours are offered, how many join the pool)
WIDENINGS = tuple((f, n, e) for f in (0, 3, 5) for n in (0, 20, 50) for e in (50, 100) if f or n)
SCORED = ("base", "cap300", "w3-20-100", "w5-50-100")  # pools the shipped ranker re-orders here


def widening_name(files: int, neighbours: int, extra: int) -> str:
    return f"w{files}-{neighbours}-{extra}"


def gold_ids(graph: CodeGraph, gold: list[str]) -> dict[str, str | None]:
    """Each gold key (path:Qualified) and its entity id, None when the index has no such entity."""
    return {key: (f"{key.split(':', 1)[0]}::{key.split(':', 1)[1]}" if f"{key.split(':', 1)[0]}::{key.split(':', 1)[1]}"
                  in graph.nodes else None) for key in gold}


def neighbours_of(graph: CodeGraph, entities: list[str]) -> set[str]:
    nodes = graph.nodes
    out: set[str] = set()
    for entity_id in entities:
        for other, kind in (*graph.out_kinds(entity_id), *graph.in_kinds(entity_id)):
            if kind in ("calls", "contains", "inherits", "implements", "references"):
                out.add(other)
                if kind == "contains" and nodes[other]["kind"] in CLASS_KINDS:
                    out.update(m for m, k in graph.out_kinds(other) if k == "contains")
    return out


def study_instance(project: Project, inst, policy, head_size: int = HEAD) -> dict:
    graph = project.graph
    ranked = engine._text_ranking(graph, inst.text, policy, True)  # noqa: SLF001 - the pool before any re-ordering
    if ranked is None:
        return {"id": inst.instance_id, "lexical": inst.lexical, "gold": inst.gold_functions, "empty": True}
    found, walk, scores, ordered = ranked
    full = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    place = {e: n for n, (e, _) in enumerate(full)}
    head = [e for e, _ in ordered[:head_size]]
    nodes = graph.nodes
    top_files = list(dict.fromkeys(nodes[e]["path"] for e in head))[:5]
    near = neighbours_of(graph, head[:50])
    text_words = set(words(inst.text).split())
    ids = gold_ids(graph, inst.gold_functions)
    missing = {}
    for key, entity_id in ids.items():
        if entity_id is not None and entity_id in head:
            continue
        path = key.split(":", 1)[0]
        stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        folder = path.rsplit("/", 2)[-2] if "/" in path else ""
        missing[key] = {
            "absent": entity_id is None,
            "rank": place.get(entity_id) if entity_id else None,
            "file": path in top_files,
            "graph": entity_id in near if entity_id else False,
            "path": (stem.lower() in text_words and stem != "__init__") or (len(folder) > 2 and folder.lower() in text_words),
        }
    terms = query_terms(found.evidence.text, policy.seeds)
    pools = {"base": head, **{f"cap{c}": [e for e, _ in full[:c]] for c in CAPS}}
    for f, n, e in WIDENINGS:
        pools[widening_name(f, n, e)] = widened(graph, head, scores, terms, files=f, neighbours=n, extra=e)
    covered = {name: sum(1 for entity_id in ids.values() if entity_id is not None and entity_id in set(pool))
               for name, pool in pools.items()}  # how many gold functions each pool holds
    acc = {}
    model = ranker.shipped()
    for name in SCORED:
        pool = pools[name]
        started = time.perf_counter()
        matrix = engine.text_features(graph, found, walk, scores, pool, policy)
        order = model.order(matrix)
        _, keys = labels(project, [pool[i] for i in order], inst.gold_functions)
        ranking = list(dict.fromkeys(k for k in keys if k))
        position = {k: n + 1 for n, k in enumerate(ranking)}
        acc[name] = {"acc@10": acc_at([position.get(g) for g in inst.gold_functions], 10),
                     "seconds": round(time.perf_counter() - started, 3)}
    return {"id": inst.instance_id, "lexical": inst.lexical, "gold": inst.gold_functions, "missing": missing,
            "sizes": {name: len(pool) for name, pool in pools.items()}, "covered": covered, "ranker": acc}


def cmd_study(args) -> int:
    policy = Project.policy("debug")
    for row, out, instances, trees in repositories_to_walk(args, "candidates", ".jsonl"):
        started, rows = time.perf_counter(), []
        for inst in instances:
            try:
                result = study_instance(trees.serve(inst), inst, policy, args.head)
                result.update(role=row["role"], repo=row["repo"], exact=trees.indexed == inst.base_commit)
                rows.append(result)
            except Exception as exc:  # noqa: BLE001 - one commit graphctx cannot index does not end the study
                say(f"  {inst.instance_id}: skipped ({type(exc).__name__}: {str(exc)[:200]})")
                trees.forget()
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("".join(json.dumps(r) + "\n" for r in rows))
        say(f"{row['repo']}: {len(rows)} instances in {time.perf_counter() - started:.0f} s")
    return 0


# ---- report

def load_rows(data: Path) -> list[dict]:
    rows = []
    for path in sorted((data / "candidates").glob("*.jsonl")):
        rows += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in rows if r.get("gold") and not r.get("empty")]


def recall(rows: list[dict], pool: str) -> float:
    return 100 * sum(r["covered"][pool] == len(r["gold"]) for r in rows) / max(1, len(rows))


def categories(rows: list[dict]) -> dict:
    """Instances with a gold function outside the best 200, and each flag's share of those functions."""
    flags: Counter = Counter()
    functions = 0
    first: Counter = Counter()
    for r in rows:
        for m in r["missing"].values():
            functions += 1
            for flag in ("absent", "file", "graph", "path"):
                flags[flag] += bool(m[flag])
            flags["cap"] += m["rank"] is not None
            kind = ("absent" if m["absent"] else "cap" if m["rank"] is not None else "file" if m["file"]
                    else "graph" if m["graph"] else "path" if m["path"] else "other")
            first[kind] += 1
    return {"instances_missing": sum(1 for r in rows if r["missing"]), "functions_missing": functions,
            "flag_share": {k: round(100 * v / max(1, functions), 1) for k, v in flags.items()},
            "first_flag": dict(first),
            "cap_ranks": sorted(m["rank"] for r in rows for m in r["missing"].values() if m["rank"] is not None)}


def pick(rows: list[dict], budget: int) -> str:
    """The pool with the best recall among those of at most HEAD + `budget` candidates (ties: smaller)."""
    names = [n for n in rows[0]["sizes"] if n != "base" and _nominal(n) <= HEAD + budget]
    return max(names, key=lambda n: (recall(rows, n), -_nominal(n), n))


def _nominal(name: str) -> int:
    if name.startswith("cap"):
        return int(name[3:])
    return HEAD + int(name.rsplit("-", 1)[1])


def cmd_report(args) -> int:
    rows = load_rows(args.data)
    by_role = defaultdict(list)
    for r in rows:
        by_role[r["role"]].append(r)
    out: dict = {}
    for role, mine in sorted(by_role.items()):
        pools = list(mine[0]["sizes"])
        out[role] = {
            "n": len(mine), "repositories": len({r["repo"] for r in mine}),
            "categories": {k: v for k, v in categories(mine).items() if k != "cap_ranks"},
            "cap_rank_quartiles": _quartiles(categories(mine)["cap_ranks"]),
            "recall": {p: round(recall(mine, p), 1) for p in pools},
            "mean_size": {p: round(float(np.mean([r["sizes"][p] for r in mine])), 1) for p in pools},
            "ranker_acc@10": {p: round(100 * float(np.mean([r["ranker"][p]["acc@10"] for r in mine])), 1)
                              for p in SCORED if all(p in r["ranker"] for r in mine)},
            "ranker_seconds_p95": {p: round(float(np.percentile([r["ranker"][p]["seconds"] for r in mine], 95)), 3)
                                   for p in SCORED if all(p in r["ranker"] for r in mine)},
        }
    lengths = message_lengths(args.data)
    for role, mine in sorted(by_role.items()):  # issue-like (long) messages apart: the dev issues are long
        out[role]["recall_by_length"] = {
            f"{name} (n = {len(part)})": {p: round(recall(part, p), 1) for p in ("base", "cap300", "cap500", "w5-50-100")}
            for name, part in (("< 25 words", [r for r in mine if lengths.get(r["id"], 0) < 25]),
                               (">= 25 words", [r for r in mine if lengths.get(r["id"], 0) >= 25])) if part}
    train = by_role.get("train", [])
    if train and args.folds:
        out["cross_validation"] = cross_validate(train, args.folds, args.budget)
        chosen = pick(train, args.budget)
        out["chosen_on_training"] = chosen
        held = by_role.get("heldout", [])
        if held:
            out["heldout_check"] = {"base": round(recall(held, "base"), 1), chosen: round(recall(held, chosen), 1)}
    text = json.dumps(out, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0


def message_lengths(data: Path) -> dict[str, int]:
    """Each history instance's message length in words, from the sets the study ranked."""
    out = {}
    for path in (data / "sets").glob("*.jsonl"):
        for inst in load_jsonl(path):
            out[inst.instance_id] = len(re.findall(r"\w+", inst.text))
    return out


def cross_validate(rows: list[dict], k: int, budget: int) -> dict:
    """Leave groups of whole repositories out: pick the pool on the rest, score base and it on the group."""
    repos = sorted({r["repo"] for r in rows}, key=lambda repo: -sum(r["repo"] == repo for r in rows))
    folds = [set(repos[i::k]) for i in range(k)]
    picked, base, chosen = [], [], []
    for fold in folds:
        rest = [r for r in rows if r["repo"] not in fold]
        held = [r for r in rows if r["repo"] in fold]
        if not rest or not held:
            continue
        name = pick(rest, budget)
        picked.append(name)
        base += [r["covered"]["base"] == len(r["gold"]) for r in held]
        chosen += [r["covered"][name] == len(r["gold"]) for r in held]
    return {"picked": picked, "n": len(base), "base_recall": round(100 * np.mean(base), 1),
            "picked_recall": round(100 * np.mean(chosen), 1)}


def _quartiles(values: list[int]) -> list[float]:
    return [float(np.percentile(values, q)) for q in (25, 50, 75)] if values else []


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    study = sub.add_parser("study")
    study.add_argument("--repos-dir", type=Path, required=True, help="folder of bare git directories")
    study.add_argument("--only", help="only these repositories (comma-separated owner/name)")
    study.add_argument("--window", type=int, default=10, help="commits one indexed parent tree may serve (see corpus.py)")
    study.add_argument("--per-repo", type=int, help="only the newest N instances of each repository")
    study.add_argument("--workers", type=int, default=1, help="index with at most N processes (default 1)")
    study.add_argument("--repos-file", type=Path, default=REPOS_FILE, help="the repository list (default repos.json here)")
    study.add_argument("--head", type=int, default=HEAD, help=f"the blend's best this many are the base pool (default {HEAD})")
    study.add_argument("--force", action="store_true", help="study again a repository already studied")
    study.set_defaults(run=cmd_study)
    report = sub.add_parser("report")
    report.add_argument("--folds", type=int, default=3, help="repository groups for cross-validation (0: none)")
    report.add_argument("--budget", type=int, default=100, help="at most this many candidates past the best 200")
    report.add_argument("--json", type=Path, help="also write the report here")
    report.set_defaults(run=cmd_report)
    for p in (study, report):
        p.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"the corpus folder (default {DEFAULT_DATA})")
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
