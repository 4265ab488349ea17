"""Probe 6: a traceback sweep of the CLI. Every `graphctx` command (read from `graphctx --help`, its
arguments from `graphctx COMMAND --help`) runs with bad input: unknown flags, odd arguments, a
100,000-character entity id with `--budget 100`, a corrupt `index.db` of random bytes (which
`index` must recover from), and inputs known to hurt (a missing or invalid `--from-json` file,
`export -o` into a missing folder or onto a full device, impossible ports, junk on standard input,
a broken config file). No run may print a traceback or hang; each must exit with a code its case
allows (1: nothing found, 2: bad input, 0 only where the input is legitimately fine), and a failing
run must say why in a clear sentence."""

from __future__ import annotations

import functools
import os
import random
import re
import shutil
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from reliability import procs
from reliability.gen import Project
from reliability.tally import Tally, unclear_error

GROUPS = ("flags", "odd", "long", "corrupt", "files", "values", "stdin", "serve")
ERRORS = frozenset({1, 2})
ANY = frozenset({0, 1, 2})
LONG_ID = "x" * 100_000
ODD_ARGS = ("\x01\x7f", "-", "'\"", "../../etc/passwd", "💥", "", "\u202eevil", "%00", "\\0", "a\nb", "--", "-x", "*")
# Commands whose positional names something that must exist: junk there is an error, never an answer.
LOOKUPS = frozenset({"show", "context", "path", "file", "revise", "verify"})
SERVE_LIMIT_S = 30.0  # a serve case still running after this started serving on input it should refuse


@dataclass
class Case:
    group: str
    label: str
    args: list[str]  # "{repo}" stands for the case's repository
    allowed: frozenset[int]
    repo: str = "indexed"  # indexed | corrupt | bare (no index) | broken-config
    stdin: bytes = b""
    limit_s: float = procs.CLI_LIMIT_S
    then: list[str] | None = None  # a command that must then succeed in the same repository


@dataclass
class Command:
    name: str
    positionals: list[str] = field(default_factory=list)  # "{a,b}" for a choice
    options: set[str] = field(default_factory=set)


@functools.cache
def discover(jobs: int = 2) -> tuple[Command, ...]:
    """The commands `graphctx --help` lists, with the arguments each one's --help shows."""
    top = procs.run_cli(["--help"]).stdout
    names = re.findall(r"^    ([a-z][a-z-]*)\s", top.split("commands:", 1)[-1], re.MULTILINE)

    def read(name: str) -> Command:
        text = procs.run_cli([name, "--help"]).stdout
        listed = _section(text, "positional arguments:")
        positionals = re.findall(r"^  (\{[^}]*\}|[A-Za-z_]+)(?:\s|$)", listed, re.MULTILINE)
        options = set(re.findall(r"(--[a-z][a-z-]*)", _section(text, "options:")))
        return Command(name, positionals, options)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return tuple(pool.map(read, names))


def _section(text: str, heading: str) -> str:
    if heading not in text:
        return ""
    return re.split(r"\n\S", text.split(heading, 1)[1], maxsplit=1)[0]


