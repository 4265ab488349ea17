"""The team server on a real PostgreSQL (a throwaway server, tests/pgserver.py) through real MCP
clients over streamable HTTP and real processes: two servers on one database hand a task to exactly
one of twenty agents; eight processes writing two hundred records each lose and double nothing; a
token for one project is refused on another; federation brings in another project's linked code
with its scores decayed, and its dependents into get_impact; a server killed with SIGKILL in the
middle of writes leaves the database consistent; `graphctx store` moves a repository's records and
tasks into the store and back; /healthz and /metrics answer, and each call logs one line."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import anyio
import pytest

from conftest import make_shop, write_tree
from test_server import raw_post

pytest.importorskip("psycopg", reason="the team store's tests need psycopg: pip install -e '.[test]'")

GRAPHCTX = [sys.executable, "-c", "import sys; from graphctx.cli.main import main; sys.exit(main())"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def team_server(tmp_path):
    """start(store, *project options, env=...) -> (url, process, log path); stopped at the end."""
    started = []

    def start(store: str | None, *options: str, env: dict[str, str] | None = None):
        port = free_port()
        log_path = tmp_path / f"serve-{port}.log"
        environment = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHCTX_TOKEN")}
        environment.update(env or {"GRAPHCTX_TOKEN": "global-token"})
        command = [*GRAPHCTX, "serve", "--http", "--port", str(port), "--no-watch", *options]
        if store:
            command += ["--store", store]
        proc = subprocess.Popen(command, env=environment, stdout=subprocess.DEVNULL, stderr=open(log_path, "w"))
        started.append(proc)
        for _ in range(600):
            assert proc.poll() is None, log_path.read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return f"http://127.0.0.1:{port}", proc, log_path
            except OSError:
                time.sleep(0.1)
        raise AssertionError(f"the team server did not start: {log_path.read_text()}")

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


def client(base: str, token: str):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    return Client(streamable_http_client(f"{base}/mcp", http_client=httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"}, timeout=60)), mode="legacy")


def call(base: str, token: str, tool: str, arguments: dict):
    async def go():
        async with client(base, token) as c:
            return await c.call_tool(tool, arguments)

    return anyio.run(go)


def text_of(result) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


def get_json(url: str, token: str | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def rows(url: str, sql: str, *params) -> list[tuple]:
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute(sql, params).fetchall()


# ---- claims across servers


def test_two_servers_on_one_database_give_a_task_to_exactly_one_of_twenty_agents(team_server, postgres_database,
                                                                                  tmp_path):
    checkouts = [make_shop(tmp_path / name) for name in ("machine-a", "machine-b")]  # one repository, two machines
    servers = [team_server(postgres_database, "--project", f"shop={root}")[0] for root in checkouts]
    created = call(servers[0], "global-token", "tasks", {"action": "create", "title": "fix the pool",
                                                         "agent_id": "lead", "format": "json"})
    assert not created.is_error, text_of(created)
    task_id = created.structured_content["id"]

    async def claim(base: str, agent: str):
        async with client(base, "global-token") as c:
            return agent, await c.call_tool("tasks", {"action": "claim", "task_id": task_id, "agent_id": agent})

    async def everyone():
        results = []
        async with anyio.create_task_group() as group:
            for n in range(20):
                async def one(n=n):
                    results.append(await claim(servers[n % 2], f"agent-{n:02d}"))
                group.start_soon(one)
        return results

    results = anyio.run(everyone)
    winners = [agent for agent, result in results if not result.is_error]
    assert len(winners) == 1, [text_of(r) for _, r in results]
    assert all("is claimed by" in text_of(r) for _, r in results if r.is_error)
    [(holder,)] = rows(postgres_database, "SELECT data->>'agent' FROM work_claims WHERE task_id=%s", task_id)
    assert holder == winners[0]


# ---- record writes from many processes


def _write_records(url: str, root: str, worker: int, count: int) -> None:
    from graphctx.project import Project

    store = Project.open_team_store(url)
    project = Project(root, ephemeral=False, find=False, storage=store.project("shop"))
    try:
        for n in range(count):
            project.remember(title=f"note {worker}-{n}", body=f"written by process {worker}", author=f"w{worker}")
    finally:
        project.close()
        store.close()


def test_eight_processes_writing_two_hundred_records_each_lose_and_double_nothing(postgres_database, tmp_path):
    root = make_shop(tmp_path / "shop", index=False)
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_write_records, args=(postgres_database, str(root), w, 200)) for w in range(8)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(300)
        assert process.exitcode == 0
    titles = [t for (t,) in rows(postgres_database, "SELECT data->>'title' FROM records WHERE project='shop'")]
    assert len(titles) == 1600 and set(titles) == {f"note {w}-{n}" for w in range(8) for n in range(200)}
    [(history,)] = rows(postgres_database, "SELECT count(*) FROM record_history WHERE project='shop'")
    assert history == 1600
    seqs = [s for (s,) in rows(postgres_database, "SELECT seq FROM records")]
    assert len(set(seqs)) == 1600  # each write its own place in the order other servers follow


# ---- projects and tokens


@pytest.fixture
def two_projects(tmp_path):
    """lib (a package, mylib) and app (which imports it), both indexed."""
    lib = write_tree(tmp_path / "lib", {
        "pyproject.toml": '[project]\nname = "mylib"\n',
        "mylib/__init__.py": "",
        "mylib/core.py": 'def compute(x):\n    """Compute the answer."""\n    return helper(x) + 1\n\n\n'
                         'def helper(x):\n    return x * 2\n',
    })
    app = write_tree(tmp_path / "app", {
        "app.py": 'from mylib.core import compute\n\n\ndef handler(request):\n    """Answer a request."""\n'
                  '    return compute(request)\n',
    })
    for root in (lib, app):
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        subprocess.run([*GRAPHCTX, "index", str(root), "-q"], check=True, capture_output=True)
    return app, lib


def test_a_project_token_opens_its_project_only(team_server, postgres_database, two_projects):
    app, lib = two_projects
    base, _, log_path = team_server(postgres_database, "--project", f"app={app}", "--project", f"lib={lib}",
                                    env={"GRAPHCTX_TOKEN": "global-token", "GRAPHCTX_TOKEN_APP": "app-token"})
    mine = call(base, "app-token", "search", {"query": "handler", "project": "app"})
    assert not mine.is_error and "app.py::handler" in text_of(mine)
    default = call(base, "app-token", "search", {"query": "handler"})  # the first project is the default
    assert not default.is_error and "app.py::handler" in text_of(default)
    theirs = call(base, "app-token", "search", {"query": "compute", "project": "lib"})
    assert theirs.is_error and "does not open project 'lib'" in text_of(theirs)
    federated = call(base, "app-token", "search", {"query": "compute", "projects": ["lib"]})
    assert federated.is_error and "does not open project 'lib'" in text_of(federated)
    assert not call(base, "global-token", "search", {"query": "compute", "project": "lib"}).is_error
    unknown = call(base, "global-token", "search", {"query": "x", "project": "libb"})
    assert unknown.is_error and "did you mean 'lib'" in text_of(unknown)
    assert get_json(f"{base}/metrics")[0] == 401
    status, metrics = get_json(f"{base}/metrics", "app-token")
    assert status == 200 and metrics["tools"]["search"]["calls"] >= 6 and "ms_p95" in metrics["tools"]["search"]
    assert get_json(f"{base}/healthz") == (200, {"status": "ok", "store": True})
    assert raw_post(f"{base}/mcp", {"authorization": "Bearer app-token", "origin": "https://evil.example"}) == 403
    assert raw_post(f"{base}/mcp", {"authorization": "Bearer wrong"}) == 401
    assert raw_post(f"{base}/mcp", {"authorization": "Bearer app-token", "origin": "http://localhost:3000"}) == 200
    lines = [line for line in log_path.read_text().splitlines() if "call tool=search" in line]
    assert len(lines) >= 6 and any("project=lib" in line and "outcome=error" in line for line in lines)
    assert all(" ms=" in line and " agent=" in line for line in lines)


def get_text(url: str, token: str, accept: str | None = None) -> tuple[int, str, str]:
    """(status, content type, body) of a GET."""
    headers = {"Authorization": f"Bearer {token}", **({"Accept": accept} if accept else {})}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as response:
        return response.status, response.headers["content-type"], response.read().decode()


def test_metrics_count_calls_per_project_and_tool_as_json_and_prometheus_text(team_server, two_projects):
    app, lib = two_projects
    base, _, _ = team_server(None, "--project", f"app={app}", "--project", f"lib={lib}")
    for _ in range(3):
        assert not call(base, "global-token", "search", {"query": "handler"}).is_error
    assert not call(base, "global-token", "search", {"query": "compute", "project": "lib"}).is_error
    assert call(base, "global-token", "get_context", {"entity": "no_such_thing", "project": "lib"}).is_error
    assert call(base, "global-token", "search", {"query": "x", "project": "nope"}).is_error
    status, metrics = get_json(f"{base}/metrics", "global-token")
    assert status == 200
    projects = metrics["projects"]
    assert projects["app"]["search"]["calls"] == 3 and projects["app"]["search"]["outcomes"] == {"ok": 3}
    assert projects["lib"]["search"]["calls"] == 1 and projects["lib"]["get_context"]["outcomes"] == {"error": 1}
    assert projects["(unknown)"]["search"]["outcomes"] == {"error": 1}  # a key the server does not host
    assert "app" not in {k for k, tools in projects.items() if "get_context" in tools}
    assert metrics["tools"]["search"]["calls"] == 5  # every project's calls of the tool together
    assert all("ms_p50" in figures and "ms_p95" in figures for tools in projects.values() for figures in tools.values())
    # A Prometheus scrape asks for text (its Accept header), or ?format=prometheus does.
    status, kind, text = get_text(f"{base}/metrics", "global-token",
                                  "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5")
    assert status == 200 and kind.startswith("text/plain")
    assert 'graphctx_calls_total{project="app",tool="search",outcome="ok"} 3' in text.splitlines()
    assert 'graphctx_calls_total{project="lib",tool="get_context",outcome="error"} 1' in text.splitlines()
    assert 'graphctx_call_milliseconds_count{project="app",tool="search"} 3' in text.splitlines()
    assert any(line.startswith('graphctx_call_milliseconds{project="lib",tool="search",quantile="0.95"} ')
               for line in text.splitlines())
    assert "# TYPE graphctx_calls_total counter" in text and "graphctx_calls_in_flight 0" in text
    assert get_text(f"{base}/metrics?format=prometheus", "global-token")[2].startswith("# HELP")
    assert json.loads(get_text(f"{base}/metrics", "global-token", "application/json")[2])["projects"]["app"]
    assert get_json(f"{base}/metrics?format=prometheus")[0] == 401  # a token is needed either way


def test_federation_brings_in_linked_code_with_decayed_scores(team_server, postgres_database, two_projects):
    app, lib = two_projects
    base, _, _ = team_server(postgres_database, "--project", f"app={app}", "--project", f"lib={lib}")
    alone = call(base, "global-token", "get_context", {"entity": "handler", "token_budget": 2000})
    assert "mylib/core.py::compute" not in text_of(alone)
    answer = call(base, "global-token", "get_context", {"entity": "handler", "projects": ["lib"],
                                                          "cross_domain_decay": 0.5, "token_budget": 2000,
                                                          "format": "json"})
    assert not answer.is_error, text_of(answer)
    data = answer.structured_content
    [linked] = data["federated"]
    assert linked["project"] == "lib" and data["project"] == "app"
    scores = {item["id"]: item["score"] for item in linked["items"]}
    assert scores["mylib/core.py::compute"] == 0.5  # the linked root, at full relevance there, times the decay
    assert data["tokens_used"] + linked["tokens_used"] <= 2000
    quarter = call(base, "global-token", "get_context", {"entity": "handler", "projects": ["lib"],
                                                           "cross_domain_decay": 0.25, "format": "json"})
    assert {i["id"]: i["score"] for i in quarter.structured_content["federated"][0]["items"]}[
        "mylib/core.py::compute"] == 0.25
    hits = call(base, "global-token", "search", {"query": "compute", "projects": ["lib"], "cross_domain_decay": 0.5})
    assert "[lib] mylib/core.py::compute function L1 exact 0.50" in text_of(hits)
    impact = call(base, "global-token", "get_impact", {"symbol": "compute", "project": "lib", "projects": ["app"]})
    assert "[app] app.py::handler uses mylib/core.py::compute" in text_of(impact)
    by_files = call(base, "global-token", "get_impact", {"files": ["mylib/core.py"], "project": "lib",
                                                          "projects": ["app"], "format": "json"})
    assert {"project": "app", "dependent": "app.py::handler", "uses_project": "lib", "uses": "mylib/core.py::compute",
            "link": "imports",
            "via": "mylib.core.compute", "resolution": "import", "confidence": 1.0} in \
        by_files.structured_content["cross_project"]
    bad = call(base, "global-token", "search", {"query": "x", "projects": ["lib"], "cross_domain_decay": 2})
    assert bad.is_error and "between 0 and 1" in text_of(bad)


# ---- a server killed mid-write


def test_a_server_killed_mid_write_leaves_the_database_consistent(team_server, postgres_database, tmp_path):
    root = make_shop(tmp_path / "shop")
    base, proc, _ = team_server(postgres_database, "--project", f"shop={root}")

    async def write_until_killed():
        written = 0
        try:
            async with client(base, "global-token") as c:
                for n in range(10_000):
                    await c.call_tool("remember", {"entries": [{"title": f"note {n}", "body": "x" * 2000}]})
                    written += 1
                    if written == 30:
                        os.kill(proc.pid, signal.SIGKILL)  # while the next writes are on their way
        except Exception:  # noqa: BLE001 - the server is gone: the connection fails
            pass
        return written

    written = anyio.run(write_until_killed)
    proc.wait(10)
    assert written >= 30
    live = rows(postgres_database, "SELECT id, seq, version FROM records WHERE project='shop' AND NOT deleted")
    logged = {(i, s, v) for i, s, v in rows(postgres_database, "SELECT id, seq, version FROM record_history")}
    assert written <= len(live) <= written + 1  # each answered write is there, at most one more landed
    assert all(row in logged for row in live)  # every row came with its history, in the same transaction
    assert len(logged) == len(live)
    # No lock outlives the killed server: another one writes at once.
    base, _, _ = team_server(postgres_database, "--project", f"shop={root}")
    again = call(base, "global-token", "remember", {"entries": [{"title": "after the crash", "body": "ok"}]})
    assert not again.is_error, text_of(again)


# ---- moving a repository's data


def test_store_import_and_export_move_records_and_tasks(postgres_database, tmp_path):
    source, target = make_shop(tmp_path / "source", index=False), make_shop(tmp_path / "target", index=False)
    env = {**os.environ, "GRAPHCTX_STORE": postgres_database, "GRAPHCTX_AUTHOR": "ann"}
    run = lambda *args, cwd: subprocess.run([*GRAPHCTX, *args], cwd=cwd, env=env, capture_output=True, text=True)  # noqa: E731
    assert run("remember", "--title", "Pool size", "--body", "ten", cwd=source).returncode == 0
    assert run("tasks", "create", "fix the pool", "--agent", "ann", cwd=source).returncode == 0
    moved = run("store", "import", "--project", "shop", "--json", cwd=source)
    assert moved.returncode == 0, moved.stderr
    assert json.loads(moved.stdout)["written"] == {"records": 1, "tasks": 1, "claims": 0, "agents": 0, "skills": 0,
                                                    "weights": 0, "events": 0}
    again = run("store", "import", "--project", "shop", "--json", cwd=source)  # nothing doubled
    assert set(json.loads(again.stdout)["written"].values()) == {0}
    back = run("store", "export", "--project", "shop", cwd=target)
    assert back.returncode == 0 and "1 records, 1 tasks" in back.stdout
    assert "Pool size" in run("recall", "pool", cwd=target).stdout
    assert "fix the pool" in run("tasks", "list", cwd=target).stdout
    unreachable = run("store", "migrate", "--store", "postgresql://nobody@127.0.0.1:1/none", cwd=target)
    assert unreachable.returncode == 2 and unreachable.stderr.count("\n") == 1
    assert "cannot reach the PostgreSQL store" in unreachable.stderr
    wrong = run("store", "migrate", "--store", "mysql://x", cwd=target)
    assert wrong.returncode == 2 and "PostgreSQL URL" in wrong.stderr


# ---- operations: a store that goes away, a stop while calls are in flight


def test_a_store_that_goes_away_is_reported_and_comes_back(team_server, tmp_path):
    import pgserver

    own = pgserver.PostgresServer(pgserver.binaries()).start()  # this test stops it: a server of its own
    try:
        store = own.new_database()
        base, _, _ = team_server(store, "--project", f"shop={make_shop(tmp_path / 'shop')}")
        assert get_json(f"{base}/healthz") == (200, {"status": "ok", "store": True})
        own.pause()
        assert get_json(f"{base}/healthz") == (503, {"status": "store unreachable", "store": False})
        failed = call(base, "global-token", "remember", {"entries": [{"title": "while down", "body": "x"}]})
        assert failed.is_error and "the team store at" in text_of(failed) and "retry in a moment" in text_of(failed)
        assert "internal error" not in text_of(failed)
        own.resume()
        # The pool reconnects with a back-off that grew while the store was down: health comes back
        # once it has (the first probes may still find no connection).
        for _ in range(30):
            if get_json(f"{base}/healthz")[0] == 200:
                break
            time.sleep(1)
        assert get_json(f"{base}/healthz")[0] == 200
        again = call(base, "global-token", "remember", {"entries": [{"title": "back again", "body": "x"}]})
        assert not again.is_error, text_of(again)
    finally:
        own.stop()


def test_a_stop_lets_the_calls_in_flight_finish(team_server, postgres_database, tmp_path):
    base, proc, log_path = team_server(postgres_database, "--project", f"shop={make_shop(tmp_path / 'shop')}")
    entries = [{"title": f"note {n}", "body": "words " * 2000} for n in range(100)]

    async def write_while_stopping():
        async with client(base, "global-token") as c:
            # The client checks a result against the tool's output schema, listing the tools first if
            # it has not: listed now, as hosts do, since a stopping server refuses new requests.
            await c.list_tools()
            async with anyio.create_task_group() as group:
                results = []

                async def write():
                    results.append(await c.call_tool("remember", {"entries": entries}))

                group.start_soon(write)
                for _ in range(500):  # SIGTERM once the call is being worked on
                    if "ms=" not in log_path.read_text() and _in_flight(base):
                        break
                    await anyio.sleep(0.01)
                proc.send_signal(signal.SIGTERM)
            return results[0]

    result = anyio.run(write_while_stopping)
    assert not result.is_error, text_of(result)
    assert proc.wait(60) == 0
    [(count,)] = rows(postgres_database, "SELECT count(*) FROM records WHERE project='shop'")
    assert count == 100
    assert "outcome=ok" in log_path.read_text()


def _in_flight(base: str) -> bool:
    status, metrics = get_json(f"{base}/metrics", "global-token")
    return status == 200 and metrics["in_flight"] > 0


# ---- a configuration file, and bad options


def test_a_configuration_file_names_the_store_projects_and_tokens(team_server, postgres_database, two_projects,
                                                                  tmp_path):
    app, lib = two_projects
    config = tmp_path / "team.toml"
    config.write_text(f'store = "{postgres_database}"\ntokens = ["file-global"]\n\n'
                      f'[projects.lib]\npath = "{lib}"\ntokens = ["lib-only"]\n\n[projects.app]\npath = "{app}"\n'
                      'tokens = ["app-only"]\n')
    base, _, _ = team_server(None, "--config", str(config), env={})
    first = call(base, "lib-only", "search", {"query": "compute"})  # lib is listed first: the default
    assert not first.is_error and "mylib/core.py::compute" in text_of(first)
    refused = call(base, "lib-only", "search", {"query": "handler", "project": "app"})
    assert refused.is_error and "does not open project 'app'" in text_of(refused)
    assert not call(base, "file-global", "search", {"query": "handler", "project": "app"}).is_error
    written = call(base, "lib-only", "remember", {"entries": [{"title": "From the file", "body": "x"}]})
    assert not written.is_error
    assert rows(postgres_database, "SELECT project FROM records") == [("lib",)]

    async def read(token: str) -> str:
        async with client(base, token) as c:
            try:
                return str(await c.read_resource("graphctx://file/mylib/core.py"))
            except Exception as exc:  # noqa: BLE001 - the refusal is the answer under test
                return f"refused: {exc}"

    assert "compute" in anyio.run(read, "lib-only")
    assert "does not open project 'lib'" in anyio.run(read, "app-only")  # resources are the first project's


@pytest.mark.parametrize("options, message", [
    (["--project", "api"], "--project takes KEY=PATH"),
    (["--project", "API=/tmp"], "project key 'API'"),
    (["--project", "api=/no/such/folder"], "is not a folder"),
    (["--project", "a=/tmp", "--project", "a=/tmp"], "named twice"),
    (["--project", "a=/tmp", "--store", "mysql://x"], "PostgreSQL URL"),
    (["--config", "/no/such/file.toml"], "cannot read the server configuration"),
])
def test_bad_team_options_are_one_line(options, message, tmp_path):
    done = subprocess.run([*GRAPHCTX, "serve", "--http", "--port", str(free_port()), *options], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env={**os.environ, "GRAPHCTX_TOKEN": "t"})
    assert done.returncode == 2 and message in done.stderr and done.stderr.count("\n") == 1, done.stderr
