"""Trains the learned ranker on the mined corpus (corpus.py) with LightGBM's lambdarank, evaluates it
offline against the hand-set order on the held-out repositories and the dev set, runs the feature
ablations, and writes the model into the package (graphctx/context/models/ranker.json).

    pip install -e '.[train]'
    python benchmarks/retrieval/learned/train.py [--data D] [--write] [--ablations] [--folds K] [--shift]

Settings are chosen on the training repositories alone: leave-repositories-out cross-validation
(--folds groups of whole repositories held out in turn), with early stopping on each held-out group
picking the number of rounds; each recipe (which commits, which features, how much of the hand-set
score) is compared there, never on the dev set or the held-out repositories, which only report.
Paired tests (per-instance Acc@10, bootstrap and sign test) compare the chosen model with the
hand-set order on both evaluation sets. --shift lists the features whose distribution differs most
between the training commits and the dev issues (among each instance's hand-set top 10).

Offline evaluation re-orders each instance's candidates (the hand-set blend's best 200) and measures
function Acc@5/10 and MRR of the function keys in that order, which is what `graphctx bench run`
measures end to end on the same candidates. Deterministic: fixed seed, one thread."""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path

import numpy as np

from graphctx.bench.metrics import acc_at, reciprocal_rank
from graphctx.context import ranker
from graphctx.semantic import model as embedding_model
from graphctx.context.features import BASE_FEATURES, FEATURES, RELATIVE, with_relative, within_text_ranks

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
MAX_ROUNDS = 400  # cross-validation's ceiling; early stopping picks the rounds below it
EARLY_STOP = 40
ISSUE_LIKE_WORDS = 25  # words of prose in a message that reads like an issue (dev issues: a few hundred)
SEMANTIC_WEIGHT = 0.5  # the blend weight of the embedding's cosine (embedding.py's cross-validation)
BASE_FEATURE = "hand_score"  # the trees learn corrections to BASE_WEIGHT x the hand-set blend's score
# Ablations: which feature columns a model may use.
TEXT_ONLY = {"own_text", "field_words", "field_signature", "field_doc", "field_body", "file_text", "file_named",
             "name_exact", "name_exact_cased", "qualified_mentioned", "parent_mentioned", "name_words", "path_words",
             "stem_mentioned", "path_mentioned", "aside", "is_test", "is_doc_path", "kind_function", "kind_method",
             "kind_class", "kind_file", "kind_other", "lines", "private", "dunder", "text_terms", "text_has_trace",
             "seed_frame", "seed_path", "seed_name", "seed_text"} | {f"{n}_rel" for n in RELATIVE if n != "degree_in"}


def load(path: Path) -> dict:
    data = np.load(path, allow_pickle=False)
    x, group, names = data["x"], data["group"].astype(np.int64), tuple(data["features"])
    before_semantic = tuple(n for n in BASE_FEATURES if n != "semantic")
    if "semantic" not in names and names[:len(before_semantic)] == before_semantic:
        # Extracted before the embedding: its column comes from the candidates' texts (embedding_texts.py).
        from embedding import row_similarity

        out_of_fold = path.parent.parent / "embedding" / "out-of-fold" / f"{path.stem}.npy"
        column = np.load(out_of_fold) if out_of_fold.exists() else row_similarity(path, len(x))
        x = np.hstack([x[:, :len(before_semantic)], column[:, None]])
        names = BASE_FEATURES
    if names == BASE_FEATURES:  # extracted before the relative columns: derive them
        x = with_relative(x, group)
    elif names != FEATURES:
        raise SystemExit(f"{path} was extracted with other features; run corpus.py features --force")
    return {"x": x, "y": data["y"].astype(np.int32), "group": group, "meta": json.loads(str(data["meta"]))}


def pool_head(part: dict, n: int) -> dict:
    """Each instance's first `n` candidates only: from a widened pool (corpus.py features --widen), the
    blend's best `n` it starts with, so a ranker for each pool is trained and scored on the same commits."""
    group = part["group"]
    starts = np.r_[0, np.flatnonzero(np.diff(group)) + 1]
    place = np.arange(len(group)) - np.repeat(starts, np.diff(np.r_[starts, len(group)]))
    keep = place < n
    meta = [{**m, "keys": m["keys"][:n]} for m in part["meta"]]
    return {"x": part["x"][keep], "y": part["y"][keep], "group": group[keep], "meta": meta}


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


