"""Trains graphctx's code embedding (graphctx/semantic/model.py) on the training repositories' commits
and evaluates it where the learned ranker is evaluated, offline, on the same candidates.

    python benchmarks/retrieval/learned/embedding_texts.py --repos-dir DIR --dev dev_issues.jsonl   # texts first
    python benchmarks/retrieval/learned/embedding.py [--folds 3] [--dim 64] [--json report.json] [--write]

Training: a table of one vector per hashed word, started at random (so similarity starts as a random
projection of word overlap) and moved by Adam on an in-batch contrastive loss: each commit message
against its instance's hard candidates (the hand-set blend's best `--negatives` functions) and every
other instance's candidates in the batch, with its modified functions as the positives (softmax at
temperature `--temperature`). numpy alone, one thread, fixed seed.

Settings (epochs, the blend weight of the similarity) are chosen by leave-repositories-out
cross-validation on the training repositories only; the held-out repositories and the dev set
(never trained or tuned on) only report. Measures, per set: function Acc@10 of the hand-set order,
of the similarity alone, and of the hand-set score plus weight x similarity, with paired tests."""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

import numpy as np

from graphctx.semantic import model as embedding

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from corpus import DEFAULT_DATA, load_repos, slug  # noqa: E402
from train import folds_of, hits, paired_test  # noqa: E402

MODEL_PATH = HERE.parents[2] / "graphctx" / "semantic" / embedding.SHIPPED
FIELD_WEIGHTS = (1.0, 0.5, 0.7, 1.0)  # words (names, path), signature, doc, body
WEIGHTS = (0.0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0)  # blend weights of the similarity, tried in cross-validation


class Corpus:
    """One feature set (features/<name>.npz) with its texts: queries, entity bags, and each row's entity."""

    def __init__(self, npz: Path, texts: Path, buckets: int):
        with np.load(npz, allow_pickle=False) as z:  # the hand-set score, labels and meta suffice here
            hand = list(z["features"]).index("hand_score")
            self.data = {"x": z["x"][:, [hand]], "y": z["y"].astype(np.int32), "group": z["group"].astype(np.int64),
                         "meta": json.loads(str(z["meta"]))}
        with gzip.open(texts, "rt", encoding="utf-8") as handle:
            content = json.load(handle)
        self.repo = self.data["meta"][0]["repo"]
        self.instances = content["instances"]
        self.entity_rows = content["entities"]
        self.row_entity = np.full(len(self.data["y"]), -1, dtype=np.int64)
        for inst in self.instances:
            refs = np.asarray(inst["refs"], dtype=np.int64)
            self.row_entity[inst["row0"]:inst["row0"] + len(refs)] = refs
        self.entity_tokens = [[embedding.tokens(t) for t in row] for row in self.entity_rows]
        self.query_tokens = [embedding.tokens(inst["text"]) for inst in self.instances]
        self.bag_cache: dict = {}

    def similarity(self, table: np.ndarray, field_weights) -> np.ndarray:
        """Per feature row, the cosine of its instance's text and its entity (0 for rows without one)."""
        key = (len(table), tuple(field_weights))
        if self.bag_cache.get("key") != key:  # hashing the words is the slow part: once per setting
            self.bag_cache = {"key": key, "entities": embedding.bags(self.entity_tokens, len(table), field_weights),
                              "queries": embedding.bags([[q] for q in self.query_tokens], len(table), (1.0,))}
        entities = embedding.unit(embedding.pool(table, self.bag_cache["entities"]))
        queries = embedding.unit(embedding.pool(table, self.bag_cache["queries"]))
        out = np.zeros(len(self.row_entity))
        for q, inst in enumerate(self.instances):
            refs = np.asarray(inst["refs"], dtype=np.int64)
            rows = np.arange(inst["row0"], inst["row0"] + len(refs))
            known = refs >= 0
            out[rows[known]] = entities[refs[known]] @ queries[q]
        return out


