"""The server under hostile or unlucky use, with real clients: the SDK's in-process client in both
modes, stdio and HTTP subprocesses of `graphctx serve`. No call holds up another (a write stuck on
the records lock, a CPU-heavy context query); a call out of time is stopped with an error saying
how to ask for less, and a write stopped that way wrote nothing; NUL bytes, control characters and
over-long values are refused in one sentence naming the argument and the limit, and no error quotes
more than a short prefix of what was sent; HTTP needs a bearer token unless --no-auth (loopback
only) says otherwise; a bad serve option is one line on stderr and exit status 2."""

from __future__ import annotations

import os
import re
import socket
import stat
import subprocess
import threading
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from graphctx import deadline
from graphctx import Project
from graphctx.deadline import Deadline
from graphctx.errors import DeadlineExceeded, GraphctxError, bounded, quote
from graphctx.index.indexer import index_repository
from graphctx.records.files import WriteLock
from graphctx.server import build_server
from graphctx.server.http import http_token
from graphctx.server.workers import Workers
from test_server import MODES, free_port, graphctx_command, http_client, make_repo, raw_post, stdio_params, text_of

MAX_ERROR = 400  # characters: every refusal here is one short sentence, whatever was sent


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    return make_repo(tmp_path_factory.mktemp("hardening"))


@pytest.fixture(scope="module")
def server(repo):
    srv = build_server(repo, watch=False)
    yield srv
    srv.graphctx_state.fresh.stop()


@pytest.fixture
def fresh_server(repo):
    """A server of its own, for tests that change what the module's server would see."""
    made = []

    def make(**options):
        made.append(build_server(repo, watch=False, **options))
        return made[-1]

    yield make
    for srv in made:
        srv.graphctx_state.fresh.stop()


def run(fn, *args):
    return anyio.run(fn, *args)


def refusal(result) -> str:
    assert result.is_error, text_of(result)
    text = text_of(result)
    assert "\n" not in text and len(text) <= MAX_ERROR and "Traceback" not in text, text
    return text


def records_lock(root: Path) -> WriteLock:
    """The records writers' lock, taken as another writer (a CLI `graphctx remember`) would take it."""
    return WriteLock(root / ".graphctx" / "records.lock")


async def until_busy(srv, calls: int = 1) -> None:
    """Wait until the server is working on `calls` calls (so they have started, not merely been sent)."""
    with anyio.fail_after(120):  # a guard against hanging, not a measure: it never fires when all is well
        while srv.graphctx_state.workers.busy < calls:
            await anyio.sleep(0.005)


# ---- no call holds up another

@pytest.mark.parametrize("mode", MODES)
def test_a_write_waiting_for_the_records_lock_holds_up_no_one(repo, fresh_server, mode):
    srv = fresh_server()
    order = []

    async def go():
        async with Client(srv, mode=mode) as client:
            async def write():
                result = await client.call_tool("remember", {"entries": [{"title": f"Waited for the lock ({mode})"}]})
                order.append(("remember", result))

            with records_lock(repo) as lock:
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(write)
                    await until_busy(srv)  # the write is under way, and cannot finish while the lock is held
                    for name, args in (("search", {"query": "validate"}), ("get_context", {"entity": "create_item"}),
                                       ("recall", {"query": "anything"}), ("session_init", {"token_budget": 500})):
                        order.append((name, await client.call_tool(name, args)))
                    lock.__exit__(None, None, None)  # now let the write through

    run(go)
    assert [name for name, _ in order] == ["search", "get_context", "recall", "session_init", "remember"]
    assert not any(result.is_error for _, result in order), [text_of(r) for _, r in order]
    assert text_of(order[-1][1]).startswith("created knowledge")


def write_big_repo(root: Path, modules: int = 40, functions: int = 30) -> Path:
    """A package whose handlers call along a chain: enough code for a context answer of 100,000 tokens."""
    for m in range(modules):
        lines = [f'"""Handlers for stage {m}."""', ""]
        if m:
            lines += [f"from pkg.mod{m - 1} import handle_{m - 1}_0", ""]
        for f in range(functions):
            callee = f"handle_{m}_{f + 1}" if f + 1 < functions else (f"handle_{m - 1}_0" if m else "None")
            lines += [f"def handle_{m}_{f}(request, payload):",
                      f'    """Handle request {f} of stage {m}: validate the payload, transform it, pass it on."""',
                      *(f"    value_{i} = payload.get('field_{i}', {i}) * {f + 1}" for i in range(12)),
                      f"    return {callee}(request, payload) if value_0 else None", ""]
        path = root / "pkg" / f"mod{m}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines), encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    index_repository(root)
    return root


