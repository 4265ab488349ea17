"""Is get_context's neighbourhood any good? Scored against co-change: a commit that modified several
functions says that each of them is context for changing the others. For every commit of a history
set (`graphctx bench history`) with two or more modified functions, each of them the tree still has
is asked for with get_context, and its answer is scored by the other modified functions it holds:
recall (the share of them among its items, at any detail) and the reciprocal rank of the first one
among its items (the root left out). A commit's score is the mean over the functions asked for.

Two policies side by side (`--against`: settings changed from the `--policy` ones) are paired per
commit: the mean difference with a 95 % bootstrap interval, the commits won and lost (and the sign
test's p), and each policy's CPU per answer, both timed after one untimed pass of each. The answers come from one indexed tree (`--tree`), not from each commit's
parent, so any tree a little after the set's commits does for comparing two policies: both see the
same code, and a function the tree no longer has is skipped. Not a timed test: figures to read.

    graphctx bench history pydata/xarray --repos-dir REPOS -o xarray.jsonl --rev BASE --limit 300
    python benchmarks/retrieval/neighbourhood.py xarray.jsonl --tree XARRAY_AT_BASE \\
        --against walk.neighbourhood_alpha=0.5
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from graphctx.errors import GraphctxError
from graphctx.project import Project

sys.path.insert(0, str(Path(__file__).resolve().parent / "learned"))
from train import paired_test  # noqa: E402  (the paired test the learned ranker's evaluation reports)

MEASURES = ("recall", "rr")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="+", type=Path, help="history sets (JSONL) of the tree's repository")
    parser.add_argument("--tree", type=Path, required=True, help="an indexed tree of that repository (indexed now if needed)")
    parser.add_argument("--budget", type=int, default=4000)
    parser.add_argument("--policy", action="append", default=[], metavar="GROUP.NAME=VALUE",
                        help="get_context's policy changed by these settings (repeatable)")
    parser.add_argument("--against", action="append", default=[], metavar="GROUP.NAME=VALUE",
                        help="a second policy: --policy's settings and these (repeatable)")
    parser.add_argument("--limit", type=int, default=0, help="at most this many commits (0: all)")
    args = parser.parse_args()

    try:
        policies = {"policy": Project.policy(None, args.policy)}
        if args.against:
            policies["against"] = Project.policy(None, [*args.policy, *args.against])
    except GraphctxError as exc:
        parser.error(str(exc))
    project = Project(args.tree, find=False, ephemeral=False)
    project.index()
    commits = co_changes(project, args.sets, args.limit)
    print(f"tree {args.tree}: {len(commits)} commits with two or more modified functions it has "
          f"({sum(len(c) for c in commits.values())} answers per policy); budget {args.budget}")
    for policy in policies.values():  # untimed first: what answers share (line counts, views) is then warm for both
        score(project, commits, policy, args.budget)
    scores = {name: score(project, commits, policy, args.budget) for name, policy in policies.items()}
    for name, (per_commit, cpu) in scores.items():
        settings = args.policy + (args.against if name == "against" else [])
        means = "  ".join(f"{m} {100 * statistics.fmean(s[m] for s in per_commit.values()):.1f}" for m in MEASURES)
        print(f"{name:8} {means}  CPU per answer p50 {1000 * statistics.median(cpu):.1f} ms, "
              f"p95 {1000 * _p95(cpu):.1f} ms  ({' '.join(settings) or 'the default'})")
    if "against" in scores:
        base, other = ([scores[name][0][c] for c in commits] for name in ("policy", "against"))
        for measure in MEASURES:
            print(f"against - policy, {measure}: {paired(base, other, measure)}")
    return 0


def co_changes(project: Project, sets: list[Path], limit: int) -> dict[str, list[str]]:
    """commit -> the entity ids of the functions it modified that the tree has (two or more)."""
    graph = project.graph
    out: dict[str, list[str]] = {}
    for path in sets:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            ids = [gold.replace(":", "::", 1) for gold in row["gold_functions"]]
            present = sorted(i for i in set(ids) if i in graph)
            if len(present) >= 2:
                out[row["instance_id"]] = present
            if limit and len(out) >= limit:
                return out
    return out


def score(project: Project, commits: dict[str, list[str]], policy, budget: int) -> tuple[dict[str, dict], list[float]]:
    """Per commit, the mean recall and reciprocal rank of its other functions; the CPU of each answer."""
    per_commit, cpu = {}, []
    for commit, functions in commits.items():
        found = {m: [] for m in MEASURES}
        for root in functions:
            started = time.process_time()
            answer, _ = project.context(root, token_budget=budget, policy=policy)
            cpu.append(time.process_time() - started)
            items = [item.id for item in answer.items if item.id != root]
            others = set(functions) - {root}
            found["recall"].append(len(others.intersection(items)) / len(others))
            first = next((rank for rank, item in enumerate(items, 1) if item in others), None)
            found["rr"].append(1 / first if first else 0.0)
        per_commit[commit] = {m: statistics.fmean(v) for m, v in found.items()}
    return per_commit, cpu


def paired(base: list[dict], other: list[dict], measure: str) -> str:
    test = paired_test(base, other, measure)
    if not test["n"]:
        return "no commits"
    low, high = test["ci95"]
    return (f"{test['diff']:+.1f} points, 95% CI [{low:+.1f}, {high:+.1f}], {test['wins']} won / {test['losses']} lost "
            f"of {test['n']} (sign test p {test['p_sign']})")


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else values[0]


if __name__ == "__main__":
    raise SystemExit(main())
