"""The reliability suite (benchmarks/reliability/), small enough for CI: each probe runs with small
counts against real processes (killed index runs, record writers, MCP servers in memory, over stdio
and HTTP, the CLI) and must find no problem. A probe that finds a problem not fixed yet is marked
xfail(strict=True) naming the fix it waits for: once the fix lands the test passes, strict turns
that into a failure, and the mark comes off. The full-size run is `python benchmarks/reliability/run.py`.
The last tests check that the probes' judges do see problems, so a probe cannot pass by looking away."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from reliability import procs  # noqa: E402
from reliability.cli_sweep import cli_sweep  # noqa: E402
from reliability.gen import Project, copy_sources, difference, snapshot  # noqa: E402
from reliability.hostile_files import CONTENTS, LINKS, NAMES, hostile_files  # noqa: E402
from reliability.http_load import http_load  # noqa: E402
from reliability.kill_index import kill_index_runs  # noqa: E402
from reliability.mcp_fuzz import deep_request, fuzz_project, judge, mcp_fuzz  # noqa: E402
from reliability.record_writers import concurrent_record_writers  # noqa: E402
from reliability.tally import Tally, unclear_error  # noqa: E402


def passed(tally: Tally) -> bool:
    print(tally.report())
    return tally.passed


@pytest.fixture(scope="module")
def fuzz_root(tmp_path_factory) -> tuple[Path, list[str]]:
    return fuzz_project(tmp_path_factory.mktemp("fuzz"))


# ---- 1. killed index runs

def test_killed_index_runs_leave_a_working_index(tmp_path):
    assert passed(kill_index_runs(tmp_path, rounds=3, seed=1, modules=100, check_workers=False))


@pytest.mark.skipif(not procs.proc_available(), reason="needs /proc to list a process's workers")
def test_killed_index_runs_leave_no_worker_processes(tmp_path):
    tally = kill_index_runs(tmp_path, rounds=4, seed=2, modules=240, anchors=("parsing",), check_index=False,
                            kill_first_build=False)
    assert passed(tally)
    assert tally.notes["kills with workers alive"] > 0  # or the probe looked at nothing (four rounds: a busy machine may miss one)


# ---- 2. concurrent record writers

def test_concurrent_record_writers_lose_and_duplicate_nothing(tmp_path):
    tally = concurrent_record_writers(tmp_path, writers=3, records=8)
    assert passed(tally)
    assert tally.tried == 3 * 8 * 2


# ---- 3. the MCP fuzzer

@pytest.mark.parametrize("transport", ["memory-auto", "memory-legacy"])
def test_mcp_fuzz_in_memory(fuzz_root, transport):
    root, vocabulary = fuzz_root
    assert passed(mcp_fuzz(root, vocabulary, transport, calls=50, seed=3))


# Nesting stays at 50 here: a request nested 200 deep is the next test's (each one costs the whole call limit).
def test_mcp_fuzz_over_stdio(fuzz_root):
    root, vocabulary = fuzz_root
    assert passed(mcp_fuzz(root, vocabulary, "stdio", calls=50, seed=3, max_nesting=50))


def test_a_request_nested_too_deep_is_answered(fuzz_root):
    root, _ = fuzz_root
    assert passed(deep_request(root, call_limit_s=10))


# ---- 4. load over HTTP

def test_http_load(tmp_path):
    tally = http_load(tmp_path, clients=3, calls=8)
    assert passed(tally)
    assert tally.tried == 3 * 8 + 1 and len(tally.latencies_ms) == 3 * 8


# ---- 5. hostile files

def test_hostile_file_contents(tmp_path):
    assert passed(hostile_files(tmp_path, functions=10_000, nesting=10_000, only=CONTENTS, diagnose=False))


def test_hostile_symlinks(tmp_path):
    assert passed(hostile_files(tmp_path, only=LINKS, diagnose=False))


def test_hostile_file_names(tmp_path):
    assert passed(hostile_files(tmp_path, only=NAMES, diagnose=False))


# ---- 6. the CLI traceback sweep

def test_cli_sweep(tmp_path):
    assert passed(cli_sweep(tmp_path, ("flags", "odd", "files", "values"), seed=4, sample=6))


def test_cli_sweep_corrupt_index(tmp_path):
    assert passed(cli_sweep(tmp_path, ("corrupt",), seed=4))


def test_cli_sweep_long_names(tmp_path):
    assert passed(cli_sweep(tmp_path, ("long",), seed=4))


def test_cli_sweep_standard_input(tmp_path):
    assert passed(cli_sweep(tmp_path, ("stdin",), seed=4))


def test_cli_sweep_serve_addresses(tmp_path):
    assert passed(cli_sweep(tmp_path, ("serve",), seed=4))


# ---- the judges see problems

def test_an_error_must_read_as_one_clear_sentence():
    assert unclear_error("search has no argument 'limt' (did you mean 'limit'?)") is None
    assert "internal error" in unclear_error("internal error: KeyError: 'x'")
    assert unclear_error("Traceback (most recent call last):\n  File ...") is not None
    assert unclear_error("1 validation error for Model\nx\n  For further information visit https://errors.pydantic.dev")
    assert "2,000" in unclear_error("unknown tool '" + "x" * 3000 + "'")
    assert "start with a letter" in unclear_error("* is not an indexed source file")
    assert unclear_error("   ") == "empty error message"


def test_fuzz_judge_counts_each_outcome():
    tally = Tally("judge")
    judge(tally, "a", "result", "# graphctx search: x", is_error=False)
    judge(tally, "b", "result", "token_budget must be between 100 and 100000; got 5")
    judge(tally, "c", "result", "internal error: ValueError: boom")
    judge(tally, "d", "mcp_error", "x" * 5000)
    assert (tally.outcomes["ok"], tally.outcomes["failed"], tally.notes["internal errors"]) == (2, 2, 1)
    assert not tally.passed and len(tally.problems) == 2


def test_record_check_sees_a_lost_record(tmp_path):
    from reliability.record_writers import CATEGORY, _check

    from graphctx.records import RecordStore

    root = tmp_path / "repo"
    root.mkdir()
    with RecordStore(root, holds_ephemeral=False, author="t") as store:
        store.remember(title="kept", body="b", category=CATEGORY)
        store.remember(title="twice", body="b", category=CATEGORY)
        store.remember(title="twice", body="c", category=CATEGORY)
    written = {"t": [{"title": "kept", "key": None}, {"title": "gone", "key": None}, {"title": "twice", "key": None}]}
    tally = Tally("records")
    _check(root, written, tally)
    assert (tally.outcomes["ok"], tally.outcomes["lost"], tally.outcomes["failed"]) == (1, 1, 2)  # and no shared key


def test_index_comparison_sees_a_difference(tmp_path):
    import random

    project = Project(tmp_path / "a", random.Random(0), modules=10, workers=1)
    copy = copy_sources(project.root, tmp_path / "b")
    for root in (project.root, copy):
        assert procs.run_cli(["index", str(root), "-q"]).returncode == 0
    assert difference(snapshot(project.root), snapshot(copy)) is None
    conn = sqlite3.connect(copy / ".graphctx" / "index.db")
    with conn:
        conn.execute("DELETE FROM edge_keys WHERE rowid IN (SELECT rowid FROM edge_keys LIMIT 1)")
    conn.close()
    assert "edges: 0 extra, 1 missing" in difference(snapshot(copy), snapshot(project.root))
