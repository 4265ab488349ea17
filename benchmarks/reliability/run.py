"""The reliability suite at full size: every probe, its counts (tried / failed / lost / crashed) and
the first problems it found, word for word. Exit status 1 when any probe found a problem.

    python benchmarks/reliability/run.py                          # everything, a few minutes
    python benchmarks/reliability/run.py --probes fuzz,cli --seed 7
    python benchmarks/reliability/run.py --kill-rounds 50 --fuzz-calls 1000 --keep

Probes: kill (SIGKILL `graphctx index` at random moments), records (concurrent record writers),
fuzz (MCP fuzzer: in memory, auto and legacy, and stdio), deep (one request nested too deep),
http (load over streamable HTTP), hostile (files that stress the indexer), cli (traceback sweep).
tests/test_reliability.py runs the same probes small, in CI.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the suite is the package `reliability`

from reliability.cli_sweep import cli_sweep  # noqa: E402
from reliability.hostile_files import hostile_files  # noqa: E402
from reliability.http_load import http_load  # noqa: E402
from reliability.kill_index import kill_index_runs  # noqa: E402
from reliability.mcp_fuzz import TRANSPORTS, deep_request, fuzz_project, mcp_fuzz  # noqa: E402
from reliability.record_writers import concurrent_record_writers  # noqa: E402
from reliability.tally import Tally  # noqa: E402

PROBES = ("kill", "records", "fuzz", "deep", "http", "hostile", "cli")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--probes", default=",".join(PROBES), help=f"comma-separated, among {', '.join(PROBES)}")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, help="where the generated projects go (default: a temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the generated projects and logs afterwards")
    parser.add_argument("--kill-rounds", type=int, default=20, help="killed index runs (default 20)")
    parser.add_argument("--writers", type=int, default=6, help="concurrent record writer processes (default 6)")
    parser.add_argument("--records", type=int, default=40, help="records each writer writes (default 40)")
    parser.add_argument("--fuzz-calls", type=int, default=300, help="fuzzed calls per transport (default 300)")
    parser.add_argument("--max-string", type=int, default=1_000_000, help="longest fuzzed string (default 1,000,000)")
    parser.add_argument("--call-limit", type=float, default=20.0, help="seconds before a call counts as a hang")
    parser.add_argument("--clients", type=int, default=8, help="concurrent HTTP clients (default 8)")
    parser.add_argument("--http-calls", type=int, default=50, help="calls per HTTP client (default 50)")
    parser.add_argument("--functions", type=int, default=100_000, help="functions in the hostile big file")
    parser.add_argument("--nesting", type=int, default=100_000, help="bracket depth of the hostile nested files")
    parser.add_argument("--line-mb", type=int, default=10, help="megabytes in the hostile single line")
    parser.add_argument("--cli-sample", type=int, help="CLI cases per group (default: every case)")
    parser.add_argument("--jobs", type=int, default=2, help="CLI cases run at once (default 2)")
    args = parser.parse_args(argv)
    chosen = [p.strip() for p in args.probes.split(",") if p.strip()]
    if unknown := [p for p in chosen if p not in PROBES]:
        parser.error(f"unknown probe(s) {', '.join(unknown)}; choose among {', '.join(PROBES)}")

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="graphctx-reliability-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"reliability suite, seed {args.seed}, in {workdir}", flush=True)
    tallies: list[Tally] = []
    try:
        for probe in chosen:
            started = time.monotonic()
            found = run_probe(probe, args, workdir / probe)
            for tally in found:
                print(tally.report(), flush=True)
            print(f"    ({probe}: {time.monotonic() - started:.0f} s)", flush=True)
            tallies += found
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    bad = sum(t.bad for t in tallies)
    print(f"\n{sum(t.tried for t in tallies)} tried, {bad} problem{'' if bad == 1 else 's'} "
          f"({sum(t.outcomes['failed'] for t in tallies)} failed, {sum(t.outcomes['lost'] for t in tallies)} lost, "
          f"{sum(t.outcomes['crashed'] for t in tallies)} crashed)")
    return 1 if bad else 0


def run_probe(probe: str, args: argparse.Namespace, workdir: Path) -> list[Tally]:
    workdir.mkdir(parents=True, exist_ok=True)
    if probe == "kill":
        return [kill_index_runs(workdir, args.kill_rounds, args.seed)]
    if probe == "records":
        return [concurrent_record_writers(workdir, args.writers, args.records)]
    if probe in ("fuzz", "deep"):
        root, vocabulary = fuzz_project(workdir, args.seed)
        if probe == "deep":
            return [deep_request(root, call_limit_s=args.call_limit)]
        return [mcp_fuzz(root, vocabulary, transport, args.fuzz_calls, args.seed, args.max_string,
                         call_limit_s=args.call_limit) for transport in TRANSPORTS]
    if probe == "http":
        return [http_load(workdir, args.clients, args.http_calls, args.seed)]
    if probe == "hostile":
        return [hostile_files(workdir, args.functions, args.nesting, args.line_mb << 20)]
    return [cli_sweep(workdir, seed=args.seed, sample=args.cli_sample, jobs=args.jobs)]


if __name__ == "__main__":
    sys.exit(main())
