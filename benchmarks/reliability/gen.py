"""A small generated Python project that changes between index runs (bodies edited, functions
renamed so that callers in other files resolve differently, modules added and deleted), driven by
a seeded RNG; and an index read back as comparable rows, to check an index against a rebuild."""

from __future__ import annotations

import random
import shutil
import sqlite3
import subprocess
from collections import Counter
from pathlib import Path

CONFIG = "[index]\nworkers = {workers}\n"  # parser processes even on a one-core machine: the kill probe needs them
ENTITY_COLUMNS = ("id, kind, name, qualified_name, language, path, start_line, end_line, signature, doc, sig_hash,"
                  " body_hash, parent")
EDGE_COLUMNS = "source, target, kind, resolution, confidence, line, origin"
FILE_COLUMNS = "f.path, language, size, hash, lines, error_count, is_test, facts, bodies"


class Project:
    """The files of a generated project, written under root; each change rewrites some of them."""

    def __init__(self, root: Path, rng: random.Random, modules: int = 160, workers: int = 2):
        self.root, self.rng = root, rng
        self.versions: dict[int, int] = {}  # module number -> version (which names it defines)
        root.mkdir(parents=True, exist_ok=True)
        # Its own git work tree: a folder inside another repository would otherwise be indexed as part of it.
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        (root / ".graphctx").mkdir(exist_ok=True)
        (root / ".graphctx" / "config.toml").write_text(CONFIG.format(workers=workers))
        (root / "app").mkdir(exist_ok=True)
        (root / "app" / "__init__.py").write_text('"""A generated application."""\n')
        for number in range(modules):
            self._write(number, 0)

    @property
    def modules(self) -> list[int]:
        return sorted(self.versions)

    def change(self, size: int) -> str:
        """Change `size` files at random (about 80% edited, 10% added, 10% deleted, each file at most
        once); returns what was done."""
        added = sum(self.rng.random() < 0.1 for _ in range(size))
        deleted = min(sum(self.rng.random() < 0.1 for _ in range(size - added)), max(0, len(self.versions) - 8))
        edited = min(size - added - deleted, len(self.versions) - deleted)
        touched = self.rng.sample(self.modules, deleted + edited)
        for number in touched[:deleted]:
            (self.root / "app" / f"m{number}.py").unlink()
            del self.versions[number]
        for number in touched[deleted:]:
            self._write(number, self.versions[number] + 1)
        for _ in range(added):
            self._write(max(self.versions, default=-1) + 1, 0)
        return f"{edited} edited, {added} added, {deleted} deleted"

    def _write(self, number: int, version: int) -> None:
        self.versions[number] = version
        (self.root / "app" / f"m{number}.py").write_text(self._module(number, version))

    def _module(self, number: int, version: int) -> str:
        """Functions f{n}_{k} whose set moves with the version (a rename breaks and makes callers
        elsewhere), a class deriving from another module's class, calls across modules."""
        rng = random.Random(f"{number}:{version}:{self.rng.random()}")
        others = [m for m in self.modules if m != number] or [number]
        imported = sorted(set(rng.sample(others, min(3, len(others)))))
        lines = [f'"""Module {number}, version {version}."""', ""]
        lines += [f"from app.m{m} import f{m}_{rng.randrange(6)}, Model{m}" for m in imported]
        base = f"Model{imported[0]}" if imported[0] != number else "object"
        lines += ["", "", f"class Model{number}({base}):", f'    """Model {number}."""', "",
                  "    def run(self, x):", f"        return f{number}_{version % 6}(x) + {version}", ""]
        names = [f"f{number}_{k}" for k in range(version % 3, version % 3 + 4)]
        for k, name in enumerate(names):
            callee = rng.choice(names[:k] + [f"f{m}_{rng.randrange(6)}" for m in imported])
            lines += ["", f"def {name}(x):", f'    """Function {name} of version {version}."""',
                      f"    total = x * {rng.randrange(100)}",
                      f"    return total + {callee}(x - 1) if x else total", ""]
        return "\n".join(lines) + "\n"


def copy_sources(root: Path, target: Path) -> Path:
    """The project's files without its index: what a fresh clone would hold."""
    shutil.copytree(root, target, ignore=shutil.ignore_patterns("index.db*", "records.db*"), symlinks=True)
    return target


def snapshot(root: Path) -> dict[str, Counter]:
    """The entities, edges and files of root's index (row ids and times left out), as multisets."""
    conn = sqlite3.connect(f"file:{root / '.graphctx' / 'index.db'}?mode=ro", uri=True)
    try:
        return {
            "entities": Counter(conn.execute(f"SELECT {ENTITY_COLUMNS} FROM entities")),
            "edges": Counter(conn.execute(f"SELECT {EDGE_COLUMNS} FROM edges")),
            "files": Counter(conn.execute(f"SELECT {FILE_COLUMNS} FROM files f JOIN file_data d ON d.path = f.path")),
        }
    finally:
        conn.close()


def difference(got: dict[str, Counter], want: dict[str, Counter]) -> str | None:
    """How two snapshots differ, in a few words (None when they are equal)."""
    parts = []
    for table in want:
        extra, missing = got[table] - want[table], want[table] - got[table]
        if extra or missing:
            sample = next(iter(extra or missing))
            parts.append(f"{table}: {sum(extra.values())} extra, {sum(missing.values())} missing (e.g. {sample[0]!r})")
    return "; ".join(parts) or None
