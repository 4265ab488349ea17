"""The learned ranker: its features on a repository built here, the shipped model (loads, scores
deterministically, refuses a model of other features), a tiny LightGBM training run that must put
the planted answer first, the corpus miner's filters on a repository with known commits, and the
ranker serving intent answers within budget from the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from conftest import commit_files, git_as, write_tree
from graphctx.context import ranker
from graphctx.context.forest import Forest
from graphctx.context.features import FEATURES, INDEX, within_text_ranks
from graphctx.project import Project

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "benchmarks" / "retrieval" / "learned" / "corpus.py"

PARSER = '''"""Reads configuration files."""


def parse_config(text):
    """Parse key=value lines into a dict."""
    out = {}
    for line in text.splitlines():
        key, _, value = line.partition("=")
        out[key.strip()] = normalise(value)
    return out


def normalise(value):
    return value.strip().lower()


class Loader:
    def load_file(self, path):
        with open(path) as handle:
            return parse_config(handle.read())
'''
TEST = '''from pkg.parser import parse_config


def test_parse_config():
    assert parse_config("a=1") == {"a": "1"}
'''


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Project:
    root = write_tree(tmp_path_factory.mktemp("small"), {"pkg/__init__.py": "", "pkg/parser.py": PARSER, "tests/test_parser.py": TEST})
    project = Project(root, find=False, ephemeral=False)
    project.index()
    yield project
    project.close()


# ---- features

def test_features_of_known_candidates(small):
    ids, matrix = small.rank_text_features("parse_config drops the case of values read by Loader.load_file", limit=50)
    assert matrix.shape == (len(ids), len(FEATURES)) and len(ids) >= 4
    row = {entity: matrix[i] for i, entity in enumerate(ids)}
    parse = row["pkg/parser.py::parse_config"]
    assert parse[INDEX["name_exact"]] == 1 and parse[INDEX["name_exact_cased"]] == 1
    assert parse[INDEX["kind_function"]] == 1 and parse[INDEX["kind_method"]] == 0
    assert parse[INDEX["is_test"]] == 0 and parse[INDEX["seed"]] > 0
    assert parse[INDEX["lines"]] == pytest.approx(np.log1p(7))  # lines 4-10
    load = row["pkg/parser.py::Loader.load_file"]
    assert load[INDEX["kind_method"]] == 1 and load[INDEX["qualified_mentioned"]] == 1
    assert load[INDEX["parent_mentioned"]] == 1
    assert load[INDEX["degree_out"]] == pytest.approx(np.log1p(1))  # it calls parse_config
    assert parse[INDEX["degree_in"]] >= np.log1p(1)
    # Relative columns: each value over the best among this text's candidates.
    for name in ("name_words", "own_text", "degree_in"):
        column, relative = matrix[:, INDEX[name]], matrix[:, INDEX[f"{name}_rel"]]
        assert np.allclose(relative, column / column.max()) and relative.max() == 1.0
    test = row["tests/test_parser.py::test_parse_config"]
    assert test[INDEX["is_test"]] == 1 and test[INDEX["aside"]] == 1  # the text does not name the test file
    normalise = row["pkg/parser.py::normalise"]
    assert normalise[INDEX["name_exact"]] == 0 and normalise[INDEX["one_hop"]] > 0  # called by a seed
    assert ids[0] != "tests/test_parser.py::test_parse_config"
    # (to the last bit or two: numpy's log1p is not the C library's the features use)
    assert np.allclose(matrix[:, INDEX["hand_rank"]], np.log1p(np.arange(len(ids))), rtol=1e-12, atol=0)


def test_features_are_deterministic(small):
    text = "normalise lowercases values"
    first, second = small.rank_text_features(text), small.rank_text_features(text)
    assert first[0] == second[0] and np.array_equal(first[1], second[1])
    small.rank_text_features("Loader load_file reads parser.py")  # what the graph keeps per entity is no text's
    third = small.rank_text_features(text)
    assert first[0] == third[0] and np.array_equal(first[1], third[1])



def test_the_field_query_on_its_own_thread_answers_as_on_the_callers(small, tmp_path):
    """The learned path starts the per-field full-text query on a thread with a connection of its own;
    it finds what the caller's connection finds, and where the thread cannot open the index (a graph
    whose folder has none) the caller's connection answers instead."""
    from dataclasses import replace as changed

    from graphctx.context.features import FIELD_LIMIT, field_scores
    from graphctx.context.fieldquery import FieldScores

    graph = small.graph
    terms = ["parse", "config", "normalise", "value"]
    rows, values = FieldScores(graph, terms).result()
    expected_rows, expected_values = field_scores(graph.connection(), terms, FIELD_LIMIT)
    assert rows and rows == expected_rows and np.array_equal(values, expected_values)
    elsewhere = changed(graph, root=tmp_path)  # no index there: the thread's connection fails
    rows, values = FieldScores(elsewhere, terms).result()
    assert rows == expected_rows and np.array_equal(values, expected_values)