def instance_bounds(data: dict) -> tuple[np.ndarray, np.ndarray]:
    n = np.arange(len(data["meta"]))
    return np.searchsorted(data["group"], n), np.searchsorted(data["group"], n, side="right")


def hits(data: dict, scores: np.ndarray | None) -> list[dict]:
    """Per instance with gold: whether all its gold functions are in the top 5 / 10, and the reciprocal
    rank, when its candidates are ordered by `scores` (None: the hand-set order they were stored in)."""
    starts, ends = instance_bounds(data)
    out = []
    for i, meta in enumerate(data["meta"]):
        if not meta["gold"]:
            continue
        keys = meta["keys"]
        order = range(len(keys))
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
        out.append({"id": meta["instance_id"], "lexical": meta["lexical"], "acc@5": acc_at(ranks, 5),
                    "acc@10": acc_at(ranks, 10), "mrr": reciprocal_rank(ranks)})
    return out


def evaluate(data: dict, scores: np.ndarray | None) -> dict:
    """Function Acc@5/10 and MRR over instances with gold; lexical and non-lexical apart."""
    return {name: {"n": len(r), **{m: _pct(r, m) for m in ("acc@5", "acc@10", "mrr")}}
            for name, r in split(hits(data, scores)).items()}


def split(rows: list[dict]) -> dict[str, list[dict]]:
    """Per-instance rows (see hits): all, the lexical and the non-lexical ones, in their order."""
    return {"all": rows, "lexical": [r for r in rows if r["lexical"]], "non-lexical": [r for r in rows if not r["lexical"]]}


def _pct(rows: list[dict], measure: str):
    return round(100 * sum(r[measure] for r in rows) / len(rows), 1) if rows else None


def paired_test(base: list[dict], other: list[dict], measure: str = "acc@10", seed: int = 0, draws: int = 10000) -> dict:
    """`other` minus `base` on the same instances: the mean difference in points, its bootstrap 95 %
    interval, wins and losses, and the two-sided exact sign test's p over the instances that differ."""
    diffs = [o[measure] - b[measure] for b, o in zip(base, other, strict=True)]
    if not diffs:
        return {"n": 0}
    rng = np.random.default_rng(seed)
    arr = np.asarray(diffs, dtype=float)
    boots = np.sort(arr[rng.integers(0, len(arr), (draws, len(arr)))].mean(axis=1))
    wins, losses = int((arr > 0).sum()), int((arr < 0).sum())
    n, k = wins + losses, min(wins, losses)
    p = min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n) if n else 1.0
    return {"n": len(arr), "diff": round(100 * float(arr.mean()), 1),
            "ci95": [round(100 * float(boots[int(0.025 * draws)]), 1), round(100 * float(boots[int(0.975 * draws) - 1]), 1)],
            "wins": wins, "losses": losses, "p_sign": round(p, 4)}


# ---- recipes: which training commits, which features, how much of the hand-set score

def embedding_repositories() -> set[str]:
    """The repositories whose commits the shipped code embedding was trained on: on their commits its
    cosine is a leak (it has learned those very pairs)."""
    return set(embedding_model.shipped().meta["trained_on"])


def issue_like(meta: dict) -> bool:
    """A commit message that reads like an issue: a body of prose beyond its subject line."""
    text = meta.get("text") or ""
    return len(re.findall(r"[A-Za-z]{2,}", text)) >= ISSUE_LIKE_WORDS