@pytest.fixture(scope="module")
def big_repo(tmp_path_factory) -> Path:
    return write_big_repo(tmp_path_factory.mktemp("big"))


HEAVY = {"mode": "intent", "intent": "debug", "token_budget": 100_000, "depth": 6,
         "target": " ".join(f"handle_{m}_{f} failed on field_{f}" for m in range(40) for f in range(0, 30, 3))}


@pytest.mark.parametrize("mode", MODES)
def test_a_cpu_heavy_call_holds_up_no_one(big_repo, mode):
    srv = build_server(big_repo, watch=False)
    order = []

    async def go():
        async with Client(srv, mode=mode) as client:
            await client.call_tool("search", {"query": "handle_1_1"})  # the graph and tokenizer are loaded

            async def heavy():
                result = await client.call_tool("get_context", HEAVY)
                order.append(("heavy", result))

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(heavy)
                await until_busy(srv)
                order.append(("search", await client.call_tool("search", {"query": "handle_7_3"})))
                order.append(("still working", srv.graphctx_state.workers.busy))

    try:
        run(go)
    finally:
        srv.graphctx_state.fresh.stop()
    # The quick call was answered while the heavy one was still being worked on, not after it.
    assert [name for name, _ in order] == ["search", "still working", "heavy"] and order[1][1] >= 1
    assert "pkg/mod7.py::handle_7_3" in text_of(order[0][1])
    assert not order[2][1].is_error and "## seed pkg/mod" in text_of(order[2][1])


@pytest.mark.parametrize("mode", MODES)
def test_a_call_out_of_time_is_stopped_with_advice(fresh_server, mode):
    srv = fresh_server(deadline=1e-6, start=False)  # no catch-up index run (it would change the advice)

    async def go():
        async with Client(srv, mode=mode) as client:
            answers = [await client.call_tool(name, args) for name, args in (
                ("get_context", {"entity": "create_item"}), ("search", {"query": "validate"}),
                ("get_impact", {"symbol": "validate"}), ("recall", {"query": "lock"}))]
            try:
                await client.read_resource("graphctx://file/shop/models.py")
            except MCPError as exc:
                return answers, str(exc)
            return answers, "no error"

    answers, resource_error = run(go)
    texts = [refusal(a) for a in answers]
    assert texts[0] == ("get_context took longer than 0.001 ms and was stopped; narrow the request: a smaller "
                        "token_budget or depth, or a shorter text")
    assert texts[1] == "search took longer than 0.001 ms and was stopped; search with fewer or more specific words"
    assert texts[2].startswith("get_impact took longer than 0.001 ms and was stopped; narrow the request")
    assert texts[3].startswith("recall took longer than 0.001 ms and was stopped; narrow the search")
    assert "reading graphctx://file/{+path} took longer than 0.001 ms and was stopped; retry" in resource_error


def test_a_write_out_of_time_writes_nothing(repo, fresh_server):
    srv = fresh_server(deadline=0.3)
    title = "Written after its deadline"

    async def go():
        async with Client(srv, mode="legacy") as client:
            with records_lock(repo):  # held for the whole call: the write cannot start in time
                stopped = await client.call_tool("remember", {"entries": [{"title": title}]})
            found = await client.call_tool("recall", {"query": title})
            return stopped, found

    stopped, found = run(go)
    assert refusal(stopped) == ("remember took longer than 300 ms and was stopped; nothing was written; "
                                "retry in a moment")
    assert text_of(found).startswith("no record matches")


def test_the_work_itself_stops_at_its_deadline(big_repo):
    """The ranking and packing loops check the deadline: a call whose time is up raises where it is,
    rather than running on unseen in a thread nobody waits for."""
    target = HEAVY["target"]
    Project(big_repo, find=False).intent("debug", target, token_budget=2000)  # without a deadline: answered
    for limit in (Deadline(0.0, "get_context", "ask for less"), Deadline(3600.0, "get_context", "ask for less")):
        if limit.seconds:
            limit.stop()  # the server stopped waiting (a cancelled request, or its time was up)
        with deadline.applied(limit), pytest.raises(DeadlineExceeded, match="get_context took longer than"):
            Project(big_repo, find=False).intent("debug", target, token_budget=100_000, depth=6)
    deadline.check()  # outside a request: nothing to stop


