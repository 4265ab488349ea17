"""The retrieval benchmark's harness on a small repository built here, with known commits and known
gold: diff parsing and gold derivation, the history-set filters, each measure on hand-computed
cases, budget compliance of every system's packet, and resuming an interrupted run."""

from __future__ import annotations

import json
import subprocess

import pytest

from conftest import commit_files, git_as
from graphctx.bench import gitrepo, metrics
from graphctx.bench.instances import HistoryOptions, Span, gold_from_lines, history_set, is_lexical, load_jsonl, write_jsonl
from graphctx.bench.runner import RunConfig, load_results, result_path, run

pytest.importorskip("bm25s")

CALC_V1 = '''"""Arithmetic."""


def add(a, b):
    return a + b


def sub(a, b):
    return a - b


class Calc:
    """A calculator."""

    scale = 1

    def mul(self, a, b):
        result = a * b
        return result * self.scale

    def div(self, a, b):
        def check(x):
            if x == 0:
                raise ZeroDivisionError
        check(b)
        return a / b
'''

# Commit 2 fixes Calc.mul and Calc.div's nested check (counts as Calc.div) and touches a test.
CALC_V2 = CALC_V1.replace("        result = a * b\n", "        result = int(a) * int(b)\n").replace(
    "            if x == 0:\n", "            if not x:\n")

UTIL = '''from pkg.calc import Calc


def double(x):
    return Calc().mul(x, 2)


def halve(x):
    return Calc().div(x, 2)
'''

TEST = '''from pkg.calc import add


def test_add():
    assert add(1, 2) == 3
'''


@pytest.fixture(scope="module")
def history_repo(tmp_path_factory) -> dict:
    """A work tree and its bare clone (at repos/owner__small.git), with the sha of each commit."""
    base = tmp_path_factory.mktemp("bench")
    work = base / "work"
    work.mkdir()
    git_as(work, "init", "-q", "-b", "main")
    shas = {}
    shas["init"] = commit_files(work, {"pkg/__init__.py": "", "pkg/calc.py": CALC_V1, "pkg/util.py": UTIL,
                                  "tests/test_calc.py": TEST}, "Initial import of the calculator package")
    shas["fix"] = commit_files(work, {"pkg/calc.py": CALC_V2, "tests/test_calc.py": TEST + "\n\ndef test_mul():\n    pass\n"},
                          "Fix Calc.mul for string inputs and the zero check in division")
    shas["docs"] = commit_files(work, {"README.md": "# calc\n"}, "Document the calculator in a readme")
    shas["bot"] = commit_files(work, {"pkg/util.py": UTIL.replace("2)", "2.0)")}, "Update helper constants for halving and doubling",
                          author="dependabot[bot] <bot@example.com>")
    shas["bump"] = commit_files(work, {"pkg/__init__.py": "__version__ = '1.2.3'\n"}, "Bump version to 1.2.3")
    shas["ws"] = commit_files(work, {"pkg/calc.py": CALC_V2.replace("    return a + b\n", "    return a + b   \n")},
                         "Strip trailing whitespace from the add function")
    shas["short"] = commit_files(work, {"pkg/calc.py": CALC_V2.replace("a - b", "a - b + 0")}, "tweak")
    shas["util"] = commit_files(work, {"pkg/util.py": UTIL.replace("2)", "2.0)").replace("Calc().div(x, 2.0)", "x / 2")},
                           "Halving no longer goes through the calculator object")
    repos = base / "repos"
    repos.mkdir()
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(repos / "owner__small.git")], check=True)
    return {"work": work, "repos": repos, "git_dir": repos / "owner__small.git", "shas": shas, "base": base}


# ---- diffs and gold

