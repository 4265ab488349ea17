"""Processes, as the probes see them: the `graphctx` command to run, one CLI run with a time limit,
the descendants of a process read from /proc (to tell whether a killed run's workers outlive it),
and loopback ports."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from reliability.tally import TRACEBACK

CLI_LIMIT_S = 60.0  # a CLI command still running after this is hung (generous: the machine may be busy)


def graphctx_command() -> list[str]:
    """The installed `graphctx` script beside this interpreter, else the module through it."""
    script = Path(sys.executable).with_name("graphctx")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from graphctx.cli.main import main; sys.exit(main())"]


def suite_module(name: str) -> list[str]:
    """The command that runs one of this suite's modules in a process of its own."""
    return [sys.executable, "-m", f"reliability.{name}"]


def suite_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This environment, with the suite importable (its folder's parent on PYTHONPATH)."""
    env = dict(os.environ)
    here = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [here, env.get("PYTHONPATH")]))
    env.update(extra or {})
    return env


@dataclass
class CliRun:
    args: list[str]
    returncode: int | None  # None: it hung and was killed
    stdout: str
    stderr: str

    @property
    def hung(self) -> bool:
        return self.returncode is None

    @property
    def traceback(self) -> bool:
        return TRACEBACK in self.stderr or TRACEBACK in self.stdout

    def describe(self) -> str:
        shown = " ".join(_show_arg(a) for a in self.args)
        if self.hung:
            return f"`graphctx {shown}` still ran after {CLI_LIMIT_S:.0f} s"
        tail = (self.stderr.strip() or self.stdout.strip()).splitlines()[-3:]
        return f"`graphctx {shown}` exited {self.returncode}: {' | '.join(tail) or '(no output)'}"


def run_cli(args: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None, stdin: bytes = b"",
            limit_s: float = CLI_LIMIT_S) -> CliRun:
    """Run `graphctx ARGS` to the end (or kill it, with its process group, after limit_s)."""
    proc = subprocess.Popen([*graphctx_command(), *args], cwd=cwd, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(stdin, timeout=limit_s)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        kill_group(proc.pid)
        out, err = proc.communicate()
        code = None
    return CliRun(args, code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))


def kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _show_arg(arg: str, limit: int = 60) -> str:
    text = arg if arg.isprintable() and " " not in arg and arg else repr(arg)
    return text if len(text) <= limit else f"{text[: limit - 12]}…({len(arg):,} chars)"


# ---- /proc

@dataclass(frozen=True)
class Proc:
    pid: int
    start: int  # start time in clock ticks: a reused pid has another one

    def command(self) -> str:
        try:
            return Path(f"/proc/{self.pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            return ""

    def alive(self) -> bool:
        """Running (or sleeping): not gone, not a zombie, not a new process that took the pid."""
        stat = _stat(self.pid)
        return stat is not None and stat[1] != "Z" and stat[3] == self.start


def _stat(pid: int) -> tuple[int, str, int, int, int] | None:
    """(pid, state, ppid, start time, process group) from /proc/PID/stat, or None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # the command name may hold spaces and parentheses
    return pid, fields[0], int(fields[1]), int(fields[19]), int(fields[2])


def _living() -> list[tuple[int, str, int, int, int]]:
    return [stat for entry in os.listdir("/proc")
            if entry.isdigit() and (stat := _stat(int(entry))) is not None and stat[1] != "Z"]


def group(pgid: int) -> list[Proc]:
    """The living processes of a process group: a killed leader's workers stay in it when orphaned."""
    return [Proc(pid, start) for pid, _, _, start, group in _living() if group == pgid and pid != pgid]


def descendants(pid: int) -> list[Proc]:
    """Every process below pid (children, grandchildren: a fork server's workers too)."""
    children: dict[int, list[tuple[int, int]]] = {}
    for stat in _living():
        children.setdefault(stat[2], []).append((stat[0], stat[3]))
    out: list[Proc] = []
    frontier = [pid]
    while frontier:
        for child, start in children.get(frontier.pop(), ()):
            out.append(Proc(child, start))
            frontier.append(child)
    return out


def survivors(procs: list[Proc], grace_s: float) -> list[Proc]:
    """Those of procs still alive after waiting up to grace_s for them to go."""
    deadline = time.monotonic() + grace_s
    alive = [p for p in procs if p.alive()]
    while alive and time.monotonic() < deadline:
        time.sleep(0.05)
        alive = [p for p in alive if p.alive()]
    return alive


def reap(procs: list[Proc]) -> None:
    """SIGKILL processes this suite started that outlived their parent (checked by start time)."""
    for proc in procs:
        if proc.alive():
            try:
                os.kill(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def proc_available() -> bool:
    return Path(f"/proc/{os.getpid()}/stat").exists()


# ---- loopback

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, limit_s: float = 60.0) -> bool:
    """True once something listens on 127.0.0.1:port; False when proc exits or limit_s passes first."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False
