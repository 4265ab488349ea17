"""Probe 5: a corpus of files that stress the indexer (NUL bytes, invalid UTF-8, a 10 MB single line,
brackets nested 100k deep, symlink loops, symlinks to a file and a folder outside the root, a FIFO,
/dev/zero behind a symlink, an unreadable file, names with newlines and undecodable bytes, a
100k-function file). `graphctx index` must finish with exit 0 and no traceback, `stats` must work,
the ordinary file beside them must be found, and nothing from outside the root may be searchable.
It runs twice: in a plain folder with the default size limit, and in a git work tree with a limit
high enough that every big file reaches the parser. When a run crashes, halving the corpus names
the entries that crash it, and the rest is checked again without them."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path

from reliability import procs
from reliability.tally import Tally

MARKER = "outside_secret_4f1c9"  # defined only outside the root: must never be searchable
DIR_MARKER = "outside_folder_secret_8b2e"
INDEX_LIMIT_S = 900.0  # a 100k-function file takes a while on a busy machine; past this the run hangs
RAISED_LIMIT = 64 << 20

Entry = Callable[[Path], None]
# The corpus by kind, so that each kind can be run (and wait for its fix) on its own.
LINKS = ("a symlink loop", "a symlink to itself", "a folder symlink to the root",
         "a symlink to a file outside the root", "a symlink to a folder outside the root", "a symlink to /dev/zero",
         "a dangling symlink")
NAMES = ("a name with a newline", "a name with a tab, quotes and a backslash", "a name with undecodable bytes",
         "a name with a leading dash", "a 250-character name")


def corpus(functions: int = 100_000, nesting: int = 100_000, line_bytes: int = 10 << 20) -> dict[str, Entry]:
    """Name -> a function that makes that hostile entry in a root (and its target outside, if any)."""

    def write(name: str, data: bytes) -> Entry:
        return lambda root: (root / name).write_bytes(data)  # a lone surrogate in name is an undecodable byte

    def link(name: str, target: str | Callable[[Path], str]) -> Entry:
        return lambda root: os.symlink(target(root) if callable(target) else target, root / name)

    def fifo(root: Path) -> None:
        os.mkfifo(root / "pipe.py")

    def unreadable(root: Path) -> None:
        (root / "locked.py").write_text("def locked():\n    return 1\n")
        os.chmod(root / "locked.py", 0)

    def folder_named_like_a_file(root: Path) -> None:
        (root / "folder.py").mkdir()
        (root / "folder.py" / "inner.py").write_text("def inner():\n    return 1\n")

    big_line = b"var a = [" + b"1," * (line_bytes // 2 - 8) + b"1];\n"

    def nested(opening: bytes, closing: bytes) -> bytes:
        # Broken into short lines, or the file would be skipped as minified before the parser saw it.
        return b"\n".join(opening * 64 for _ in range(nesting // 64)) + b"\n" + closing * (nesting // 64 * 64)

    return {
        "NUL bytes at the start": write("nul_head.py", b"\x00\x00def nul_head():\n    return 1\n"),
        "NUL bytes after the first 8 kB": write("nul_tail.py", b"def nul_tail():\n    return 1\n" + b"#" * 9000
                                                 + b"\n\x00\x00x = '\x00'\n"),
        "invalid UTF-8": write("invalid_utf8.py",
                               b"def bad_\xff_name():\n    return '\xfe\xff\xc3\x28'\n# \xed\xa0\x80\n"),
        "UTF-16 with a BOM": write("utf16.py", "def wide():\n    return 1\n".encode("utf-16")),
        "a 10 MB single line": write("long_line.js", big_line),
        "brackets nested 100k deep (Python)": write("deep.py", b"x = " + nested(b"(", b")") + b"\n"),
        "brackets nested 100k deep (JavaScript)": write("deep.js", b"let x = " + nested(b"[", b"]") + b";\n"),
        "braces nested 100k deep (Go)": write("deep.go", b"package deep\nfunc f() " + nested(b"{", b"}") + b"\n"),
        "a 100k-function file": write("many.py",
                                      b"".join(b"def f%d():\n    return %d\n" % (i, i) for i in range(functions))),
        "a symlink loop": lambda root: (os.symlink("loop_b.py", root / "loop_a.py"),
                                        os.symlink("loop_a.py", root / "loop_b.py")),
        "a symlink to itself": link("self.py", "self.py"),
        "a folder symlink to the root": link("again", "."),
        "a symlink to a file outside the root": link("secret_link.py",
                                                     lambda root: str(root.parent / "outside" / "secret.py")),
        "a symlink to a folder outside the root": link("outside_dir",
                                                       lambda root: str(root.parent / "outside" / "folder")),
        "a symlink to /dev/zero": link("zero.py", "/dev/zero"),
        "a dangling symlink": link("dangling.py", "no/such/file.py"),
        "a FIFO": fifo,
        "an unreadable file": unreadable,
        "a folder named like a file": folder_named_like_a_file,
        "a name with a newline": write("new\nline.py", b"def newline_name():\n    return 1\n"),
        "a name with a tab, quotes and a backslash": write("tab\t'q\"\\.py", b"def odd_name():\n    return 1\n"),
        "a name with undecodable bytes": write("bad\udcffname.py", b"def undecodable_name():\n    return 1\n"),
        "a name with a leading dash": write("-dash.py", b"def dash_name():\n    return 1\n"),
        "a 250-character name": write("n" * 247 + ".py", b"def long_name():\n    return 1\n"),
        "an empty file": write("empty.py", b""),
        "CR-only line ends": write("cr.py", b"def cr_only():\r    return 1\r"),
    }


CONTENTS = tuple(name for name in corpus(1, 64, 64) if name not in LINKS + NAMES)


def hostile_files(workdir: Path, functions: int = 100_000, nesting: int = 100_000, line_bytes: int = 10 << 20, *,
                  only: Iterable[str] | None = None, diagnose: bool = True, name: str = "hostile files") -> Tally:
    """The corpus (or the entries named in `only`) in both layouts. After a crash, `diagnose` names
    the entries that cause it (halving the corpus, one run per half) and checks the rest without them."""
    tally = Tally(name)
    entries = corpus(functions, nesting, line_bytes)
    if only is not None:
        unknown = set(only) - set(entries)
        if unknown:
            raise ValueError(f"no hostile entries named {sorted(unknown)}; the corpus has {sorted(entries)}")
        entries = {key: make for key, make in entries.items() if key in set(only)}
    if os.geteuid() == 0 and "an unreadable file" in entries:
        tally.skipped.append("an unreadable file: running as root, which reads every file")
    for layout, git, limit in (("plain folder", False, None), ("git work tree", True, RAISED_LIMIT)):
        folder = workdir / f"hostile-{layout.replace(' ', '-')}"
        culprits = _check(_make(folder / "all", entries, git, limit), layout, tally, entries, git, limit, diagnose)
        if culprits and (rest := {k: v for k, v in entries.items() if k not in culprits}):
            # One crash must not hide the rest of the corpus: index it again without the culprits.
            _check(_make(folder / "rest", rest, git, limit), f"{layout}, without them", tally, rest, git, limit,
                   diagnose=False)
    return tally


def _make(root: Path, entries: dict[str, Entry], git: bool, limit: int | None, only: str | None = None) -> Path:
    outside = root.parent / "outside"
    (outside / "folder").mkdir(parents=True, exist_ok=True)
    (outside / "secret.py").write_text(f"def {MARKER}():\n    return 'outside'\n")
    (outside / "folder" / "leak.py").write_text(f"def {DIR_MARKER}():\n    return 'outside'\n")
    root.mkdir(parents=True)
    if git:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    if limit:
        (root / ".graphctx").mkdir()
        (root / ".graphctx" / "config.toml").write_text(f"[index]\nmax_file_bytes = {limit}\n")
    (root / "ordinary.py").write_text("def ordinary_function():\n    return 1\n")
    for name, make in entries.items():
        if only is None or name == only:
            make(root)
    return root


def _check(root: Path, layout: str, tally: Tally, entries: dict[str, Entry], git: bool, limit: int | None,
           diagnose: bool) -> list[str]:
    """Index root and check what it serves; returns the entries that crash the run (when diagnosing)."""
    run = procs.run_cli(["index", str(root), "-q"], limit_s=INDEX_LIMIT_S)
    if run.hung:
        tally.add("lost", f"{layout}: {run.describe()}")
        return []
    if run.returncode != 0 or run.traceback:
        found = _culprits(root.parent / "alone", entries, git, limit) if diagnose else []
        last = (run.stderr.strip().splitlines() or ["(no output)"])[-1]
        named = ", ".join(f"{' + '.join(names)} ({why})" for names, why in found)
        tally.add("crashed", f"{layout}: `graphctx index` exited {run.returncode}"
                             + (f"; it crashes on {named}" if named else f": {last}"))
        return [name for names, _ in found for name in names]
    tally.add("ok")
    stats = procs.run_cli(["stats", "--repo", str(root)])
    tally.add("ok" if stats.returncode == 0 and not stats.traceback else "crashed", f"{layout}: {stats.describe()}")
    found = procs.run_cli(["search", "ordinary_function", "--repo", str(root)])
    tally.add("ok" if "ordinary.py::ordinary_function" in found.stdout else "failed",
              f"{layout}: the ordinary file beside the hostile ones is not found: {found.describe()}")
    for marker in (MARKER, DIR_MARKER) if any(key in LINKS for key in entries) else ():
        search = procs.run_cli(["search", marker, "--json", "--repo", str(root)])
        leaked = [where for where, hit in (("search", _in_hits(search.stdout, marker)),
                                           ("the index", _in_index(root, marker))) if hit]
        tally.add("failed" if leaked else "ok",
                  f"{layout}: code from outside the root ({marker}) is in {' and '.join(leaked)}")
    return []


def _in_hits(output: str, marker: str) -> bool:
    """Whether `search --json` found the marker (its query echoed back does not count)."""
    try:
        hits = json.loads(output).get("hits", [])
    except (ValueError, AttributeError):
        return False
    return marker in json.dumps(hits)


def _in_index(root: Path, marker: str) -> bool:
    """Whether the marker is anywhere in the index: entity names, paths or full-text bodies."""
    conn = sqlite3.connect(f"file:{root / '.graphctx' / 'index.db'}?mode=ro", uri=True)
    try:
        names = conn.execute("SELECT count(*) FROM entities WHERE id LIKE ? OR name LIKE ?",
                             (f"%{marker}%", f"%{marker}%")).fetchone()[0]
        bodies = conn.execute("SELECT count(*) FROM entities_fts WHERE entities_fts MATCH ?",
                              (f'"{marker}"',)).fetchone()[0]
        files = sum(marker in zlib.decompress(facts).decode("utf-8", "replace")  # (facts are stored compressed)
                    for (facts,) in conn.execute("SELECT facts FROM file_data"))
    finally:
        conn.close()
    return bool(names or bodies or files)


def _culprits(workdir: Path, entries: dict[str, Entry], git: bool, limit: int | None) -> list[tuple[list[str], str]]:
    """The entries that crash the indexer (beside the ordinary file), with the error, found by halving
    the corpus: a half that crashes is halved again, down to single entries."""
    found: list[tuple[list[str], str]] = []
    runs = iter(range(10**6))

    def crashes(names: list[str]) -> str | None:
        root = _make(workdir / f"run{next(runs)}", {n: entries[n] for n in names}, git, limit)
        run = procs.run_cli(["index", str(root), "-q"], limit_s=INDEX_LIMIT_S)
        shutil.rmtree(root, ignore_errors=True)
        if run.hung:
            return "hangs"
        if run.returncode != 0 or run.traceback:
            return (run.stderr.strip().splitlines() or [f"exit {run.returncode}"])[-1][:120]
        return None

    def search(names: list[str], why: str) -> None:
        if len(names) == 1:
            found.append((names, why))
            return
        halves = [names[: len(names) // 2], names[len(names) // 2:]]
        results = [(half, crashes(half)) for half in halves]
        if not any(reason for _, reason in results):
            found.append((names, f"only together: {why}"))
        for half, reason in results:
            if reason:
                search(half, reason)

    names = list(entries)
    if names and (why := crashes(names)):
        search(names, why)
    return found