def test_the_pool_is_bounded_and_a_call_waits_only_its_own_time():
    """A call that finds every worker busy (here: with work that will not end on its own) waits its turn
    within its deadline, then is refused without ever running; stray work never takes more threads."""
    workers = Workers(seconds=0.2, size=1)
    release = threading.Event()
    ran = []

    def stuck() -> str:
        release.wait()
        return "stuck done"

    async def go():
        async with anyio.create_task_group() as tasks:
            async def first():
                try:
                    await workers.run("first", "ask for less", stuck)
                except DeadlineExceeded as exc:
                    ran.append(("first", str(exc)))

            tasks.start_soon(first)
            while workers.busy < 1:
                await anyio.sleep(0.005)
            try:
                await workers.run("second", "ask for less", lambda: ran.append(("second ran", "")))
            except DeadlineExceeded as exc:
                ran.append(("second", str(exc)))
            release.set()

    try:
        run(go)
    finally:
        workers.shutdown()
    assert ran == [("first", "first took longer than 200 ms and was stopped; ask for less"),
                   ("second", "second waited 0.2 s for a free worker and was not started: 1 earlier call is "
                              "still finishing; retry in a moment")]


def test_serve_deadline_option_over_stdio(repo, tmp_path):
    params = stdio_params(repo, cwd=tmp_path)
    params.args = [*params.args, "--deadline", "0.000001"]

    async def go():
        async with Client(params, mode="legacy") as client:
            return await client.call_tool("get_context", {"entity": "create_item"})

    refused = refusal(run(go))  # the advice differs when the start-up catch-up index run was still going
    assert refused.startswith("get_context took longer than 0.001 ms and was stopped; ")
    assert "narrow the request" in refused or "the index was being updated meanwhile" in refused


# ---- strings: NUL bytes, control characters, lengths

HUGE = 50_000


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tool, args, expected", [
    ("get_file_context", {"file": "a\x00b"}, "file contains a NUL byte (\\x00) at character 2; remove it"),
    ("get_context", {"entity": "Repo\x00"}, "entity contains a NUL byte"),
    ("get_context", {"mode": "path", "from_entity": "Repo\x1b[31m", "to_entity": "validate"},
     "from_entity contains a control character ('\\x1b') at character 5; pass it as one line of printable text"),
    ("get_context", {"mode": "intent", "intent": "debug", "target": "boom\x00"}, "target contains a NUL byte"),
    ("get_context", {"entity": "q" * HUGE}, "entity is 50,000 characters long; the limit is 4,096"),
    ("get_impact", {"files": ["shop/models.py", "a\x00b"]}, "files[1] contains a NUL byte"),
    ("get_impact", {"diff": "HEAD\x00"}, "diff contains a NUL byte"),
    ("search", {"query": "z" * 30_000}, "query is 30,000 characters long; the limit is 10,000"),
    ("recall", {"category": "c" * HUGE}, "category is 50,000 characters long; the limit is 200"),
    ("recall", {"id": "01\x00"}, "id contains a NUL byte"),
    ("recall", {"tags": ["ok", "t\nx"]}, "tags[1] contains a control character ('\\n')"),
    ("remember", {"entries": [{"title": "t", "key": "k" * HUGE}]},
     "entries[0].key is 50,000 characters long; the limit is 200"),
    ("remember", {"entries": [{"title": "t", "tags": ["t" * HUGE]}]}, "entries[0].tags[0] is 50,000 characters long"),
    ("remember", {"entries": [{"title": "t", "category": "a\x00"}]}, "entries[0].category contains a NUL byte"),
    ("remember", {"entries": [{"title": "t", "body": "b\x00"}]}, "entries[0].body contains a NUL byte"),
    ("decide", {"title": "t", "decision": "d", "anchors": ["a\x00b"]}, "anchors[0] contains a NUL byte"),
    ("revise", {"id": "01X", "version": 1, "changes": {"key": "k" * HUGE}}, "changes.key is 50,000 characters long"),
    ("verify", {"id": "x" * HUGE}, "id is 50,000 characters long; the limit is 4,096"),
])
def test_bad_strings_are_refused_in_one_sentence(server, mode, tool, args, expected):
    async def go():
        async with Client(server, mode=mode) as client:
            return await client.call_tool(tool, args)

    assert expected in refusal(run(go))


