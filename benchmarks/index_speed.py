"""Indexing speed against the hardware's ceiling, on one tree, in one run.

The ceiling is the least work any tree-sitter indexer must do: read each file graphctx indexes, parse
it, run one definitions-and-calls query and store a row per definition and per call in SQLite, with
as many processes as graphctx's workers. Beside it, graphctx's cold (full) build, each in a fresh
process, interleaved and repeated (medians), the ratio graphctx / ceiling and where the build's time
went (parsing, the structure pass, the uses pass, finishing). Then, on the built
index: a no-op run, one-file changes (a function appended to a median-size file; a line added at the
top of those files and of the most-read file; a local variable set inside the most-read file's
largest function) and a change to what a widely read function returns (and back) through one
Project, as a server's watcher runs them, then both as `graphctx index` in a new process beside
Python's own start-up, index size per source byte, peak RSS, and a new process's first context
answer from the CLI and over MCP (stdio, from spawn). Not a timed test: a measurement to read and record.

    python benchmarks/index_speed.py                   # a copy of the running interpreter's stdlib
    python benchmarks/index_speed.py --path REPO       # a copy of any tree
    python benchmarks/index_speed.py --copies 4        # also N copies side by side: growth in time and memory
    python benchmarks/index_speed.py --profile         # also profile a one-process cold run
    python benchmarks/index_speed.py --path REPO --first-answers-only   # only the first answers, on REPO in place
    python benchmarks/index_speed.py --edits-only      # one cold build, then only the no-op and one-file changes

sympy, the large tree the targets are set on (no git history needed, any commit does):

    git clone --filter=blob:none https://github.com/sympy/sympy && cd sympy
    mkdir ../sympy-tree && git archive HEAD | tar -x -C ../sympy-tree
    python benchmarks/index_speed.py --path ../sympy-tree

Timings on a shared machine are noisy: read the ratios (taken in the same run), not the seconds.
"""

from __future__ import annotations

import argparse
import compileall
import cProfile
import io
import json
import os
import pstats
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import graphctx
from graphctx import Project
from graphctx.index import store
from graphctx.index.discover import discover, load_config
from graphctx.index.indexer import index_repository
from graphctx.parse.languages import language_for_path, load, parser as parser_for

TARGETS = {
    "cold / ceiling": ("<=", 1.5),
    "one-file change ms": ("<=", 100.0),
    "no-op s": ("<=", 0.15),
    "index.db / source": ("<=", 3.0),
    "peak RSS MB": ("<=", 300.0),
    "CLI first answer s": ("<=", 1.0),
    "MCP first answer s": ("<=", 1.5),
    "copies time / one": ("<=", 4.2),
    "copies peak RSS MB": ("<=", 600.0),
}
RACY_PAUSE = 2.1  # seconds: see RACY_NS in graphctx/index/indexer.py
COPIED_OUT = (".git", ".graphctx", "site-packages", "__pycache__", "node_modules")  # skipped by the index anyway

