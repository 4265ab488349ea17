"""Edits as they come: a repository's own recent commits applied one by one to a work tree, each
indexed incrementally through one Project, as a server's watcher runs them. For each commit: the
source files it changed, the files graphctx resolved again (those whose edges can differ: what
names what the commit changed, and what read it) and the wall time, beside the cold build of the
first commit in the same run, the ceiling an edit must stay far below. Appending a function
(index_speed.py's one-file change) reaches no other file; a real commit edits inside functions,
renames attributes and moves lines, and this shows what that costs. Not a timed test.

    python benchmarks/history_edits.py --repo GIT_DIR --commits 25          # the last 25 first-parent commits of HEAD
    python benchmarks/history_edits.py --repo GIT_DIR --rev v1.12 --commits 40 --tree /tmp/work

GIT_DIR is a clone (bare or not; for sympy: `git clone --bare https://github.com/sympy/sympy`).
The tree is checked out into --tree (default a temporary folder) with an index file of its own:
the clone is only read.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from graphctx import Project


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, required=True, help="a git clone (bare or not)")
    parser.add_argument("--rev", default="HEAD", help="the newest commit to apply (default HEAD)")
    parser.add_argument("--commits", type=int, default=25, help="how many first-parent commits to apply")
    parser.add_argument("--tree", type=Path, help="the work tree (default a temporary folder, removed after)")
    args = parser.parse_args()
    git_dir = _git_dir(args.repo)
    revs = _git(git_dir, "log", "--first-parent", "--format=%H", "-n", str(args.commits + 1), args.rev).split()[::-1]
    if len(revs) < 2:
        sys.exit(f"{args.rev} has no first-parent history to apply in {args.repo}")
    with tempfile.TemporaryDirectory() as scratch:
        tree = args.tree or Path(scratch) / "tree"
        tree.mkdir(parents=True, exist_ok=True)
        os.environ["GIT_INDEX_FILE"] = str(Path(scratch) / "git-index")  # (the clone's own stays as it is)
        walk(git_dir, tree, revs)
    return 0


def walk(git_dir: Path, tree: Path, revs: list[str]) -> None:
    _checkout(git_dir, tree, revs[0])
    project = Project(tree, find=False)
    started = time.perf_counter()
    cold = project.index(full=True)
    cold_s = time.perf_counter() - started
    print(f"cold      {cold_s:7.2f} s  {revs[0][:10]}: {cold.summary()}")
    resolved: list[int] = []

    def progress(phase: str, done: int, total: int) -> None:
        if phase == "resolving" and total:
            resolved[-1] = max(resolved[-1], total // 2)  # (both passes count on its bar)
    times, counts = [], []
    for before, after in zip(revs, revs[1:]):
        changed = _git(git_dir, "diff", "--name-only", before, after).split()
        _checkout(git_dir, tree, after)
        resolved.append(0)
        started = time.perf_counter()
        result = project.index(progress=progress)
        seconds = time.perf_counter() - started
        times.append(seconds)
        counts.append(resolved[-1])
        print(f"{after[:10]}  {seconds:6.2f} s ({seconds / cold_s:5.1%} of cold)  {result.parsed:3} parsed, "
              f"{resolved[-1]:5} resolved  {', '.join(changed[:3])}{' ...' if len(changed) > 3 else ''}")
    project.close()
    quick = sum(1 for n in counts if n <= 10)
    print(f"\n{len(times)} commits: median {statistics.median(times):.2f} s, max {max(times):.2f} s "
          f"(cold build {cold_s:.2f} s); median {statistics.median(counts)} files resolved; {quick} of "
          f"{len(times)} resolved 10 files or fewer")


def _checkout(git_dir: Path, tree: Path, rev: str) -> None:
    """The tree exactly at `rev`, the index folder left alone, the clone's HEAD and index untouched
    (the run's own index file, GIT_INDEX_FILE, is read into and checked out from)."""
    _git(git_dir, "read-tree", rev)
    _git(git_dir, "--work-tree", str(tree), "checkout-index", "-a", "-f")
    _git(git_dir, "--work-tree", str(tree), "clean", "-q", "-f", "-d", "-x", "-e", ".graphctx")


def _git_dir(repo: Path) -> Path:
    found = _git(repo, "rev-parse", "--absolute-git-dir", in_repo=True).strip()
    return Path(found)


def _git(git_dir: Path, *args: str, in_repo: bool = False) -> str:
    command = ["git", "-C", str(git_dir), *args] if in_repo else ["git", "--git-dir", str(git_dir), *args]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


if __name__ == "__main__":
    raise SystemExit(main())
