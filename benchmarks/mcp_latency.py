"""MCP latency over stdio, as a host sees it: `graphctx serve --repo REPO` started as a subprocess
and driven by the MCP SDK's client.

    cold start   spawn -> initialize -> first get_context answer, on an indexed repository, several
                 times (a fresh process each time)               [target <= 1.5 s]
    steady       get_context round trips over one session, on random functions, methods and
                 classes, after a warm-up: p50 and p95            [target p50 <= 15 ms, p95 <= 60 ms]

    python benchmarks/mcp_latency.py                      # this repository
    python benchmarks/mcp_latency.py --repo /path/to/repo --calls 300 --budget 4000

The repository is indexed first if needed (not timed). Numbers depend on the machine and its load:
report them with the core count and whatever else was running.
"""

from __future__ import annotations

import argparse
import compileall
import os
import random
import resource
import sqlite3
import statistics
import sys
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

import graphctx
from graphctx.context import api
from graphctx.index import store

COLD_TARGET_S = 1.5
P50_TARGET_MS = 15.0
P95_TARGET_MS = 60.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[1], help="default: this repository")
    parser.add_argument("--starts", type=int, default=5, help="cold starts to time")
    parser.add_argument("--calls", type=int, default=200, help="steady get_context calls to time")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--budget", type=int, default=4000)
    parser.add_argument("--mode", choices=("legacy", "auto"), default="legacy",
                        help="legacy: the initialize handshake hosts use today; auto: the SDK's protocol discovery")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    root = api.find_root(args.repo)
    # The package's bytecode first, as an installed copy's is: the first cold start would compile it.
    compileall.compile_dir(Path(graphctx.__file__).parent, quiet=1)
    started = time.perf_counter()
    result = api.index(root)
    print(f"repository {root}: {result.summary()} (index check, untimed, {time.perf_counter() - started:.1f} s)")
    entities = sample_entities(root, args.calls + args.warmup, args.seed)
    print(f"machine: {os.cpu_count()} cores; client mode {args.mode}; budget {args.budget}")

    runs = [anyio.run(cold_start, root, entities[i % len(entities)], args) for i in range(args.starts)]
    ready, cold, cpu = ([run[i] for run in runs] for i in range(3))
    print(f"cold start to first answer: median {statistics.median(cold):.2f} s, min {min(cold):.2f} s, "
          f"max {max(cold):.2f} s over {len(cold)} starts (initialize answered after {statistics.median(ready):.2f} s;"
          f" server CPU {statistics.median(cpu):.2f} s)  [target <= {COLD_TARGET_S} s]")

    times, errors = anyio.run(steady, root, entities, args)
    times_ms = sorted(t * 1000 for t in times)
    p50, p95 = percentile(times_ms, 50), percentile(times_ms, 95)
    print(f"steady get_context over stdio: p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {times_ms[-1]:.1f} ms "
          f"over {len(times_ms)} calls ({errors} error results)  [target p50 <= {P50_TARGET_MS:.0f} ms, p95 <= {P95_TARGET_MS:.0f} ms]")


def sample_entities(root: Path, n: int, seed: int) -> list[str]:
    conn = sqlite3.connect(f"file:{store.index_path(root)}?mode=ro", uri=True)
    ids = [i for (i,) in conn.execute(
        "SELECT e.id FROM entities e JOIN files f ON f.path = e.path "
        "WHERE e.kind IN ('function', 'method', 'class') AND f.is_test = 0 ORDER BY e.id")]
    conn.close()
    if not ids:
        sys.exit(f"{root} has no functions, methods or classes to ask about")
    rng = random.Random(seed)
    return [rng.choice(ids) for _ in range(n)]


def server_params(root: Path) -> StdioServerParameters:
    script = Path(sys.executable).with_name("graphctx")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "graphctx.cli.main"]
    return StdioServerParameters(command=command[0], args=[*command[1:], "serve", "--repo", str(root)],
                                 env={"PATH": os.environ.get("PATH", "")})


async def cold_start(root: Path, entity: str, args) -> tuple[float, float, float]:
    """Seconds from spawn to the initialize answer and to the first tool answer, and the server's
    CPU seconds for the whole run (start, one answer, shutdown): the figure a loaded machine
    distorts least."""
    cpu_before = _children_cpu()
    started = time.perf_counter()
    async with Client(server_params(root), mode=args.mode) as client:
        ready = time.perf_counter() - started
        result = await client.call_tool("get_context", {"entity": entity, "token_budget": args.budget})
        elapsed = time.perf_counter() - started
    if result.is_error:
        print(f"  cold start answer was an error: {result.content[0].text[:200]}")
    return ready, elapsed, _children_cpu() - cpu_before


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


async def steady(root: Path, entities: list[str], args) -> tuple[list[float], int]:
    times: list[float] = []
    errors = 0
    async with Client(server_params(root), mode=args.mode) as client:
        for entity in entities[: args.warmup]:
            await client.call_tool("get_context", {"entity": entity, "token_budget": args.budget})
        for entity in entities[args.warmup:]:
            started = time.perf_counter()
            result = await client.call_tool("get_context", {"entity": entity, "token_budget": args.budget})
            times.append(time.perf_counter() - started)
            errors += bool(result.is_error)
    return times, errors


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    k = (len(sorted_values) - 1) * q / 100
    lo, hi = int(k), min(int(k) + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


if __name__ == "__main__":
    main()
