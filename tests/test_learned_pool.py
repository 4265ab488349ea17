"""The learned ranker's widened candidate pool (context/pool.py): on a repository built here, the
members of the best files and the one-hop neighbours of the best candidates join past the blend's
best, the name's overlap with the text first, never more than asked; the engine re-orders the widened
pool when the policy asks, within budget, from the API and the CLI; and the candidate study
(benchmarks/retrieval/learned/candidates.py) sorts a commit's gold function by where it stands."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import commit_files, git_as, write_tree
from graphctx.context import pool
from graphctx.project import Project

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "benchmarks" / "retrieval" / "learned" / "candidates.py"

PARSER = '''"""Reads configuration files."""


def parse_config(text):
    """Parse key=value lines into a dict."""
    out = {}
    for line in text.splitlines():
        key, _, value = line.partition("=")
        out[key.strip()] = normalise(value)
    return out


def normalise(value):
    def strip_quotes(v):
        return v.strip('"')
    return strip_quotes(value.strip().lower())


def render_value(value):
    return str(value)


class Loader:
    def load_file(self, path):
        with open(path) as handle:
            return parse_config(handle.read())

    def cache_path(self):
        return "~/.cache"
'''
OTHER = '''def unrelated_helper():
    return 1
'''
PARSE = "pkg/parser.py::parse_config"
NORMALISE = "pkg/parser.py::normalise"


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Project:
    root = write_tree(tmp_path_factory.mktemp("pool"), {"pkg/__init__.py": "", "pkg/parser.py": PARSER, "pkg/other.py": OTHER})
    project = Project(root, find=False, ephemeral=False)
    project.index()
    yield project
    project.close()


def test_neighbours_of_the_best_candidates_join_past_it(small):
    g = small.graph
    out = pool.widened(g, [PARSE], {}, ["value"], files=0, neighbours=1, extra=10)
    assert out[0] == PARSE
    assert set(out[1:]) == {NORMALISE, "pkg/parser.py::Loader.load_file"}  # its callee and its caller
    method = pool.widened(g, ["pkg/parser.py::Loader.load_file"], {}, [], files=0, neighbours=1, extra=10)
    assert set(method[1:]) == {PARSE, "pkg/parser.py::Loader.cache_path"}  # its callee; its class's other method
    assert "pkg/parser.py::normalise.strip_quotes" not in out  # nested: its function's body holds it


def test_the_best_files_members_join_and_the_texts_words_come_first(small):
    g = small.graph
    out = pool.widened(g, [PARSE], {NORMALISE: 0.5}, ["render", "value"], files=1, neighbours=0, extra=2)
    # the text's words in its name first, then the blend's score; no more than asked
    assert out == [PARSE, "pkg/parser.py::render_value", NORMALISE]
    assert "pkg/other.py::unrelated_helper" not in pool.widened(g, [PARSE], {}, [], files=1, neighbours=0, extra=50)
    everything = pool.widened(g, [PARSE], {}, [], files=2, neighbours=0, extra=50)
    assert "pkg/other.py::unrelated_helper" not in everything  # pkg/other.py holds none of the best candidates
    assert pool.widened(g, [PARSE], {}, ["value"], files=1, neighbours=1, extra=0) == [PARSE]


def test_the_engine_reorders_the_widened_pool_when_asked(small):
    text = "parse_config output for values"
    narrow = Project.policy("debug", ["blend.learned=true", "blend.rerank=1"])
    wide = Project.policy("debug", ["blend.learned=true", "blend.rerank=1", "blend.widen=3", "blend.widen_files=1",
                                    "blend.widen_neighbours=1"])
    ids, matrix = small.rank_text_features(text, policy=wide)
    assert len(ids) == 4 and matrix.shape[0] == 4
    assert len(small.rank_text_features(text, policy=narrow)[0]) == 1
    ranked = small.rank_text(text, policy=wide)
    assert {e for e, _ in ranked[:4]} == set(ids)  # the widened pool, re-ordered, leads
    scores = [s for _, s in ranked]
    assert scores == sorted(scores, reverse=True)
    assert len({e for e, _ in ranked}) == len(ranked)  # nothing twice
    for budget in (300, 1000):
        answer, rendered = small.intent("debug", text, token_budget=budget, format="json", policy=wide)
        assert answer.tokens_used <= budget and Project.count_tokens(rendered) <= budget


# ---- the candidate study

def test_the_study_sorts_a_missed_gold_function(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    git_as(work, "init", "-q", "-b", "main")
    commit_files(work, {"pkg/__init__.py": "", "pkg/parser.py": PARSER, "pkg/other.py": OTHER},
                 "Initial import of the configuration parser")
    fix = commit_files(work, {"pkg/parser.py": PARSER.replace('"~/.cache"', '"~/.config"')},
                       "Read the loader's files from the configuration folder")
    repos = tmp_path / "repos"
    repos.mkdir()
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(repos / "owner__cfg.git")], check=True)
    data = tmp_path / "data"
    (data / "sets").mkdir(parents=True)
    parent = git_as(work, "rev-parse", "HEAD~1")
    instance = {"instance_id": "owner__cfg-1", "repo": "owner/cfg", "base_commit": parent, "gold_files": ["pkg/parser.py"],
                "gold_functions": ["pkg/parser.py:Loader.cache_path"], "gold_modules": ["pkg/parser.py:Loader"],
                "edited_lines": {"pkg/parser.py": [28]}, "subset": "train-history-nonlexical", "lexical": False,
                "problem_statement": "Read the loader's files from the configuration folder"}
    (data / "sets" / "owner__cfg.jsonl").write_text(json.dumps(instance) + "\n")
    (tmp_path / "repos.json").write_text(json.dumps({"repositories": [{"repo": "owner/cfg", "rev": fix, "role": "train"}]}))
    study = subprocess.run([sys.executable, str(STUDY), "study", "--repos-dir", str(repos), "--data", str(data),
                            "--repos-file", str(tmp_path / "repos.json"), "--head", "2"], capture_output=True, text=True)
    assert study.returncode == 0, study.stderr
    row = json.loads((data / "candidates" / "owner__cfg.jsonl").read_text())
    assert row["exact"] and row["role"] == "train" and row["sizes"]["base"] == 2
    # Outside the blend's best two, in their file, and a method of the class of one of them.
    missed = row["missing"]["pkg/parser.py:Loader.cache_path"]
    assert missed["file"] and missed["graph"] and not missed["absent"] and not missed["path"]
    assert row["covered"]["base"] == 0 and row["covered"]["w3-20-100"] == 1  # widened, the pool holds it
    report = subprocess.run([sys.executable, str(STUDY), "report", "--data", str(data), "--folds", "0"],
                            capture_output=True, text=True)
    assert report.returncode == 0, report.stderr
    summary = json.loads(report.stdout)["train"]
    assert summary["n"] == 1 and summary["recall"] == {**summary["recall"], "base": 0.0, "w3-20-100": 100.0}
    assert summary["categories"]["instances_missing"] == 1
    # The training corpus records the widened pool when asked, the missed gold labelled in it.
    corpus = subprocess.run([sys.executable, str(STUDY.parent / "corpus.py"), "features", "--repos-dir", str(repos),
                             "--data", str(data), "--repos-file", str(tmp_path / "repos.json"), "--candidates", "2",
                             "--widen", "5"], capture_output=True, text=True)
    assert corpus.returncode == 0, corpus.stderr
    stored = np.load(data / "features" / "owner__cfg.npz")
    keys = json.loads(str(stored["meta"]))[0]["keys"]
    assert 2 < len(keys) <= 7 and stored["x"].shape[0] == len(keys)
    assert [keys[i] for i in np.flatnonzero(stored["y"])] == ["pkg/parser.py:Loader.cache_path"]
    # The CLI's benchmark runs the learned ranker over the widened pool, within budget; a misspelt
    # setting is refused with the right name.
    bench = lambda *policy: subprocess.run([  # noqa: E731
        sys.executable, "-m", "graphctx.cli.main", "bench", "run", str(data / "sets" / "owner__cfg.jsonl"),
        "--repos-dir", str(repos), "--cache-dir", str(tmp_path / "cache"), "-o", str(tmp_path / "bench"),
        "--systems", "graphctx-learned", "--budgets", "400", "--budget", "400", "--json", *policy],
        capture_output=True, text=True)
    ok = bench("--policy", "blend.widen=100")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["systems"]["graphctx-learned"]["within@400"] == 100.0
    bad = bench("--policy", "blend.widen_file=3")
    assert bad.returncode == 2 and "widen_files" in bad.stderr and "Traceback" not in bad.stderr


def test_training_can_keep_a_widened_pools_head():
    sys.path.insert(0, str(STUDY.parent))
    from train import pool_head

    part = {"x": np.arange(10, dtype=float)[:, None], "y": np.array([0, 0, 1, 0, 0, 1, 0, 0, 0, 1]),
            "group": np.array([0, 0, 0, 0, 1, 1, 1, 2, 2, 2]),
            "meta": [{"keys": list("abcd")}, {"keys": list("efg")}, {"keys": list("hij")}]}
    head = pool_head(part, 2)
    assert head["x"][:, 0].tolist() == [0, 1, 4, 5, 7, 8] and head["y"].tolist() == [0, 0, 0, 1, 0, 0]
    assert head["group"].tolist() == [0, 0, 1, 1, 2, 2] and [m["keys"] for m in head["meta"]] == [["a", "b"], ["e", "f"], ["h", "i"]]
