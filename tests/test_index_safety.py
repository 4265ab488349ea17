"""Crash safety, self-healing and reproducibility: an indexer killed with SIGKILL at any point of
its run leaves the previous index intact and readable, takes its worker processes with it, and the
next run completes; an index that cannot be used (another schema version, a killed first build's
empty file, a damaged file, random bytes) is rebuilt with a one-line warning by `graphctx index`,
by a query and by `graphctx serve`, and the records beside it lose nothing; the same tree always
gives the same index, byte for byte."""

from __future__ import annotations

import logging
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import anyio
from mcp import Client, StdioServerParameters

from conftest import index_tables, write_tree
from graphctx import Project
from graphctx.index import checked, store
from graphctx.index.indexer import index_repository

REPO = Path(__file__).resolve().parents[1]

# The child indexes the tree and announces where it is on stdout, so the parent can kill it at a
# known point: discovering, parsing (progress), writing (after the n-th batch of entities),
# resolving (the structure pass, then the uses pass in forked workers), the graph snapshot's write,
# and the two last steps (indexes, then COMMIT). Given a marker, it stops there until it is killed,
# so the kill lands exactly at that point.
CHILD = textwrap.dedent("""
    import sys, time
    from graphctx.index import indexer
    from graphctx.index.store import writes as store

    hold = sys.argv[2] if len(sys.argv) > 2 else None
    real_insert, real_snapshot, real_patch = store.insert_entities, store.write_snapshot, store.append_snapshot_patch
    written = finishing = 0
    uses = False

    def say(line):
        print(line, flush=True)
        if hold and line.startswith(hold):
            time.sleep(600)

    def insert_entities(*args):
        global written
        real_insert(*args)
        written += 1
        say(f"wrote {written}")

    def write_snapshot(*args):
        real_snapshot(*args)
        say("snapshot")

    def append_snapshot_patch(*args):
        real_patch(*args)
        say("snapshot patch")

    store.insert_entities, store.write_snapshot, store.append_snapshot_patch = (
        insert_entities, write_snapshot, append_snapshot_patch)

    def progress(phase, done, total):
        global finishing, uses
        if phase == "resolving" and total and done > total // 2 and not uses:  # the uses pass, in workers
            uses = True
            say("resolving uses")
        if phase == "parsing":
            say(f"parsed {done}/{total}")
        elif phase == "writing" and total == 0:  # after resolution, then just before COMMIT
            finishing += 1
            say(f"finishing {finishing}")
        elif phase != "writing":
            say(f"{phase} {done}/{total}")

    indexer.index_repository(sys.argv[1], progress=progress, workers=2)
    print("done", flush=True)
""")


def small_tree() -> dict[str, str]:
    return {
        "app.py": "from lib import helper\n\ndef main():\n    return helper()\n",
        "lib.py": "def helper():\n    return 1\n\nclass Thing:\n    def run(self):\n        return helper()\n",
    }


def big_tree(n: int = 160) -> dict[str, str]:
    """Many modules calling each other: enough work for the run to be interrupted midway."""
    files = {}
    for i in range(n):
        functions = "\n".join(
            f"def f{i}_{j}(x):\n    '''Function {j} of module {i}.'''\n    return helper(x) + f{i}_{(j + 1) % 20}(x)\n"
            for j in range(20)
        )
        files[f"pkg{i % 8}/mod{i}.py"] = (
            f"from lib import helper, Thing\n\nclass C{i}(Thing):\n    def go(self):\n        return self.run()\n\n{functions}"
        )
    for k in range(8):
        files[f"pkg{k}/__init__.py"] = ""
    files["lib.py"] = small_tree()["lib.py"] + "\ndef extra():\n    return helper()\n"
    return files


def counts(root: Path) -> tuple[int, int, int, int]:
    conn = store.connect(store.index_path(root), readonly=True)
    try:
        return (
            store.generation(conn),
            *(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in ("files", "entities", "edges")),
        )
    finally:
        conn.close()


def snapshot_agrees(root: Path) -> bool:
    """Whether the graph a new process loads (from the generation's snapshot) has exactly the edges
    the index's rows state."""
    from graphctx.graph import loader

    conn = store.connect(store.index_path(root), readonly=True)
    try:
        graph = loader.load(root, conn).graph
        ids = set(graph.nodes)
        rows = sorted(e for e in conn.execute("SELECT source, target, kind, resolution, confidence FROM edges")
                      if e[0] in ids and e[1] in ids)
    finally:
        conn.close()
    loaded = sorted((s, t, d["kind"], d["resolution"], d["confidence"]) for s, t, d in graph.edges(data=True))
    return loaded == rows and len(ids) == counts(root)[2]


