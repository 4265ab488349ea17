"""Quick ranking check for tuning graphctx's text retrieval: graphctx's ranked list only (no
packets, no baselines), function and file Acc@k and MRR over a set, with per-instance misses.

    python benchmarks/retrieval/tune.py SET.jsonl --repos-dir DIR [--cache-dir DIR] [--repo-filter a/b] [--every 3]
        [--set seeds.text=1.5 --set edges.calls=0.6,1.0 ...]

A trial changes the intent's ranking policy (graphctx/context/policy.py) with `--set group.name=value`
and passes it to rank_text; nothing is patched. It uses the same workspaces as `graphctx bench run`,
so trees indexed by a run are reused."""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from graphctx.bench import workspace
from graphctx.bench.instances import load_jsonl
from graphctx.bench.metrics import acc_at, gold_ranks, level_rankings, reciprocal_rank
from graphctx.bench.systems import Repo
from graphctx import Project
from graphctx.errors import InvalidRequest


def one(args):
    inst, repos_dir, cache_dir, intent, policy = args
    root, _ = workspace.prepare(cache_dir, repos_dir, inst.repo, inst.base_commit)
    repo = Repo(root)
    try:
        started = time.perf_counter()
        ranked = [e for e, _ in repo.project.rank_text(inst.text, intent=intent, limit=500, policy=policy)]
        seconds = time.perf_counter() - started
        levels = level_rankings(ranked, repo.keys)
        return {
            "id": inst.instance_id, "repo": inst.repo, "seconds": seconds,
            "fn": gold_ranks(levels["function"], inst.gold_functions), "file": gold_ranks(levels["file"], inst.gold_files),
            "top": levels["function"][:5],
        }
    finally:
        repo.project.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("set_path", type=Path, metavar="SET")
    p.add_argument("--repos-dir", type=Path, required=True)
    p.add_argument("--cache-dir", type=Path, default=workspace.DEFAULT_CACHE)
    p.add_argument("--repo-filter")
    p.add_argument("--every", type=int, default=1, help="take every n-th instance")
    p.add_argument("--intent", default="debug")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("--set", action="append", default=[], metavar="GROUP.NAME=VALUE",
                   help="a ranking policy setting for a trial (seeds.text=1.5, blend.own_text=0.4, edges.calls=0.6,1.0)")
    a = p.parse_args()
    try:
        policy = Project.policy(a.intent, a.set)
    except InvalidRequest as exc:
        p.error(str(exc))
    instances = load_jsonl(a.set_path)
    if a.repo_filter:
        instances = [i for i in instances if i.repo in a.repo_filter.split(",")]
    instances = instances[:: a.every]
    jobs = [(i, a.repos_dir, a.cache_dir, a.intent, policy) for i in instances]
    rows = []
    with ProcessPoolExecutor(max(1, a.workers)) as pool:
        for row in pool.map(one, jobs):
            rows.append(row)
            print(f"{len(rows)}/{len(jobs)} {row['id']} fn {row['fn']} file {row['file']} {row['seconds']:.2f}s",
                  file=sys.stderr, flush=True)
    measures = {"fn@5": [], "fn@10": [], "file@1": [], "file@5": [], "mrr fn": []}
    for r in rows:
        if r["fn"]:
            measures["fn@5"].append(acc_at(r["fn"], 5))
            measures["fn@10"].append(acc_at(r["fn"], 10))
            measures["mrr fn"].append(reciprocal_rank(r["fn"]))
        measures["file@1"].append(acc_at(r["file"], 1))
        measures["file@5"].append(acc_at(r["file"], 5))
        if a.verbose and r["fn"] and not acc_at(r["fn"], 10):
            print(f"miss {r['id']}: ranks {r['fn']} top {r['top'][:3]}", file=sys.stderr)
    seconds = sorted(r["seconds"] for r in rows)
    print(" ".join(f"{k} {100 * statistics.mean(v):.1f} (n={len(v)})" for k, v in measures.items() if v),
          f"| query p50 {statistics.median(seconds):.3f}s max {seconds[-1]:.3f}s")


if __name__ == "__main__":
    main()