def row_similarity(npz: Path, rows: int, model: embedding.EmbeddingModel | None = None) -> np.ndarray:
    """The embedding's cosine per row of a feature file (the learned ranker's `semantic` column), from
    its candidates' texts (embedding/<stem>.json.gz beside features/); 0 where a row has no text."""
    model = model or embedding.shipped()
    texts = npz.parent.parent / "embedding" / f"{npz.stem}.json.gz"
    out = np.zeros(rows)
    if not texts.exists():
        print(f"{texts} is missing: the semantic column of {npz.name} is 0 (run embedding_texts.py)", flush=True)
        return out
    with gzip.open(texts, "rt", encoding="utf-8") as handle:
        content = json.load(handle)
    entity_tokens = [[embedding.tokens(t) for t in row] for row in content["entities"]]
    table = model.table
    entities = embedding.unit(embedding.pool(table, embedding.bags(entity_tokens, len(table), model.field_weights)))
    queries = model.encode_texts([inst["text"] for inst in content["instances"]])
    for q, inst in enumerate(content["instances"]):
        refs = np.asarray(inst["refs"], dtype=np.int64)
        at = np.arange(inst["row0"], inst["row0"] + len(refs))
        known = refs >= 0
        out[at[known]] = np.maximum(0.0, entities[refs[known]] @ queries[q])
    return out


def combined(part: Corpus, sim: np.ndarray, weight: float) -> np.ndarray:
    return part.data["x"][:, 0] + weight * sim


