"""Whether issue texts teach a ranker what commit messages do not: the learned ranker's recipe trained
on the dev issues themselves and scored on dev issues it did not see, against the hand-set order of
the same candidates. Never a model to ship (the dev set is for tuning and reporting): a measure of
how much a corpus of issues, rather than commits, could add.

    python benchmarks/retrieval/learned/dev_cv.py [--data D] [--recipe ranked-graph] [--rounds 100]

Folds: leave one repository out (how a new repository reads), and random five-fold splits of the
issues (how new issues of the same repositories read, as a held-out set of them would)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from corpus import DEFAULT_DATA  # noqa: E402
from train import (  # noqa: E402
    RECIPES, _pct, columns_of, concat, hits, load, paired_test, predict, prepared, select, train)


def cross_validate(data: dict, fold_of: list[int], recipe: str, rounds: int) -> dict:
    """Train on the other folds' issues, score each fold's; pooled Acc@10 against the hand-set order."""
    keep, which, base_weight, leaves = RECIPES[recipe]
    learned, hand = [], []
    for fold in sorted(set(fold_of)):
        held = select(data, lambda m, f=fold: fold_of[m["number"]] == f)
        rest = select(select(data, lambda m, f=fold: fold_of[m["number"]] != f), keep)
        model = train(rest, columns_of(which), base_weight, rounds, leaves)
        learned += hits(held, predict(model, held["x"]))
        hand += hits(held, None)
    non_lexical = lambda rows: [r for r in rows if not r["lexical"]]  # noqa: E731
    return {"n": len(hand), "hand-set": _pct(hand, "acc@10"), "learned": _pct(learned, "acc@10"),
            "non-lexical": [_pct(non_lexical(hand), "acc@10"), _pct(non_lexical(learned), "acc@10")],
            "paired": paired_test(hand, learned)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--recipe", default="ranked-graph", help=f"one of {', '.join(sorted(RECIPES))}")
    parser.add_argument("--rounds", type=int, default=100, help="boosting rounds (default 100)")
    parser.add_argument("--seeds", type=int, default=3, help="random five-fold splits (default 3)")
    args = parser.parse_args(argv)
    if args.recipe not in RECIPES:
        parser.error(f"unknown recipe {args.recipe!r}; choose from {', '.join(sorted(RECIPES))}")
    parts = [part for part in map(load, sorted((args.data / "features").glob("dev-*.npz"))) if part["meta"]]
    if not parts:
        raise SystemExit(f"no dev features under {args.data}/features; run corpus.py dev first")
    data = prepared(concat(parts), args.recipe)
    for number, meta in enumerate(data["meta"]):
        meta["number"] = number
    repos = sorted({m["repo"] for m in data["meta"]})
    splits = {"leave one repository out": [repos.index(m["repo"]) for m in data["meta"]]}
    for seed in range(args.seeds):
        folds = np.random.default_rng(seed).integers(0, 5, len(data["meta"]))
        splits[f"five folds of issues, seed {seed}"] = folds.tolist()
    for name, fold_of in splits.items():
        result = cross_validate(data, fold_of, args.recipe, args.rounds)
        print(f"{name}: learned {result['learned']} vs hand-set {result['hand-set']} (n = {result['n']}; "
              f"non-lexical {result['non-lexical'][1]} vs {result['non-lexical'][0]}) {result['paired']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
