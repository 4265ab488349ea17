"""Probe 3: an MCP fuzzer. Seeded calls (fuzz_values) go to the server over the in-memory transport
(the SDK's Client in mode auto and legacy, in a process of its own, so that a hung or dead server
is seen and the session restarted) and over stdio (`graphctx serve` as hosts start it). Each call
ends as an answer or an error that reads as one clear sentence (ok); an internal error, traceback
or pydantic dump (failed); no reply within the per-call limit (lost: a hang); or the server gone
(crashed).

Run as a module, this file is the in-memory session: `python -m reliability.mcp_fuzz ROOT MODE SEED
START COUNT MAX_STRING` prints one JSON line as each call starts and one with its outcome."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reliability import procs
from reliability.fuzz_values import MAX_NESTING, Fuzz
from reliability.gen import Project
from reliability.tally import Tally, is_internal, unclear_error

TRANSPORTS = ("memory-auto", "memory-legacy", "stdio")
CALL_LIMIT_S = 20.0  # a call with no reply after this is a hang (generous: a 1 MB query takes a while)
START_LIMIT_S = 120.0  # building the server and listing its tools, on a busy machine
MAX_SHOWN = 160


def fuzz_project(workdir: Path, seed: int = 0) -> tuple[Path, list[str]]:
    """A small indexed project and names from it (entity ids, qualified names, files) to fuzz with."""
    import random

    project = Project(workdir / "fuzz-project", random.Random(seed), modules=12, workers=1)
    run = procs.run_cli(["index", str(project.root), "-q"])
    if run.returncode != 0:
        raise RuntimeError(f"cannot index the fuzz project: {run.describe()}")
    names = []
    for number in project.modules[:6]:
        names += [f"Model{number}", f"Model{number}.run", f"app/m{number}.py", f"app/m{number}.py::Model{number}",
                  f"f{number}_1", f"app.m{number}.f{number}_2", f"m{number}"]
    names += ["modify", "debug", "understand", "run", "model"]
    write_vocabulary(project.root, names)
    return project.root, names


def mcp_fuzz(root: Path, vocabulary: list[str], transport: str, calls: int, seed: int = 0,
             max_string: int = 1_000_000, max_nesting: int = MAX_NESTING, call_limit_s: float = CALL_LIMIT_S) -> Tally:
    if transport not in TRANSPORTS:
        raise ValueError(f"unknown transport {transport!r}; use one of {TRANSPORTS}")
    tally = Tally(f"mcp fuzz {transport}")
    limits = (max_string, max_nesting)
    if transport == "stdio":
        _fuzz_stdio(root, lambda tools: Fuzz(seed, tools, vocabulary, *limits), calls, call_limit_s, tally)
    else:
        _fuzz_memory(root, transport.split("-")[1], calls, [seed, *limits], call_limit_s, tally)
    return tally


def deep_request(root: Path, depth: int = MAX_NESTING, call_limit_s: float = CALL_LIMIT_S) -> Tally:
    """One search over stdio whose query is a list nested `depth` deep: it must be refused in words,
    not dropped unanswered."""
    tally = Tally("mcp deeply nested request")
    deep: Any = "x"
    for _ in range(depth):
        deep = [deep]

    class Deep:
        def call(self, number: int) -> tuple[str, dict[str, Any]]:
            return "search", {"query": deep}

    _fuzz_stdio(root, lambda tools: Deep(), 1, call_limit_s, tally)
    return tally


def judge(tally: Tally, label: str, kind: str, text: str, is_error: bool = True) -> None:
    """Count one reply: an answer, or an error that must read as a clear sentence."""
    if kind == "result" and not is_error:
        tally.notes["answers"] += 1
        tally.add("ok")
        return
    tally.notes["protocol errors" if kind == "mcp_error" else "error results"] += 1
    why = unclear_error(text)
    if why is None:
        tally.add("ok")
    else:
        tally.add("failed", f"{label}: {why}: {_clip(text)}")
        if is_internal(text):
            tally.notes["internal errors"] += 1


# ---- in memory, in a child process

def _fuzz_memory(root: Path, mode: str, calls: int, fuzz_args: list[int], limit: float, tally: Tally) -> None:
    number = 0
    while number < calls:
        child = _MemorySession(root, mode, number, calls - number, fuzz_args)
        try:
            number = child.drive(tally, limit)
        finally:
            child.close()


class _MemorySession:
    """One fuzzing child; its stdout lines come through a queue so waits can have a limit."""

    def __init__(self, root: Path, mode: str, start: int, count: int, fuzz_args: list[int]):
        self.errors = open(root.parent / f"fuzz-memory-{mode}.log", "ab")
        self.proc = subprocess.Popen(
            [*procs.suite_module("mcp_fuzz"), str(root), mode, str(start), str(count), *map(str, fuzz_args)],
            env=procs.suite_env(), stdout=subprocess.PIPE, stderr=self.errors, start_new_session=True)
        self.start = start
        self.lines: queue.Queue[dict | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for raw in self.proc.stdout:
            try:
                self.lines.put(json.loads(raw))
            except ValueError:
                continue  # not ours: something else wrote to stdout
        self.lines.put(None)

    def drive(self, tally: Tally, limit: float) -> int:
        """Judge the child's calls until it ends; returns the number of the next call to make."""
        if self._next(START_LIMIT_S, want="ready") is None:
            tally.add("crashed", f"the in-memory server did not start: exit {self.proc.poll()}")
            return self.start + 1
        number = self.start
        while True:
            started = self._next(limit, want="start")
            if started is None:  # the child is done, or it died between two calls
                try:
                    code = self.proc.wait(timeout=limit)
                except subprocess.TimeoutExpired:
                    code = None
                if code == 0:
                    return number
                tally.add("crashed", f"call {number}: the in-memory session stopped before it (exit {code})")
                return number + 1
            number, label = started["i"], started["label"]
            begun = time.monotonic()
            reply = self._next(limit, want="reply")
            if reply is None:
                if self.proc.poll() is None:
                    tally.add("lost", f"{label}: no reply after {time.monotonic() - begun:.0f} s (a hang)")
                else:
                    tally.add("crashed", f"{label}: the server process died (exit {self.proc.returncode})")
                return number + 1
            if reply["kind"] == "exception":
                tally.add("crashed", f"{label}: the client session broke: {_clip(reply['text'])}")
                return number + 1
            judge(tally, label, reply["kind"], reply["text"], reply.get("is_error", True))
            number += 1

    def _next(self, limit: float, want: str) -> dict | None:
        try:
            line = self.lines.get(timeout=limit)
        except queue.Empty:
            return None
        if line is None or line.get("event") != want:
            return None
        return line

    def close(self) -> None:
        procs.kill_group(self.proc.pid)
        self.proc.wait()
        self.errors.close()