RECIPES = {
    # name: (instance filter, feature columns, base weight, num_leaves)
    "correct-hand-set": (None, None, 3.0, 4),
    "correct-hand-set-16": (None, None, 3.0, 16),
    "from-nothing": (None, None, 0.0, 4),
    "from-nothing-16": (None, None, 0.0, 16),
    "issue-like": (issue_like, None, 3.0, 4),
    "exact-trees": (lambda m: m.get("exact", True), None, 3.0, 4),
    "text-only": (None, "text", 0.0, 4),
    # Without the text's length and trace flag: commit messages are far shorter than issues, so
    # splits on them do not carry over to issue text.
    "no-query-length": (None, "no-query", 3.0, 4),
    # Length-robust: the overlaps only relative to the text's best candidate, no text length.
    "length-robust": (None, "length-robust", 3.0, 4),
    "length-robust-16": (None, "length-robust", 3.0, 16),
    "without-relative": (None, "base", 3.0, 4),  # the 43 features before the relative columns
    "without-semantic": (None, "no-semantic", 3.0, 4),  # the shipped recipe without the code embedding
    # Ranked: the text-bound columns as ranks among the text's candidates (features.within_text_ranks),
    # no text length: what a long issue and a short message share is which candidate overlaps most.
    "ranked": (None, "no-query", 3.0, 4),
    "ranked-graph": (None, "no-query", 3.0, 4),
    "ranked-long": (lambda m: len(re.findall(r"[A-Za-z]{2,}", m.get("text") or "")) >= 12, "no-query", 3.0, 4),
    # Size-blind: issues are long, so a long body overlaps more of their words; these do not read the
    # candidate's size (and the second not its body's overlap either), whatever the text's length.
    "ranked-graph-no-size": (None, "no-size", 3.0, 4),
    "ranked-graph-no-body": (None, "no-body", 3.0, 4),
    # Without the code embedding's cosine: the shipped embedding was trained on the commits of the
    # first training repositories, so their rows' cosines are a leak (see the README).
    "ranked-graph-no-semantic": (None, "no-query-no-semantic", 3.0, 4),
}
# Which recipes see which columns as ranks within their text (the model file records them).
TEXT_BOUND = ("own_text", "field_words", "field_signature", "field_doc", "field_body", "file_text", "file_named",
              "name_words", "path_words", "semantic")
RANKED = {"ranked": TEXT_BOUND, "ranked-long": TEXT_BOUND,
          "ranked-graph": TEXT_BOUND + ("walk", "ppr_far", "one_hop", "seed", "parent_score")}
RANKED["ranked-graph-no-size"] = RANKED["ranked-graph-no-body"] = RANKED["ranked-graph"]
RANKED["ranked-graph-no-semantic"] = tuple(f for f in RANKED["ranked-graph"] if f != "semantic")
QUERY_LEVEL = {"text_terms", "text_has_trace"}
LENGTH_BOUND = {"name_words", "path_words", "file_named"}  # overlaps that grow with the text's length
SIZE = {"lines", "degree_out"}  # how big a candidate is
BODY = {"field_body", "field_body_rel", "own_text", "own_text_rel"}  # its body's overlap with the text


def columns_of(which: str | None) -> list[int]:
    if which == "text":
        return [FEATURES.index(f) for f in sorted(TEXT_ONLY)]
    if which == "no-query":
        return [i for i, f in enumerate(FEATURES) if f not in QUERY_LEVEL]
    if which == "no-query-no-semantic":
        return [i for i, f in enumerate(FEATURES) if f not in QUERY_LEVEL | {"semantic"}]
    if which == "length-robust":
        return [i for i, f in enumerate(FEATURES) if f not in QUERY_LEVEL | LENGTH_BOUND]
    if which == "no-size":
        return [i for i, f in enumerate(FEATURES) if f not in QUERY_LEVEL | SIZE]
    if which == "no-body":
        return [i for i, f in enumerate(FEATURES) if f not in QUERY_LEVEL | SIZE | BODY]
    if which == "base":
        return list(range(len(BASE_FEATURES)))
    if which == "no-semantic":
        return [i for i, f in enumerate(FEATURES) if f != "semantic"]
    return list(range(len(FEATURES)))


def select(data: dict, keep) -> dict:
    """The instances of `data` that `keep` accepts (all when None), renumbered."""
    if keep is None:
        return data
    chosen = [i for i, m in enumerate(data["meta"]) if keep(m)]
    mask = np.isin(data["group"], chosen)
    renumber = np.full(len(data["meta"]), -1)
    renumber[chosen] = np.arange(len(chosen))
    return {"x": data["x"][mask], "y": data["y"][mask], "group": renumber[data["group"][mask]],
            "meta": [data["meta"][i] for i in chosen]}


