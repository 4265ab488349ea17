"""Query latency of the context engine: graph load time, then p50/p95 per mode (context, intent
on free text, path, file, impact) over random entities and queries, with the CPU time of each call
(p50: what a machine shared with other work distorts least), and peak RSS.

    python benchmarks/query_latency.py                 # a copy of the standard library
    python benchmarks/query_latency.py --path REPO     # any repository (indexed in place)
    python benchmarks/query_latency.py --phases        # also where get_context's CPU goes, per call
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import statistics
import sysconfig
import tempfile
import time
from pathlib import Path

from graphctx import Project
from graphctx.graph.loader import load
from graphctx.graph.transition import accelerate
from graphctx.index import store
from graphctx.layout import index_path

TARGETS_MS = {"context": (15, 60), "intent": (100, None), "path": (50, None)}  # issue 13


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--path", type=Path, help="repository to index and query (default: a copy of the stdlib)")
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--budget", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--phases", action="store_true",
                        help="time get_context's phases (spreading, PageRank, the rest of ranking, packing) per call")
    args = parser.parse_args()

    root = args.path.resolve() if args.path else _stdlib_copy()
    started = time.perf_counter()
    project = Project(root, find=False, ephemeral=False)
    result = project.index()
    print(f"index: {result.summary()} (setup, {time.perf_counter() - started:.1f} s)")

    conn = store.connect(index_path(root), readonly=True)
    t = time.perf_counter()
    graph = load(root, conn, reader=lambda: conn)  # (details read lazily, from the same connection)
    load_s = time.perf_counter() - t
    print(f"graph load: {load_s * 1000:.0f} ms ({graph.graph.number_of_nodes():,} nodes, {graph.graph.number_of_edges():,} edges)"
          f"  [target <= 1000 ms]")
    project.graph  # warm the project's graph the timed calls use
    accelerate()  # ranking on scipy's compiled products, as a long-lived process has after its first answer

    rng = random.Random(args.seed)
    entities = [n for n, d in graph.graph.nodes(data=True) if d["kind"] in ("function", "method", "class")]
    unique = [n for n in entities if len(graph.by_name.get(graph.entity(n)["name"], ())) == 1]
    sample = rng.sample(entities, min(args.samples, len(entities)))
    texts = _free_texts(graph, rng, args.samples // 3)
    pairs = _call_pairs(graph, rng, args.samples // 3)
    files = rng.sample(sorted(graph.files), min(args.samples // 3, len(graph.files)))

    phases = _Phases() if args.phases else None
    timings = {
        "context": _time(lambda e: project.context(e, token_budget=args.budget), sample, phases),
        "intent": _time(lambda q: project.intent("debug", q, token_budget=args.budget), texts),
        "path": _time(lambda p: project.path(p[0], p[1], token_budget=args.budget), pairs),
        "file": _time(lambda f: project.file(f, token_budget=args.budget), files),
        "impact": _time(lambda e: project.impact(e, token_budget=args.budget), rng.sample(unique, min(len(unique), args.samples // 3))),
    }
    print(f"{'mode':<8} {'n':>5} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'CPU p50':>8} {'CPU p95':>8}  target")
    for mode, (values, cpu) in timings.items():
        p50, p95 = _percentile(values, 50), _percentile(values, 95)
        target = TARGETS_MS.get(mode)
        goal = f"p50 <= {target[0]}" + (f", p95 <= {target[1]}" if target and target[1] else "") if target else ""
        print(f"{mode:<8} {len(values):>5} {p50:>8.1f} {p95:>8.1f} {max(values):>8.1f} {_percentile(cpu, 50):>8.1f} "
              f"{_percentile(cpu, 95):>8.1f}  {goal}")
    if phases:
        phases.report()
    print(f"peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


class _Phases:
    """CPU milliseconds of get_context's phases, call by call, by timing the engine's calls of them:
    spreading and PageRank (graph/rank.py), all of ranking (engine._rank_around) and packing."""

    NAMES = ("spread", "pagerank", "ranking", "packing")

    def __init__(self) -> None:
        from graphctx.context import engine
        from graphctx.graph import rank

        self.now: dict[str, float] = {}
        self.calls: list[dict[str, float]] = []
        for module, attribute, name in ((rank, "spread", "spread"), (rank, "pagerank_among", "pagerank"),
                                        (rank, "pagerank_within", "pagerank"), (engine, "_rank_around", "ranking"),
                                        (engine, "pack", "packing")):
            setattr(module, attribute, self._timed(getattr(module, attribute), name))

    def _timed(self, function, name: str):
        def timed(*args, **kwargs):
            started = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                self.now[name] = self.now.get(name, 0.0) + (time.process_time() - started) * 1000
        return timed

    def done(self) -> None:
        self.calls.append(self.now)
        self.now = {}

    def report(self) -> None:
        walked = [call for call in self.calls if "pagerank" in call]
        others = [call for call in self.calls if "pagerank" not in call]
        print("get_context CPU by phase, p50 ms (ranking includes spreading and PageRank):")
        for label, calls in ((f"{len(walked)} calls with PageRank", walked), (f"{len(others)} without", others)):
            if calls:
                print(f"  {label:<28}" + "  ".join(f"{name} {_percentile([c.get(name, 0.0) for c in calls], 50):6.1f}"
                                                   for name in self.NAMES))


def _stdlib_copy() -> Path:
    cache = Path(tempfile.gettempdir()) / "graphctx-bench-stdlib"
    if not index_path(cache).exists():
        shutil.rmtree(cache, ignore_errors=True)
        shutil.copytree(sysconfig.get_paths()["stdlib"], cache, ignore=shutil.ignore_patterns("__pycache__", "site-packages"))
    return cache


def _free_texts(graph, rng: random.Random, n: int) -> list[str]:
    """Issue-like texts: an entity's doc line wrapped in words an issue would use."""
    documented = [d for d in map(graph.entity, graph.graph.nodes) if d["doc"] and d["kind"] in ("function", "method")]
    picks = rng.sample(documented, min(n, len(documented)))
    return [f"Bug: {d['doc'].splitlines()[0]} fails when called from {d['path']} with an empty argument" for d in picks]


def _call_pairs(graph, rng: random.Random, n: int) -> list[tuple[str, str]]:
    g = graph.graph
    callers = [s for s, _, k in g.edges(data="kind") if k == "calls"]
    pairs = []
    for _ in range(n):
        start = node = rng.choice(callers)
        for _ in range(rng.randint(1, 4)):
            nxt = [t for _, t, k in g.out_edges(node, data="kind") if k == "calls"]
            if not nxt:
                break
            node = rng.choice(nxt)
        pairs.append((start, node if node != start else rng.choice(callers)))
    return pairs


def _time(call, items, phases: _Phases | None = None) -> tuple[list[float], list[float]]:
    """Milliseconds of each call: wall-clock, and CPU (this process's, every thread)."""
    wall, cpu = [], []
    for item in items:
        t, c = time.perf_counter(), time.process_time()
        call(item)
        wall.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
        if phases:
            phases.done()
    return (wall or [0.0]), (cpu or [0.0])


def _percentile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else values[0]


if __name__ == "__main__":
    main()