# ---- the shipped model

def test_shipped_model_loads_and_scores_deterministically():
    model = ranker.shipped()
    assert model.features == FEATURES and len(model.trees) > 0
    matrix = np.random.default_rng(3).random((300, len(FEATURES)))
    first, second = model.score(matrix), model.score(matrix.copy())
    assert np.array_equal(first, second) and len(np.unique(first)) > 1
    assert model.order(matrix) == model.order(matrix)
    assert model.meta["trained_on"]["repositories"] >= 5


def test_all_trees_at_once_score_every_bit_as_one_tree_at_a_time():
    """The model evaluates its trees side by side (a table of leaves by split decisions, or a walk one
    level a step); walking each tree row by row and adding the leaves tree after tree (the plain
    reading of a model file) gives the same scores to the last bit, on values that sit on the
    thresholds too."""
    model = ranker.shipped()
    rng = np.random.default_rng(8)
    matrix = rng.random((120, len(FEATURES)))
    for tree in model.trees[:40]:  # some values exactly on a split: `<=` goes left
        for feature, threshold in zip(tree.feature, tree.threshold):
            matrix[rng.integers(len(matrix)), feature] = threshold
    ranked = within_text_ranks(matrix, list(model.ranked))
    expected = ranked[:, model.base[0]] * model.base[1] - ranked[:, model.penalty[0]] * model.penalty[1]
    for tree in model.trees:
        leaves = []
        for row in ranked:
            node = 0 if len(tree.feature) else -1
            while node >= 0:
                node = tree.left[node] if row[tree.feature[node]] <= tree.threshold[node] else tree.right[node]
            leaves.append(tree.leaf[~node])
        expected = expected + np.array(leaves)
    assert np.array_equal(model.score(matrix), expected)
    assert model.score(matrix[:0]).shape == (0,)
    forest = Forest.of(model.trees)  # small trees are read as a table; larger ones walked level by level
    assert forest.table is not None
    assert np.array_equal(forest.leaves(ranked), replace(forest, table=None).leaves(ranked))


def test_a_model_of_other_features_is_refused(tmp_path):
    data = json.loads((ROOT / "graphctx" / "context" / "models" / ranker.SHIPPED).read_text())
    data["features"] = data["features"][:-1] + ["something_else"]
    path = tmp_path / "other.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ranker.ModelError, match="unknown \\['something_else'\\].*retrain"):
        ranker.load(path)
    path.write_text(json.dumps({**data, "format": "another"}))
    with pytest.raises(ranker.ModelError, match="not a graphctx-ranker model file"):
        ranker.load(path)


def test_a_tiny_training_run_ranks_the_planted_answer_first():
    lgb = pytest.importorskip("lightgbm", reason="the training extra (pip install -e '.[train]')")
    rng = np.random.default_rng(11)

    def groups(n: int):
        xs, ys = [], []
        for _ in range(n):
            x = rng.random((20, len(FEATURES)))
            x[:, INDEX["name_exact"]] = 0.0
            planted = rng.integers(20)
            x[planted, INDEX["name_exact"]] = 1.0  # the one signal that tells the answer apart
            y = np.zeros(20)
            y[planted] = 1
            xs.append(x)
            ys.append(y)
        return xs, ys

    xs, ys = groups(60)
    booster = lgb.train({"objective": "lambdarank", "num_leaves": 4, "min_data_in_leaf": 5, "verbose": -1,
                         "deterministic": True, "num_threads": 1, "seed": 1},
                        lgb.Dataset(np.vstack(xs), np.concatenate(ys), group=[20] * 60, feature_name=list(FEATURES)),
                        num_boost_round=20)
    model = ranker.from_dict(ranker.from_lightgbm(booster.dump_model()))
    test_x, test_y = groups(10)
    for x, y in zip(test_x, test_y):
        assert model.order(x)[0] == int(np.argmax(y))
        assert np.allclose(model.score(x), booster.predict(x), atol=1e-9)  # numpy agrees with LightGBM