class Trainer:
    """Adam on the table; the loss and its gradient written out by hand (numpy only)."""

    def __init__(self, buckets: int, dim: int, seed: int, rate: float, temperature: float, negatives: int,
                 batch: int, field_weights=FIELD_WEIGHTS):
        self.rng = np.random.default_rng(seed)
        self.table = (self.rng.standard_normal((buckets, dim)) / np.sqrt(dim)).astype(np.float32)
        self.m = np.zeros_like(self.table)
        self.v = np.zeros_like(self.table)
        self.steps = 0
        self.rate, self.temperature, self.negatives, self.batch = rate, temperature, negatives, batch
        self.field_weights = field_weights
        self.cache: dict = {}

    def examples(self, parts: list[Corpus], doc_pairs: int = 0) -> list[tuple[list[str], list[tuple], set[tuple]]]:
        """(query words, candidates, gold) per training example; a candidate is (part, entity, without
        its doc). Commits: the message against the instance's hard candidates, its modified functions
        gold. With `doc_pairs`, up to that many functions per part also pair their doc (the query) with
        their own text without the doc, against the batch's other functions."""
        out = []
        for part in parts:
            for q, inst in enumerate(part.instances):
                refs, labels = inst["refs"], inst["labels"]
                gold = {(part, r, False) for r, y in zip(refs, labels) if y and r >= 0}
                if not gold:
                    continue
                hard = {(part, r, False) for r in refs[:self.negatives] if r >= 0}
                out.append((part.query_tokens[q], sorted(hard | gold, key=_order), gold))
            documented = [e for e, row in enumerate(part.entity_rows) if len(part.entity_tokens[e][2]) >= 4]
            if doc_pairs and documented:
                seen, picked = set(), []
                for e in self.rng.permutation(documented):
                    name = part.entity_rows[e][0]
                    if name not in seen:  # one version of each function
                        seen.add(name)
                        picked.append(int(e))
                for e in picked[:doc_pairs]:
                    out.append((part.entity_tokens[e][2], [(part, e, True)], {(part, e, True)}))
        return out

    def epoch(self, examples) -> float:
        order = self.rng.permutation(len(examples))
        losses = []
        for start in range(0, len(order), self.batch):
            losses.append(self.step([examples[i] for i in order[start:start + self.batch]]))
        return float(np.mean(losses))

    def step(self, batch) -> float:
        slot: dict[tuple, int] = {}
        entities = []
        for _, cands, _ in batch:
            for key in cands:
                if key not in slot:
                    slot[key] = len(entities)
                    entities.append(key)
        e_bags = self._bags([self._entity_bag(key) for key in entities])
        q_bags = self._bags([self._query_bag(query) for query, _, _ in batch])
        e_raw, q_raw = embedding.pool(self.table, e_bags), embedding.pool(self.table, q_bags)
        e_norm, q_norm = _norms(e_raw), _norms(q_raw)
        d, q = e_raw / e_norm, q_raw / q_norm
        scores = q @ d.T / self.temperature
        positive = np.zeros_like(scores, dtype=bool)
        for i, (_, _, gold) in enumerate(batch):
            positive[i, [slot[g] for g in gold]] = True
        top = scores.max(axis=1, keepdims=True)
        p = np.exp(scores - top)
        p_all = p / p.sum(axis=1, keepdims=True)
        p_pos = np.where(positive, p, 0.0)
        p_pos /= p_pos.sum(axis=1, keepdims=True)
        loss = float(np.mean(-np.log((p_all * positive).sum(axis=1) + 1e-12)))
        grad_scores = (p_all - p_pos) / (self.temperature * len(batch))
        grad_q = grad_scores @ d
        grad_d = grad_scores.T @ q
        grad = np.zeros_like(self.table)
        for bags_, unit_, norm, g in ((q_bags, q, q_norm, grad_q), (e_bags, d, e_norm, grad_d)):
            raw_grad = (g - unit_ * (unit_ * g).sum(axis=1, keepdims=True)) / norm
            _scatter(grad, bags_, raw_grad)
        self._adam(grad)
        return loss

    def _entity_bag(self, key: tuple) -> tuple[np.ndarray, np.ndarray]:
        """An entity's (rows, weights), computed once: hashing words is the slow part of a step."""
        if key not in self.cache:
            part, e, without_doc = key
            fields = part.entity_tokens[e]
            fields = [fields[0], fields[1], [], fields[3]] if without_doc else fields
            b = embedding.bags([fields], len(self.table), self.field_weights)
            self.cache[key] = (b.rows, b.weights)
        return self.cache[key]

    def _query_bag(self, query: list[str]) -> tuple[np.ndarray, np.ndarray]:
        key = ("query", id(query))
        if key not in self.cache:
            b = embedding.bags([[query]], len(self.table), (1.0,))
            self.cache[key] = (b.rows, b.weights, query)  # the list is kept alive, so its id stays its own
        return self.cache[key][:2]

    @staticmethod
    def _bags(parts: list[tuple[np.ndarray, np.ndarray]]) -> embedding.Bags:
        rows = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
        weights = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, dtype=np.float32)
        owners = np.repeat(np.arange(len(parts)), [len(p[0]) for p in parts])
        return embedding.Bags(rows, weights, owners, len(parts))

    def _adam(self, grad: np.ndarray, beta1: float = 0.9, beta2: float = 0.999) -> None:
        self.steps += 1
        self.m = beta1 * self.m + (1 - beta1) * grad
        self.v = beta2 * self.v + (1 - beta2) * grad * grad
        m_hat = self.m / (1 - beta1 ** self.steps)
        v_hat = self.v / (1 - beta2 ** self.steps)
        self.table -= (self.rate * m_hat / (np.sqrt(v_hat) + 1e-8)).astype(np.float32)


def _order(key: tuple) -> tuple:
    return (key[1], key[2])