@pytest.mark.parametrize("mode", MODES)
def test_no_error_echoes_more_than_a_prefix(server, mode):
    calls = [
        ("get_context", {"entity": "q" * 4000}, "no entity named 'qqq"),  # within the limit, still not quoted whole
        ("get_file_context", {"file": "shop/" + "z" * 4000 + ".py"}, "is not an indexed source file"),
        ("get_context", {"entity": "Repo", "known_hash": "g" * 4000}, "is not a body hash"),
        ("recall", {"id": "Z" * 4000}, "no record with id 'ZZZ"),
        ("x" * HUGE, {}, "unknown tool 'xxx"),
        ("search", {"q" * HUGE: 1}, "search has no argument 'qqq"),
        ("search", {"query": "x", "limit": "9" * HUGE}, "limit must be a whole number between 1 and 100; got"),
        ("get_context", {"token_budget": "t" * HUGE}, "token_budget must be a whole number"),
    ]

    async def go():
        async with Client(server, mode=mode) as client:
            return [await client.call_tool(name, args) for name, args, _ in calls]

    for (name, _, expected), result in zip(calls, run(go), strict=True):
        text = text_of(result)
        assert result.is_error and expected in text and len(text) <= MAX_ERROR + 200, (name[:20], text[:500])
        assert "characters)" in text or "…" in text, text


def test_search_header_names_a_long_query_by_its_start(server):
    query = "handler " * 1200  # 9,600 characters: allowed, but not echoed back whole

    async def go():
        async with Client(server) as client:
            return [await client.call_tool("search", {"query": query, "format": fmt}) for fmt in ("compact", "json")]

    for result in run(go):
        head = text_of(result).splitlines()[0]
        assert head.startswith("# graphctx search: handler handler") and len(head) < 160, head


@pytest.mark.parametrize("mode", MODES)
def test_resources_refuse_bad_names_briefly(server, mode):
    uris = {
        "graphctx://file/a%00b.py": "the resource URI contains a NUL byte",
        "graphctx://entity/Repo%1b": "the resource URI contains a control character",
        "graphctx://file/" + "x" * 20_000: "the resource URI is 20,016 characters long; the limit is 4,160",
        "graphctx://nothing/here": "unknown resource 'graphctx://nothing/here'; the resources are: graphctx://status",
    }

    async def go():
        out = {}
        async with Client(server, mode=mode) as client:
            for uri in uris:
                try:
                    await client.read_resource(uri)
                    out[uri] = "read"
                except MCPError as exc:
                    out[uri] = str(exc)
        return out

    for uri, message in run(go).items():
        assert uris[uri] in message and len(message) <= MAX_ERROR, (uri[:40], message[:300])


def test_library_errors_are_bounded():
    assert quote("abc") == "'abc'"
    assert quote("x" * 100) == f"'{'x' * 80}…' (100 characters)"
    assert quote(12) == "12"
    text = "problem " + "y" * 10_000 + " fix it"
    assert len(bounded(text)) <= 2000 and bounded(text).startswith("problem ") and bounded(text).endswith(" fix it")
    error = GraphctxError("no such thing " + "z" * 300_000 + "; try another", ["s" * 10_000] * 50)
    assert len(error.message) <= 2000 and error.message.endswith("; try another")
    assert len(error.suggestions) == 20 and all(len(s) <= 300 for s in error.suggestions)


def test_cli_refuses_an_over_long_record_field(repo):
    done = subprocess.run([*graphctx_command(), "remember", "--repo", str(repo), "--title", "t",
                           "--category", "c" * 300], capture_output=True, text=True)
    assert done.returncode == 2 and "category is 300 characters long; the limit is 200" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr) < MAX_ERROR


# ---- HTTP: a token by default

class Served:
    """`graphctx serve --http` in a subprocess, its stderr in a file."""

    def __init__(self, repo: Path, log: Path, *options: str, token: str | None = None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.log = log
        env = {k: v for k, v in os.environ.items() if k != "GRAPHCTX_TOKEN"}
        if token is not None:
            env["GRAPHCTX_TOKEN"] = token
        with open(log, "w") as out:
            self.proc = subprocess.Popen([*graphctx_command(), "serve", "--repo", str(repo), "--http", "--port",
                                          str(self.port), *options], env=env, stdout=out, stderr=subprocess.STDOUT)

    def ready(self) -> Served:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.log.read_text()
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.1)
        raise AssertionError(f"the HTTP server did not start: {self.log.read_text()}")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture
def serve_http(tmp_path):
    started: list[Served] = []

    def start(repo: Path, *options: str, token: str | None = None) -> Served:
        started.append(Served(repo, tmp_path / f"serve-{len(started)}.log", *options, token=token))
        return started[-1]

    yield start
    for served in started:
        served.stop()


def call_search(url: str, token: str | None):
    async def go():
        async with http_client(url, token, mode="legacy") as client:
            return await client.call_tool("search", {"query": "Repo"})

    return run(go)