def cases(commands: tuple[Command, ...], workdir: Path) -> list[Case]:
    out: list[Case] = [
        Case("flags", "no command", [], frozenset({0})),
        Case("flags", "an unknown command", ["contxt"], frozenset({2})),
        Case("flags", "an unknown top-level flag", ["--no-such-flag"], frozenset({2})),
    ]
    for command in commands:
        repo = [] if command.name == "bench" else ["--repo", "{repo}"]
        out.append(Case("flags", f"{command.name} with an unknown flag", [command.name, *repo, "--no-such-flag"],
                        frozenset({2})))
        if not command.positionals or command.name == "bench":
            continue
        valid = [_valid(p) for p in command.positionals]
        budget = ["--budget", "100"] if "--budget" in command.options else []
        for where in range(len(command.positionals)):
            if command.positionals[where].startswith("{"):
                continue
            allowed = ERRORS if command.name in LOOKUPS else ANY
            args = [*valid[:where], LONG_ID, *valid[where + 1:]]
            out.append(Case("long", f"{command.name} with a 100,000-character {command.positionals[where]}",
                            [command.name, *repo, *budget, *args], allowed))
            for odd in ODD_ARGS:
                args = [*valid[:where], odd, *valid[where + 1:]]
                out.append(Case("odd", f"{command.name} with {command.positionals[where]} {odd!r}",
                                [command.name, *repo, *args], allowed))
    out.append(Case("long", "export --around a 100,000-character id",
                    ["export", "--repo", "{repo}", "--around", LONG_ID], ERRORS))
    for command in commands:
        if command.name == "bench":
            continue
        if command.name == "serve":
            out.append(Case("corrupt", "serve on a corrupt index (standard input closed)",
                            ["serve", "--repo", "{repo}", "--no-watch"], ANY, repo="corrupt", limit_s=SERVE_LIMIT_S))
            continue
        valid = [_valid(p) for p in command.positionals if not p.startswith("[")]
        if command.name == "index":
            out.append(Case("corrupt", "index on a corrupt index rebuilds it", ["index", "{repo}", "-q"],
                            frozenset({0}), repo="corrupt", then=["stats", "--repo", "{repo}"]))
            continue
        out.append(Case("corrupt", f"{command.name} on a corrupt index", [command.name, "--repo", "{repo}", *valid],
                        ANY, repo="corrupt"))
    out += _input_cases(workdir)
    return out


def _valid(positional: str) -> str:
    """A plausible value for a positional of the generated project."""
    if positional.startswith("{"):
        return positional.strip("{}").split(",")[0]
    return {"path": "{repo}", "file": "app/m1.py", "id": "01JUNKJUNKJUNKJUNKJUNKJUNK"}.get(positional, "Model1")