def run_and_kill(root: Path, marker: str | None, delay: float = 0.0) -> str:
    """Start an indexer on root and SIGKILL it (with its workers) when it prints `marker`, or after
    `delay` seconds; returns the last line it printed."""
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(root), *([marker] if marker else [])], stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True, start_new_session=True,
    )
    last = ""
    try:
        if marker is None:
            time.sleep(delay)
        else:
            for line in proc.stdout:
                last = line.strip()
                if last.startswith(marker) or last == "done":
                    break
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        proc.stdout.close()
    return last


KILL_POINTS = [
    ("discovering 0/", None),  # before the run opened the index
    ("parsed 0/", None),      # as soon as the run has its plan, inside the transaction
    ("parsed 80/", None),     # midway through parsing, workers busy
    ("wrote 1", None),        # after the first file's rows were written
    ("wrote 60", None),       # midway through writing
    ("wrote 169", None),      # every file written
    ("resolving 0/", None),   # resolution starting
    ("resolving 64/", None),  # midway through resolution's structure pass
    ("resolving uses", None),  # the uses pass under way in forked workers
    ("snapshot", None),       # the graph snapshot written
    ("finishing 1", None),    # every edge written, the edge indexes about to be built
    ("finishing 2", None),    # everything written, COMMIT next
    (None, 0.3),              # by the clock: wherever it is (the whole run takes about a second)
    (None, 0.7),
    (None, 1.1),
    (None, 2.0),              # most likely after the commit: the new index must then be whole
]


@pytest.mark.parametrize("marker,delay", KILL_POINTS, ids=[m or f"after {d}s" for m, d in KILL_POINTS])
def test_kill_mid_run_keeps_previous_index(tmp_path, marker, delay):
    root = write_tree(tmp_path / "repo", small_tree())
    index_repository(root, workers=1)
    before = counts(root)
    tables_before = index_tables(root)

    write_tree(root, big_tree())
    last = run_and_kill(root, marker, delay)
    if marker is not None:
        assert last.startswith(marker), f"the child never reached {marker!r} (last line {last!r})"
    scratch = tmp_path / "full"
    shutil.copytree(root, scratch, ignore=shutil.ignore_patterns(".graphctx"))
    index_repository(scratch, full=True, workers=1)

    # the index opens read-only and holds either the old generation, unchanged, or (a kill by the
    # clock that came after the commit) the complete new one: never anything in between
    after = counts(root)
    assert snapshot_agrees(root)  # whatever generation is there loads, and its snapshot is its rows' graph
    if marker is not None or after[0] == before[0]:
        assert after == before
        assert index_tables(root) == tables_before
        # and a normal run finishes and equals a full rebuild
        result = index_repository(root, workers=2)
        assert result.generation == before[0] + 1
        assert result.files == len(big_tree()) + 1
    else:
        assert after[0] == before[0] + 1
    assert index_tables(root) == index_tables(scratch)


@pytest.mark.parametrize("marker", ["snapshot patch", "finishing 2"])
def test_kill_mid_edit_keeps_previous_index_and_snapshot(tmp_path, marker):
    """An edit writes the new generation's snapshot as a patch beside the previous generation's: a
    kill once the patch is written (or just before COMMIT) leaves the previous rows with their own
    snapshot, which loads and agrees with them, and the next run's patch still folds in right."""
    root = write_tree(tmp_path / "repo", small_tree())
    index_repository(root, workers=1)
    write_tree(root, {"app.py": "from lib import helper, Thing\n\ndef main():\n    return helper()\n"})
    index_repository(root, workers=1)  # a first patch: the snapshot is a base and a patch
    before, tables_before = counts(root), index_tables(root)
    write_tree(root, {"lib.py": small_tree()["lib.py"] + "\ndef later():\n    return helper()\n"})
    last = run_and_kill(root, marker)
    assert last.startswith(marker), f"the child never reached {marker!r} (last line {last!r})"
    assert counts(root) == before and index_tables(root) == tables_before
    assert snapshot_agrees(root)
    assert index_repository(root, workers=1).generation == before[0] + 1
    assert snapshot_agrees(root)