def test_http_generates_a_token_and_keeps_it(tmp_path, serve_http):
    root = make_repo(tmp_path / "shop")
    first = serve_http(root).ready()
    log = first.log.read_text()
    path = root / ".graphctx" / "private" / "http-token"
    token = path.read_text().strip()
    assert len(token) >= 32 and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert log.count(token) == 2  # shown once, and once in the line to paste:
    assert (f'claude mcp add --transport http graphctx {first.url} --header "Authorization: Bearer {token}"') in log
    assert subprocess.run(["git", "-C", str(root), "check-ignore", "-q", str(path)]).returncode == 0  # never committed
    assert raw_post(first.url, {}) == 401
    assert raw_post(first.url, {"authorization": "Bearer wrong"}) == 401
    assert raw_post(first.url, {"authorization": f"Bearer {token}"}) == 200
    result = call_search(first.url, token)
    assert not result.is_error and "shop/models.py::Repo" in text_of(result)
    first.stop()

    again = serve_http(root).ready()  # the next start keeps the token, so registered hosts keep working
    log = again.log.read_text()
    assert token not in log and str(path) in log and "$(cat " in log
    assert raw_post(again.url, {}) == 401 and raw_post(again.url, {"authorization": f"Bearer {token}"}) == 200


def test_a_kept_token_stays_private_and_a_blank_one_is_replaced(tmp_path):
    path = tmp_path / ".graphctx" / "private" / "http-token"
    path.parent.mkdir(parents=True)
    path.write_text("")  # blank: as good as none
    made = http_token(tmp_path, env={})
    assert made.source == "new" and path.read_text().strip() == made.value
    path.chmod(0o644)  # someone widened it
    kept = http_token(tmp_path, env={})
    assert kept.source == "file" and kept.value == made.value and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert (tmp_path / ".graphctx" / ".gitignore").read_text().splitlines().count("private/") == 1
    assert http_token(tmp_path, env={"GRAPHCTX_TOKEN": "s3cret"}).value == "s3cret"
    with pytest.raises(GraphctxError, match="holds spaces or characters outside printable ASCII"):
        http_token(tmp_path, env={"GRAPHCTX_TOKEN": "two words"})
    with pytest.raises(GraphctxError, match="--no-auth and GRAPHCTX_TOKEN contradict each other"):
        http_token(tmp_path, env={"GRAPHCTX_TOKEN": "s3cret"}, no_auth=True)


def test_http_with_no_auth_is_for_loopback_only(repo, serve_http):
    served = serve_http(repo, "--no-auth").ready()
    assert raw_post(served.url, {}) == 200
    assert raw_post(served.url, {"origin": "https://evil.example"}) == 403
    assert "--no-auth: no token is required, so every process of every user on this machine" in served.log.read_text()
    assert not (repo / ".graphctx" / "private" / "http-token").exists()


def serve_fails(repo: Path, *options: str, token: str | None = None) -> str:
    """Run a `graphctx serve` that must refuse to start; its one line of stderr."""
    env = {k: v for k, v in os.environ.items() if k != "GRAPHCTX_TOKEN"}
    if token is not None:
        env["GRAPHCTX_TOKEN"] = token
    done = subprocess.run([*graphctx_command(), "serve", "--repo", str(repo), *options], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stdout == "" and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: "), done.stderr
    return done.stderr.strip()


@pytest.mark.parametrize("token", ["", "   "])
def test_http_refuses_an_empty_token(repo, token):
    assert serve_fails(repo, "--http", "--port", str(free_port()), token=token).startswith(
        "error: GRAPHCTX_TOKEN is set but empty, which would leave the code open to every local process")


@pytest.mark.parametrize("options, expected", [
    (["--http", "--port", "99999"], "--port must be between 1 and 65535; got 99999"),
    (["--http", "--port", "0"], "--port must be between 1 and 65535; got 0"),
    (["--http", "--port", "-1"], "--port must be between 1 and 65535; got -1"),
    (["--port", "9000"], "--port applies to --http only"),
    (["--no-auth"], "--no-auth applies to --http only"),
    (["--http", "--host", "0.0.0.0", "--no-auth"], "--no-auth is for loopback experiments only"),
    (["--http", "--host", "no-such-host.invalid"], "cannot listen on --host 'no-such-host.invalid'"),
    (["--deadline", "0"], "--deadline must be a number of seconds above 0"),
    (["--deadline", "-5"], "--deadline must be a number of seconds above 0"),
])
def test_bad_serve_options_are_one_line(repo, options, expected):
    assert expected in serve_fails(repo, *options)


def test_a_busy_port_is_one_line(repo):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = serve_fails(repo, "--http", "--port", str(port), token="t0ken")
    assert re.fullmatch(rf"error: port {port} on 127\.0\.0\.1 is already in use \(another graphctx serve\?\); .+", line)
