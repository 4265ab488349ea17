"""Scores graphctx's call edges against PyCG's micro-benchmark: 119 small Python programs, each a
folder with its sources and a hand-written `callgraph.json` (github.com/vitsalis/PyCG, folder
micro-benchmark/snippets, Apache-2.0). Fetches nothing: pass the snippets folder.

    python benchmarks/callgraph/pycg_micro.py PATH/TO/micro-benchmark/snippets [--show-misses] [--only CATEGORY]

Each program is copied to a temporary folder, indexed by graphctx, and its `calls` edges are turned
into PyCG's names (the rules are in README.md beside this script). An edge counts only when graphctx
claims it: `unresolved` edges and calls on an unknown receiver are not claims. Prints pooled precision
and recall, the programs whose call graph is exact, complete (no false edge) and sound (no missing
edge), and the same per category."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from graphctx.index import store
from graphctx.index.flowrules import builtin_store
from graphctx.index.indexer import index_repository
from graphctx.layout import EXTERNAL_PREFIX, ID_SEPARATOR

BUILTINS = frozenset(__import__("builtins").__dict__)
# Resolutions that are not a claim that the call happens: nothing to score.
NOT_CLAIMED = frozenset({"unresolved"})
UNKNOWN_RECEIVER = EXTERNAL_PREFIX + "?."
# A method of a builtin type (a literal's: `" ".join`, `{}.items()`) in PyCG's names.
BUILTIN_TYPES = {"str": "<**PyStr**>", "dict": "<**PyDict**>", "list": "<**PyList**>", "set": "<**PySet**>",
                 "tuple": "<**PyTuple**>", "int": "<**PyInt**>", "float": "<**PyFloat**>"}


@dataclass
class Score:
    expected: int = 0
    found: int = 0
    right: int = 0
    programs: int = 0
    exact: int = 0
    complete: int = 0  # no false edge
    sound: int = 0  # no missing edge

    def add(self, expected: set, found: set) -> None:
        right = len(expected & found)
        self.expected += len(expected)
        self.found += len(found)
        self.right += right
        self.programs += 1
        self.exact += expected == found
        self.complete += right == len(found)
        self.sound += right == len(expected)

    @property
    def precision(self) -> float:
        return 100.0 * self.right / self.found if self.found else 100.0

    @property
    def recall(self) -> float:
        return 100.0 * self.right / self.expected if self.expected else 100.0


@dataclass
class Program:
    name: str
    expected: set = field(default_factory=set)
    found: set = field(default_factory=set)


def module_name(path: str) -> str:
    """A file's module as PyCG names it: relative to the program's folder, `__init__` is its package."""
    stem = path[: -len(".py")] if path.endswith(".py") else path
    parts = stem.split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


class Converter:
    """graphctx ids -> PyCG names, knowing the program's entities and class hierarchy."""

    def __init__(self, conn):
        self.kinds = {id_: kind for id_, kind in conn.execute("SELECT id, kind FROM entities")}
        self.parent = {id_: parent for id_, parent in conn.execute("SELECT id, parent FROM entities")}
        self.bases: dict[str, list[str]] = defaultdict(list)
        for source, target in conn.execute(
                "SELECT source, target FROM edges WHERE kind = 'inherits' AND resolution != 'unresolved' ORDER BY line"):
            self.bases[source].append(target)

    def name(self, id_: str) -> str:
        if id_.startswith(EXTERNAL_PREFIX):
            name = id_[len(EXTERNAL_PREFIX):]
            owner, _, method = name.partition(".")
            if owner in BUILTIN_TYPES and method:
                return f"{BUILTIN_TYPES[owner]}.{method}"
            return f"<builtin>.{name}" if name in BUILTINS else name
        path, _, qualified = id_.partition(ID_SEPARATOR)
        module = module_name(path)
        return ".".join([module, *qualified.split(".")]) if qualified else module  # (lambdas: PyCG's names)

    def caller(self, id_: str) -> str:
        """Code in a class body runs in the enclosing function or module."""
        while self.kinds.get(id_) == "class" and self.parent.get(id_):
            id_ = self.parent[id_]
        return self.name(id_)

    def callee(self, id_: str) -> str | None:
        """A class call is a call of its `__init__` (found through its bases, an external base's
        `__init__` at the end); a class with none anywhere runs no code of the program: no edge.
        A store into a builtin container is no call either in PyCG's answers."""
        if builtin_store(id_):  # `d.update(...)`: an assignment in PyCG's model, never in its answers
            return None
        if self.kinds.get(id_) != "class":
            return self.name(id_)
        for cls in self._lineage(id_):
            if cls.startswith(EXTERNAL_PREFIX):
                return self.name(cls) + ".__init__"
            init = f"{cls}.__init__"
            if self.kinds.get(init) == "method":
                return self.name(init)
        return None

    def _lineage(self, id_: str) -> list[str]:
        """The class and its bases in a depth-first, left-to-right order (close to Python's MRO for
        the programs here)."""
        out, stack = [], [id_]
        while stack:
            cls = stack.pop(0)
            if cls in out:
                continue
            out.append(cls)
            stack[:0] = self.bases.get(cls, [])
        return out