def test_parse_unified_diff_removed_lines_and_insertion_points():
    diff = (
        "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n"
        "@@ -3,2 +3,3 @@\n-old three\n-old four\n+new three\n+new four\n+new five\n"
        "@@ -10,0 +12,2 @@\n+added after ten\n+another\n"
        "@@ -20 +23 @@\n-twenty\n+twenty changed\n"
        "diff --git a/new.py b/new.py\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+x = 1\n"
    )
    files = gitrepo.parse_unified_diff(diff)
    assert [(f.old_path, f.new_path) for f in files] == [("m.py", "m.py"), (None, "new.py")]
    m = files[0]
    assert m.removed == [3, 4, 20]
    # Insertion points: the original line right after each run of added lines.
    assert m.insert_points == [5, 11, 21]
    assert m.edited_lines == [3, 4, 5, 11, 20, 21]


def test_gold_from_lines_nested_class_level_and_module_level():
    spans = [Span("add", "function", 4, 5), Span("Calc", "class", 12, 25), Span("Calc.mul", "method", 17, 19),
             Span("Calc.div", "method", 21, 25), Span("Calc.div.check", "function", 22, 24)]
    functions, modules, class_level, module_level = gold_from_lines("pkg/calc.py", spans, [1, 5, 15, 18, 23])
    assert functions == {"pkg/calc.py:add", "pkg/calc.py:Calc.mul", "pkg/calc.py:Calc.div"}  # check counts as Calc.div
    assert modules == {"pkg/calc.py:add", "pkg/calc.py:Calc"}
    assert class_level == {"pkg/calc.py:Calc"}  # line 15: the class attribute
    assert module_level == {"pkg/calc.py"}  # line 1: the module docstring


def test_is_lexical_names_function_class_or_stem():
    gold = ["pkg/calc.py:Calc.mul"]
    assert is_lexical("mul is wrong for strings", gold, ["pkg/calc.py:Calc"], ["pkg/calc.py"])
    assert is_lexical("the calc module breaks", gold, ["pkg/calc.py:Calc"], ["pkg/calc.py"])
    assert not is_lexical("multiplying strings gives the wrong answer", gold, ["pkg/calc.py:Calc"], ["pkg/calc.py"])


def test_find_git_dir_layouts(tmp_path, history_repo):
    assert gitrepo.find_git_dir(history_repo["repos"], "owner/small") == history_repo["git_dir"]
    alt = tmp_path / "owner+small" / "repo"
    alt.parent.mkdir()
    history_repo["git_dir"].rename(alt)
    try:
        assert gitrepo.find_git_dir(tmp_path, "owner/small") == alt
    finally:
        alt.rename(history_repo["git_dir"])
    with pytest.raises(gitrepo.BenchError, match="no git directory"):
        gitrepo.find_git_dir(tmp_path, "owner/missing")


def test_history_set_filters_and_gold(history_repo):
    shas = history_repo["shas"]
    rows = list(history_set(history_repo["git_dir"], "owner/small", HistoryOptions(limit=10)))
    reasons = {commit.sha: reason for commit, _, reason in rows}
    assert reasons[shas["docs"]] == "no source change"
    assert reasons[shas["bot"]] == "bot author"
    assert reasons[shas["bump"]] == "version bump"
    assert reasons[shas["ws"]] == "formatting or comments only"
    assert reasons[shas["short"]] == "short message"
    assert reasons[shas["init"]] == "root commit"
    kept = {commit.sha: inst for commit, inst, _ in rows if inst is not None}
    assert set(kept) == {shas["fix"], shas["util"]}
    fix = kept[shas["fix"]]
    assert fix.base_commit == shas["init"]
    assert fix.gold_files == ["pkg/calc.py"]  # the test file is not gold
    assert fix.gold_functions == ["pkg/calc.py:Calc.div", "pkg/calc.py:Calc.mul"]
    assert fix.gold_modules == ["pkg/calc.py:Calc"]
    assert fix.edited_lines == {"pkg/calc.py": [18, 19, 23, 24]}  # removed lines and the line after each insertion
    assert fix.lexical and fix.subset == "history-lexical"
    util = kept[shas["util"]]
    assert util.gold_functions == ["pkg/util.py:halve"]
    assert not util.lexical and util.subset == "history-nonlexical"