def _input_cases(workdir: Path) -> list[Case]:
    """Inputs known to hurt, by group: files (bad files and output paths), values (out of range,
    unknown names and revisions), stdin (junk on standard input), serve (impossible addresses)."""
    files = workdir / "inputs"
    files.mkdir(parents=True, exist_ok=True)
    for name, text in {"invalid.json": "{not json", "number.json": "5", "numbers.json": "[5, 6]",
                       "empty-list.json": "[]",
                       "wrong-types.json": '[{"title": 5, "body": ["x"], "confidence": "high"}]'}.items():
        (files / name).write_text(text)
    (files / "binary.json").write_bytes(random.Random(0).randbytes(512))
    at = ["--repo", "{repo}"]
    remember, context, serve, export = ["remember", *at], ["context", *at, "Model1"], ["serve", *at], ["export", *at]
    recall, search = ["recall", *at], ["search", *at, "Model1"]

    def c(group: str, label: str, args: list[str], allowed: set[int], **extra) -> Case:
        limit = {"limit_s": SERVE_LIMIT_S} if group == "serve" else {}
        return Case(group, label, args, frozenset(allowed), **limit, **extra)

    return [
        *(c("files", f"remember --from-json of {what}", [*remember, "--from-json", str(files / name)], {2})
          for what, name in (("a missing file", "missing.json"), ("invalid JSON", "invalid.json"),
                             ("a number", "number.json"), ("a list of numbers", "numbers.json"),
                             ("wrong field types", "wrong-types.json"), ("random bytes", "binary.json"),
                             ("a folder", "."))),
        c("files", "remember --from-json of an empty list", [*remember, "--from-json", str(files / "empty-list.json")],
          {1, 2}),
        c("files", "export -o into a missing folder", [*export, "-o", str(files / "missing" / "out.json")], {2}),
        c("files", "export -o onto a folder", [*export, "-o", str(files)], {2}),
        c("files", "export -o onto a full device", [*export, "-o", "/dev/full"], {2}),
        c("files", "--repo of a missing folder", ["stats", "--repo", str(files / "no-such-folder")], {2}),
        c("files", "--repo of a file", ["stats", "--repo", str(files / "invalid.json")], {2}),
        c("files", "index with a broken config file", ["index", "{repo}"], {2}, repo="broken-config"),
        c("files", "index of a file", ["index", str(files / "invalid.json")], {2}),
        c("files", "bench run of a missing set", ["bench", "run", str(files / "missing.jsonl")], {1, 2}),
        c("values", "remember --confidence 7", [*remember, "--title", "T", "--body", "b", "--confidence", "7"], {2}),
        c("values", "remember with an anchor that names nothing",
          [*remember, "--title", "T", "--body", "b", "--anchor", "no/such.py::Nothing"], {2}),
        c("values", "export --max-nodes -1", [*export, "--max-nodes", "-1"], {2}),
        c("values", "export --edges of an unknown kind", [*export, "--edges", "callz"], {2}),
        c("values", "export --depth -1 --around Model1", [*export, "--around", "Model1", "--depth", "-1"], {2}),
        c("values", "context --budget 0", [*context, "--budget", "0"], {2}),
        c("values", "context --budget -5", [*context, "--budget", "-5"], {2}),
        c("values", "context --budget 10**12", [*context, "--budget", str(10**12)], {2}),
        c("values", "context --budget abc", [*context, "--budget", "abc"], {2}),
        c("values", "context --depth -1", [*context, "--depth", "-1"], {2}),
        c("values", "context --depth 10**9", [*context, "--depth", str(10**9)], {0, 2}),
        c("values", "search --limit 0", [*search, "--limit", "0"], {2}),
        c("values", "search --limit -5", [*search, "--limit", "-5"], {2}),
        c("values", "search --kind of no such kind", [*search, "--kind", "gizmo"], {1, 2}),
        c("values", "impact --diff of no such revision", ["impact", *at, "--diff", "no-such-rev"], {2}),
        c("values", "impact --files of a missing file", ["impact", *at, "--files", "no/such.py"], {1, 2}),
        c("values", "check --base of no such revision", ["check", *at, "--base", "no-such-rev"], {2}),
        c("values", "recall --id of no such record", [*recall, "--id", "01JUNKJUNKJUNKJUNKJUNKJUNK"], {1, 2}),
        c("values", "recall --id nonsense --section x", [*recall, "--id", "nonsense", "--section", "x"], {1, 2}),
        c("values", "recall --cursor of junk", [*recall, "word", "--cursor", "junk!!"], {1, 2}),
        c("values", "recall --limit 0", [*recall, "word", "--limit", "0"], {2}),
        c("values", "revise with --set that is not FIELD=VALUE",
          ["revise", *at, "nonsense", "--version", "1", "--set", "x"], {1, 2}),
        c("values", "revise --version -1", ["revise", *at, "nonsense", "--version", "-1"], {1, 2}),
        c("values", "stats with no index yet", ["stats", *at], {1, 2}, repo="bare"),
        c("values", "context with no index yet", context, {1, 2}, repo="bare"),
        c("values", "bench with an unknown flag", ["bench", "--no-such-flag"], {2}),
        c("stdin", "remember --from-json - with junk on standard input", [*remember, "--from-json", "-"], {2},
          stdin=b"\xff\xfe\x00junk"),
        c("stdin", "remember --body - with invalid UTF-8 on standard input",
          [*remember, "--title", "Bytes", "--body", "-"], {0, 2}, stdin=b"\xff\xfe\x00\x01"),
        c("stdin", "intent debug - with NUL and invalid UTF-8 on standard input", ["intent", *at, "debug", "-"],
          {0, 1, 2}, stdin=b"Traceback in \x00 Model1 \xff\xfe\n"),
        c("serve", "serve --port 99999 (stdio, which has no port)", [*serve, "--port", "99999"], {0, 2}),
        c("serve", "serve --http --port 99999", [*serve, "--http", "--port", "99999"], {2}),
        c("serve", "serve --http --port -1", [*serve, "--http", "--port", "-1"], {2}),
        c("serve", "serve --http on a port in use", [*serve, "--http", "--port", str(_taken_port())], {1, 2}),
        c("serve", "serve --http --host of no such address",
          [*serve, "--http", "--host", "256.1.1.1", "--port", str(procs.free_port())], {1, 2}),
    ]


