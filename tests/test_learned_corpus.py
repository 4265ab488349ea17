"""The learned ranker's corpus and training tools on repositories and data built here: one indexed
parent tree serves later commits only while it holds their gold functions unchanged (and records
so), and the trainer's paired test, repository folds and cross-validation behave as stated."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import commit_files, git_as
from test_learned_ranker import PARSER  # the small module both learned-ranker tests mine
from graphctx.context.features import FEATURES, INDEX

ROOT = Path(__file__).resolve().parents[1]
LEARNED = ROOT / "benchmarks" / "retrieval" / "learned"
sys.path.insert(0, str(LEARNED))
import reuse  # noqa: E402
import train  # noqa: E402


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> dict:
    """init, then three fixes: normalise, then Loader.load_file (normalise's file changed, the method
    did not), then normalise again (changed since init by the first fix)."""
    base = tmp_path_factory.mktemp("history")
    work = base / "work"
    work.mkdir()
    git_as(work, "init", "-q", "-b", "main")
    v1 = PARSER.replace(".lower()", "")
    v2 = v1.replace("with open(path) as", 'with open(path, encoding="utf-8") as')
    v3 = v2.replace("return value.strip()", "return value.strip().strip('\"')")
    shas = {"init": commit_files(work, {"pkg/__init__.py": "", "pkg/parser.py": PARSER}, "Initial import of the parser"),
            "fix1": commit_files(work, {"pkg/parser.py": v1}, "Keep the case of configuration values when reading them"),
            "fix2": commit_files(work, {"pkg/parser.py": v2}, "Read configuration files as UTF-8 whatever the locale says"),
            "fix3": commit_files(work, {"pkg/parser.py": v3}, "Strip quotes around configuration values as well as blanks")}
    repos = base / "repos"
    repos.mkdir()
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(repos / "owner__cfg.git")], check=True)
    (base / "repos.json").write_text(json.dumps({"repositories": [{"repo": "owner/cfg", "rev": shas["fix3"], "role": "train"}]}))
    return {"base": base, "repos": repos, "git_dir": repos / "owner__cfg.git", "shas": shas}


def corpus(history: dict, step: str, data: Path, *extra: str) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, str(LEARNED / "corpus.py"), step, "--repos-dir", str(history["repos"]),
                             "--data", str(data), "--repos-file", str(history["base"] / "repos.json"), *extra],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result


def features_of(history: dict, window: int) -> tuple[list[dict], dict, np.lib.npyio.NpzFile]:
    data = history["base"] / f"data-window-{window}"
    corpus(history, "mine", data)
    corpus(history, "features", data, "--window", str(window))
    npz = np.load(data / "features" / "owner__cfg.npz")
    return json.loads(str(npz["meta"])), json.loads((data / "features" / "owner__cfg.json").read_text()), npz


def test_gold_unchanged_compares_the_function_not_the_file(history):
    git_dir, shas = history["git_dir"], history["shas"]
    assert reuse.gold_unchanged(git_dir, shas["init"], shas["fix1"], ["pkg/parser.py:Loader.load_file"])
    assert not reuse.gold_unchanged(git_dir, shas["init"], shas["fix1"], ["pkg/parser.py:normalise"])
    assert not reuse.gold_unchanged(git_dir, shas["init"], shas["fix1"], ["pkg/parser.py:gone"])
    assert not reuse.gold_unchanged(git_dir, shas["init"], shas["fix1"], ["pkg/missing.py:normalise"])
    assert reuse.gold_unchanged(git_dir, shas["fix1"], shas["fix1"], ["pkg/parser.py:normalise"])


def test_a_window_reuses_a_tree_only_where_the_gold_is_unchanged(history):
    meta, counts, npz = features_of(history, window=5)
    assert [m["gold"] for m in meta] == [["pkg/parser.py:normalise"], ["pkg/parser.py:Loader.load_file"],
                                         ["pkg/parser.py:normalise"]]  # oldest first
    # The second fix is ranked on init's tree (its method is the same there); the third fix's gold
    # changed since init, so its own parent is indexed.
    assert [m["exact"] for m in meta] == [True, False, True]
    assert counts["indexed_trees"] == 2 and counts["instances"] == 3
    starts = np.searchsorted(npz["group"], np.arange(3))
    ends = np.searchsorted(npz["group"], np.arange(3), side="right")
    for i, m in enumerate(meta):
        positives = [m["keys"][j - starts[i]] for j in range(starts[i], ends[i]) if npz["y"][j]]
        assert positives == m["gold"]
        assert m["text"]


def test_window_one_indexes_every_parent(history):
    meta, counts, _ = features_of(history, window=1)
    assert [m["exact"] for m in meta] == [True, True, True] and counts["indexed_trees"] == 3


# ---- training tools

def test_paired_test_counts_wins_losses_and_the_sign_test():
    base = [{"acc@10": v} for v in (0, 0, 1, 1, 0, 0)]
    other = [{"acc@10": v} for v in (1, 1, 1, 0, 0, 1)]
    out = train.paired_test(base, other)
    assert out["n"] == 6 and out["diff"] == 33.3 and (out["wins"], out["losses"]) == (3, 1)
    assert out["p_sign"] == 0.625  # 2 x P(X <= 1), X ~ Binomial(4, 1/2)
    assert out["ci95"][0] <= out["diff"] <= out["ci95"][1]
    assert train.paired_test(base, base)["p_sign"] == 1.0


def synthetic_repo(name: str, instances: int, rng) -> dict:
    """Instances of 20 candidates whose stored (hand-set) order is random and whose gold is the one
    candidate with name_exact set: a signal a ranker must learn."""
    xs, ys, groups, meta = [], [], [], []
    for i in range(instances):
        x = rng.random((20, len(FEATURES)))
        x[:, INDEX["name_exact"]] = 0.0
        gold = int(rng.integers(20))
        x[gold, INDEX["name_exact"]] = 1.0
        y = np.zeros(20, dtype=np.int32)
        y[gold] = 1
        keys = [f"m.py:f{j}" for j in range(20)]
        xs.append(x)
        ys.append(y)
        groups.append(np.full(20, i))
        meta.append({"instance_id": f"{name}-{i}", "repo": name, "lexical": False, "gold": [keys[gold]], "keys": keys,
                     "exact": True, "text": "word " * (5 + i % 40)})
    return {"x": np.vstack(xs), "y": np.concatenate(ys), "group": np.concatenate(groups), "meta": meta}


def test_folds_hold_whole_repositories_out():
    rng = np.random.default_rng(3)
    parts = [synthetic_repo(f"o/r{i}", n, rng) for i, n in enumerate((30, 10, 10, 10, 5))]
    folds = train.folds_of(parts, 3)
    assert sorted(i for f in folds for i in f) == [0, 1, 2, 3, 4]
    assert [0] in folds  # the largest repository alone fills a fold


def test_cross_validation_learns_a_planted_signal_across_repositories():
    pytest.importorskip("lightgbm", reason="the training extra (pip install -e '.[train]')")
    rng = np.random.default_rng(5)
    parts = [synthetic_repo(f"o/r{i}", 80, rng) for i in range(4)]
    cv = train.cross_validate(parts, "from-nothing", 2)
    assert cv["n"] == 320 and cv["learned"] == 100.0 and cv["hand-set"] < 80
    assert cv["paired"]["wins"] > 0 and cv["paired"]["losses"] == 0
    subset = train.select(train.concat(parts), train.issue_like)
    assert 0 < len(subset["meta"]) < 320
    assert all(train.issue_like(m) for m in subset["meta"])
    assert len(subset["x"]) == 20 * len(subset["meta"]) and subset["group"].max() == len(subset["meta"]) - 1


def test_dev_ranks_each_issue_on_its_own_base_tree(history):
    """The dev command walks one work tree from base to base; each issue's rows are those a fresh
    index of its base commit gives (the history instances serve as issues here)."""
    _, _, exact = features_of(history, window=1)
    data = history["base"] / "data-window-1"
    corpus(history, "dev", data, "--set", str(data / "sets" / "owner__cfg.jsonl"))
    dev = np.load(data / "features" / "dev-owner__cfg.npz")
    by_id = {m["instance_id"]: m["keys"] for m in json.loads(str(dev["meta"]))}
    assert by_id == {m["instance_id"]: m["keys"] for m in json.loads(str(exact["meta"]))}
    order = {m["instance_id"]: i for i, m in enumerate(json.loads(str(exact["meta"])))}
    for i, m in enumerate(json.loads(str(dev["meta"]))):
        j = order[m["instance_id"]]
        assert np.array_equal(dev["x"][dev["group"] == i], exact["x"][exact["group"] == j])


def test_relative_columns_are_per_text():
    from graphctx.context.features import BASE_FEATURES, RELATIVE, with_relative

    base = np.zeros((4, len(BASE_FEATURES)))
    col = BASE_FEATURES.index("name_words")
    base[:, col] = [0.5, 0.25, 0.0, 0.0]  # text 0: best 0.5; text 1: nothing overlaps
    wide = with_relative(base, np.array([0, 0, 1, 1]))
    assert wide.shape == (4, len(FEATURES)) and np.array_equal(wide[:, :len(BASE_FEATURES)], base)
    rel = wide[:, len(BASE_FEATURES) + RELATIVE.index("name_words")]
    assert rel.tolist() == [1.0, 0.5, 0.0, 0.0]
    assert with_relative(np.zeros((0, len(BASE_FEATURES)))).shape == (0, len(FEATURES))


def test_within_text_ranks_do_not_grow_with_the_text():
    """A long text's overlaps are all larger, but the candidates' ranks within it are the same."""
    from graphctx.context.features import within_text_ranks

    col = FEATURES.index("name_words")
    short, long = np.zeros((4, len(FEATURES))), np.zeros((4, len(FEATURES)))
    short[:, col] = [0.2, 0.1, 0.0, 0.1]
    long[:, col] = [0.9, 0.6, 0.0, 0.6]
    both = within_text_ranks(np.vstack([short, long]), [col], np.array([0, 0, 0, 0, 1, 1, 1, 1]))
    assert both[:4, col].tolist() == both[4:, col].tolist() == [1.0, 0.75, 0.0, 0.75]
    assert np.array_equal(within_text_ranks(short, [col]), both[:4])  # one text alone, as at query time
    other = FEATURES.index("lines")
    assert np.array_equal(both[:, other], np.zeros(8))  # columns not named stay as they are


def test_dev_with_bench_writes_the_results_a_bench_run_gives(history):
    """--bench runs `graphctx bench run`'s systems on each issue's walked tree: the same ranks as a
    run that materialises each base commit apart, read back by `graphctx bench report`; --resume then
    leaves alone the issues that have features and every system's result."""
    features_of(history, window=1)
    data = history["base"] / "data-window-1"
    dev_set = data / "sets" / "owner__cfg.jsonl"
    walked, separate = history["base"] / "bench-walked", history["base"] / "bench-separate"
    corpus(history, "dev", data, "--set", str(dev_set), "--bench", str(walked), "--systems", "graphctx,bm25-functions")
    run = subprocess.run([sys.executable, "-m", "graphctx.cli.main", "bench", "run", str(dev_set), "--repos-dir",
                          str(history["repos"]), "--cache-dir", str(history["base"] / "bench-cache"), "-o", str(separate),
                          "--systems", "graphctx,bm25-functions", "--budgets", "4000"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    ids = [json.loads(line)["instance_id"] for line in dev_set.read_text().splitlines()]
    assert ids
    for system in ("graphctx", "bm25-functions"):
        for instance_id in ids:
            mine = json.loads((walked / "instances" / system / f"{instance_id}.json").read_text())
            theirs = json.loads((separate / "instances" / system / f"{instance_id}.json").read_text())
            assert mine["ranks"] == theirs["ranks"] and mine["config"] == theirs["config"]
    report = subprocess.run([sys.executable, "-m", "graphctx.cli.main", "bench", "report", str(walked)],
                            capture_output=True, text=True)
    assert report.returncode == 0 and "| bm25-functions |" in report.stdout, report.stderr
    again = corpus(history, "dev", data, "--set", str(dev_set), "--resume", "--bench", str(walked),
                   "--systems", "graphctx,bm25-functions")
    assert not any(instance_id in again.stderr for instance_id in ids)  # nothing was ranked again


def test_evaluate_reports_the_hand_set_the_embedding_and_a_model_on_stored_features(tmp_path):
    """Two dev issues of 12 candidates: the first's gold ranked first by the hand-set blend, the
    second's eleventh; the cosine of that gold is high, so the embedding in the blend finds both."""
    from graphctx.context.features import BASE_FEATURES

    x = np.zeros((24, len(BASE_FEATURES)))
    x[:, BASE_FEATURES.index("hand_score")] = np.tile(np.linspace(1.0, 0.5, 12), 2)
    y = np.zeros(24, dtype=np.int8)
    y[0] = y[12 + 10] = 1
    x[12 + 10, BASE_FEATURES.index("semantic")] = 1.0
    keys = [f"m.py:f{i}" for i in range(12)]
    meta = [{"instance_id": f"i{n}", "repo": "o/r", "lexical": n == 0, "gold": [keys[0] if n == 0 else keys[10]],
             "keys": keys, "exact": True, "text": "t"} for n in range(2)]
    (tmp_path / "features").mkdir()
    np.savez_compressed(tmp_path / "features" / "dev-set.npz", x=x, y=y, group=np.repeat([0, 1], 12),
                        features=np.array(BASE_FEATURES), meta=np.array(json.dumps(meta)))
    out = tmp_path / "report.json"
    result = subprocess.run([sys.executable, str(LEARNED / "evaluate.py"), "--data", str(tmp_path), "--json", str(out)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())["dev"]
    assert report["hand-set"]["all"] == {"n": 2, "acc@5": 50.0, "acc@10": 50.0, "mrr": 54.5}
    assert report["hand-set"]["non-lexical"]["acc@10"] == 0.0
    assert report["hand-set+semantic"]["all"]["acc@10"] == 100.0
    assert report["hand-set+semantic"]["paired_vs_hand_set"]["wins"] == 1
    assert report["learned:shipped"]["all"]["n"] == 2 and report["learned:shipped"]["repositories"]["o/r"]["n"] == 2
    bad = subprocess.run([sys.executable, str(LEARNED / "evaluate.py"), "--data", str(tmp_path), "--model", "x=/no/such.json"],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "cannot read the ranker file" in bad.stderr and "Traceback" not in bad.stderr


def test_diagnose_names_each_kind_of_miss_and_packs_short_gold_first():
    import diagnose

    keys = ["a.py:f", "a.py:g", None, "b.py:h", "c.py:k", "d.py:m", "e.py:n"]
    assert diagnose.category(keys, ["a.py:g"], list(range(7))) == "hit"
    assert diagnose.category(keys, ["a.py:zz"], list(range(7))) == "not-candidate"
    many = [f"a.py:f{i}" for i in range(12)]
    assert diagnose.category(many, ["a.py:f11"], list(range(12))) == "right-file"
    spread = [f"{c}.py:f" for c in "abcdefghijkl"]
    assert diagnose.category(spread, ["l.py:f"], list(range(12))) == "wrong-file"
    # Two candidates: a 300-line body ranked first fills the budget; ranked second, the gold fits beside it.
    x = np.zeros((2, len(FEATURES)))
    x[:, INDEX["kind_function"]] = 1.0
    x[0, INDEX["lines"]], x[1, INDEX["lines"]] = np.log1p(380), np.log1p(20)
    pair = ["a.py:big", "a.py:gold"]
    assert diagnose.packed_recall(x, pair, ["a.py:gold"], [0, 1], 4000, 10.0, 0.5) == 0.0
    assert diagnose.packed_recall(x, pair, ["a.py:gold"], [1, 0], 4000, 10.0, 0.5) == 1.0
    scores = np.array([1.0, 0.9])
    assert list(np.argsort(-diagnose.with_penalty(scores, {"x": x}, 0.25))) == [1, 0]


def test_evaluate_against_pairs_two_extractions_hand_set_orders(tmp_path):
    """The same dev issue extracted by two versions of the blend: before, its gold is eleventh; after,
    first. An issue only one extraction holds is left out of the pairing."""
    from graphctx.context.features import BASE_FEATURES

    keys = [f"m.py:f{i}" for i in range(12)]

    def extraction(folder: Path, gold_places: list[int]) -> Path:
        n = len(gold_places)
        x = np.zeros((12 * n, len(BASE_FEATURES)))
        x[:, BASE_FEATURES.index("hand_score")] = np.tile(np.linspace(1.0, 0.5, 12), n)
        meta = [{"instance_id": f"i{k}", "repo": "o/r", "lexical": True, "gold": [keys[place]], "keys": keys,
                 "exact": True, "text": "t"} for k, place in enumerate(gold_places)]
        (folder / "features").mkdir(parents=True)
        np.savez_compressed(folder / "features" / "dev-set.npz", x=x, y=np.zeros(12 * n, dtype=np.int8),
                            group=np.repeat(np.arange(n), 12), features=np.array(BASE_FEATURES),
                            meta=np.array(json.dumps(meta)))
        return folder

    before, after = extraction(tmp_path / "before", [10]), extraction(tmp_path / "after", [0, 0])
    out = tmp_path / "compare.json"
    result = subprocess.run([sys.executable, str(LEARNED / "evaluate.py"), "--data", str(before), "--against", str(after),
                             "--json", str(out)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    acc10 = json.loads(out.read_text())["dev"]["all"]["acc@10"]
    assert (acc10["before"], acc10["after"]) == (0.0, 100.0)
    assert acc10["paired"]["n"] == 1 and acc10["paired"]["wins"] == 1
