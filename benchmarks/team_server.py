"""The team server under load: one `graphctx serve --http --store postgresql://...` and C concurrent
MCP clients over streamable HTTP (each its own session), each making K mixed calls (search,
get_context, recall, remember, tasks list, tasks create), then a write phase (C clients x W remember
calls). Reports errors (the target is 0), latency p50/p95/p99 overall and per tool, record write
throughput (records a second, the whole write phase's wall time), and the CPU seconds of the server
and of the clients with the machine's load average, so a loaded machine is visible. Not a test: a
measurement to read and record.

    python benchmarks/team_server.py                        # a throwaway PostgreSQL, a copy of this checkout served
    python benchmarks/team_server.py --store postgresql://user@host/db --repo PATH
    python benchmarks/team_server.py --clients 50 --calls 200 --writes 40 --out result.json
    python benchmarks/team_server.py --deadline 300        # a loaded machine: queueing, not refusals

A throwaway server needs PostgreSQL's binaries (Debian: apt-get install postgresql); as root it runs as
the `postgres` user (tests/pgserver.py does the same for the tests).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent
MIX = (("search", 30), ("get_context", 20), ("recall", 15), ("remember", 20), ("tasks list", 5), ("tasks create", 10))
NAMES = ("Project", "get_context", "RecordStore", "WorkStore", "search", "resolve_entity", "GraphCache", "Tasks",
         "render", "index_repository", "Writer", "Reader", "TeamServer", "claim", "remember")


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * fraction))], 1) if ordered else 0.0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def arguments(kind: str, rng: random.Random, client: int, n: int) -> tuple[str, dict]:
    name = rng.choice(NAMES)
    if kind == "search":
        return "search", {"query": name, "limit": 10}
    if kind == "get_context":
        return "get_context", {"entity": f"graphctx/project.py::Project.{rng.choice(('search', 'context', 'records', 'work'))}",
                               "token_budget": 1500}
    if kind == "recall":
        return "recall", {"query": rng.choice(("pool", "note", "load", "client"))}
    if kind == "remember":
        return "remember", {"entries": [{"title": f"load note {client}-{n}", "body": f"client {client} call {n}: "
                                         + "measured under load. " * 10, "tags": ["load"]}], "agent_id": f"c{client}"}
    if kind == "tasks list":
        return "tasks", {"action": "list", "agent_id": f"c{client}"}
    return "tasks", {"action": "create", "title": f"task {client}-{n}", "agent_id": f"c{client}"}


async def one_client(url: str, token: str, client: int, kinds: list[str], seed: int, out: list) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    rng = random.Random(seed * 1000 + client)
    async with Client(streamable_http_client(url, http_client=httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {token}"}, timeout=120)), mode="legacy") as session:
        for n, kind in enumerate(kinds):
            tool, args = arguments(kind, rng, client, n)
            started = time.perf_counter()
            try:
                result = await session.call_tool(tool, args)
                error = result.content[0].text[:200] if result.is_error else None
            except Exception as exc:  # noqa: BLE001 - a failed call is counted, not fatal
                error = f"{type(exc).__name__}: {exc}"[:200]
            out.append((kind, (time.perf_counter() - started) * 1000, error))


async def phase(url: str, token: str, clients: int, plan: list[list[str]], seed: int) -> tuple[list, float]:
    out: list = []
    started = time.perf_counter()
    async with anyio.create_task_group() as group:
        for client in range(clients):
            group.start_soon(one_client, url, token, client, plan[client], seed, out)
    return out, time.perf_counter() - started


def summary(calls: list) -> dict:
    by_kind: dict[str, list[float]] = {}
    for kind, ms, _ in calls:
        by_kind.setdefault(kind, []).append(ms)
    errors = [(kind, error) for kind, _, error in calls if error]
    return {"calls": len(calls), "errors": len(errors), "first_errors": errors[:5],
            "ms_p50": percentile([ms for _, ms, _ in calls], 0.5), "ms_p95": percentile([ms for _, ms, _ in calls], 0.95),
            "ms_p99": percentile([ms for _, ms, _ in calls], 0.99),
            "by_tool": {k: {"calls": len(v), "ms_p50": percentile(v, 0.5), "ms_p95": percentile(v, 0.95)}
                        for k, v in sorted(by_kind.items())}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", help="a PostgreSQL URL (default: a throwaway server)")
    parser.add_argument("--repo", type=Path, help="the repository to serve (default: a copy of this checkout's HEAD, "
                                                 "so edits meanwhile do not re-index it under load)")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--calls", type=int, default=200, help="mixed calls per client")
    parser.add_argument("--writes", type=int, default=40, help="remember calls per client in the write phase")
    parser.add_argument("--deadline", type=float, help="the server's per-call deadline in seconds (default: serve's)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="also write the result here as JSON")
    options = parser.parse_args()

    throwaway = None
    store = options.store
    if store is None:
        sys.path.insert(0, str(CHECKOUT / "tests"))
        import pgserver

        bin_dir = pgserver.binaries()
        if bin_dir is None:
            parser.error("no PostgreSQL binaries here: pass --store URL, or install PostgreSQL")
        throwaway = pgserver.PostgresServer(bin_dir).start()
        store = throwaway.new_database()
    if options.repo is None:
        options.repo = Path(tempfile.mkdtemp(prefix="graphctx-team-bench-")) / "graphctx"
        options.repo.mkdir()
        archive = subprocess.run(["git", "-C", str(CHECKOUT), "archive", "HEAD"], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(options.repo)], input=archive, check=True)
    token = secrets.token_hex(16)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    graphctx = [sys.executable, "-c", "import sys; from graphctx.cli.main import main; sys.exit(main())"]
    subprocess.run([*graphctx, "index", str(options.repo), "-q"], check=True, stdout=subprocess.DEVNULL)
    log_path = Path(os.environ.get("TMPDIR", "/tmp")) / f"graphctx-team-bench-{port}.log"
    server = subprocess.Popen([*graphctx, "serve", "--http", "--port", str(port), "--no-watch", "--store", store,
                               "--project", f"bench={options.repo}",
                               *(["--deadline", str(options.deadline)] if options.deadline else [])], env={**os.environ, "GRAPHCTX_TOKEN": token},
                              stdout=subprocess.DEVNULL, stderr=open(log_path, "w"))
    try:
        for _ in range(1200):
            if server.poll() is not None:
                raise SystemExit(f"the server exited: {log_path.read_text()[-500:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"
        rng = random.Random(options.seed)
        kinds = [kind for kind, weight in MIX for _ in range(weight)]
        plan = [[rng.choice(kinds) for _ in range(options.calls)] for _ in range(options.clients)]
        cpu_before, load_before = cpu_seconds(server.pid), os.getloadavg()[0]
        client_cpu = time.process_time()
        mixed, mixed_s = anyio.run(phase, url, token, options.clients, plan, options.seed)
        writes, writes_s = anyio.run(phase, url, token, options.clients,
                                     [["remember"] * options.writes for _ in range(options.clients)], options.seed + 1)
        result = {
            "clients": options.clients, "calls_per_client": options.calls, "writes_per_client": options.writes,
            "deadline_s": options.deadline or 30,
            "mixed": {**summary(mixed), "wall_s": round(mixed_s, 1), "calls_per_s": round(len(mixed) / mixed_s, 1)},
            "writes": {**summary(writes), "wall_s": round(writes_s, 1),
                       "records_per_s": round(sum(1 for *_, e in writes if not e) / writes_s, 1)},
            "server_cpu_s": round(cpu_seconds(server.pid) - cpu_before, 1),
            "client_cpu_s": round(time.process_time() - client_cpu, 1),
            "load_average_1m": [round(load_before, 1), round(os.getloadavg()[0], 1)], "cores": os.cpu_count(),
        }
    finally:
        server.terminate()
        server.wait(60)
        if throwaway is not None:
            throwaway.stop()
    print(json.dumps(result, indent=2))
    if options.out:
        options.out.write_text(json.dumps(result, indent=2) + "\n")
    return 0 if result["mixed"]["errors"] == 0 and result["writes"]["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