def _child(root: Path, mode: str, start: int, count: int, seed: int, max_string: int, max_nesting: int) -> None:
    """The in-memory session: one server, one client, the calls start..start+count."""
    import anyio
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    from graphctx.server import build_server

    def say(**line: Any) -> None:
        sys.stdout.write(json.dumps(line) + "\n")
        sys.stdout.flush()

    async def go() -> None:
        server = build_server(root, watch=False)
        try:
            async with Client(server, mode=mode) as client:
                tools = {t.name: t.input_schema for t in (await client.list_tools()).tools}
                fuzz = Fuzz(seed, tools, _vocabulary(root), max_string, max_nesting)
                say(event="ready")
                for number in range(start, start + count):
                    name, args = fuzz.call(number)
                    say(event="start", i=number, label=_label(number, name, args))
                    try:
                        result = await client.call_tool(name, args)
                    except MCPError as exc:
                        say(event="reply", kind="mcp_error", text=str(exc.error.message if exc.error else exc))
                        continue
                    except Exception as exc:  # noqa: BLE001 - the session is broken: report it and stop
                        say(event="reply", kind="exception", text=f"{type(exc).__name__}: {exc}")
                        return
                    say(event="reply", kind="result", is_error=bool(result.is_error), text=_text(result))
        finally:
            server.graphctx_state.fresh.stop()

    anyio.run(go)