# One definitions-and-calls query per language: the least a code indexer asks of a syntax tree.
CEILING_QUERIES = {
    "python": """
        (function_definition name: (identifier) @def)
        (class_definition name: (identifier) @def)
        (call function: [(identifier) @call (attribute attribute: (identifier) @call)])""",
    "javascript": """
        (function_declaration name: (identifier) @def)
        (class_declaration name: (_) @def)
        (method_definition name: (_) @def)
        (call_expression function: [(identifier) @call (member_expression property: (_) @call)])""",
    "go": """
        (function_declaration name: (identifier) @def)
        (method_declaration name: (field_identifier) @def)
        (type_spec name: (type_identifier) @def)
        (call_expression function: [(identifier) @call (selector_expression field: (field_identifier) @call)])""",
    "rust": """
        (function_item name: (identifier) @def)
        (struct_item name: (type_identifier) @def)
        (call_expression function: [(identifier) @call (field_expression field: (field_identifier) @call)])""",
    "java": """
        (method_declaration name: (identifier) @def)
        (class_declaration name: (identifier) @def)
        (method_invocation name: (identifier) @call)""",
}
CEILING_QUERIES["typescript"] = CEILING_QUERIES["tsx"] = CEILING_QUERIES["javascript"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--path", type=Path, help="the tree to index (default: the standard library)")
    parser.add_argument("--workers", type=int, default=0, help="worker processes (default: graphctx's, one per core)")
    parser.add_argument("--repeat", type=int, default=3, help="cold builds and ceilings to time, interleaved (medians)")
    parser.add_argument("--changes", type=int, default=5, help="how many one-file changes to time")
    parser.add_argument("--copies", type=int, default=1, help="also index N copies of the tree side by side")
    parser.add_argument("--starts", type=int, default=3, help="new processes timed to their first answer (0: none)")
    parser.add_argument("--profile", action="store_true", help="profile a one-process cold run and print hot spots")
    parser.add_argument("--first-answers-only", action="store_true",
                        help="time only new processes' first answers, on --path in place (indexed first if needed, untimed)")
    parser.add_argument("--edits-only", action="store_true",
                        help="build the index once (untimed against the ceiling), then time only the no-op run and "
                             "the one-file changes")
    parser.add_argument("--child", nargs=2, metavar=("WHAT", "ROOT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(*args.child, workers=args.workers)

    source = (args.path or Path(sysconfig.get_paths()["stdlib"])).resolve()
    if not source.is_dir():
        parser.error(f"{source} is not a directory; pass a folder with --path")
    if args.copies < 1 or args.repeat < 1:
        parser.error("--copies and --repeat must be 1 or more")
    if args.first_answers_only:
        if args.path is None or args.starts < 1:
            parser.error("--first-answers-only times a tree in place: pass it with --path, and --starts 1 or more")
        return first_answers_only(source, args.starts)
    workers = args.workers or load_config(source).workers or os.cpu_count() or 1
    scratch = Path(tempfile.mkdtemp(prefix="graphctx-bench-"))
    try:
        started = time.perf_counter()
        root = scratch / "one" / source.name
        shutil.copytree(source, root, symlinks=True, ignore=shutil.ignore_patterns(*COPIED_OUT))
        many = None
        if args.copies > 1:
            many = scratch / "many"
            for i in range(args.copies):
                shutil.copytree(root, many / f"copy-{i + 1}", symlinks=True)
        print(f"tree      {source} (copied{f' {args.copies + 1} times' if many else ''} in "
              f"{time.perf_counter() - started:.1f} s)")
        load_avg = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"machine   python {sys.version.split()[0]}, {os.cpu_count()} cores, {workers} workers, load average "
              f"{load_avg:.1f} at start (wall times stretch on a busy machine; ratios taken in one run less so)")
        time.sleep(RACY_PAUSE)  # let the copies' mtimes age past the racy-file window, as an edited tree's would

        if args.edits_only:
            built = spawn("cold", root, workers)
            figures: dict[str, float] = {}
            print(f"\n[one copy] {built['files']:,} files, {built['source MB']:.1f} MB of source; built in "
                  f"{built['seconds']:.1f} s (CPU {built['cpu']:.1f} s)")
            after_cold(root, args.changes, figures)
            from_the_cli(root, args.changes, figures)
            verdict(figures)
            return 0
        figures = cold(root, workers, args.repeat, "one copy")
        after_cold(root, args.changes, figures)
        from_the_cli(root, args.changes, figures)
        if args.starts:
            first_answers(root, args.starts, figures)
        if many is not None:
            grown = cold(many, workers, args.repeat, f"{args.copies} copies")
            figures["copies time / one"] = grown["cold s"] / figures["cold s"]
            figures["copies peak RSS MB"] = grown["peak RSS MB"]
            print(f"growth    {args.copies} copies / one: time {figures['copies time / one']:.2f}x "
                  f"(ceiling {grown['ceiling s'] / figures['ceiling s']:.2f}x), peak RSS {grown['peak RSS MB']:.0f} MB "
                  f"({grown['peak RSS MB'] / figures['peak RSS MB']:.2f}x), index.db {grown['index MB']:.0f} MB; "
                  f"graphctx / ceiling {grown['cold / ceiling']:.2f}")
        if args.profile:
            profile(root)
        verdict(figures)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


# ---- cold builds beside the ceiling, each in a fresh process

def cold(root: Path, workers: int, repeat: int, label: str) -> dict[str, float]:
    ceilings, builds = [], []
    for _ in range(repeat):  # interleaved, so that a burst of load on the machine hits both
        ceilings.append(spawn("ceiling", root, workers))
        builds.append(spawn("cold", root, workers))
    ceiling_s = statistics.median(r["seconds"] for r in ceilings)
    cold_s = statistics.median(r["seconds"] for r in builds)
    last = builds[-1]
    db_mb = store.index_path(root).stat().st_size / 1e6
    figures = {
        "ceiling s": ceiling_s, "cold s": cold_s, "cold / ceiling": cold_s / ceiling_s,
        # (the largest process's: a worker holds what its questions reach of the repository, beside what it inherits)
        "peak RSS MB": max(max(r["rss MB"], r["rss workers MB"]) for r in builds), "index MB": db_mb,
        "index.db / source": db_mb / last["source MB"],
    }
    print(f"\n[{label}] {last['files']:,} files, {last['source MB']:.1f} MB of source; {last['entities']:,} entities, "
          f"{last['edges']:,} edges; index.db {db_mb:.1f} MB ({figures['index.db / source']:.2f}x the source)")
    print(f"ceiling   {ceiling_s:7.3f} s  median of {repeat}: {_spread(ceilings)}  (read, parse, definitions-and-calls "
          f"query, SQLite insert; {ceilings[-1]['rows']:,} rows)")
    print(f"cold      {cold_s:7.3f} s  median of {repeat}: {_spread(builds)}  (graphctx index --full; CPU "
          f"{last['cpu main']:.1f} s main process + {last['cpu workers']:.1f} s workers)")
    each = ", ".join(f"{b['seconds'] / c['seconds']:.2f}" for b, c in zip(builds, ceilings))
    cpu_ratio = statistics.median(b["cpu"] for b in builds) / statistics.median(c["cpu"] for c in ceilings)
    print(f"ratio     graphctx / ceiling = {figures['cold / ceiling']:.2f}  (each run: {each}); in CPU seconds "
          f"{cpu_ratio:.2f} (what a machine shared with other work distorts least)")
    phases = last["phases"]
    print("phases    " + ", ".join(f"{name} {phases[name]:.1f} s" for name in ("discovering", "parsing", "structure", "uses", "finishing")
                                   if name in phases) + f" (the ceiling's whole run: {ceilings[-1]['seconds']:.1f} s)")
    print(f"peak RSS  {last['rss MB']:.0f} MB graphctx main process, {last['rss workers MB']:.0f} MB its largest "
          f"worker (the target reads the larger); ceiling {max(r['rss MB'] for r in ceilings):.0f} MB")
    return figures


def _spread(runs: list[dict]) -> str:
    return ", ".join(f"{r['seconds']:.2f}" for r in runs)


def spawn(what: str, root: Path, workers: int) -> dict:
    """Run one measurement in a fresh interpreter, so each starts cold and has its own peak RSS."""
    command = [sys.executable, __file__, "--child", what, str(root), "--workers", str(workers)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"the {what} run failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def child(what: str, root: str, *, workers: int) -> int:
    root_path = Path(root)
    if what == "ceiling":
        cpu = _cpu()
        figures = ceiling(root_path, workers)
        figures["cpu"] = sum(now - before for now, before in zip(_cpu(), cpu))
    else:
        cpu = _cpu()
        phases = Phases()
        started = time.perf_counter()
        result = index_repository(root_path, full=True, workers=workers, progress=phases.report)
        seconds = time.perf_counter() - started
        conn = store.connect(store.index_path(root_path), readonly=True)
        size = conn.execute("SELECT coalesce(sum(size), 0) FROM files").fetchone()[0]
        conn.close()
        main_cpu, workers_cpu = (now - before for now, before in zip(_cpu(), cpu))
        figures = {"seconds": seconds, "files": result.files, "entities": result.entities, "edges": result.edges,
                   "source MB": size / 1e6, "cpu main": main_cpu, "cpu workers": workers_cpu,
                   "cpu": main_cpu + workers_cpu, "phases": phases.seconds(started + seconds)}
    figures["rss MB"] = _own_peak_mb()
    figures["rss workers MB"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(json.dumps(figures))
    return 0


def _own_peak_mb() -> float:
    """This process's peak RSS. Not getrusage's on Linux: it carries across exec the peak of the process
    that started this one (this benchmark's, which holds the kept tables of the edits it timed), so a
    build of four copies read 519 MB where its main process reached about 440."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Phases:
    """Where a build's wall time goes, from its progress reports: discovery, parsing (the main process writes each
    file's rows as it comes), the structure pass (imports and bases, in the main process alone), the
    uses pass (calls and value flow, in the workers) and what follows (indexes, snapshot, commit)."""

    def __init__(self) -> None:
        self.starts: list[tuple[str, float]] = []

    def report(self, phase: str, done: int, total: int) -> None:
        if phase == "resolving":  # (both passes count on its bar: the structure pass is its first half)
            phase = "structure" if done < total // 2 else "uses"
        elif phase == "writing":  # (before resolving: the last parsed files' rows)
            phase = "finishing" if any(name in ("structure", "uses") for name, _ in self.starts) else "parsing"
        if not self.starts or self.starts[-1][0] != phase:
            self.starts.append((phase, time.perf_counter()))

    def seconds(self, end: float) -> dict[str, float]:
        out: dict[str, float] = {}
        for (phase, start), (_, stop) in zip(self.starts, [*self.starts[1:], ("", end)]):
            out[phase] = out.get(phase, 0.0) + stop - start
        return out


def _cpu() -> tuple[float, float]:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def ceiling(root: Path, workers: int) -> dict:
    """Read, parse, query and store every file graphctx would index (its discovery, untimed, picks them)."""
    candidates, _, _ = discover(root, load_config(root))
    tasks = [(str(root), c.path) for c in candidates]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        conn = sqlite3.connect(Path(tmp) / "ceiling.db", isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE rows (path TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL, line INTEGER NOT NULL)")
        conn.execute("BEGIN")
        rows = 0
        with ProcessPoolExecutor(workers) as pool:
            for found in pool.map(_ceiling_file, tasks, chunksize=max(1, min(32, len(tasks) // (workers * 8)))):
                conn.executemany("INSERT INTO rows VALUES (?, ?, ?, ?)", found)
                rows += len(found)
        conn.execute("COMMIT")
        conn.close()
    return {"seconds": time.perf_counter() - started, "rows": rows}


_QUERIES: dict = {}


def _ceiling_file(task: tuple[str, str]) -> list[tuple]:
    from tree_sitter import Query, QueryCursor

    root, path = task
    data = (Path(root) / path).read_bytes()
    spec = language_for_path(path)
    if spec is None or spec.name not in CEILING_QUERIES:
        # A file known at file level (or in a language with no query here): read, parsed where a
        # grammar exists, and one row, as graphctx keeps for it.
        if spec is not None:
            parser_for(spec.name).parse(data)
        return [(path, "file", path, 1)]
    language = spec.name
    if language not in _QUERIES:
        _QUERIES[language] = Query(load(language)[0], CEILING_QUERIES[language])
    tree = parser_for(language).parse(data)
    captures = QueryCursor(_QUERIES[language]).captures(tree.root_node)
    return [(path, kind, node.text.decode("utf-8", "replace"), node.start_point[0] + 1)
            for kind, nodes in captures.items() for node in nodes]


# ---- on the built index: no-op, one-file changes, size, first answers

def after_cold(root: Path, changes: int, figures: dict[str, float]) -> None:
    """A no-op run and one-file changes through one Project, as a server's watcher runs them (the
    project keeps what one run can hand the next)."""
    project = Project(root, find=False)
    started, cpu = time.perf_counter(), time.process_time()
    noop = project.index()
    figures["no-op s"] = time.perf_counter() - started
    print(f"no-op     {figures['no-op s']:7.3f} s  ({noop.parsed} parsed, generation {noop.generation}; "
          f"CPU {time.process_time() - cpu:.3f} s)")

    conn = store.connect(store.index_path(root), readonly=True)
    paths = _change_targets(conn, changes)
    conn.close()
    times, cpus = [], []
    for i, path in enumerate(paths):
        with open(root / path, "a", encoding="utf-8") as f:
            f.write(f"\n\ndef graphctx_benchmark_added_{i}(x):\n    return len(x)\n")
        started, cpu = time.perf_counter(), time.process_time()
        result = project.index()
        times.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
        assert result.parsed == 1, result
    if times:
        figures["one-file change ms"] = statistics.median(times) * 1000
        print(f"one file  {figures['one-file change ms']:7.1f} ms median, {max(times) * 1000:.1f} ms max over "
              f"{len(times)} files (appending a function; first: {paths[0]}); CPU {statistics.median(cpus) * 1000:.0f} ms "
              f"median, {cpus[0] * 1000:.0f} ms the first (it reads only the definitions it asks for, and keeps them "
              f"for the next), {cpus[1] * 1000 if len(cpus) > 1 else 0:.0f} ms the second")
    moved_lines(project, root, paths)
    wide_edit(project, root)
    project.close()


def moved_lines(project: Project, root: Path, paths: list[str]) -> None:
    """A comment added at the top of a file, which moves every line below it and changes nothing
    else: in the files above, then in the file the most files' resolution consulted. Only that file
    is parsed; the files resolved again are those whose edges can differ (none but the file itself
    when nothing it offers others depends on where it lies)."""
    conn = store.connect(store.index_path(root), readonly=True)
    most_read = conn.execute(
        "SELECT e.path, count(*) AS n FROM consulted c JOIN entities e ON e.rowid = c.file"
        " GROUP BY c.file ORDER BY n DESC, e.path LIMIT 1").fetchone()
    conn.close()
    times, resolved = [], []
    for path in [*paths, *([most_read[0]] if most_read else [])]:
        text = (root / path).read_text(encoding="utf-8")
        (root / path).write_text("# a line added by graphctx's benchmark\n" + text, encoding="utf-8")
        seconds, files = _index_counting(project)
        times.append(seconds)
        resolved.append(files)
    if not times:
        return
    shown = f"; {most_read[0]} (read by {most_read[1]} files) {times[-1] * 1000:.1f} ms, {resolved[-1]} resolved" \
        if most_read else ""
    print(f"moved     {statistics.median(times[:len(paths)] or times) * 1000:7.1f} ms median over {len(paths)} files "
          f"(a line added at the top; files resolved: {', '.join(map(str, resolved[:len(paths)]))}){shown}")
    if most_read:
        inside_edit(project, root, most_read[0])


def _index_counting(project: Project) -> tuple[float, int]:
    """One run of the project's index: its wall time and the files it resolved."""
    resolved = [0]

    def progress(phase: str, done: int, total: int) -> None:
        if phase == "resolving" and total:
            resolved[0] = max(resolved[0], total // 2)  # (both passes count on its bar)
    started = time.perf_counter()
    project.index(progress=progress)
    return time.perf_counter() - started, resolved[0]


def inside_edit(project: Project, root: Path, path: str) -> None:
    """An edit inside a function of the most-read file that changes what no other file reads: a
    local variable set before the function's last `return`. Its value flow changed; what it answers
    other files did not (the files resolved again are the file alone when that is seen)."""
    conn = store.connect(store.index_path(root), readonly=True)
    rows = conn.execute("SELECT qualified_name, end_line FROM entities WHERE path = ? AND kind IN ('function', 'method')"
                        " ORDER BY end_line - start_line DESC", (path,)).fetchall()
    conn.close()
    lines = (root / path).read_text(encoding="utf-8").splitlines(keepends=True)
    for name, end_line in rows:
        last = lines[end_line - 1] if end_line <= len(lines) else ""
        if last.lstrip().startswith("return "):  # (a statement of its own: one set before it is too)
            break
    else:
        return
    indent = last[:len(last) - len(last.lstrip())]
    lines.insert(end_line - 1, f"{indent}graphctx_benchmark_unused = len(())\n")
    (root / path).write_text("".join(lines), encoding="utf-8")
    seconds, resolved = _index_counting(project)
    print(f"inside    {seconds * 1000:7.1f} ms  a local variable set in {name} ({path}): {resolved} files resolved")


def wide_edit(project: Project, root: Path) -> None:
    """Change what a widely read function returns, then change it back, through the same Project: the
    files resolved again (those whose resolution consulted it, directly or through other files) and
    the main process's CPU, beside the workers'. The function is the top-level Python function named
    by the most files whose last line is a one-line `return` (sympy: `_sympify`, preferred when there)."""
    conn = store.connect(store.index_path(root), readonly=True)
    rows = conn.execute(
        "SELECT e.path, e.name, e.end_line, count(*) AS n FROM entities e JOIN file_refs r ON r.name = e.name"
        " WHERE e.kind = 'function' AND e.qualified_name = e.name AND e.language = 'python'"
        " GROUP BY e.id ORDER BY e.name = '_sympify' DESC, n DESC, e.id LIMIT 50").fetchall()
    conn.close()
    for path, name, end_line, naming in rows:
        lines = (root / path).read_text(encoding="utf-8").splitlines(keepends=True)
        last = lines[end_line - 1] if end_line <= len(lines) else ""
        expression = last.strip()[len("return "):]
        if last.lstrip().startswith("return ") and expression.count("(") == expression.count(")") \
                and not expression.endswith(("\\", ",", ":")):
            break
    else:
        print("wide edit no top-level function ends in a one-line return")
        return
    indent = last[:len(last) - len(last.lstrip())]
    changed = f"{indent}return ({expression}) if True else {name}\n"  # (it may return itself too)
    for label, line in (("changed", changed), ("back", last)):
        lines[end_line - 1] = line
        (root / path).write_text("".join(lines), encoding="utf-8")
        cpu, workers = time.process_time(), _cpu()[1]
        seconds, resolved = _index_counting(project)
        print(f"wide edit {seconds * 1000:7.1f} ms  {label} what {name} returns ({path}, named by {naming} files): "
              f"{resolved} files resolved again; CPU {time.process_time() - cpu:.2f} s main process, "
              f"{_cpu()[1] - workers:.2f} s workers")


def from_the_cli(root: Path, changes: int, figures: dict[str, float]) -> None:
    """What a user sees: `graphctx index` in a new process, after nothing changed and after a one-file
    change (the server's watcher is the one Project above). Beside it the floor any command pays:
    Python starting, and importing the CLI. The package's bytecode is compiled first, as an installed
    copy's is."""
    compileall.compile_dir(Path(graphctx.__file__).parent, quiet=1)
    script = Path(sys.executable).with_name("graphctx")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "graphctx.cli.main"]
    index = [*command, "index", str(root), "-q"]
    python = [(sys.executable, "-c", "pass")] * 3
    imports = [(sys.executable, "-c", "import graphctx.cli.main")] * 3
    floor, cli_import = (statistics.median(_timed(c)[1] for c in runs) for runs in (python, imports))
    noops = [_timed(index) for _ in range(3)]
    conn = store.connect(store.index_path(root), readonly=True)
    paths = _change_targets(conn, changes)
    conn.close()
    edits = []
    for i, path in enumerate(paths):
        with open(root / path, "a", encoding="utf-8") as f:
            f.write(f"\n\ndef graphctx_cli_added_{i}(x):\n    return len(x)\n")
        edits.append(_timed(index))
    figures["CLI no-op s"] = statistics.median(w for w, _ in noops)
    print(f"CLI       floor: python -c pass {floor * 1000:.0f} ms CPU, import graphctx.cli.main {cli_import * 1000:.0f} ms "
          f"CPU (median of 3)")
    print(f"CLI no-op {figures['CLI no-op s']:7.3f} s  graphctx index in a new process (median of 3: "
          f"{', '.join(f'{w:.2f}' for w, _ in noops)}; CPU {statistics.median(c for _, c in noops):.3f} s, "
          f"{statistics.median(c for _, c in noops) / cli_import:.1f}x importing the CLI)")
    if edits:
        figures["CLI one-file change s"] = statistics.median(w for w, _ in edits)
        cpu = statistics.median(c for _, c in edits)
        print(f"CLI edit  {figures['CLI one-file change s']:7.3f} s  graphctx index in a new process after a one-file "
              f"change (median of {len(edits)}: {', '.join(f'{w:.2f}' for w, _ in edits)}; CPU {cpu:.3f} s, "
              f"{cpu / cli_import:.1f}x importing the CLI)")


def _timed(command: list[str] | tuple[str, ...]) -> tuple[float, float]:
    """(wall, CPU) seconds of one command in a new process; the benchmark stops if it fails."""
    started, cpu = time.perf_counter(), _cpu()[1]
    done = subprocess.run(list(command), capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed: {done.stderr.strip()[-500:]}")
    return time.perf_counter() - started, _cpu()[1] - cpu


def _change_targets(conn: sqlite3.Connection, n: int) -> list[str]:
    """Typical files to edit: Python files of median size, spread over the tree."""
    rows = conn.execute("SELECT path FROM files WHERE language='python' AND is_test=0 ORDER BY size").fetchall()
    if not rows:
        rows = conn.execute("SELECT path FROM files ORDER BY size").fetchall()
    middle = rows[len(rows) // 4: 3 * len(rows) // 4] or rows
    step = max(1, len(middle) // max(1, n))
    return [p for (p,) in middle[::step][:n]]


def first_answers(root: Path, starts: int, figures: dict[str, float]) -> None:
    """A new process's first get_context answer: the CLI, and an MCP server over stdio from spawn. The
    package's bytecode is compiled first, as an installed copy's is (with PYTHONDONTWRITEBYTECODE set,
    an editable install would otherwise compile every module in every process)."""
    compileall.compile_dir(Path(graphctx.__file__).parent, quiet=1)
    conn = store.connect(store.index_path(root), readonly=True)
    entity = conn.execute("SELECT id FROM entities WHERE kind='function' ORDER BY id").fetchone()[0]
    conn.close()
    script = Path(sys.executable).with_name("graphctx")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "graphctx.cli.main"]
    times, cpus = [], []
    for _ in range(starts):
        started, cpu = time.perf_counter(), _cpu()[1]
        done = subprocess.run([*command, "context", entity, "--repo", str(root), "--budget", "2000"],
                              capture_output=True, text=True)
        times.append(time.perf_counter() - started)
        cpus.append(_cpu()[1] - cpu)
        if done.returncode != 0:
            sys.exit(f"graphctx context failed: {done.stderr.strip()[:500]}")
    figures["CLI first answer s"] = statistics.median(times)
    print(f"CLI       {figures['CLI first answer s']:7.3f} s  from spawn to a context answer (median of {starts}: "
          f"{', '.join(f'{t:.2f}' for t in times)}; CPU {statistics.median(cpus):.2f} s)")

    import anyio

    sys.path.insert(0, str(Path(__file__).parent))
    from mcp_latency import cold_start  # the same measurement as benchmarks/mcp_latency.py

    options = argparse.Namespace(mode="legacy", budget=2000)
    runs = [anyio.run(cold_start, root, entity, options) for _ in range(starts)]
    figures["MCP first answer s"] = statistics.median(r[1] for r in runs)
    print(f"MCP       {figures['MCP first answer s']:7.3f} s  from spawn to a get_context answer over stdio (median "
          f"of {starts}: {', '.join(f'{r[1]:.2f}' for r in runs)}; initialize answered after "
          f"{statistics.median(r[0] for r in runs):.2f} s; server CPU {statistics.median(r[2] for r in runs):.2f} s)")


def first_answers_only(root: Path, starts: int) -> int:
    started = time.perf_counter()
    with Project(root, find=False, ephemeral=False) as project:
        result = project.index()
    load_avg = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"tree      {root}: {result.summary()} (index check, untimed, {time.perf_counter() - started:.1f} s)")
    print(f"machine   python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {load_avg:.1f} at start")
    figures: dict[str, float] = {}
    first_answers(root, starts, figures)
    verdict(figures)
    return 0


def profile(root: Path) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    index_repository(root, full=True, workers=1)
    profiler.disable()
    for order in ("tottime", "cumulative"):
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats(order).print_stats(18)
        text = out.getvalue()
        print(f"\nprofile, one process, by {order}:\n" + text[text.index("   ncalls"):].rstrip())


def verdict(figures: dict[str, float]) -> None:
    parts = []
    for name, (sense, goal) in TARGETS.items():
        if name in figures:
            ok = figures[name] <= goal if sense == "<=" else figures[name] >= goal
            parts.append(f"{name} {figures[name]:.3g} ({sense} {goal:g}) {'ok' if ok else 'MISSED'}")
    print("\ntargets   " + "\n          ".join(parts))


if __name__ == "__main__":
    sys.exit(main())