# ---- measures on hand-computed cases

def test_level_rankings_and_strict_acc():
    keys = {"a.py::f": ("a.py", "a.py:f", "a.py:f"), "a.py::C.m": ("a.py", "a.py:C", "a.py:C.m"),
            "b.py": ("b.py", None, None), "a.py::C": ("a.py", "a.py:C", None)}
    levels = metrics.level_rankings(["a.py::C", "b.py", "a.py::f", "a.py::C.m"], keys.__getitem__)
    assert levels == {"file": ["a.py", "b.py"], "module": ["a.py:C", "a.py:f"], "function": ["a.py:f", "a.py:C.m"]}
    ranks = metrics.gold_ranks(levels["function"], ["a.py:C.m", "z.py:g"])
    assert ranks == [2, None]
    assert metrics.acc_at([2, None], 5) == 0.0  # strict: every gold item must be in the top k
    assert metrics.acc_at([2, 4], 5) == 1.0
    assert metrics.acc_at([2, 4], 3) == 0.0
    assert metrics.acc_at([1, 9, None], 1) == 1.0  # more gold than k: k of them suffice
    assert metrics.acc_at([2, 9, None], 1) == 0.0
    assert metrics.acc_at([], 5) is None  # no gold at this level: not measured
    assert metrics.reciprocal_rank([4, None, 2]) == 0.5
    assert metrics.reciprocal_rank([None]) == 0.0
    m = metrics.instance_measures({"file": [1], "module": [3], "function": [6, 2]})
    assert (m["file_acc@1"], m["module_acc@5"], m["function_acc@5"], m["function_acc@10"]) == (1.0, 1.0, 0.0, 1.0)
    assert m["function_mrr"] == 0.5


def test_budget_measures():
    covered = {"a.py": set(range(10, 21)) | {30}, "b.py": {1}}
    out = metrics.budget_measures(
        covered, {"a.py", "b.py"}, tokens=900, budget=1000, gold_files=["a.py", "c.py"],
        gold_spans={"a.py:f": ("a.py", 10, 20), "a.py:g": ("a.py", 29, 31), "c.py:h": None},
        edited_lines={"a.py": [12, 30, 40], "c.py": [5]},
    )
    assert out["within"] and out["tokens"] == 900
    assert out["file_recall"] == 0.5
    assert out["function_recall"] == pytest.approx(1 / 3)  # g is partly shown; h is not in the index
    assert out["line_coverage"] == 0.5  # 12 and 30 of 12, 30, 40, c.py:5
    over = metrics.budget_measures({}, set(), tokens=1001, budget=1000, gold_files=[], gold_spans={}, edited_lines={})
    assert not over["within"] and over["file_recall"] is None and over["function_recall"] is None


# ---- end to end: budget compliance and resume

@pytest.fixture(scope="module")
def bench_run(history_repo, tmp_path_factory):
    base = tmp_path_factory.mktemp("run")
    instances = [inst for _, inst, _ in history_set(history_repo["git_dir"], "owner/small", HistoryOptions()) if inst]
    set_path = base / "small.jsonl"
    write_jsonl(set_path, instances)
    config = RunConfig(repos_dir=history_repo["repos"], cache_dir=base / "cache", out_dir=base / "out",
                       systems=("graphctx", "bm25-functions", "bm25-files", "repomap", "random", "oracle"),
                       budgets=(150, 400, 2000), workers=1)
    stats = run(config, load_jsonl(set_path))
    return {"config": config, "set": set_path, "stats": stats, "instances": instances}


def test_every_packet_within_budget(bench_run):
    assert bench_run["stats"]["failed"] == 0
    results = load_results(bench_run["config"].out_dir)
    assert set(results) == set(bench_run["config"].systems)
    for system, rows in results.items():
        assert len(rows) == len(bench_run["instances"])
        for row in rows.values():
            assert "error" not in row, row
            for budget, b in row["budgets"].items():
                assert b["within"] and b["tokens"] <= int(budget), (system, budget, b)