def test_a_ranked_model_reads_its_columns_as_ranks_within_the_text():
    """A model trained on a column as ranks scores a text's candidates by their rank there, so the
    same candidates with every value of that column doubled (a longer text) keep their scores."""
    lgb = pytest.importorskip("lightgbm", reason="the training extra (pip install -e '.[train]')")
    from graphctx.context.features import within_text_ranks

    rng = np.random.default_rng(5)
    col = INDEX["name_words"]
    xs, ys = [], []
    for _ in range(60):
        x = rng.random((20, len(FEATURES))) * 0.1
        y = np.zeros(20)
        y[int(np.argmax(x[:, col]))] = 1  # the best overlap of its text is the answer
        xs.append(within_text_ranks(x, [col]))
        ys.append(y)
    booster = lgb.train({"objective": "lambdarank", "num_leaves": 4, "min_data_in_leaf": 5, "verbose": -1,
                         "deterministic": True, "num_threads": 1, "seed": 1},
                        lgb.Dataset(np.vstack(xs), np.concatenate(ys), group=[20] * 60, feature_name=list(FEATURES)),
                        num_boost_round=20)
    model = ranker.from_dict(json.loads(json.dumps(ranker.from_lightgbm(booster.dump_model(), ranked=("name_words",)))))
    x = rng.random((20, len(FEATURES))) * 0.1
    longer = x.copy()
    longer[:, col] *= 2
    assert model.order(x)[0] == int(np.argmax(x[:, col]))
    assert np.array_equal(model.score(x), model.score(longer))
    assert np.allclose(model.score(x), booster.predict(within_text_ranks(x, [col])), atol=1e-9)
    bad = {**ranker.from_lightgbm(booster.dump_model()), "ranked": ["no_such_feature"]}
    with pytest.raises(ranker.ModelError, match="unknown features \\['no_such_feature'\\].*retrain"):
        ranker.from_dict(bad)


def test_a_size_penalty_lowers_long_candidates_by_its_weight():
    """The shipped model subtracts weight x lines; the same trees without it score that much higher,
    so of two candidates alike but for their size, the shorter comes first."""
    data = json.loads((ROOT / "graphctx" / "context" / "models" / ranker.SHIPPED).read_text())
    assert data["penalty"]["feature"] == "lines" and data["penalty"]["weight"] > 0
    with_penalty = ranker.from_dict(data)
    without = ranker.from_dict({k: v for k, v in data.items() if k != "penalty"})
    matrix = np.random.default_rng(4).random((50, len(FEATURES)))
    lines = matrix[:, INDEX["lines"]]
    assert np.allclose(without.score(matrix) - with_penalty.score(matrix), data["penalty"]["weight"] * lines)
    pair = np.vstack([matrix[0], matrix[0]])
    pair[1, INDEX["lines"]] = pair[0, INDEX["lines"]] + 2.0
    assert with_penalty.order(pair) == [0, 1]
    for bad, message in ((dict(feature="no_such_feature", weight=1), "penalty feature 'no_such_feature'"),
                         (dict(feature=data["ranked"][0], weight=1), "also ranked")):
        with pytest.raises(ranker.ModelError, match=message):
            ranker.from_dict({**data, "penalty": bad})


# ---- the learned ranker in answers

def test_answers_with_the_learned_ranker_stay_within_budget(small):
    learned = Project.policy("debug", ["blend.learned=true"])
    assert not Project.policy("debug").blend.learned  # opt-in: see the policy's note
    text = "parse_config loses the case of values"
    for budget in (300, 1000):
        answer, rendered = small.intent("debug", text, token_budget=budget, format="json", policy=learned)
        assert answer.tokens_used <= budget and Project.count_tokens(rendered) <= budget
        assert answer.items[0].id in ("pkg/parser.py::parse_config", "pkg/parser.py::normalise")
    ranked = small.rank_text(text, policy=learned)
    hand = small.rank_text(text)
    assert sorted(e for e, _ in ranked) == sorted(e for e, _ in hand)  # re-ordered, nothing added or lost
    scores = [s for _, s in ranked]
    assert scores == sorted(scores, reverse=True)


# ---- the corpus miner

