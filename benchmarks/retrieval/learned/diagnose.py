"""Why an order misses, by kind of miss, and what its packet holds: reads stored feature sets (no
index, no tuning on what it reports) and, per instance with gold functions, says where the gold stands
under an order (the hand-set blend's, a model's, a model's with a size penalty):

- hit: every gold function in the top 10;
- not-candidate: a gold function is not among the stored candidates (the hand-set blend's best 200),
  so no re-ordering can find it: candidate generation's miss;
- right-file: every gold file is among the order's top 5 files, yet a gold function is not in the top 10;
- wrong-file: a gold file is not among the top 5 files.

It also estimates each order's function recall at a token budget offline: the candidates are packed
in order as the packer does (a full body when it fits, after the first item within `share` of what is
left; a summary otherwise), a body costing its lines times `--tokens-per-line`. The estimate is a
proxy for `graphctx bench run`'s packet; `--calibrate DIR` sets it beside a walked run's measured
recall for the hand-set and learned systems.

    python benchmarks/retrieval/learned/diagnose.py [--sets heldout,dev] [--penalties 0,0.25,0.5] [--folds 3]

The size penalty (score - weight x log(1 + lines)) is chosen on the training repositories out of fold
(`--folds`), the held-out repositories check it, and the dev set only reports."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from graphctx.context import ranker
from graphctx.context.features import FEATURES

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from corpus import DEFAULT_DATA  # noqa: E402
from evaluate import feature_sets, model_scores  # noqa: E402
from train import (MAX_ROUNDS, RECIPES, columns_of, concat, folds_of, instance_bounds, issue_like, load,  # noqa: E402
                   paired_test, predict, prepared, select, train)

CATEGORIES = ("hit", "not-candidate", "right-file", "wrong-file")
COLUMN = {name: i for i, name in enumerate(FEATURES)}
HEADER_TOKENS = 150  # the packet's header and omitted list, roughly
SUMMARY_TOKENS = 25  # a function's signature and doc line
CONTAINER_TOKENS = 40  # a file's or class's summary


def _keys(meta: dict) -> list[str | None]:
    return meta["keys"] if isinstance(meta["keys"], list) else json.loads(meta["keys"])


def _order(scores: np.ndarray | None, start: int, end: int) -> list[int]:
    if scores is None:
        return list(range(end - start))
    return [int(j) for j in np.argsort(-scores[start:end], kind="stable")]


def category(keys: list[str | None], gold: list[str], order: list[int]) -> str:
    ranking, files = [], []
    for j in order:
        key = keys[j]
        if key and key not in ranking:
            ranking.append(key)
            path = key.split(":")[0]
            if path not in files:
                files.append(path)
    place = {k: n for n, k in enumerate(ranking)}
    needed = min(len(gold), 10)
    if sum(place.get(g, 10) < 10 for g in gold) >= needed:
        return "hit"
    if any(g not in place for g in gold):
        return "not-candidate"
    if all(g.split(":")[0] in files[:5] for g in gold):
        return "right-file"
    return "wrong-file"


def packed_recall(x: np.ndarray, keys: list[str | None], gold: list[str], order: list[int], budget: int,
                  tokens_per_line: float, share: float) -> float:
    """The share of gold functions whose whole body the simulated packet holds."""
    remaining, whole, first = budget - HEADER_TOKENS, set(), True
    for j in order:
        if remaining < 8:
            break
        if not (x[j, COLUMN["kind_function"]] or x[j, COLUMN["kind_method"]]):
            remaining -= CONTAINER_TOKENS
            continue
        cost = math.expm1(x[j, COLUMN["lines"]]) * tokens_per_line + 15
        if cost <= remaining * (1.0 if first else share):
            remaining -= cost
            first = False
            if keys[j]:
                whole.add(keys[j])
        else:
            remaining -= SUMMARY_TOKENS
    return sum(g in whole for g in gold) / len(gold)


def diagnose(data: dict, scores: np.ndarray | None, budget: int = 4000, tokens_per_line: float = 10.0,
             share: float = 0.5) -> list[dict]:
    """Per instance with gold (the first of duplicates): its category and simulated recall."""
    starts, ends = instance_bounds(data)
    out, seen = [], set()
    for i, meta in enumerate(data["meta"]):
        if not meta["gold"] or meta["instance_id"] in seen:
            continue
        seen.add(meta["instance_id"])
        keys, order = _keys(meta), _order(scores, starts[i], ends[i])
        x = data["x"][starts[i]:ends[i]]
        out.append({"id": meta["instance_id"], "lexical": meta["lexical"], "category": category(keys, meta["gold"], order),
                    "acc@10": category(keys, meta["gold"], order) == "hit",
                    "recall": packed_recall(x, keys, meta["gold"], order, budget, tokens_per_line, share)})
    return out


def summary(rows: list[dict]) -> dict:
    counts = Counter(r["category"] for r in rows)
    part = {"n": len(rows), **{c: round(100 * counts[c] / len(rows), 1) if rows else None for c in CATEGORIES},
            "recall": round(100 * float(np.mean([r["recall"] for r in rows])), 1) if rows else None}
    return part


def with_penalty(scores: np.ndarray, data: dict, weight: float) -> np.ndarray:
    return scores - weight * data["x"][:, COLUMN["lines"]]


def out_of_fold(parts: list[dict], recipe: str, k: int) -> tuple[dict, np.ndarray, int]:
    """The training repositories' instances and, for each, the score of a model trained on the other
    folds (early-stopped on its own fold, as train.py's cross-validation does); the median rounds."""
    keep, which, base_weight, leaves = RECIPES[recipe]
    columns = columns_of(which)
    parts = [prepared(p, recipe) for p in parts]
    held_parts, scores, rounds = [], [], []
    for fold in folds_of(parts, k):
        held = concat([parts[i] for i in fold])
        rest = select(concat([p for i, p in enumerate(parts) if i not in fold]), keep)
        model = train(rest, columns, base_weight, MAX_ROUNDS, leaves, valid=held)
        rounds.append(model[0].best_iteration or MAX_ROUNDS)
        held_parts.append(held)
        scores.append(predict(model, held["x"]))
    return concat(held_parts), np.concatenate(scores), int(np.median(rounds))


def whole_model(parts: list[dict], recipe: str, rounds: int):
    """The recipe trained on every training repository; scores a set as at query time."""
    keep, which, base_weight, leaves = RECIPES[recipe]
    model = train(select(prepared(concat(parts), recipe), keep), columns_of(which), base_weight, rounds, leaves)
    return lambda data: predict(model, prepared(data, recipe)["x"])


def size_bias(data: dict, scores: np.ndarray | None) -> dict:
    """Median lines of each instance's top 10 functions (the median over instances) beside its gold's:
    an order that favours long bodies packs fewer of them whole."""
    starts, ends = instance_bounds(data)
    top, gold = [], []
    for i, meta in enumerate(data["meta"]):
        if not meta["gold"] or ends[i] == starts[i]:
            continue
        x, keys = data["x"][starts[i]:ends[i]], _keys(meta)
        lines = np.expm1(x[:, COLUMN["lines"]])
        functions = [j for j in _order(scores, starts[i], ends[i])
                     if x[j, COLUMN["kind_function"]] or x[j, COLUMN["kind_method"]]][:10]
        if functions:
            top.append(float(np.median(lines[functions])))
        gold += [float(lines[j]) for j, key in enumerate(keys) if key in meta["gold"]]
    return {"top10_lines": round(float(np.median(top)), 1) if top else None,
            "gold_lines": round(float(np.median(gold)), 1) if gold else None}


def report(name: str, data: dict, orders: dict[str, np.ndarray | None], args) -> dict:
    out = {}
    hand = diagnose(data, None, args.budget, args.tokens_per_line)
    long_ids = {m["instance_id"] for m in data["meta"] if issue_like(m)}
    for label, scores in orders.items():
        rows = diagnose(data, scores, args.budget, args.tokens_per_line)
        out[label] = {"all": summary(rows), "lexical": summary([r for r in rows if r["lexical"]]),
                      "non-lexical": summary([r for r in rows if not r["lexical"]]),
                      "issue-like": summary([r for r in rows if r["id"] in long_ids]),
                      "size": size_bias(data, scores),
                      "paired_acc@10": paired_test(hand, rows, "acc@10"), "paired_recall": paired_test(hand, rows, "recall")}
        a, long = out[label]["all"], out[label]["issue-like"]
        print(f"{name} {label}: n {a['n']} hit {a['hit']} not-candidate {a['not-candidate']} right-file "
              f"{a['right-file']} wrong-file {a['wrong-file']} | simulated fn recall@{args.budget} {a['recall']} | "
              f"non-lexical hit {out[label]['non-lexical']['hit']} | issue-like n {long['n']} hit {long['hit']} "
              f"recall {long['recall']} | {out[label]['size']}", flush=True)
    return out


def calibrate(bench: Path, data: dict, model: ranker.RankerModel, args) -> dict:
    """The simulated recall beside the measured one, for the instances a walked run holds."""
    measured = {}
    for system in ("graphctx", "graphctx-learned"):
        for path in sorted((bench / "instances" / system).glob("*.json")):
            row = json.loads(path.read_text())
            if row["n_gold"]["function"]:
                measured.setdefault(system, {})[row["instance_id"]] = row["budgets"][str(args.budget)]["function_recall"]
    out = {}
    for system, scores in (("graphctx", None), ("graphctx-learned", model_scores(model, data))):
        rows = [r for r in diagnose(data, scores, args.budget, args.tokens_per_line) if r["id"] in measured.get(system, {})]
        if rows:
            out[system] = {"n": len(rows), "simulated": round(100 * float(np.mean([r["recall"] for r in rows])), 1),
                           "measured": round(100 * float(np.mean([measured[system][r["id"]] for r in rows])), 1)}
            print(f"calibration {system}: {out[system]}", flush=True)
    return out


def write_penalty(weight: float, evidence: Path | None) -> int:
    """The shipped model file with `score - weight x lines`; the report that chose it goes in its meta."""
    path = HERE.parents[2] / "graphctx" / "context" / "models" / ranker.SHIPPED
    content = json.loads(path.read_text(encoding="utf-8"))
    content["penalty"] = {"feature": "lines", "weight": weight}
    if evidence is not None:
        chosen = json.loads(evidence.read_text(encoding="utf-8"))
        content["meta"]["penalty"] = {name: {label: {k: v for k, v in chosen[name][label].items() if k in ("all", "issue-like", "size")}
                                             for label in chosen[name] if not label.startswith("ranked-graph-no-")}
                                     for name in ("cross-validation", "heldout") if name in chosen}
    ranker.from_dict(content)  # refuses a penalty it could not apply
    path.write_text(json.dumps(content, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {path.name} with a size penalty of {weight:g} x lines")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sets", default="heldout", help="comma-separated: heldout, dev (default heldout; dev reports)")
    parser.add_argument("--model", type=Path, help="a ranker model file (default: the shipped one)")
    parser.add_argument("--recipes", default="ranked-graph", help="recipes trained out of fold and on every training "
                        "repository (comma-separated; default ranked-graph, the shipped one)")
    parser.add_argument("--folds", type=int, default=3, help="training repositories out of fold (0: skip)")
    parser.add_argument("--penalties", default="0,0.1,0.25,0.5,1", help="size penalty weights to compare")
    parser.add_argument("--budget", type=int, default=4000)
    parser.add_argument("--tokens-per-line", type=float, default=10.0)
    parser.add_argument("--calibrate", type=Path, help="a walked run's result folder (corpus.py dev --bench)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--write-penalty", type=float, metavar="W",
                        help="set the shipped model's size penalty to W (chosen by --folds cross-validation) and stop")
    args = parser.parse_args(argv)
    if args.write_penalty is not None:
        return write_penalty(args.write_penalty, args.json)
    recipes = args.recipes.split(",")
    unknown = [r for r in recipes if r not in RECIPES]
    if unknown:
        raise SystemExit(f"unknown recipe {unknown[0]!r}; choose from {', '.join(sorted(RECIPES))}")
    model = ranker.load(args.model) if args.model else ranker.shipped()
    penalties = [float(p) for p in args.penalties.split(",")]
    out, scorers = {}, {"model": lambda data: model_scores(model, data)}
    if args.folds:
        from corpus import load_repos, slug

        paths = [args.data / "features" / f"{slug(r['repo'])}.npz" for r in load_repos() if r["role"] == "train"]
        parts = [p for p in (load(path) for path in paths if path.exists()) if p["meta"]]
        orders, data = {"hand-set": None}, None
        for recipe in recipes:
            data, scores, rounds = out_of_fold(parts, recipe, args.folds)
            orders.update({f"{recipe}-{w:g}": with_penalty(scores, data, w) for w in penalties})
            scorers[recipe] = whole_model(parts, recipe, rounds)
        out["cross-validation"] = report("cross-validation", data, orders, args)
    for name, data in feature_sets(args.data, args.sets.split(",")).items():
        orders = {"hand-set": None}
        for label, scorer in scorers.items():
            scores = scorer(data)
            orders.update({f"{label}-{w:g}": with_penalty(scores, data, w) for w in penalties})
        out[name] = report(name, data, orders, args)
        if name == "dev" and args.calibrate:
            out["calibration"] = calibrate(args.calibrate, data, model, args)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