def _with_gold(data: dict) -> np.ndarray:
    """Rows of instances that have a gold candidate: the only ones a ranking objective learns from."""
    positive = np.zeros(len(data["meta"]), dtype=bool)
    positive[data["group"][data["y"] > 0]] = True
    return positive[data["group"]]


def dataset(data: dict, columns: list[int], base_weight: float):
    import lightgbm as lgb

    mask = _with_gold(data)
    x = np.where(np.isin(np.arange(len(FEATURES)), columns), data["x"][mask], 0.0)  # unused columns: constant
    return lgb.Dataset(x, data["y"][mask], group=group_sizes(data["group"][mask]), feature_name=list(FEATURES),
                       init_score=base_score(data["x"][mask], base_weight), free_raw_data=False)


def train(data: dict, columns: list[int], base_weight: float, rounds: int = ROUNDS, leaves: int = 4,
          valid: dict | None = None):
    """A booster (and its base weight); with `valid`, rounds stop once its NDCG@10 has not risen for
    EARLY_STOP rounds and the booster keeps its best round."""
    import lightgbm as lgb

    params = {**PARAMS, "num_leaves": leaves}
    train_set = dataset(data, columns, base_weight)
    if valid is None:
        return lgb.train(params, train_set, num_boost_round=rounds), base_weight
    valid_set = dataset(valid, columns, base_weight)
    booster = lgb.train(params, train_set, num_boost_round=rounds, valid_sets=[valid_set],
                        callbacks=[lgb.early_stopping(EARLY_STOP, verbose=False)])
    return booster, base_weight


def folds_of(parts: list[dict], k: int) -> list[list[int]]:
    """Whole repositories per fold, balanced by instance count (largest first into the emptiest)."""
    folds: list[list[int]] = [[] for _ in range(k)]
    sizes = [0] * k
    for i in sorted(range(len(parts)), key=lambda i: (-len(parts[i]["meta"]), parts[i]["meta"][0]["repo"])):
        f = sizes.index(min(sizes))
        folds[f].append(i)
        sizes[f] += len(parts[i]["meta"])
    return folds


def prepared(data: dict, recipe: str) -> dict:
    """`data` as the recipe's model reads it: its RANKED columns as ranks within each text."""
    names = RANKED.get(recipe)
    if not names:
        return data
    return {**data, "x": within_text_ranks(data["x"], [FEATURES.index(n) for n in names], data["group"])}


def cross_validate(parts: list[dict], recipe: str, k: int, max_rounds: int = MAX_ROUNDS) -> dict:
    """Leave-repositories-out: train on the other folds (filtered by the recipe), early-stop and
    score on the held-out fold's every instance; pooled Acc@10 against the hand-set order."""
    keep, which, base_weight, leaves = RECIPES[recipe]
    columns = columns_of(which)
    parts = [prepared(p, recipe) for p in parts]
    learned, hand, best = [], [], []
    for fold in folds_of(parts, k):
        held = concat([parts[i] for i in fold])
        rest = select(concat([p for i, p in enumerate(parts) if i not in fold]), keep)
        booster, weight = train(rest, columns, base_weight, max_rounds, leaves, valid=held)
        best.append(booster.best_iteration or max_rounds)
        learned += hits(held, predict((booster, weight), held["x"]))
        hand += hits(held, None)
    return {"n": len(hand), "hand-set": _pct(hand, "acc@10"), "learned": _pct(learned, "acc@10"),
            "paired": paired_test(hand, learned), "rounds": sorted(best),
            "non-lexical": {"hand-set": _pct([h for h in hand if not h["lexical"]], "acc@10"),
                            "learned": _pct([h for h in learned if not h["lexical"]], "acc@10")}}