def test_reader_sees_previous_generation_while_a_run_writes(tmp_path):
    """WAL: a reader opened during a run sees the last committed index, never a half-written one."""
    root = write_tree(tmp_path / "repo", small_tree())
    index_repository(root, workers=1)
    before = counts(root)
    write_tree(root, big_tree())
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(root)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        for line in proc.stdout:
            if line.strip() == "wrote 100":
                assert counts(root) == before  # the writer holds its transaction open right now
                break
        proc.stdout.read()
        assert proc.wait(timeout=120) == 0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        proc.stdout.close()
    assert counts(root)[0] == before[0] + 1


def test_schema_version_mismatch_rebuilds_with_a_warning(tmp_path, caplog):
    root = write_tree(tmp_path / "repo", small_tree())
    first = index_repository(root, workers=1)
    conn = sqlite3.connect(store.index_path(root))
    conn.execute("UPDATE meta SET value='0' WHERE key='schema_version'")
    conn.execute("DELETE FROM edge_keys")  # what an old schema held is not trusted: it must all be rebuilt
    conn.commit()
    conn.close()
    write_tree(root, {"extra.py": "from app import main\n\ndef again():\n    return main()\n"})

    with caplog.at_level(logging.WARNING, logger="graphctx"):
        result = index_repository(root, workers=1)
    assert any("schema" in r.getMessage() and "rebuilding" in r.getMessage() for r in caplog.records)
    assert result.parsed == 3 and result.files == 3
    assert result.generation == 1  # a new index starts counting again
    assert first.generation == 1

    conn = store.connect(store.index_path(root), readonly=True)
    assert store.schema_version(conn) == store.SCHEMA_VERSION
    conn.close()
    scratch = write_tree(tmp_path / "fresh", {p: (root / p).read_text() for p in ("app.py", "lib.py", "extra.py")})
    index_repository(scratch, workers=1)
    assert index_tables(root) == index_tables(scratch)


def test_newer_schema_version_also_rebuilds(tmp_path, caplog):
    root = write_tree(tmp_path / "repo", small_tree())
    index_repository(root, workers=1)
    conn = sqlite3.connect(store.index_path(root))
    conn.execute("UPDATE meta SET value=? WHERE key='schema_version'", (str(store.SCHEMA_VERSION + 1),))
    conn.commit()
    conn.close()
    with caplog.at_level(logging.WARNING, logger="graphctx"):
        result = index_repository(root, workers=1)
    assert any("rebuilding" in r.getMessage() for r in caplog.records)
    assert result.parsed == 2 and result.entities == before_entities(small_tree())


def before_entities(files: dict[str, str]) -> int:
    """Files plus their definitions, for the small tree: app.py (main), lib.py (helper, Thing, Thing.run)."""
    return len(files) + 4


# ---- self-healing: an index file that cannot be used is rebuilt, never a dead end


def cli(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "graphctx.cli.main", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**os.environ, **(env or {})})
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def rebuild_warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().endswith("rebuilding it")]


def test_a_first_build_killed_midway_is_rebuilt_by_index_by_a_query_and_by_serve(tmp_path, caplog):
    killed = write_tree(tmp_path / "killed", big_tree())
    assert run_and_kill(killed, "wrote 60") == "wrote 60"
    conn = store.connect(store.index_path(killed), readonly=True)
    assert store.diagnose(conn).startswith("holds no finished index")
    conn.close()
    copies = {}
    for name in ("index", "query", "serve"):
        copies[name] = tmp_path / name
        shutil.copytree(killed, copies[name])  # the index file, its log and its shared memory as the kill left them
    scratch = write_tree(tmp_path / "scratch", big_tree())
    index_repository(scratch, workers=1)

    with caplog.at_level(logging.WARNING, logger="graphctx"):
        result = index_repository(copies["index"], workers=2)
    assert result.files == len(big_tree()) and result.generation == 1
    assert index_tables(copies["index"]) == index_tables(scratch)

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="graphctx"):
        hits = Project(copies["query"], find=False).search("helper").hits
    assert hits[0].id == "lib.py::helper"
    [warning] = rebuild_warnings(caplog)
    assert "holds no finished index" in warning and str(copies["query"]) in warning

    async def serve_and_search():
        command = [sys.executable, "-m", "graphctx.cli.main", "serve", "--repo", str(copies["serve"])]
        params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(tmp_path), env=dict(os.environ))
        async with Client(params, mode="legacy") as client:
            return await client.call_tool("search", {"query": "helper"})

    found = anyio.run(serve_and_search)
    assert not found.is_error and "lib.py::helper" in found.content[0].text
    assert index_tables(copies["serve"]) == index_tables(scratch)


