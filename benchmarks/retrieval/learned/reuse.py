"""When one index may stand for several commits' parent trees: feature extraction indexes a window's
oldest parent once and reuses it for the next commits of the window whose gold functions are
byte-identical there. Such a tree is older than every commit it serves, so it never holds a fix;
what it lacks (code added since) only makes the candidates slightly stale, and each instance
records the tree it was ranked on and whether that was its own parent (`exact`)."""

from __future__ import annotations

from pathlib import Path

from graphctx.bench.gitrepo import git, show_file
from graphctx.bench.instances import spans_of


def blob_id(git_dir: Path, commit: str, path: str) -> str | None:
    out = git(git_dir, "rev-parse", "--verify", "--quiet", f"{commit}:{path}", check=False)
    return out.strip() or None


def function_source(source: bytes, path: str, qualified: str) -> bytes | None:
    """The lines of the definition `qualified` (a top-level function or Class.method) in a file."""
    for span in spans_of(path, source):
        if span.qualified == qualified:
            return b"\n".join(source.splitlines()[span.start - 1:span.end])
    return None


def gold_unchanged(git_dir: Path, tree: str, parent: str, gold_functions: list[str]) -> bool:
    """Whether every gold function (`path:Qualified`) has the same source in `tree` as in `parent`:
    the same file blob, or else the same lines for that definition."""
    if tree == parent:
        return True
    for key in gold_functions:
        path, qualified = key.split(":", 1)
        then, now = blob_id(git_dir, tree, path), blob_id(git_dir, parent, path)
        if then is None or now is None:
            return False
        if then == now:
            continue
        old, new = show_file(git_dir, tree, path), show_file(git_dir, parent, path)
        mine = function_source(old, path, qualified) if old is not None else None
        if mine is None or mine != (function_source(new, path, qualified) if new is not None else None):
            return False
    return True


def first_parent_order(git_dir: Path, rev: str, commits: set[str], scan: int) -> dict[str, int]:
    """Each commit's place on `rev`'s first-parent line, oldest first (the order trees advance in)."""
    log = str(git(git_dir, "rev-list", "--first-parent", f"--max-count={scan}", rev)).split()
    log.reverse()
    return {sha: n for n, sha in enumerate(log) if sha in commits}
