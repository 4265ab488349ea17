"""Probe 1: SIGKILL `graphctx index` at random moments, over runs on a generated project that changes
between runs, the very first build included. After each kill the index must open (`graphctx stats`
answers, no traceback, no "no such table", SQLite's quick_check passes) and the killed run's worker
processes must not outlive it; after a last clean run the index must equal a full rebuild of a fresh
copy of the same files."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from reliability import procs
from reliability.gen import Project, copy_sources, difference, snapshot
from reliability.tally import TRACEBACK, Tally

# Where a kill lands: anywhere in the run's life; right after a first build created its database
# (inside its transaction); while parser processes are alive (changes big enough to use them).
ANCHORS = ("any moment", "index created", "parsing")
CHANGE_SIZES = (1, 2, 5, 20, 60, 140)
WORKER_CHANGE = 140  # files changed before a "parsing" kill: well over the count the indexer parses in parallel
GRACE_S = 10.0  # how long a killed run's workers get to notice and go
POLL_S = 0.005
SEVERITY = {"ok": 0, "failed": 1, "lost": 2, "crashed": 3}


def kill_index_runs(workdir: Path, rounds: int = 20, seed: int = 0, *, modules: int = 160,
                    anchors: tuple[str, ...] = ANCHORS, check_index: bool = True, check_workers: bool = True,
                    kill_first_build: bool = True) -> Tally:
    tally = Tally("kill index runs")
    if check_workers and not procs.proc_available():
        tally.skipped.append("worker processes: this system has no /proc to list them")
        check_workers = False
    rng = random.Random(seed)
    project = Project(workdir / "project", rng, modules)
    lifetime: list[float] = []  # measured when first needed
    had_index = False
    runs: list[_Run] = []
    for number in range(rounds):
        first = number == 0
        later = [a for a in anchors if a != "index created"] or ["any moment"]
        anchor = "index created" if first and kill_first_build else rng.choice(later)
        if first:
            what = f"first build of {len(project.modules)} modules"
        else:
            what = project.change(max(rng.choice(CHANGE_SIZES), WORKER_CHANGE if anchor == "parsing" else 0))
        if anchor == "any moment" and not lifetime:
            lifetime.append(_calibrate(workdir / "calibration", project.root))
        run = _Run(f"run {number} ({what}; killed {anchor})")
        had_index = _one_kill(run, project.root, anchor, lifetime[0] if lifetime else 0.0, rng, had_index,
                              check_index, tally)
        runs.append(run)
    # Workers are checked together at the end: every killed run's workers have had GRACE_S at least.
    everyone = [p for run in runs for p in run.workers]
    left = set(procs.survivors(everyone, GRACE_S)) if check_workers else set()
    procs.reap(everyone)  # never leave strays behind, checked or not
    for run in runs:
        if stray := [p for p in run.workers if p in left]:
            run.worse("failed", f"{len(stray)} of its {len(run.workers)} worker processes outlived it by over "
                                f"{GRACE_S:.0f} s (pids {', '.join(str(p.pid) for p in stray)})")
        tally.add(run.outcome, f"{run.label}: " + "; ".join(run.problems) if run.problems else None)
    if check_index:
        _final_check(workdir, project.root, tally)
    return tally


class _Run:
    """One killed run: its label, the worker processes it had, and the worst of what it left."""

    def __init__(self, label: str):
        self.label = label
        self.workers: list[procs.Proc] = []
        self.outcome = "ok"
        self.problems: list[str] = []

    def worse(self, outcome: str, problem: str) -> None:
        self.problems.append(problem)
        if SEVERITY[outcome] > SEVERITY[self.outcome]:
            self.outcome = outcome


def _calibrate(folder: Path, source: Path) -> float:
    """Seconds an uninterrupted first build of the project takes here, start-up included."""
    copy_sources(source, folder)
    started = time.monotonic()
    procs.run_cli(["index", str(folder), "-q"])
    return time.monotonic() - started


def _one_kill(run: _Run, root: Path, anchor: str, lifetime: float, rng: random.Random, had_index: bool,
              check_index: bool, tally: Tally) -> bool:
    """Start an index run, SIGKILL it at the anchor, check what it left; returns whether an index
    is known to exist now."""
    log = root.parent / "index-run.log"
    with open(log, "wb") as err:
        proc = subprocess.Popen([*procs.graphctx_command(), "index", str(root), "-q"], stdout=subprocess.DEVNULL,
                                stderr=err, start_new_session=True)
    try:
        killed = _wait_for_anchor(proc, root, anchor, lifetime, rng)
        if killed:
            before = procs.descendants(proc.pid)  # the last look before the kill
            os.kill(proc.pid, signal.SIGKILL)  # the main process only: its workers must notice on their own
            proc.wait()
            # A worker forked in the instant between that look and the kill is still in the run's group.
            run.workers = sorted(set(before) | set(procs.group(proc.pid)), key=lambda p: p.pid)
        proc.wait()
    finally:
        if proc.poll() is None:
            procs.kill_group(proc.pid)
            proc.wait()
    stderr = log.read_text(errors="replace")
    if not killed:
        tally.notes["finished before the kill"] += 1
        if proc.returncode != 0 or TRACEBACK in stderr:
            run.worse("crashed", f"the run exited {proc.returncode} by itself: {_tail(stderr)}")
    if run.workers:
        tally.notes["kills with workers alive"] += 1
    if not check_index:
        return had_index
    stats = procs.run_cli(["stats", "--repo", str(root)])
    text = stats.stderr + stats.stdout
    if stats.traceback or "no such table" in text:
        run.worse("lost" if had_index else "crashed", f"stats after the kill: {_tail(text)}")
    elif stats.hung or stats.returncode not in (0, 1, 2):
        run.worse("failed", stats.describe())
    elif stats.returncode != 0 and had_index:
        run.worse("lost", f"the last good index no longer opens: {_tail(text)}")
    if stats.returncode == 0:
        if (problem := _quick_check(root / ".graphctx" / "index.db")) is not None:
            run.worse("lost", problem)
        return True
    return had_index


def _wait_for_anchor(proc: subprocess.Popen, root: Path, anchor: str, lifetime: float, rng: random.Random) -> bool:
    """Wait until it is time to kill; False when the run ended first."""
    started = time.monotonic()
    if anchor == "any moment":
        deadline = started + rng.uniform(0.0, lifetime * 1.1)
    else:
        index = root / ".graphctx" / "index.db"
        while proc.poll() is None:
            if index.exists() if anchor == "index created" else _parsers(proc.pid):
                break
            time.sleep(POLL_S)
        # Soon after: a first build's transaction and a pool's parsing both last well over this.
        deadline = time.monotonic() + rng.uniform(0.0, 0.03)
    while proc.poll() is None and time.monotonic() < deadline:
        time.sleep(POLL_S)
    return proc.poll() is None


def _parsers(pid: int) -> list[procs.Proc]:
    """The run's parser processes: its descendants other than the git commands of discovery."""
    return [p for p in procs.descendants(pid) if not p.command().startswith("git")]


def _quick_check(db: Path) -> str | None:
    try:
        conn = sqlite3.connect(db)
        try:
            verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return f"SQLite cannot check the index: {exc}"
    return None if verdict == "ok" else f"SQLite quick_check: {verdict}"


def _final_check(workdir: Path, root: Path, tally: Tally) -> None:
    """A clean run after the kills, compared with a full build of a fresh copy of the same files."""
    clean = procs.run_cli(["index", str(root), "-q"])
    if clean.hung or clean.returncode != 0 or clean.traceback:
        tally.add("crashed", f"the clean run after the kills: {clean.describe()}")
        return
    fresh = copy_sources(root, workdir / "fresh")
    rebuild = procs.run_cli(["index", str(fresh), "--full", "-q"])
    if rebuild.returncode != 0:
        tally.add("crashed", f"the fresh rebuild: {rebuild.describe()}")
        return
    diff = difference(snapshot(root), snapshot(fresh))
    tally.add("failed" if diff else "ok", f"after the kills and a clean run the index differs from a rebuild: {diff}")


def _tail(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return " | ".join(lines[-2:]) or "(no output)"
