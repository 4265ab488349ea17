"""Evaluates ranker model files offline on stored feature sets, without training: the hand-set order,
the code embedding's cosine added to the blend, and each model, re-ordering the same candidates
(the hand-set blend's best 200) per instance, with paired tests against the hand-set order and the
lexical / non-lexical and per-repository splits. This is how a model chosen on the training and
held-out repositories is reported on the dev set once.

    python benchmarks/retrieval/learned/evaluate.py [--data D] [--sets dev,heldout] [--model NAME=PATH ...] [--json F]
    python benchmarks/retrieval/learned/evaluate.py --data BEFORE --against AFTER --sets heldout

With no --model, the shipped model (graphctx/context/models/ranker.json) is evaluated. With --against,
the hand-set order of features extracted again into AFTER (by changed ranking code: `corpus.py
features --data AFTER --only ...`) is compared with --data's, paired on the instances both hold: how
a change to the hand-set blend reads on commits of repositories it was never tuned on. A model file
is scored one text at a time, as at query time (its ranked columns are ranks within that text)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from graphctx.context import ranker
from graphctx.context.features import FEATURES

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from corpus import DEFAULT_DATA, load_repos, slug  # noqa: E402
from train import SEMANTIC_WEIGHT, _pct, concat, evaluate, hits, instance_bounds, load, paired_test, split  # noqa: E402


def feature_sets(data: Path, names: list[str]) -> dict[str, dict]:
    """'dev': every dev-*.npz; 'heldout': the held-out repositories of repos.json."""
    out = {}
    for name in names:
        if name == "dev":
            paths = sorted((data / "features").glob("dev-*.npz"))
        elif name == "heldout":
            paths = [data / "features" / f"{slug(r['repo'])}.npz" for r in load_repos() if r["role"] == "heldout"]
        else:
            raise SystemExit(f"unknown set {name!r}; choose dev or heldout")
        parts = [load(p) for p in paths if p.exists()]
        parts = [p for p in parts if p["meta"]]
        if not parts:
            raise SystemExit(f"no {name} features under {data}/features; run corpus.py first")
        out[name] = concat(parts)
    return out


def model_scores(model: ranker.RankerModel, data: dict) -> np.ndarray:
    """The model's score of every row, one text's candidates at a time (as at query time)."""
    scores = np.zeros(len(data["x"]))
    for start, end in zip(*instance_bounds(data), strict=True):
        if end > start:
            scores[start:end] = model.score(data["x"][start:end])
    return scores


def by_repository(data: dict, scores: np.ndarray | None) -> dict[str, dict]:
    rows = hits(data, scores)
    repo_of = {m["instance_id"]: m["repo"] for m in data["meta"]}
    out: dict[str, list] = {}
    for r in rows:
        out.setdefault(repo_of[r["id"]], []).append(r["acc@10"])
    return {repo: {"n": len(v), "acc@10": round(100 * sum(v) / len(v), 1)} for repo, v in sorted(out.items())}


def compare_hand_sets(before: dict, after: dict) -> dict:
    """The hand-set order of `after` against `before`'s on the instances both hold, paired; all,
    lexical and non-lexical."""
    old, new = ({h["id"]: h for h in hits(d, None)} for d in (before, after))
    common = sorted(old.keys() & new.keys())
    # (an instance is lexical or not by its text, the same in both extractions)
    pairs = zip(split([old[i] for i in common]).items(), split([new[i] for i in common]).values(), strict=True)
    return {part: {m: {"before": _pct(a, m), "after": _pct(b, m), "paired": paired_test(a, b, m)} for m in ("acc@5", "acc@10")}
            for (part, a), b in pairs}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sets", default="dev", help="comma-separated: dev, heldout (default dev)")
    parser.add_argument("--model", action="append", default=[], metavar="NAME=PATH",
                        help="a ranker model file to evaluate (repeatable; default: the shipped one)")
    parser.add_argument("--json", type=Path, help="write the evaluation as JSON here")
    parser.add_argument("--against", type=Path, metavar="AFTER",
                        help="compare the hand-set order of features extracted into AFTER with --data's")
    args = parser.parse_args(argv)
    if args.against:
        names = args.sets.split(",")
        before, after = feature_sets(args.data, names), feature_sets(args.against, names)
        report = {name: compare_hand_sets(before[name], after[name]) for name in names}
        for name, parts in report.items():
            for part, measures in parts.items():
                for m, r in measures.items():
                    print(f"{name} {part} {m}: {r['before']} -> {r['after']} paired {r['paired']}", flush=True)
        if args.json:
            args.json.write_text(json.dumps(report, indent=1) + "\n")
        return 0
    models = {}
    for spec in args.model or ["shipped="]:
        name, _, path = spec.partition("=")
        if not name:
            raise SystemExit(f"--model takes NAME=PATH, not {spec!r}")
        try:
            models[name] = ranker.load(Path(path)) if path else ranker.shipped()
        except ranker.ModelError as exc:
            raise SystemExit(f"--model {spec}: {exc}") from None
    report = {}
    for set_name, data in feature_sets(args.data, args.sets.split(",")).items():
        hand = hits(data, None)
        orders = {"hand-set": None, "hand-set+semantic": data["x"][:, FEATURES.index("hand_score")]
                  + SEMANTIC_WEIGHT * data["x"][:, FEATURES.index("semantic")]}
        orders.update({f"learned:{name}": model_scores(m, data) for name, m in models.items()})
        report[set_name] = {
            name: {**evaluate(data, scores), "paired_vs_hand_set": paired_test(hand, hits(data, scores)) if scores is not None else None,
                   "repositories": by_repository(data, scores)}
            for name, scores in orders.items()}
        for name, result in report[set_name].items():
            print(f"{set_name} {name}: Acc@10 {result['all']['acc@10']} (n = {result['all']['n']}; lexical "
                  f"{result['lexical']['acc@10']}, non-lexical {result['non-lexical']['acc@10']} n = "
                  f"{result['non-lexical']['n']}) paired {result['paired_vs_hand_set']}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
