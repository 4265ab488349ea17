"""Probe 4: load over streamable HTTP on loopback. `graphctx serve --http` runs with GRAPHCTX_TOKEN
set; C clients (the SDK's streamable HTTP client, modes auto and legacy in turn) each make K valid
calls at once (search, get_context, get_file_context, mixed). Every call must answer without error
within the per-call limit and the server must stay up; a request without the token must get 401.
Latencies are kept for p50/p95."""

from __future__ import annotations

import json
import os
import random
import secrets
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from reliability import procs
from reliability.gen import Project
from reliability.tally import Tally

CALL_LIMIT_S = 30.0  # generous: every client's calls queue on one server on a busy machine
START_LIMIT_S = 120.0


def http_load(workdir: Path, clients: int = 8, calls: int = 50, seed: int = 0) -> Tally:
    tally = Tally("http load")
    project = Project(workdir / "http-project", random.Random(seed), modules=40, workers=1)
    if (run := procs.run_cli(["index", str(project.root), "-q"])).returncode != 0:
        tally.add("crashed", f"cannot index the project: {run.describe()}")
        return tally
    token, port = secrets.token_hex(16), procs.free_port()
    log = open(workdir / "http-server.log", "wb")
    server = subprocess.Popen([*procs.graphctx_command(), "serve", "--repo", str(project.root), "--http", "--port",
                               str(port)], env={**os.environ, "GRAPHCTX_TOKEN": token}, stdout=log,
                              stderr=subprocess.STDOUT, start_new_session=True)
    try:
        if not procs.wait_for_port(port, server, START_LIMIT_S):
            tally.add("crashed", f"the HTTP server did not start (exit {server.poll()}): "
                                 f"{(workdir / 'http-server.log').read_text(errors='replace')[-300:]}")
            return tally
        url = f"http://127.0.0.1:{port}/mcp"
        status = _post_without_token(url)
        tally.add("ok" if status == 401 else "failed", f"a request without the token got {status}, not 401")
        _load(url, token, project.modules, clients, calls, seed, tally)
        if server.poll() is not None:
            tally.add("crashed", f"the HTTP server died under load (exit {server.returncode})")
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            procs.kill_group(server.pid)
            server.wait()
        log.close()
    return tally


def _load(url: str, token: str, modules: list[int], clients: int, calls: int, seed: int, tally: Tally) -> None:
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def one_client(number: int) -> None:
        rng = random.Random(f"{seed}:{number}")
        mode = ("auto", "legacy")[number % 2]
        made = 0
        try:
            http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=CALL_LIMIT_S)
            async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
                for made in range(calls):  # noqa: B007 - `made` tells how far a broken connection got
                    name, args = _call(rng, modules)
                    begun = time.perf_counter()
                    try:
                        with anyio.fail_after(CALL_LIMIT_S):
                            result = await client.call_tool(name, args)
                    except TimeoutError:
                        tally.add("lost", f"client {number} ({mode}) {name}{json.dumps(args)}: no reply after "
                                          f"{CALL_LIMIT_S:.0f} s")
                        continue
                    tally.latencies_ms.append((time.perf_counter() - begun) * 1000)
                    text = "\n".join(getattr(block, "text", "") for block in result.content)
                    if result.is_error:
                        tally.add("failed", f"client {number} ({mode}) {name}{json.dumps(args)}: {text}")
                    elif not text.strip():
                        tally.add("failed", f"client {number} ({mode}) {name}{json.dumps(args)}: an empty answer")
                    else:
                        tally.add("ok")
                made = calls
        except Exception as exc:  # noqa: BLE001 - the connection broke: what was not asked is lost
            for _ in range(max(1, calls - made)):
                tally.add("lost", f"client {number} ({mode}) broke after {made} calls: {type(exc).__name__}: {exc}")

    async def go() -> None:
        async with anyio.create_task_group() as group:
            for number in range(clients):
                group.start_soon(one_client, number)

    anyio.run(go)


def _call(rng: random.Random, modules: list[int]) -> tuple[str, dict]:
    number = rng.choice(modules)
    roll = rng.random()
    if roll < 0.4:
        return "search", {"query": rng.choice([f"Model{number}", f"f{number}", "run", "function version"])}
    if roll < 0.8:
        entity = f"app/m{number}.py::Model{number}"
        return "get_context", {"entity": entity, "token_budget": rng.choice([500, 2000, 4000])}
    return "get_file_context", {"file": f"app/m{number}.py"}


def _post_without_token(url: str) -> int:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}}).encode()
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "content-type": "application/json", "accept": "application/json, text/event-stream"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return 0