def test_oracle_and_graphctx_find_the_gold(bench_run):
    results = load_results(bench_run["config"].out_dir)
    for row in results["oracle"].values():
        assert row["measures"]["function_acc@5"] == 1.0
        assert row["budgets"]["2000"]["function_recall"] == 1.0
    fix = next(i for i in bench_run["instances"] if i.lexical)
    row = results["graphctx"][fix.instance_id]
    assert row["measures"]["file_acc@1"] == 1.0  # the message names Calc.mul
    assert row["ranks"]["function"][1] is not None


def test_resume_computes_only_what_is_missing(bench_run):
    config = bench_run["config"]
    instances = load_jsonl(bench_run["set"])
    assert run(config, instances)["to_compute"] == 0
    first = instances[0].instance_id
    result_path(config.out_dir, "bm25-files", first).unlink()
    result_path(config.out_dir, "random", first).write_text("{trunc")  # an interrupted write
    errored = result_path(config.out_dir, "oracle", first)
    errored.write_text(json.dumps({"error": "killed"}))
    stats = run(config, instances)
    assert stats["to_compute"] == 3 and stats["failed"] == 0
    results = load_results(config.out_dir)
    assert "error" not in results["oracle"][first] and "measures" in results["random"][first]


def test_cli_report_writes_tables_and_json(bench_run, capsys):
    from graphctx.bench.cli import main

    config = bench_run["config"]
    assert main(["report", str(config.out_dir), "--sets", str(bench_run["set"]), "--budget", "400"]) == 0
    report = json.loads((config.out_dir / "results.json").read_text())
    assert report["systems"]["oracle"]["n"] == len(bench_run["instances"])
    assert report["systems"]["graphctx"]["within@400"] == 100.0
    assert "bm25-functions" in report["significance"]
    assert "| graphctx |" in (config.out_dir / "report.md").read_text()
    capsys.readouterr()
    assert main(["report", str(config.out_dir), "--sets", str(bench_run["set"]), "--budget", "400", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["systems"]["oracle"]["n"] == len(bench_run["instances"])


def test_a_failing_system_gives_its_reason_on_the_progress_line(bench_run, tmp_path):
    """A system that fails on an instance says why, not just `=error`."""
    from dataclasses import replace

    config = replace(bench_run["config"], out_dir=tmp_path / "out", systems=("oracle", "aider-repomap"), aider_python=None)
    lines: list[str] = []
    stats = run(config, load_jsonl(bench_run["set"]), progress=lines.append)
    assert stats["failed"] == len(bench_run["instances"])
    progress = [line for line in lines if "aider-repomap=" in line]
    assert len(progress) == len(bench_run["instances"])
    assert all("oracle=ok aider-repomap=error (aider-repomap needs --aider-python" in line for line in progress), progress


def test_a_policy_trial_is_a_run_of_its_own(bench_run, tmp_path):
    """`--policy` changes graphctx's ranking policy for a tuning trial: results of another policy are
    recomputed, not reused, and each result records the settings it ran with."""
    import shutil
    from dataclasses import replace

    out = tmp_path / "out"
    shutil.copytree(bench_run["config"].out_dir, out)
    instances = load_jsonl(bench_run["set"])
    settings = ("blend.aside=1.0", "edges.calls=0.5,0.5")
    trial = replace(bench_run["config"], out_dir=out, systems=("graphctx",), policy=settings)
    stats = run(trial, instances)
    assert stats["to_compute"] == len(instances) and stats["failed"] == 0
    rows = load_results(out)["graphctx"]
    assert all(row["config"]["policy"] == list(settings) for row in rows.values())
    assert run(trial, instances)["to_compute"] == 0
    assert run(replace(trial, policy=()), instances)["to_compute"] == len(instances)  # the default again


def test_cli_refuses_a_mistyped_policy_setting_before_running(bench_run, tmp_path, capsys):
    from graphctx.bench.cli import main

    out = tmp_path / "out"
    code = main(["run", str(bench_run["set"]), "--repos-dir", str(bench_run["config"].repos_dir), "-o", str(out),
                 "--systems", "graphctx", "--policy", "seeds.txt=1"])
    assert code == 2 and not out.exists()
    assert "unknown policy setting 'seeds.txt'; did you mean seeds.text" in capsys.readouterr().err


def test_cli_refuses_an_unknown_system_with_the_closest_one(bench_run, tmp_path, capsys):
    from graphctx.bench.cli import main

    out = tmp_path / "out"
    code = main(["run", str(bench_run["set"]), "--repos-dir", str(bench_run["config"].repos_dir), "-o", str(out),
                 "--systems", "graphctx-txt,oracle"])
    assert code == 2 and not out.exists()
    assert "unknown systems ['graphctx-txt'] (did you mean 'graphctx-text' for 'graphctx-txt'?)" in capsys.readouterr().err


PARSER = '''def parse_header(line):
    name, _, value = line.partition(":")
    return name.strip(), value.strip()
'''

PARSER_TEST = '''from pkg.headers import parse_header


def test_parse_header_with_colon_in_value():
    assert parse_header("Location: http://x") == ("Location", "http://x")


def test_parse_header_empty_value():
    assert parse_header("Location:") == ("Location", "")
'''


@pytest.mark.parametrize("system", ["bm25-functions", "bm25-files"])
def test_honest_baselines_leave_out_tests_the_text_does_not_name(tree, system):
    from graphctx.bench.corpus import Repo
    from graphctx.bench.instances import Instance
    from graphctx.bench.systems import run_system
    from graphctx.project import Project

    root = tree({"pkg/__init__.py": "", "pkg/headers.py": PARSER, "tests/test_headers.py": PARSER_TEST})
    Project(root, find=False).index()
    repo = Repo(root)
    text = "parse_header drops the value after a colon in the Location header value"
    inst = Instance("i-1", "owner/small", "HEAD", text, ["pkg/headers.py"])
    ranked = run_system(system, repo, inst, [400], {}).ranked
    assert ranked and all("tests/" not in item for item in ranked)
    named = Instance("i-2", "owner/small", "HEAD", text + " (see tests/test_headers.py)", ["pkg/headers.py"])
    assert any("tests/test_headers.py" in item for item in run_system(system, repo, named, [400], {}).ranked)


IMAGES = '''def copy_image_files(image_paths, out_dir):
    for path in image_paths:
        out_dir.joinpath(path.name).write_bytes(path.read_bytes())


def image_url(src, width):
    return f"{src}?width={width}"
'''


@pytest.mark.parametrize("system", ["bm25-functions", "bm25-files"])
def test_honest_baselines_read_the_text_without_its_markup(tree, system):
    """A pasted screenshot's tag names images, widths and a host: read raw, it ranks image code above
    the code the issue is about; the baselines read the issue as graphctx does, without the tag."""
    from graphctx.bench.corpus import Repo
    from graphctx.bench.instances import Instance
    from graphctx.bench.systems import run_system
    from graphctx.project import Project

    root = tree({"pkg/__init__.py": "", "pkg/headers.py": PARSER, "pkg/images.py": IMAGES})
    Project(root, find=False).index()
    repo = Repo(root)
    shot = '<img width="528" alt="image" src="https://user-images.example.com/1/image-copy-files-url.png">'
    text = f"The Location header loses its value after the colon.\n\n{shot} {shot}\n"
    inst = Instance("i-1", "owner/small", "HEAD", text, ["pkg/headers.py"])
    assert run_system(system, repo, inst, [400], {}).ranked[0].startswith("pkg/headers.py")