def _norms(matrix: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.where(n > 0, n, 1.0)


def _scatter(grad: np.ndarray, b: embedding.Bags, row_grads: np.ndarray) -> None:
    """grad[rows[i]] += weights[i] x row_grads[owners[i]], summed per row with one bincount per run."""
    if not len(b.rows):
        return
    dim = grad.shape[1]
    values = row_grads[b.owners] * b.weights[:, None]
    flat = (b.rows[:, None] * dim + np.arange(dim)[None, :]).ravel()
    grad += np.bincount(flat, weights=values.ravel(), minlength=grad.size).reshape(grad.shape).astype(np.float32)


def load_parts(data: Path, buckets: int) -> dict[str, list[Corpus]]:
    parts: dict[str, list[Corpus]] = {"train": [], "heldout": [], "dev": []}
    for row in load_repos():
        npz, texts = data / "features" / f"{slug(row['repo'])}.npz", data / "embedding" / f"{slug(row['repo'])}.json.gz"
        if npz.exists() and texts.exists():
            parts[row["role"]].append(Corpus(npz, texts, buckets))
    for npz in sorted((data / "features").glob("dev-*.npz")):
        texts = data / "embedding" / f"{npz.stem}.json.gz"
        if texts.exists():
            parts["dev"].append(Corpus(npz, texts, buckets))
    return parts


def scores_of(parts: list[Corpus], table: np.ndarray, field_weights) -> list[tuple[Corpus, np.ndarray]]:
    return [(p, p.similarity(table, field_weights)) for p in parts]


def measure(scored: list[tuple[Corpus, np.ndarray]], weight: float | None) -> list[dict]:
    """Per-instance hits over the parts: the hand-set order (weight None), the similarity alone
    (weight inf) or hand-set plus weight x similarity."""
    out = []
    for part, sim in scored:
        if weight is None:
            out += hits(part.data, None)
        elif weight == float("inf"):
            out += hits(part.data, sim - 1e-6 * np.arange(len(sim)))  # ties keep the hand-set order
        else:
            out += hits(part.data, combined(part, sim, weight))
    return out


def acc(rows: list[dict]) -> float:
    return round(100 * sum(r["acc@10"] for r in rows) / len(rows), 1) if rows else float("nan")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=8, help="most epochs; cross-validation picks how many")
    parser.add_argument("--buckets", type=int, default=1 << 15)
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--rate", type=float, default=0.003)
    parser.add_argument("--temperature", type=float, default=0.05)
    parser.add_argument("--negatives", type=int, default=50, help="hard candidates per instance (hand-set best first)")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--doc-pairs", type=int, default=0, help="functions per repository whose doc is also a query")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chosen", help="EPOCHS,WEIGHT found by an earlier cross-validation: skip it")
    parser.add_argument("--out-of-fold", action="store_true",
                        help="with --chosen: write each training repository's cosine column from an embedding trained "
                             "on the other folds (the learned ranker trains on these; train.py reads them)")
    parser.add_argument("--json", type=Path, help="write the evaluation as JSON here")
    parser.add_argument("--write", action="store_true", help=f"write the model trained on every training repository to {MODEL_PATH}")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    parts = load_parts(args.data, args.buckets)
    if not parts["train"]:
        raise SystemExit(f"no training texts under {args.data}/embedding; run embedding_texts.py first")
    settings = {k: getattr(args, k) for k in ("buckets", "dim", "rate", "temperature", "negatives", "batch", "seed", "doc_pairs")}

    def trainer() -> Trainer:
        return Trainer(args.buckets, args.dim, args.seed, args.rate, args.temperature, args.negatives, args.batch)

    if args.out_of_fold:
        # The learned ranker's `semantic` column of each training repository, from an embedding trained
        # without it: the shipped one has seen those very commits and would tell the ranker too much.
        best_epoch = int(args.chosen.split(",")[0])
        folder = args.data / "embedding" / "out-of-fold"
        folder.mkdir(parents=True, exist_ok=True)
        for fold in folds_of([p.data for p in parts["train"]], args.folds):
            t = trainer()
            examples = t.examples([p for i, p in enumerate(parts["train"]) if i not in fold], args.doc_pairs)
            for epoch in range(best_epoch):
                print(f"fold {fold} epoch {epoch + 1}: loss {t.epoch(examples):.3f}", flush=True)
            for i in fold:
                part = parts["train"][i]
                np.save(folder / f"{slug(part.repo)}.npy", np.maximum(0.0, part.similarity(t.table, t.field_weights)))
        print(f"wrote the out-of-fold columns under {folder}")
        return 0
    if args.chosen:  # settings chosen by an earlier cross-validation: train on every training repository
        best_epoch, best_weight = int(args.chosen.split(",")[0]), float(args.chosen.split(",")[1])
        report = {"settings": settings, "cross_validation": {"given": {"epochs": best_epoch, "weight": best_weight}},
                  "sets": {}}
    else:
        # Cross-validation: per epoch (0 = the untrained random projection), pooled hits of each weight.
        cv: dict[int, dict] = {}
        for fold in folds_of([p.data for p in parts["train"]], args.folds):
            held = [parts["train"][i] for i in fold]
            rest = [p for i, p in enumerate(parts["train"]) if i not in fold]
            t = trainer()
            examples = t.examples(rest, args.doc_pairs)
            for epoch in range(args.epochs + 1):
                if epoch:
                    loss = t.epoch(examples)
                    print(f"fold {fold} epoch {epoch}: loss {loss:.3f} ({time.perf_counter() - started:.0f} s)", flush=True)
                scored = scores_of(held, t.table, t.field_weights)
                row = cv.setdefault(epoch, {"hand": [], "alone": [], **{w: [] for w in WEIGHTS}})
                row["hand"] += measure(scored, None)
                row["alone"] += measure(scored, float("inf"))
                for w in WEIGHTS:
                    row[w] += measure(scored, w)
        table_cv = {e: {"alone": acc(r["alone"]), **{str(w): acc(r[w]) for w in WEIGHTS}, "hand": acc(r["hand"])}
                    for e, r in cv.items()}
        for e, r in table_cv.items():
            print(f"cv epoch {e}: {r}", flush=True)
        best_epoch, best_weight = max(((e, w) for e in cv for w in WEIGHTS), key=lambda ew: (table_cv[ew[0]][str(ew[1])], -ew[0], -ew[1]))
        print(f"chosen: epoch {best_epoch}, weight {best_weight}", flush=True)
        report = {"settings": settings, "cross_validation": {"n": len(cv[0]["hand"]), "by_epoch": table_cv,
                                                             "chosen": {"epochs": best_epoch, "weight": best_weight},
                                                             "paired": paired_test(cv[best_epoch]["hand"], cv[best_epoch][best_weight])},
                  "sets": {}}
    t = trainer()
    examples = t.examples(parts["train"], args.doc_pairs)
    for epoch in range(best_epoch):
        print(f"all epoch {epoch + 1}: loss {t.epoch(examples):.3f}", flush=True)
    for name in ("heldout", "dev"):
        if not parts[name]:
            continue
        scored = scores_of(parts[name], t.table, t.field_weights)
        hand, alone, mixed = measure(scored, None), measure(scored, float("inf")), measure(scored, best_weight)
        report["sets"][name] = {
            "n": len(hand), "hand-set": acc(hand), "similarity alone": acc(alone), "hand-set + similarity": acc(mixed),
            "non-lexical": {"n": sum(1 for r in hand if not r["lexical"]),
                            "hand-set": acc([r for r in hand if not r["lexical"]]),
                            "hand-set + similarity": acc([r for r in mixed if not r["lexical"]])},
            "paired": paired_test(hand, mixed)}
        print(f"{name}: {report['sets'][name]}", flush=True)
    report["seconds"] = round(time.perf_counter() - started)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    if args.write:
        meta = {"trained_on": sorted(p.repo for p in parts["train"]), "instances": len(examples), "epochs": best_epoch,
                "blend_weight": best_weight, "settings": settings, "evaluation": report}
        embedding.save(MODEL_PATH, t.table, t.field_weights, meta)
        print(f"wrote {MODEL_PATH} ({MODEL_PATH.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
