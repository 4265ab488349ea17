"""Working together across processes on one repository: 20 `graphctx tasks claim` processes racing
for one task leave exactly one holder; two `graphctx serve` processes (as two hosts run them) see each
other's claims, runs and served context as peers, and racing claims through both still give one holder;
the CLI twins' exit statuses and JSON."""

from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

import anyio
from mcp import Client
from mcp_types import Implementation

from conftest import make_shop
from test_server import graphctx_command, stdio_params


def cli(root, *args, agent="ann"):
    env = {**os.environ, "GRAPHCTX_AGENT": agent}
    return subprocess.run([*graphctx_command(), *args, "--repo", str(root)], capture_output=True, text=True, env=env,
                          timeout=120)


def test_twenty_processes_claim_one_task_and_one_wins(tmp_path):
    root = make_shop(tmp_path / "shop")
    created = cli(root, "tasks", "create", "Hot task", "--json")
    assert created.returncode == 0, created.stderr
    task_id = json.loads(created.stdout)["id"]
    with ThreadPoolExecutor(20) as pool:
        done = list(pool.map(lambda n: cli(root, "tasks", "claim", task_id, agent=f"agent-{n}"), range(20)))
    winners = [d for d in done if d.returncode == 0]
    assert len(winners) == 1, [d.stderr for d in done]
    holder = winners[0].stdout.split(" for ")[1].split()[0]
    losers = [d for d in done if d.returncode != 0]
    assert {d.returncode for d in losers} == {2}
    assert all(f"is claimed by {holder} until " in d.stderr and "Traceback" not in d.stderr for d in losers)
    shown = json.loads(cli(root, "tasks", "get", task_id, "--json").stdout)
    assert shown["status"] == "in_progress" and [h["status"] for h in shown["history"]] == ["pending", "in_progress"]


def test_cli_twins(tmp_path):
    root = make_shop(tmp_path / "shop")
    assert cli(root, "tasks", "list").returncode == 1
    assert cli(root, "tasks", "list", "--json").stdout.strip() == "[]"
    bad = cli(root, "tasks", "transition", "t-none", "don")
    assert bad.returncode == 2 and "did you mean 'done'?" in bad.stderr
    task_id = cli(root, "tasks", "create", "Index speed", "--priority", "1", "--file", "shop/service.py").stdout.split()[1]
    missing = cli(root, "tasks", "get", "t-none")
    assert missing.returncode == 2 and missing.stderr.startswith("error: no task has the id 't-none'")
    assert cli(root, "tasks", "claim", task_id, "--lease", "7200").returncode == 0
    refused = cli(root, "tasks", "transition", task_id, "pending", agent="bob")
    assert refused.returncode == 2 and "only the holder may move it to pending" in refused.stderr
    run_id = cli(root, "runs", "start", "--task", task_id).stdout.strip()
    assert cli(root, "runs", "fail", run_id, "--error", "lint failed").returncode == 0
    ended = cli(root, "runs", "end", run_id, "--outcome", "success", "--tokens", "900", "--json")
    assert json.loads(ended.stdout)["tokens"] == 900 and len(json.loads(ended.stdout)["failures"]) == 1
    assert cli(root, "runs", "end", run_id, "--outcome", "success").returncode == 2
    assert cli(root, "runs", "list", "--open").returncode == 1
    assert cli(root, "agents", "register", "--capability", "python", "--model", "m").stdout.startswith("registered ann (m)")
    assert cli(root, "agents", "board").returncode == 1
    assert cli(root, "agents", "check-in", "--task", task_id, "--issue", "#17").returncode == 0
    board = cli(root, "agents", "board").stdout
    assert board.startswith("ann checked in ") and board.rstrip().endswith(f"ago on task {task_id} issue #17")
    peers = cli(root, "agents", "peers", "--file", "shop/service.py", agent="bob")
    assert peers.returncode == 0 and peers.stdout.startswith(f"ann (claim {task_id}, ")
    assert cli(root, "agents", "peers", "--file", "shop/service.py").returncode == 1  # not yourself
    context = cli(root, "context", "create_item", "--budget", "800", agent="bob")
    assert context.stdout.rstrip().splitlines()[-1].startswith(f"peers: ann (claim {task_id}, ")
    ended = cli(root, "session-end", "--summary", "paused", "--blocker", "review", "--learned", "claims expire")
    assert ended.returncode == 0 and "blocker: review" in ended.stdout
    resumed = cli(root, "session", "--scope", "resume", "--budget", "1500")
    assert resumed.returncode == 0 and "session of ann ended" in resumed.stdout and "paused" in resumed.stdout
    assert cli(root, "tasks").returncode == 2
    assert "invalid choice: 'lst'; did you mean 'list'?" in cli(root, "tasks", "lst").stderr


def test_two_servers_see_each_other(tmp_path):
    root = make_shop(tmp_path / "shop")
    task_id = json.loads(cli(root, "tasks", "create", "Orders", "--entity", "shop/service.py::create_item",
                             "--json").stdout)["id"]

    async def go():
        async with Client(stdio_params(root), client_info=Implementation(name="ann", version="1")) as ann, \
                Client(stdio_params(root), client_info=Implementation(name="bob", version="1")) as bob:
            results: list = []

            async def claim(client):
                results.append(await client.call_tool("tasks", {"action": "claim", "task_id": task_id}))

            async with anyio.create_task_group() as group:
                for _ in range(10):
                    group.start_soon(claim, ann)
                    group.start_soon(claim, bob)
            winner = ann if any("for ann/1" in r.content[0].text for r in results if not r.is_error) else bob
            other = bob if winner is ann else ann
            run = await other.call_tool("runs", {"action": "start", "ticket": "#17"})
            seen = await other.call_tool("get_context", {"entity": "create_item", "token_budget": 800})
            board = await winner.call_tool("session_init", {"scope": "standard", "token_budget": 1500})
            return results, winner is ann, run, seen, board

    results, ann_won, run, seen, board = anyio.run(go)
    holders = {r.content[0].text.split(" for ")[1].split()[0] for r in results if not r.is_error}
    assert len(holders) == 1  # the same agent may win again (a renewal); no one else does
    refusals = [r.content[0].text for r in results if r.is_error]
    assert refusals and all(" is claimed by " in text for text in refusals)
    winner, loser = ("ann/1", "bob/1") if ann_won else ("bob/1", "ann/1")
    assert not run.is_error
    assert seen.content[0].text.splitlines()[-1].startswith(f"peers: {winner} (claim {task_id}, ")
    assert f"{loser} (" in board.content[0].text and "peers: " in board.content[0].text