def _taken_port() -> int:
    """A loopback port something already listens on (this process, until it exits)."""
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    _taken_port.keep = listener  # type: ignore[attr-defined]  # keep it open while the sweep runs
    return listener.getsockname()[1]


def cli_sweep(workdir: Path, groups: tuple[str, ...] = GROUPS, seed: int = 0, sample: int | None = None,
              jobs: int = 2, name: str = "cli sweep") -> Tally:
    """Run the cases of the given groups (a seeded sample of `sample` from each group when given)."""
    unknown = set(groups) - set(GROUPS)
    if unknown:
        raise ValueError(f"no case groups named {sorted(unknown)}; the groups are {GROUPS}")
    tally = Tally(name)
    fixture = _fixture(workdir / "cli-project", seed)
    chosen = [c for c in cases(discover(jobs), workdir) if c.group in groups]
    if sample is not None:
        rng = random.Random(seed)
        chosen = [c for g in groups for c in _sample(rng, [c for c in chosen if c.group == g], sample)]
    prepare = _Repos(workdir, fixture)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for case, problems in pool.map(lambda c: (c, _run(c, prepare)), chosen):
            outcome, problem = problems
            tally.add(outcome, f"{case.label}: {problem}" if problem else None)
    return tally


def _sample(rng: random.Random, items: list[Case], size: int) -> list[Case]:
    return items if len(items) <= size else rng.sample(items, size)


def _fixture(root: Path, seed: int) -> Path:
    project = Project(root, random.Random(seed), modules=6, workers=1)
    run = procs.run_cli(["index", str(project.root), "-q"])
    if run.returncode != 0:
        raise RuntimeError(f"cannot index the sweep's project: {run.describe()}")
    return project.root


class _Repos:
    """The repository each case runs in: the shared indexed one, or a copy made for the case."""

    def __init__(self, workdir: Path, fixture: Path):
        self.workdir, self.fixture = workdir, fixture

    def __call__(self, case: Case) -> Path:
        if case.repo == "indexed":
            return self.fixture
        root = self.workdir / f"case-{os.getpid()}-{id(case)}"
        shutil.copytree(self.fixture, root, symlinks=True)
        index = root / ".graphctx" / "index.db"
        for extra in index.parent.glob("index.db-*"):
            extra.unlink()
        if case.repo == "corrupt":
            index.write_bytes(random.Random(case.label).randbytes(64 * 1024))
        elif case.repo == "bare":
            index.unlink()
        elif case.repo == "broken-config":
            (root / ".graphctx" / "config.toml").write_text("[index\nworkers = 'many'\n")
        return root


def _run(case: Case, repos: Callable[[Case], Path]) -> tuple[str, str | None]:
    root = repos(case)
    args = [a.replace("{repo}", str(root)) for a in case.args]
    run = procs.run_cli(args, cwd=root, stdin=case.stdin, limit_s=case.limit_s)
    if run.hung:
        return "lost", run.describe()
    if run.traceback:
        return "crashed", run.describe()
    if run.returncode not in case.allowed:
        return "failed", f"{run.describe()} (allowed: {', '.join(map(str, sorted(case.allowed)))})"
    if run.returncode != 0:
        message = run.stderr.strip() or run.stdout.strip()
        if not message:
            return "failed", f"{run.describe()}: says nothing"
        # Exit 1 with nothing on stderr is an answer that found nothing (printed on stdout), not an error.
        answered_empty = run.returncode == 1 and not run.stderr.strip()
        if not answered_empty and (why := unclear_error(message)) is not None:
            return "failed", f"{run.describe()}: {why}"
    if case.then:
        after = procs.run_cli([a.replace("{repo}", str(root)) for a in case.then], cwd=root)
        if after.hung or after.returncode != 0 or after.traceback:
            return "lost" if not after.traceback else "crashed", f"then {after.describe()}"
    return "ok", None