HOT_JOURNAL = textwrap.dedent("""
    import os, sqlite3, sys
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.execute("PRAGMA cache_size=5")  # small, so pages spill and the journal holds them
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("CREATE TABLE junk(x)")
    conn.executemany("INSERT INTO junk VALUES (?)", ((b"x" * 500,) for _ in range(2000)))
    os._exit(0)  # dies mid-transaction, as a kill does: the journal is left hot
""")


def test_a_hot_journal_left_by_a_killed_writer_is_rolled_back_before_a_read(tmp_path):
    """A writer killed while its database was not yet in WAL leaves a rollback journal that a
    read-only connection may not roll back; the read rolls it back as a writer, then answers."""
    root = write_tree(tmp_path / "repo", {"lib.py": "def helper():\n    return 1\n"})
    index_repository(root, workers=1)
    db_path = store.index_path(root)
    subprocess.run([sys.executable, "-c", HOT_JOURNAL, str(db_path)], check=True)
    assert db_path.with_name(db_path.name + "-journal").stat().st_size > 0
    done = subprocess.run([sys.executable, "-m", "graphctx.cli.main", "search", "helper", "--repo", str(root)],
                          capture_output=True, text=True)
    assert done.returncode == 0 and "lib.py::helper" in done.stdout, done.stderr


def test_a_killed_rebuild_of_a_garbage_file_is_finished_by_the_next_run(tmp_path, caplog):
    root = write_tree(tmp_path / "repo", {**big_tree(), ".graphctx/index.db": os.urandom(64 * 1024)})
    assert run_and_kill(root, "wrote 60") == "wrote 60"  # the garbage is gone; a new build was under way
    with caplog.at_level(logging.WARNING, logger="graphctx"):
        index_repository(root, workers=1)
    [warning] = rebuild_warnings(caplog)
    assert "holds no finished index" in warning
    scratch = write_tree(tmp_path / "scratch", big_tree())
    index_repository(scratch, workers=1)
    assert index_tables(root) == index_tables(scratch)


def damage_pages(root: Path, table: str) -> None:
    """Overwrite the leaf pages of one table with junk, leaving the header and the schema readable."""
    path = store.index_path(root)
    with sqlite3.connect(path) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = [p for (p,) in conn.execute("SELECT pageno FROM dbstat WHERE name=? AND pagetype='leaf'", (table,))]
    conn.close()
    assert pages and not store.index_files(path)[1].exists()  # checkpointed: the pages are in the main file
    with open(path, "r+b") as handle:
        for page in pages:
            handle.seek((page - 1) * page_size)
            handle.write(b"\xa5" * page_size)


def test_damaged_pages_are_found_by_quick_check_or_by_the_run_and_rebuilt(tmp_path, caplog):
    root = write_tree(tmp_path / "repo", big_tree())
    index_repository(root, workers=1)
    scratch = write_tree(tmp_path / "scratch", big_tree())
    index_repository(scratch, workers=1)

    damage_pages(root, "edge_keys")
    conn = store.connect(store.index_path(root), readonly=True)
    assert store.diagnose(conn) is None  # the cheap check every query makes cannot see it ...
    assert store.diagnose(conn, thorough=True).startswith("is damaged")  # ... quick_check does
    conn.close()
    with caplog.at_level(logging.WARNING, logger="graphctx"):
        result = index_repository(root, workers=1, verify=True)
    [warning] = rebuild_warnings(caplog)
    assert "is damaged" in warning and result.generation == 1
    assert index_tables(root) == index_tables(scratch)

    damage_pages(root, "entities")  # without verify, a run that reads the damage rebuilds all the same
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="graphctx"):
        index_repository(root, workers=1, full=True)
    assert "is damaged" in rebuild_warnings(caplog)[0]
    assert index_tables(root) == index_tables(scratch)