# ---- over stdio, as hosts run it

def _fuzz_stdio(root: Path, make_fuzz: Callable[[dict], Any], calls: int, limit: float, tally: Tally) -> None:
    import anyio
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED

    command = procs.graphctx_command()
    params = StdioServerParameters(command=command[0], args=[*command[1:], "serve", "--repo", str(root)],
                                   cwd=str(root))

    async def session(start: int, errlog) -> int:
        """Calls from start on, in one server process; returns the next call to make."""
        state = {"next": start + 1, "counted": False}
        with anyio.CancelScope() as starting:
            starting.deadline = anyio.current_time() + START_LIMIT_S
            try:
                async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
                    starting.deadline = float("inf")
                    tools = {t.name: t.input_schema for t in (await client.list_tools()).tools}
                    fuzz = make_fuzz(tools)
                    for number in range(start, calls):
                        state["next"] = number + 1
                        if not await one(client, fuzz, number, state):
                            return state["next"]
                    return calls
            except Exception as exc:  # noqa: BLE001 - a dead server cannot close cleanly
                if not state["counted"]:
                    tally.add("crashed", f"the stdio session broke: {type(exc).__name__}: {_clip(exc)}")
                return state["next"]
        tally.add("crashed", f"the stdio server did not answer the handshake within {START_LIMIT_S:.0f} s")
        return state["next"]

    async def one(client, fuzz, number: int, state: dict) -> bool:
        """Make and judge call number; False when the session cannot go on."""
        name, args = fuzz.call(number)
        label = _label(number, name, args)
        begun = time.monotonic()
        try:
            with anyio.fail_after(limit):
                result = await client.call_tool(name, args)
        except TimeoutError:
            waited = time.monotonic() - begun
            with anyio.move_on_after(limit), warnings.catch_warnings():  # dropped, or is the whole server stuck?
                warnings.simplefilter("ignore")  # ping is deprecated in the modern protocol; legacy sessions have it
                await client.send_ping()
                tally.add("lost", f"{label}: no reply after {waited:.0f} s, though the server still answers a ping"
                                  " (the request was dropped)")
                return True
            state["counted"] = True
            tally.add("lost", f"{label}: no reply after {waited:.0f} s and no answer to a ping (the server hangs)")
            return False
        except MCPError as exc:
            if exc.error is not None and exc.error.code == CONNECTION_CLOSED:
                state["counted"] = True
                tally.add("crashed", f"{label}: the server closed the connection: {_clip(exc)}")
                return False
            judge(tally, label, "mcp_error", exc.error.message if exc.error else str(exc))
            return True
        except Exception as exc:  # noqa: BLE001 - the stream broke: the server died
            state["counted"] = True
            tally.add("crashed", f"{label}: the server went away: {type(exc).__name__}: {_clip(exc)}")
            return False
        judge(tally, label, "result", _text(result), bool(result.is_error))
        return True

    async def go() -> None:
        number = 0
        with open(root.parent / "fuzz-stdio.log", "a") as errlog:
            while number < calls:
                number = await session(number, errlog)

    anyio.run(go)


# ---- shared

def _vocabulary(root: Path) -> list[str]:
    return json.loads((root.parent / "fuzz-vocabulary.json").read_text())


def write_vocabulary(root: Path, vocabulary: list[str]) -> None:
    (root.parent / "fuzz-vocabulary.json").write_text(json.dumps(vocabulary))


def _text(result) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


def _label(number: int, name: str, args: dict) -> str:
    return f"call {number} {_clip(repr(name), 40)}({_clip(json.dumps(args, ensure_ascii=True, default=str), 100)})"


def _clip(text: str, limit: int = MAX_SHOWN) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else f"{text[: limit - 1]}…({len(text):,} chars)"


if __name__ == "__main__":
    _child(Path(sys.argv[1]), sys.argv[2], *map(int, sys.argv[3:8]))
