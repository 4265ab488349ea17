"""Prints a fixed-seed sample of an indexed repository's call edges for reading by hand: the sure
ones (exact, import, same-scope, inferred, to an entity of the repository), each with its caller's
file and line, that line's text and the callee's definition; or, with --ambiguous, call sites whose
candidates are ambiguous, each with every candidate. Index the repository first (`graphctx index`).

    python benchmarks/callgraph/sample_edges.py PATH [--ambiguous] [-n 100] [--seed 14]
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
from pathlib import Path

SURE = ("exact", "import", "same-scope", "inferred")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path, help="an indexed repository")
    parser.add_argument("--ambiguous", action="store_true", help="sample ambiguous call sites instead of sure edges")
    parser.add_argument("-n", type=int, default=100, help="how many (default 100)")
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args(argv)
    db_path = args.repo / ".graphctx" / "index.db"
    if not db_path.is_file():
        print(f"error: {args.repo} has no index; run `graphctx index {args.repo}` first", file=sys.stderr)
        return 2
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        entities = {row[0]: row[1:] for row in conn.execute("SELECT id, path, start_line, signature FROM entities")}
    except sqlite3.Error as exc:
        print(f"error: {db_path} cannot be read ({exc}); run `graphctx index {args.repo}` again", file=sys.stderr)
        return 2
    source = Source(args.repo)
    rng = random.Random(args.seed)
    if args.ambiguous:
        sites = conn.execute("SELECT source, line, group_concat(target, ' ') FROM edges WHERE kind = 'calls' "
                             "AND resolution = 'ambiguous' GROUP BY source, line ORDER BY source, line").fetchall()
        for caller, line, targets in rng.sample(sites, min(args.n, len(sites))):
            path = entities.get(caller, (caller,))[0]
            print(f"{path}:{line}  [{caller}]  `{source.line(path, line)}`")
            for target in sorted(targets.split()):
                where = entities.get(target)
                print(f"    ? {target}" + (f"  ({where[0]}:{where[1]})" if where else ""))
        print(f"{len(sites)} ambiguous call sites in all", file=sys.stderr)
        return 0
    marks = ",".join("?" * len(SURE))
    edges = conn.execute(f"SELECT source, target, resolution, confidence, line FROM edges WHERE kind = 'calls' "
                         f"AND resolution IN ({marks}) AND target NOT LIKE 'ext:%' ORDER BY source, target", SURE).fetchall()
    for caller, target, resolution, confidence, line in rng.sample(edges, min(args.n, len(edges))):
        path = entities.get(caller, (caller,))[0]
        callee_path, callee_line, signature = entities.get(target, ("?", 0, "?"))
        print(f"{resolution:9} {confidence:.2f} {path}:{line}  `{source.line(path, line)}`")
        print(f"          -> {target}  ({callee_path}:{callee_line}) {signature[:80]}")
    print(f"{len(edges)} sure call edges in all", file=sys.stderr)
    return 0


class Source:
    """Lines of the repository's files, each file read once."""

    def __init__(self, root: Path):
        self.root = root
        self.files: dict[str, list[str]] = {}

    def line(self, path: str, number: int) -> str:
        if path not in self.files:
            try:
                self.files[path] = (self.root / path).read_text(errors="replace").splitlines()
            except OSError:
                self.files[path] = []
        lines = self.files[path]
        return lines[number - 1].strip()[:110] if 0 < number <= len(lines) else "?"


if __name__ == "__main__":
    sys.exit(main())