def test_only_a_file_written_since_a_checked_run_is_read_whole_again(tmp_path, caplog):
    """`graphctx index` reads every page (quick_check) only of an index that is not as a checked run
    left it: damage written behind its back is found, even with the file's modification time put back."""
    root = write_tree(tmp_path / "repo", big_tree(40))
    path = store.index_path(root)
    assert cli("index", "-q", cwd=root).returncode == 0  # a fresh file, written and closed by a checked run
    assert checked.unchanged(path)
    assert cli("index", "-q", cwd=root).returncode == 0  # a no-op: still as the mark says
    assert checked.unchanged(path)

    before = os.stat(path)
    damage_pages(root, "edge_keys")  # what the cheap check and a no-op run cannot see
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert not checked.unchanged(path)  # the change time moved all the same
    rebuilt = cli("index", "-q", cwd=root)
    assert rebuilt.returncode == 0 and "is damaged" in rebuilt.stderr and "rebuilding it" in rebuilt.stderr
    assert checked.unchanged(path)


def test_the_checked_mark_is_what_spares_the_check(tmp_path, caplog):
    """The other side: a file marked as checked is trusted by a verifying run (the mark is written
    only by a run that checked the file and closed it with no one else writing it), and a run
    without the mark reads every page again."""
    root = write_tree(tmp_path / "repo", big_tree(40))
    path = store.index_path(root)
    index_repository(root, workers=1, verify=True)
    damage_pages(root, "edge_keys")
    checked.mark(path)  # as if the damage had been there when a run checked the file
    with caplog.at_level(logging.WARNING, logger="graphctx"):
        index_repository(root, workers=1, verify=True)
    assert rebuild_warnings(caplog) == []
    checked.forget(path)
    with caplog.at_level(logging.WARNING, logger="graphctx"):
        index_repository(root, workers=1, verify=True)
    assert "is damaged" in rebuild_warnings(caplog)[0]


def test_a_reader_follows_an_index_rebuilt_as_a_new_file(tmp_path):
    """A server holds its connection while `graphctx index` replaces a damaged file: the new file
    starts its generations at 1 again, so only the file's identity tells the reader to reopen."""
    root = write_tree(tmp_path / "repo", small_tree())
    index_repository(root, workers=1)
    assert Project(root, find=False).search("helper").hits and not Project(root, find=False).search("brand_new").hits
    write_tree(root, {"extra.py": "def brand_new():\n    return 1\n"})
    store.remove(store.index_path(root))
    assert index_repository(root, workers=1).generation == 1
    assert [hit.id for hit in Project(root, find=False).search("brand_new").hits] == ["extra.py::brand_new"]


def test_records_lose_nothing_when_the_index_is_rebuilt(tmp_path):
    root = write_tree(tmp_path / "repo", small_tree())
    author = {"GRAPHCTX_AUTHOR": "tester"}
    assert cli("index", "-q", cwd=root).returncode == 0
    assert cli("remember", "--title", "Helpers stay pure", "--body", "no I/O in helper", "--anchor", "lib.py::helper",
               cwd=root, env=author).returncode == 0
    assert cli("decide", "--title", "One lib", "--decision", "keep lib.py small", cwd=root, env=author).returncode == 0
    records = sorted(p for p in (root / ".graphctx").rglob("*") if p.is_file() and "index.db" not in p.name)
    before = {p: p.read_bytes() for p in records}
    assert any(p.suffix == ".md" for p in before)

    store.index_path(root).write_bytes(os.urandom(8192))
    rebuilt = cli("index", cwd=root)
    assert rebuilt.returncode == 0 and "is not a SQLite database" in rebuilt.stderr
    assert {p: p.read_bytes() for p in records} == before
    recalled = cli("recall", "pure", "--json", cwd=root)
    assert recalled.returncode == 0 and "Helpers stay pure" in recalled.stdout


