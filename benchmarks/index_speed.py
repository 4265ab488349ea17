"""Indexing speed on a real tree: a cold (full) run, a no-op run and one-file changes; files, MB,
entities, edges, wall seconds, MB/s and peak RSS, and Universal Ctags on the same tree where it is
installed. Not a timed test: a measurement to read and record.

    python benchmarks/index_speed.py                  # a copy of the running interpreter's stdlib
    python benchmarks/index_speed.py --path REPO      # a copy of any tree
    python benchmarks/index_speed.py --path REPO --in-place   # index REPO itself (cold = --full)
    python benchmarks/index_speed.py --profile        # also profile a one-process cold run

Targets (2 cores): cold >= 6 MB/s, no-op <= 0.5 s, one-file change <= 100 ms, peak RSS <= 500 MB.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from graphctx.index import store
from graphctx.index.indexer import index_repository

TARGETS = {"cold MB/s": 6.0, "no-op s": 0.5, "one-file change s": 0.100, "peak RSS MB": 500}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--path", type=Path, help="the tree to index (default: the standard library)")
    parser.add_argument("--in-place", action="store_true", help="index --path where it is instead of a copy")
    parser.add_argument("--workers", type=int, default=0, help="worker processes (default: one per core)")
    parser.add_argument("--changes", type=int, default=5, help="how many one-file changes to time")
    parser.add_argument("--profile", action="store_true", help="profile a one-process cold run and print hot spots")
    args = parser.parse_args()

    source = (args.path or Path(sysconfig.get_paths()["stdlib"])).resolve()
    if not source.is_dir():
        parser.error(f"{source} is not a directory")
    scratch = None
    if args.in_place:
        root = source
    else:
        scratch = Path(tempfile.mkdtemp(prefix="graphctx-bench-"))
        root = scratch / source.name
        started = time.perf_counter()
        # (folders the index skips anyway are not copied: site-packages alone can dwarf the stdlib)
        shutil.copytree(source, root, symlinks=True,
                        ignore=shutil.ignore_patterns(".git", ".graphctx", "site-packages", "__pycache__", "node_modules"))
        print(f"tree      {source} (copied to a temporary folder in {time.perf_counter() - started:.1f} s)")
        time.sleep(RACY_PAUSE)  # let the copy's mtimes age past the racy-file window, as an edited tree would
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"python    {sys.version.split()[0]}, {os.cpu_count()} cores, workers={args.workers or 'all'}, "
          f"load average {load:.1f} at start (wall times stretch on a busy machine; CPU times less so)")

    try:
        figures = run(root, args.workers, args.changes)
        ctags(root, figures["cold s"])
        if args.profile:
            profile(root)
        verdict(figures)
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


RACY_PAUSE = 2.1  # seconds: see RACY_NS in graphctx/index/indexer.py


def run(root: Path, workers: int, changes: int) -> dict[str, float]:
    figures: dict[str, float] = {}

    clock = Clock()
    cold = index_repository(root, full=True, workers=workers)
    seconds, cpu = clock.read()
    conn = store.connect(store.index_path(root), readonly=True)
    size = conn.execute("SELECT coalesce(sum(size), 0) FROM files").fetchone()[0]
    languages = dict(conn.execute("SELECT language, count(*) FROM files GROUP BY language"))
    db_mb = store.index_path(root).stat().st_size / 1e6
    mb = size / 1e6
    figures.update({"cold s": seconds, "cold MB/s": mb / seconds if seconds else 0.0})
    print(f"files     {cold.files:,} indexed ({', '.join(f'{k} {v:,}' for k, v in sorted(languages.items()))}), "
          f"{mb:.1f} MB of source, {len(cold.warnings)} skipped or warned")
    print(f"graph     {cold.entities:,} entities, {cold.edges:,} edges, {cold.resolved_share:.0%} of calls resolved, "
          f"{cold.parse_errors:,} parse error nodes; index.db {db_mb:.1f} MB")
    print(f"cold      {seconds:7.3f} s  {figures['cold MB/s']:6.2f} MB/s  (full rebuild, {cold.parsed:,} files parsed; "
          f"CPU {cpu[0]:.1f} s in this process + {cpu[1]:.1f} s in workers)")

    clock = Clock()
    noop = index_repository(root, workers=workers)
    figures["no-op s"], cpu = clock.read()
    print(f"no-op     {figures['no-op s']:7.3f} s  ({noop.parsed} parsed, generation {noop.generation}; CPU {cpu[0]:.2f} s)")

    times, cpus = [], []
    paths = _change_targets(conn, changes)
    for i, path in enumerate(paths):
        with open(root / path, "a", encoding="utf-8") as f:
            f.write(f"\n\ndef graphctx_benchmark_added_{i}(x):\n    return len(x)\n")
        clock = Clock()
        result = index_repository(root, workers=workers)
        seconds, cpu = clock.read()
        times.append(seconds)
        cpus.append(cpu[0])
        assert result.parsed == 1, result
    conn.close()
    if times:
        figures["one-file change s"] = statistics.median(times)
        print(f"one file  {figures['one-file change s'] * 1000:7.1f} ms median, {max(times) * 1000:.1f} ms max over "
              f"{len(times)} files (appending a function; first: {paths[0]}; CPU {statistics.median(cpus):.2f} s median)")

    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    figures["peak RSS MB"] = max(own, children)
    print(f"peak RSS  {own:7.1f} MB this process, {children:.1f} MB the largest worker process")
    return figures


class Clock:
    """Wall time, and CPU time of this process and of its finished children, since creation."""

    def __init__(self) -> None:
        self.wall = time.perf_counter()
        self.own = time.process_time()
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.children = children.ru_utime + children.ru_stime

    def read(self) -> tuple[float, tuple[float, float]]:
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (time.perf_counter() - self.wall,
                (time.process_time() - self.own, children.ru_utime + children.ru_stime - self.children))


def _change_targets(conn: sqlite3.Connection, n: int) -> list[str]:
    """Typical files to edit: Python files of median size, spread over the tree."""
    rows = conn.execute(
        "SELECT path FROM files WHERE language='python' AND is_test=0 ORDER BY size"
    ).fetchall()
    if not rows:
        rows = conn.execute("SELECT path FROM files ORDER BY size").fetchall()
    middle = rows[len(rows) // 4: 3 * len(rows) // 4] or rows
    step = max(1, len(middle) // max(1, n))
    return [p for (p,) in middle[::step][:n]]


def ctags(root: Path, our_seconds: float) -> None:
    exe = shutil.which("ctags")
    if exe is None:
        print("ctags     not installed")
        return
    version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    if "Universal Ctags" not in version:
        print("ctags     not Universal Ctags: skipped")
        return
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        subprocess.run([exe, "-R", "-f", str(Path(tmp) / "tags"), "--exclude=.graphctx", str(root)],
                       check=True, capture_output=True)
        seconds = time.perf_counter() - started
        tags = sum(1 for line in open(Path(tmp) / "tags", encoding="utf-8", errors="replace") if not line.startswith("!"))
    print(f"ctags -R  {seconds:7.3f} s  ({tags:,} tags, definitions only); graphctx cold / ctags = {our_seconds / seconds:.1f}x")


def profile(root: Path) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    index_repository(root, full=True, workers=1)
    profiler.disable()
    for order in ("tottime", "cumulative"):
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats(order).print_stats(18)
        text = out.getvalue()
        print(f"\nprofile, one process, by {order}:\n" + text[text.index("   ncalls"):].rstrip())


def verdict(figures: dict[str, float]) -> None:
    checks = [
        ("cold MB/s", figures.get("cold MB/s", 0.0) >= TARGETS["cold MB/s"], f">= {TARGETS['cold MB/s']}"),
        ("no-op s", figures.get("no-op s", 1e9) <= TARGETS["no-op s"], f"<= {TARGETS['no-op s']}"),
        ("one-file change s", figures.get("one-file change s", 1e9) <= TARGETS["one-file change s"],
         f"<= {TARGETS['one-file change s']}"),
        ("peak RSS MB", figures.get("peak RSS MB", 1e9) <= TARGETS["peak RSS MB"], f"<= {TARGETS['peak RSS MB']}"),
    ]
    print("targets   " + "; ".join(f"{name} {figures.get(name, float('nan')):.3g} {goal} {'ok' if ok else 'MISSED'}"
                                   for name, ok, goal in checks))


if __name__ == "__main__":
    sys.exit(main())
