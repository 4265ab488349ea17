"""The learned ranker: a gradient-boosted tree ensemble (trained offline with LightGBM's lambdarank
on commit histories, see benchmarks/retrieval/learned/) that re-orders the best candidates of the
hand-set blend for free text. The model ships inside the package as JSON (its format, version,
feature names and trees) and is evaluated here with numpy alone: the same input gives the same
order on every machine, and nothing beyond the package's dependencies is needed at query time."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from graphctx.context.features import FEATURES, within_text_ranks
from graphctx.context.forest import Forest, Tree

FORMAT = "graphctx-ranker"
FORMAT_VERSION = 1
SHIPPED = "ranker.json"  # in graphctx/context/models/


class ModelError(Exception):
    """A ranker file that cannot be used: not a ranker, another format version, or other features."""


@dataclass(frozen=True)
class RankerModel:
    features: tuple[str, ...]
    trees: tuple[Tree, ...]
    meta: dict
    # The trees correct a base score, one feature times a weight (the hand-set blend's score): with a
    # corpus of hundreds of commits, learning the corrections generalises better than learning it all.
    base: tuple[int, float] | None = None
    # Columns the trees read as ranks among the text's candidates (features.within_text_ranks), so
    # that what grows with a text's length does not: trained on commit messages, applied to issues.
    ranked: tuple[int, ...] = ()
    # Minus one feature times a weight (the candidate's log size): trained to find gold functions, the
    # trees favour long bodies, which fill a packet's budget; this keeps the order's sizes near the gold's.
    penalty: tuple[int, float] | None = None

    def score(self, matrix: np.ndarray) -> np.ndarray:
        """One score per row of one text's candidates' feature matrix (FEATURES columns): the base plus
        the trees' leaves."""
        matrix = np.asarray(matrix, dtype=np.float64)
        if matrix.ndim != 2 or matrix.shape[1] != len(self.features):
            raise ModelError(f"the ranker takes {len(self.features)} features a row; got an array of shape {matrix.shape}")
        if self.ranked:
            matrix = within_text_ranks(matrix, list(self.ranked))
        total = matrix[:, self.base[0]] * self.base[1] if self.base else np.zeros(len(matrix))
        if self.penalty:
            total = total - matrix[:, self.penalty[0]] * self.penalty[1]
        # Every tree at once (forest.py); the leaves are then added tree after tree (a running sum, as
        # one tree at a time would add them), so the scores keep every bit.
        leaves = self._forest.leaves(matrix)
        return np.add.accumulate(np.column_stack([total, leaves]), axis=1)[:, -1] if leaves.shape[1] else total

    @cached_property
    def _forest(self) -> Forest:
        return Forest.of(self.trees)

    def order(self, matrix: np.ndarray) -> list[int]:
        """Row indices best first; ties keep the given order (the hand-set ranking's)."""
        return [int(i) for i in np.argsort(-self.score(matrix), kind="stable")]


def from_dict(data: dict) -> RankerModel:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ModelError(f"not a {FORMAT} model file")
    if data.get("version") != FORMAT_VERSION:
        raise ModelError(f"ranker format version {data.get('version')} is not {FORMAT_VERSION}; retrain it with "
                         "benchmarks/retrieval/learned/train.py")
    features = tuple(data.get("features", ()))
    if features != FEATURES:
        missing = sorted(set(FEATURES) - set(features))
        extra = sorted(set(features) - set(FEATURES))
        raise ModelError(f"the ranker was trained on other features (missing {missing or 'none'}, unknown "
                         f"{extra or 'none'}, or another order); retrain it with benchmarks/retrieval/learned/train.py")
    trees = tuple(
        Tree(np.asarray(t["feature"], dtype=np.int64), np.asarray(t["threshold"], dtype=np.float64),
             np.asarray(t["left"], dtype=np.int64), np.asarray(t["right"], dtype=np.int64),
             np.asarray(t["leaf"], dtype=np.float64))
        for t in data["trees"]
    )
    base = data.get("base")
    if base is not None and base.get("feature") not in FEATURES:
        raise ModelError(f"the ranker's base feature {base.get('feature')!r} is not one of features.FEATURES")
    ranked = data.get("ranked", [])
    unknown = [name for name in ranked if name not in FEATURES]
    if unknown:
        raise ModelError(f"the ranker ranks unknown features {unknown}; retrain it with benchmarks/retrieval/learned/train.py")
    penalty = data.get("penalty")
    if penalty is not None and penalty.get("feature") not in FEATURES:
        raise ModelError(f"the ranker's penalty feature {penalty.get('feature')!r} is not one of features.FEATURES")
    if penalty is not None and penalty["feature"] in ranked:
        raise ModelError(f"the ranker's penalty feature {penalty['feature']!r} is also ranked; penalise a raw column")
    return RankerModel(features, trees, dict(data.get("meta", {})),
                       (FEATURES.index(base["feature"]), float(base["weight"])) if base else None,
                       tuple(FEATURES.index(name) for name in ranked),
                       (FEATURES.index(penalty["feature"]), float(penalty["weight"])) if penalty else None)


def load(path: Path) -> RankerModel:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot read the ranker file {path}: {exc}") from None
    return from_dict(data)


@lru_cache(maxsize=1)
def shipped() -> RankerModel:
    """The model inside the package, read once per process."""
    return from_dict(json.loads(_shipped_text()))


@lru_cache(maxsize=1)
def shipped_id() -> str:
    """A short digest of the shipped model file: benchmark results of another model are not reused."""
    return hashlib.blake2b(_shipped_text().encode(), digest_size=6).hexdigest()


def _shipped_text() -> str:
    return resources.files("graphctx.context").joinpath("models", SHIPPED).read_text(encoding="utf-8")


def from_lightgbm(dump: dict, meta: dict | None = None, base: tuple[str, float] | None = None,
                  ranked: tuple[str, ...] = ()) -> dict:
    """A model file's content from LightGBM's `Booster.dump_model()` (training only; plain dicts in,
    plain dicts out, so this module never imports LightGBM); `ranked` names the columns it was
    trained on as ranks within each text."""
    names = dump.get("feature_names") or []
    if tuple(names) != FEATURES:
        raise ModelError("the booster was trained on other features than features.FEATURES")
    trees = []
    for info in dump["tree_info"]:
        feature, threshold, left, right, leaf = [], [], [], [], []

        def visit(node: dict) -> int:
            if "leaf_value" in node or "split_feature" not in node:
                leaf.append(float(node.get("leaf_value", 0.0)))
                return ~(len(leaf) - 1)
            index = len(feature)
            if node.get("decision_type", "<=") != "<=":
                raise ModelError(f"unsupported split {node.get('decision_type')!r}: train on numeric features only")
            feature.append(int(node["split_feature"]))
            threshold.append(float(node["threshold"]))
            left.append(0)
            right.append(0)
            left[index] = visit(node["left_child"])
            right[index] = visit(node["right_child"])
            return index

        visit(info["tree_structure"])
        trees.append({"feature": feature, "threshold": threshold, "left": left, "right": right, "leaf": leaf})
    content = {"format": FORMAT, "version": FORMAT_VERSION, "features": list(FEATURES), "meta": meta or {}, "trees": trees}
    if base and base[1]:
        content["base"] = {"feature": base[0], "weight": base[1]}
    if ranked:
        content["ranked"] = list(ranked)
    return content