# ---- worker processes die with the run


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid`, from /proc."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                out.append(int(entry))
    return out


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def gone(pid: int) -> bool:
    """Exited: no such process, or a zombie waiting for whoever adopted it to reap it."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] in ("Z", "X")
    except OSError:
        return True


def wait_until(condition, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="lists processes through /proc")
def test_workers_die_when_the_index_command_is_killed(tmp_path):
    files = {f"pkg{i % 20}/mod{i}.py": "".join(f"def f{i}_{j}(x):\n    return x + {j}\n\n" for j in range(30))
             for i in range(3000)}
    root = write_tree(tmp_path / "repo", {**files, ".graphctx/config.toml": "[index]\nworkers = 2\n"})
    proc = subprocess.Popen([sys.executable, "-m", "graphctx.cli.main", "index", "-q", str(root)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    workers: list[int] = []
    try:
        def parsing() -> bool:  # the forked parsers run the parent's command line; git runs its own
            own = cmdline(proc.pid)  # read each time: right after Popen the child may not have exec'd yet
            workers[:] = [c for c in children(proc.pid) if cmdline(c) == own]
            return len(workers) >= 2 or proc.poll() is not None

        assert wait_until(parsing, 60) and proc.poll() is None, "the index run never started its parser processes"
        os.kill(proc.pid, signal.SIGKILL)  # the run alone, as a host stopping it would
        proc.wait()
        # (a worker forked just before the kill may not have run yet on a loaded machine: it exits when it does)
        assert wait_until(lambda: all(gone(w) for w in workers), 30), f"workers still alive: {workers}"
    finally:
        for pid in [proc.pid, *workers]:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        proc.wait()


# Where Linux's parent-death signal is missing, a thread in each worker watches for its parent.
ORPHAN = textwrap.dedent("""
    import subprocess, sys, time
    watcher = ("import os, time; from graphctx.index import workers; workers.watch_parent(os.getppid()); "
               "print('watching', flush=True); time.sleep(600)")
    child = subprocess.Popen([sys.executable, "-c", watcher], stdout=subprocess.PIPE, text=True)
    child.stdout.readline()
    print(child.pid, flush=True)
    time.sleep(600)
""")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="lists processes through /proc")
def test_the_portable_parent_watch_ends_an_orphaned_worker():
    parent = subprocess.Popen([sys.executable, "-c", ORPHAN], stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        worker = int(parent.stdout.readline())
        assert not gone(worker)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        assert wait_until(lambda: gone(worker)), "the orphan kept running"
    finally:
        try:
            os.killpg(parent.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        parent.wait()
        parent.stdout.close()


# ---- reproducible builds


def table_rows(db: Path) -> dict[str, list[tuple]]:
    """Every row of every table, rowids included, in storage order; the run's clock rows left out."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        out = {}
        for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name"):
            try:
                rows = conn.execute(f'SELECT rowid, * FROM "{table}"').fetchall()
            except sqlite3.OperationalError:  # WITHOUT ROWID: stored in key order
                rows = conn.execute(f'SELECT * FROM "{table}"').fetchall()
            if table == "meta":
                rows = [row for row in rows if row[0] not in store.CLOCK_KEYS]
            out[table] = rows
        return out
    finally:
        conn.close()


def vacuumed_bytes(db: Path, into: Path) -> bytes:
    """The database rewritten by VACUUM, without the clock rows: what must match byte for byte."""
    copy = into.with_suffix(".work")
    shutil.copyfile(db, copy)
    with sqlite3.connect(copy) as conn:
        conn.execute(f"DELETE FROM meta WHERE key IN ({','.join('?' * len(store.CLOCK_KEYS))})", store.CLOCK_KEYS)
    conn.execute("VACUUM INTO ?", (str(into),))
    conn.close()
    return into.read_bytes()


def test_the_same_tree_gives_the_same_index_byte_for_byte(tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(REPO / "tests" / "fixtures", root / "fixtures")  # every language
    for package in ("index", "context"):  # and plenty of CamelCase names, whose word order once followed the hash seed
        shutil.copytree(REPO / "graphctx" / package, root / "graphctx" / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    write_tree(root, {".graphctx/config.toml": "[index]\nworkers = 2\n"})
    builds = []
    for seed in ("1", "4242"):
        store.remove(store.index_path(root))
        built = cli("index", "-q", str(root), cwd=tmp_path, env={"PYTHONHASHSEED": seed})
        assert built.returncode == 0, built.stderr
        db = store.index_path(root)
        builds.append((table_rows(db), vacuumed_bytes(db, tmp_path / f"seed{seed}.db")))
    (rows_a, bytes_a), (rows_b, bytes_b) = builds
    assert sum(len(rows) for rows in rows_a.values()) > 1000
    for table in rows_a:
        assert rows_a[table] == rows_b[table], f"table {table} differs between two builds of the same tree"
    assert bytes_a == bytes_b