@pytest.fixture(scope="module")
def mined(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("mined")
    work = base / "work"
    work.mkdir()
    git_as(work, "init", "-q", "-b", "main")
    shas = {"init": commit_files(work, {"pkg/__init__.py": "", "pkg/parser.py": PARSER, "tests/test_parser.py": TEST},
                            "Initial import of the configuration parser")}
    shas["fix"] = commit_files(work, {"pkg/parser.py": PARSER.replace(".lower()", "")},
                          "Keep the case of configuration values when reading them")
    shas["bot"] = commit_files(work, {"pkg/parser.py": PARSER.replace(".lower()", "").replace("out = {}", "out = dict()")},
                          "Modernise the dictionary construction in the parser", author="renovate[bot] <bot@example.com>")
    shas["tests"] = commit_files(work, {"tests/test_parser.py": TEST + "\n\ndef test_more():\n    pass\n"},
                            "Cover more configuration shapes in the tests")
    shas["revert"] = commit_files(work, {"pkg/parser.py": PARSER}, 'Revert "Keep the case of configuration values"')
    repos = base / "repos"
    repos.mkdir()
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(repos / "owner__cfg.git")], check=True)
    head = git_as(work, "rev-parse", "HEAD")
    (base / "repos.json").write_text(json.dumps({"repositories": [{"repo": "owner/cfg", "rev": head, "role": "train"}]}))
    data = base / "data"
    for step in ("mine", "features"):
        result = subprocess.run([sys.executable, str(CORPUS), step, "--repos-dir", str(repos), "--data", str(data),
                                 "--repos-file", str(base / "repos.json")], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
    return {"data": data, "shas": shas, "repos": repos, "base": base}


def test_the_miner_keeps_fixes_and_counts_what_it_skipped(mined):
    manifest = json.loads((mined["data"] / "manifest.json").read_text())
    entry = manifest["repositories"]["owner/cfg"]
    assert entry["reasons"] == {"kept": 1, "bot author": 1, "tests only": 1, "revert": 1, "root commit": 1}
    assert entry["kept"] == 1 and entry["scanned"] == 5 and manifest["totals"]["train"] == {"repositories": 1, "instances": 1}
    rows = [json.loads(line) for line in (mined["data"] / "sets" / "owner__cfg.jsonl").read_text().splitlines()]
    assert [r["base_commit"] for r in rows] == [mined["shas"]["init"]]
    assert rows[0]["gold_functions"] == ["pkg/parser.py:normalise"]


def test_the_miner_labels_the_gold_candidate(mined):
    data = np.load(mined["data"] / "features" / "owner__cfg.npz")
    meta = json.loads(str(data["meta"]))
    assert tuple(data["features"]) == FEATURES and data["x"].shape[1] == len(FEATURES)
    positives = [meta[0]["keys"][i] for i in np.flatnonzero(data["y"])]
    assert positives == ["pkg/parser.py:normalise"]


def test_the_miner_refuses_a_benchmark_repository(tmp_path):
    (tmp_path / "repos.json").write_text(json.dumps({"repositories": [{"repo": "psf/requests", "rev": "HEAD", "role": "train"}]}))
    result = subprocess.run([sys.executable, str(CORPUS), "mine", "--repos-dir", str(tmp_path), "--data", str(tmp_path / "d"),
                             "--repos-file", str(tmp_path / "repos.json")], capture_output=True, text=True)
    assert result.returncode != 0 and "benchmark repository psf/requests" in result.stderr


def test_bench_runs_the_ablations_rungs_side_by_side(mined):
    """Text alone, + graph (the default), + the learned ranker, + the code embedding: one run."""
    out = mined["base"] / "bench"
    result = subprocess.run([sys.executable, "-m", "graphctx.cli.main", "bench", "run",
                             str(mined["data"] / "sets" / "owner__cfg.jsonl"), "--repos-dir", str(mined["repos"]),
                             "--cache-dir", str(mined["base"] / "cache"), "-o", str(out),
                             "--systems", "graphctx-text,graphctx,graphctx-learned,graphctx-semantic", "--budgets", "400", "--budget", "400",
                             "--json"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    rungs = ("graphctx-text", "graphctx", "graphctx-learned", "graphctx-semantic")
    assert set(rungs) <= set(report["systems"])
    for system in rungs:
        assert report["systems"][system]["within@400"] == 100.0
    semantic = json.loads(next((out / "instances" / "graphctx-semantic").glob("*.json")).read_text())
    assert semantic["config"]["embedding"] == Project.embedding_id()
    learned = json.loads(next((out / "instances" / "graphctx-learned").glob("*.json")).read_text())
    hand = json.loads(next((out / "instances" / "graphctx").glob("*.json")).read_text())
    assert learned["config"]["ranker"] == Project.ranker_id() and "ranker" not in hand["config"]
    text = json.loads(next((out / "instances" / "graphctx-text").glob("*.json")).read_text())
    assert text["config"]["variant"] == ["walk.text_alpha=0"] and "variant" not in hand["config"]