def expected_edges(folder: Path) -> set[tuple[str, str]]:
    graph = json.loads((folder / "callgraph.json").read_text())
    return {(source, target) for source, targets in graph.items() for target in targets}


def found_edges(folder: Path) -> set[tuple[str, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "program"
        shutil.copytree(folder, work, ignore=shutil.ignore_patterns("callgraph.json", "README.md", "*.pyc"))
        index_repository(work, workers=1)
        conn = store.connect(store.index_path(work), readonly=True)
        try:
            converter = Converter(conn)
            rows = conn.execute("SELECT source, target, resolution FROM edges WHERE kind = 'calls'").fetchall()
        finally:
            conn.close()
    edges = set()
    for source, target, resolution in rows:
        if resolution in NOT_CLAIMED or target.startswith(UNKNOWN_RECEIVER):
            continue
        callee = converter.callee(target)
        if callee is not None:
            edges.add((converter.caller(source), callee))
    return edges


def programs(snippets: Path) -> list[Path]:
    return sorted(p.parent for p in snippets.glob("*/*/callgraph.json"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("snippets", type=Path, help="PyCG's micro-benchmark/snippets folder")
    parser.add_argument("--only", help="score one category (a folder name)")
    parser.add_argument("--show-misses", action="store_true", help="list each program's missing and false edges")
    parser.add_argument("--json", action="store_true", help="print the scores as JSON")
    args = parser.parse_args(argv)
    folders = programs(args.snippets)
    if not folders:
        print(f"error: {args.snippets} holds no */*/callgraph.json; pass PyCG's micro-benchmark/snippets folder",
              file=sys.stderr)
        return 2
    if args.only:
        folders = [f for f in folders if f.parent.name == args.only]
        if not folders:
            names = sorted({f.parent.name for f in programs(args.snippets)})
            print(f"error: no category {args.only!r}; categories: {', '.join(names)}", file=sys.stderr)
            return 2
    total = Score()
    by_category: dict[str, Score] = defaultdict(Score)
    for folder in folders:
        expected, found = expected_edges(folder), found_edges(folder)
        total.add(expected, found)
        by_category[folder.parent.name].add(expected, found)
        if args.show_misses and expected != found:
            print(f"{folder.parent.name}/{folder.name}")
            for edge in sorted(expected - found):
                print(f"  missing {edge[0]} -> {edge[1]}")
            for edge in sorted(found - expected):
                print(f"  false   {edge[0]} -> {edge[1]}")
    if args.json:
        rows = {name: vars(score) | {"precision": score.precision, "recall": score.recall}
                for name, score in [*sorted(by_category.items()), ("all", total)]}
        print(json.dumps(rows, indent=1))
    else:
        print(table(by_category, total))
    return 0


def table(by_category: dict[str, Score], total: Score) -> str:
    lines = ["| category | programs | precision % | recall % | exact | complete | sound |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for name, score in [*sorted(by_category.items()), ("**all**", total)]:
        lines.append(f"| {name} | {score.programs} | {score.precision:.1f} | {score.recall:.1f} | {score.exact} "
                     f"| {score.complete} | {score.sound} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
