"""Trains the learned ranker on the mined corpus (corpus.py) with LightGBM's lambdarank, evaluates it
offline against the hand-set order on the held-out repositories and the dev set, runs the feature
ablations, and writes the model into the package (graphctx/context/models/ranker.json).

    pip install -e '.[train]'
    python benchmarks/retrieval/learned/train.py [--data D] [--write] [--ablations]

Offline evaluation re-orders each instance's candidates (the hand-set blend's best 200) and measures
function Acc@5/10 and MRR of the function keys in that order, which is what `graphctx bench run`
measures end to end on the same candidates. Deterministic: fixed seed, one thread."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from graphctx.bench.metrics import acc_at, reciprocal_rank
from graphctx.context import ranker
from graphctx.context.features import FEATURES

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from corpus import DEFAULT_DATA, load_repos, slug  # noqa: E402

MODEL_PATH = HERE.parents[2] / "graphctx" / "context" / "models" / ranker.SHIPPED
PARAMS = {
    "objective": "lambdarank", "metric": "ndcg", "ndcg_eval_at": [10], "learning_rate": 0.05, "num_leaves": 4,
    "min_data_in_leaf": 100, "feature_fraction": 0.8, "bagging_fraction": 0.8, "bagging_freq": 1,
    "seed": 7, "deterministic": True, "num_threads": 1, "verbose": -1,
}
ROUNDS = 100
BASE_FEATURE = "hand_score"  # the trees learn corrections to BASE_WEIGHT x the hand-set blend's score
# Ablations: which feature columns a model may use.
TEXT_ONLY = {"own_text", "field_words", "field_signature", "field_doc", "field_body", "file_text", "file_named",
             "name_exact", "name_exact_cased", "qualified_mentioned", "parent_mentioned", "name_words", "path_words",
             "stem_mentioned", "path_mentioned", "aside", "is_test", "is_doc_path", "kind_function", "kind_method",
             "kind_class", "kind_file", "kind_other", "lines", "private", "dunder", "text_terms", "text_has_trace",
             "seed_frame", "seed_path", "seed_name", "seed_text"}


def load(path: Path) -> dict:
    data = np.load(path, allow_pickle=False)
    if tuple(data["features"]) != FEATURES:
        raise SystemExit(f"{path} was extracted with other features; run corpus.py features --force")
    return {"x": data["x"], "y": data["y"].astype(np.int32), "group": data["group"].astype(np.int64),
            "meta": json.loads(str(data["meta"]))}


def concat(parts: list[dict]) -> dict:
    x, y, group, meta = [], [], [], []
    for part in parts:
        offset = len(meta)
        x.append(part["x"])
        y.append(part["y"])
        group.append(part["group"] + offset)
        meta += part["meta"]
    return {"x": np.vstack(x), "y": np.concatenate(y), "group": np.concatenate(group), "meta": meta}


def group_sizes(group: np.ndarray) -> list[int]:
    _, counts = np.unique(group, return_counts=True)  # groups are contiguous and increasing
    return counts.tolist()


def evaluate(data: dict, scores: np.ndarray | None) -> dict:
    """Function Acc@5/10 and MRR when each instance's candidates are ordered by `scores` (None: the
    hand-set order they were stored in), over instances with gold; lexical and non-lexical apart."""
    rows = {"all": [], "lexical": [], "non-lexical": []}
    starts = np.searchsorted(data["group"], np.arange(len(data["meta"])))
    ends = np.searchsorted(data["group"], np.arange(len(data["meta"])), side="right")
    for i, meta in enumerate(data["meta"]):
        if not meta["gold"]:
            continue
        keys = meta["keys"]
        order = list(range(len(keys)))
        if scores is not None and keys:
            order = [int(j) for j in np.argsort(-scores[starts[i]:ends[i]], kind="stable")]
        ranking, seen = [], set()
        for j in order:
            key = keys[j]
            if key and key not in seen:
                seen.add(key)
                ranking.append(key)
        position = {k: n + 1 for n, k in enumerate(ranking)}
        ranks = [position.get(g) for g in meta["gold"]]
        m = (acc_at(ranks, 5), acc_at(ranks, 10), reciprocal_rank(ranks))
        rows["all"].append(m)
        rows["lexical" if meta["lexical"] else "non-lexical"].append(m)
    return {name: {"n": len(r), "acc@5": _pct(r, 0), "acc@10": _pct(r, 1), "mrr": _pct(r, 2)} for name, r in rows.items()}


def _pct(rows, i):
    return round(100 * sum(r[i] for r in rows) / len(rows), 1) if rows else None


def train(data: dict, columns: list[int], base_weight: float):
    import lightgbm as lgb

    keep = np.array([s for s in range(len(data["meta"])) if data["y"][data["group"] == s].any()])
    mask = np.isin(data["group"], keep)
    x = np.where(np.isin(np.arange(len(FEATURES)), columns), data["x"][mask], 0.0)  # unused columns: constant
    dataset = lgb.Dataset(x, data["y"][mask], group=group_sizes(data["group"][mask]), feature_name=list(FEATURES),
                          init_score=base_score(data["x"][mask], base_weight), free_raw_data=False)
    return lgb.train(PARAMS, dataset, num_boost_round=ROUNDS), base_weight


def base_score(x: np.ndarray, weight: float) -> np.ndarray:
    return x[:, FEATURES.index(BASE_FEATURE)] * weight


def predict(model, x: np.ndarray) -> np.ndarray:
    booster, weight = model
    return booster.predict(x, num_threads=1) + base_score(x, weight)


def paired(a: dict, b: dict) -> str:
    return f"{b['all']['acc@10']} vs {a['all']['acc@10']} (non-lexical {b['non-lexical']['acc@10']} vs {a['non-lexical']['acc@10']})"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--write", action="store_true", help=f"write the model to {MODEL_PATH.relative_to(HERE.parents[2])}")
    parser.add_argument("--ablations", action="store_true", help="also train the text-only model and report it")
    parser.add_argument("--json", type=Path, help="write the evaluation as JSON here")
    parser.add_argument("--base-weight", type=float, default=3.0, help="weight of the hand-set score the trees correct")
    args = parser.parse_args(argv)

    repos = load_repos()
    split = {"train": [], "heldout": []}
    for row in repos:
        path = args.data / "features" / f"{slug(row['repo'])}.npz"
        if path.exists():
            split[row["role"]].append(load(path))
    dev = [load(p) for p in sorted((args.data / "features").glob("dev-*.npz"))]
    if not split["train"]:
        raise SystemExit(f"no training features under {args.data}/features; run corpus.py mine and features first")
    train_data = concat(split["train"])
    sets = {"heldout": concat(split["heldout"]) if split["heldout"] else None, "dev": concat(dev) if dev else None}
    all_columns = list(range(len(FEATURES)))
    models = {"learned": train(train_data, all_columns, args.base_weight)}
    if args.ablations:
        text_only = [FEATURES.index(f) for f in sorted(TEXT_ONLY)]
        models["learned-text-only"] = train(train_data, text_only, 0.0)
        models["learned-no-base"] = train(train_data, all_columns, 0.0)
    report = {"train": {"instances": len(train_data["meta"]), "rows": int(len(train_data["y"])),
                        "repositories": len(split["train"])}, "sets": {}}
    for name, data in sets.items():
        if data is None:
            continue
        hand = evaluate(data, None)
        report["sets"][name] = {"hand-set": hand}
        for label, booster in models.items():
            scored = evaluate(data, predict(booster, data["x"]))
            report["sets"][name][label] = scored
            print(f"{name}: {label} {paired(hand, scored)} fn Acc@10, hand-set first; n = {hand['all']['n']}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report, indent=1))
    if args.write:
        model = models["learned"]
        meta = {"trained_on": report["train"], "params": {k: v for k, v in PARAMS.items() if k != "verbose"},
                "rounds": ROUNDS, "evaluation": report["sets"]}
        content = ranker.from_lightgbm(model[0].dump_model(), meta, (BASE_FEATURE, model[1]))
        check = ranker.from_dict(content)
        sample = train_data["x"][:2000]
        if not np.allclose(check.score(sample), predict(model, sample), atol=1e-9):
            raise SystemExit("the numpy evaluation disagrees with LightGBM's; the model was not written")
        MODEL_PATH.parent.mkdir(parents=True, exist_ok=True)
        MODEL_PATH.write_text(json.dumps(content, separators=(",", ":")) + "\n")
        print(f"wrote {MODEL_PATH} ({MODEL_PATH.stat().st_size // 1024} KB, {len(content['trees'])} trees)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