def shift(train_data: dict, dev: dict, top: int = 10) -> list[tuple[str, float, float, float]]:
    """(feature, train mean, dev mean, standardised difference) over each instance's hand-set top
    `top`, largest differences first: where commit messages and issue texts look unlike."""
    def head(data):
        starts, ends = instance_bounds(data)
        rows = np.concatenate([np.arange(s, min(e, s + top)) for s, e in zip(starts, ends) if e > s])
        return data["x"][rows]

    a, b = head(train_data), head(dev)
    sd = np.sqrt((a.var(axis=0) + b.var(axis=0)) / 2) + 1e-9
    d = (b.mean(axis=0) - a.mean(axis=0)) / sd
    return sorted(((FEATURES[i], float(a[:, i].mean()), float(b[:, i].mean()), float(d[i])) for i in range(len(FEATURES))),
                  key=lambda r: -abs(r[3]))


def base_score(x: np.ndarray, weight: float) -> np.ndarray:
    return x[:, FEATURES.index(BASE_FEATURE)] * weight


def predict(model, x: np.ndarray) -> np.ndarray:
    booster, weight = model
    return booster.predict(x, num_threads=1) + base_score(x, weight)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--write", action="store_true", help=f"write the model to {MODEL_PATH.relative_to(HERE.parents[2])}")
    parser.add_argument("--ablations", action="store_true", help="cross-validate every recipe, not only the default")
    parser.add_argument("--recipes", help=f"cross-validate these (comma-separated, of {', '.join(sorted(RECIPES))}) and "
                        "ship the best; default correct-hand-set, or all with --ablations")
    parser.add_argument("--folds", type=int, default=5, help="groups of training repositories held out in turn (default 5)")
    parser.add_argument("--shift", action="store_true", help="list the features that differ most between training and dev")
    parser.add_argument("--json", type=Path, help="write the evaluation as JSON here")
    parser.add_argument("--pool-head", type=int, help="keep each instance's first N candidates (a widened pool's "
                        "head: the blend's best N)")
    parser.add_argument("--no-dev", action="store_true", help="leave the dev set out: choose a recipe on the training "
                        "and held-out repositories first, and report dev once, for the one chosen")
    parser.add_argument("--unseen-by-embedding", action="store_true", help="train and cross-validate only on the "
                        "repositories the shipped code embedding was not trained on, so no `semantic` value is a leak")
    parser.add_argument("--max-rounds", type=int, default=MAX_ROUNDS, help="cross-validation's ceiling on boosting "
                        f"rounds (default {MAX_ROUNDS}; more training commits may want more)")
    args = parser.parse_args(argv)

    seen = embedding_repositories() if args.unseen_by_embedding else set()
    parts = {"train": [], "heldout": []}
    for row in load_repos():
        if row["repo"] in seen:
            continue
        path = args.data / "features" / f"{slug(row['repo'])}.npz"
        if path.exists():
            part = load(path)
            if args.pool_head and len(part["y"]):
                part = pool_head(part, args.pool_head)
            if part["meta"]:
                parts[row["role"]].append(part)
    dev = [] if args.no_dev else [load(p) for p in sorted((args.data / "features").glob("dev-*.npz"))]
    if not parts["train"]:
        raise SystemExit(f"no training features under {args.data}/features; run corpus.py mine and features first")
    train_data = concat(parts["train"])
    sets = {"heldout": concat(parts["heldout"]) if parts["heldout"] else None, "dev": concat(dev) if dev else None}
    report = {"train": {"instances": len(train_data["meta"]), "rows": int(len(train_data["y"])),
                        "repositories": len(parts["train"]),
                        "exact_trees": sum(1 for m in train_data["meta"] if m.get("exact", True)),
                        "issue_like": sum(1 for m in train_data["meta"] if issue_like(m))},
              "cross_validation": {}, "sets": {}}
    recipes = sorted(RECIPES) if args.ablations else (args.recipes or "correct-hand-set").split(",")
    unknown = [r for r in recipes if r not in RECIPES]
    if unknown:
        raise SystemExit(f"unknown recipe {unknown[0]!r}; choose from {', '.join(sorted(RECIPES))}")
    for recipe in recipes:
        cv = report["cross_validation"][recipe] = cross_validate(parts["train"], recipe, args.folds, args.max_rounds)
        print(f"cv {recipe}: learned {cv['learned']} vs hand-set {cv['hand-set']} (n = {cv['n']}, "
              f"{cv['paired']}, rounds {cv['rounds']})", flush=True)
    chosen = max(recipes, key=lambda r: (report["cross_validation"][r]["learned"], r == "correct-hand-set"))
    models = {}
    for recipe in recipes:  # each recipe trained on every training repository, for the ablation table
        keep, which, base_weight, leaves = RECIPES[recipe]
        rounds = int(np.median(report["cross_validation"][recipe]["rounds"]))
        models[recipe] = train(select(prepared(train_data, recipe), keep), columns_of(which), base_weight, rounds, leaves)
        evaluation = report["cross_validation"][recipe]["evaluation"] = {}
        for name, data in sets.items():
            if data is not None:
                data = prepared(data, recipe)
                e = evaluate(data, predict(models[recipe], data["x"]))
                evaluation[name] = {"all": e["all"]["acc@10"], "non-lexical": e["non-lexical"]["acc@10"],
                                    "paired": paired_test(hits(data, None), hits(data, predict(models[recipe], data["x"])))}
    keep, which, base_weight, leaves = RECIPES[chosen]
    rounds = int(np.median(report["cross_validation"][chosen]["rounds"]))
    model = models[chosen]
    report["chosen"] = {"recipe": chosen, "rounds": rounds, "leaves": leaves, "base_weight": base_weight}
    for name, data in sets.items():
        if data is None:
            continue
        data = prepared(data, chosen)
        hand_hits, learned_hits = hits(data, None), hits(data, predict(model, data["x"]))
        # The code embedding's cosine added to the blend offline (graphctx-semantic: blend.semantic=0.5).
        with_semantic = data["x"][:, FEATURES.index(BASE_FEATURE)] + SEMANTIC_WEIGHT * data["x"][:, FEATURES.index("semantic")]
        report["sets"][name] = {"hand-set": evaluate(data, None), "learned": evaluate(data, predict(model, data["x"])),
                                "hand-set+semantic": evaluate(data, with_semantic),
                                "semantic_paired": paired_test(hand_hits, hits(data, with_semantic)),
                                "paired": paired_test(hand_hits, learned_hits),
                                "exact_trees": sum(1 for m in data["meta"] if m.get("exact", True))}
        print(f"{name}: learned ({chosen}) {report['sets'][name]['paired']}, hand-set first "
              f"{report['sets'][name]['hand-set']['all']}", flush=True)
    if args.shift and sets["dev"] is not None:
        report["shift"] = [{"feature": f, "train": round(a, 3), "dev": round(b, 3), "std_diff": round(d, 2)}
                           for f, a, b, d in shift(train_data, sets["dev"])[:12]]
        if RANKED.get(chosen):  # what the chosen model reads: its ranked columns
            report["shift_as_read"] = [
                {"feature": f, "train": round(a, 3), "dev": round(b, 3), "std_diff": round(d, 2)}
                for f, a, b, d in shift(prepared(train_data, chosen), prepared(sets["dev"], chosen))
                if FEATURES.index(f) in columns_of(which)][:12]
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report, indent=1))
    if args.write:
        meta = {"trained_on": report["train"], "recipe": report["chosen"],
                "params": {k: v for k, v in PARAMS.items() if k != "verbose"} | {"num_leaves": leaves},
                "rounds": rounds, "cross_validation": report["cross_validation"].get(chosen), "evaluation": report["sets"]}
        content = ranker.from_lightgbm(model[0].dump_model(), meta, (BASE_FEATURE, model[1]), RANKED.get(chosen, ()))
        check = ranker.from_dict(content)
        first = train_data["group"] == train_data["group"][0]  # one text's candidates, as at query time
        sample = train_data["x"][first]
        if not np.allclose(check.score(sample), predict(model, prepared({"x": sample, "group": train_data["group"][first]},
                                                                        chosen)["x"]), atol=1e-9):
            raise SystemExit("the numpy evaluation disagrees with LightGBM's; the model was not written")
        MODEL_PATH.parent.mkdir(parents=True, exist_ok=True)
        MODEL_PATH.write_text(json.dumps(content, separators=(",", ":")) + "\n")
        print(f"wrote {MODEL_PATH} ({MODEL_PATH.stat().st_size // 1024} KB, {len(content['trees'])} trees)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
