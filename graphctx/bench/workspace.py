"""The per-commit workspace: the tree of one commit, materialised once under the cache folder and
indexed by graphctx there (cache per repository and commit). Parallel workers that need the
same commit wait on a file lock instead of building it twice."""

from __future__ import annotations

import fcntl
import os
import shutil
import time
from contextlib import contextmanager
from pathlib import Path

from graphctx.bench.gitrepo import find_git_dir, materialise

DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "graphctx-bench"
READY = ".bench-tree-ready"


@contextmanager
def _locked(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def tree_dir(cache_dir: Path, repo: str, commit: str) -> Path:
    return Path(cache_dir) / "trees" / repo.replace("/", "__") / commit


def prepare(cache_dir: Path, repos_dir: Path, repo: str, commit: str) -> tuple[Path, float]:
    """The indexed tree of repo at commit, and the seconds spent materialising and indexing it now
    (0 when the cache already held an up-to-date index)."""
    from graphctx.project import Project

    root = tree_dir(cache_dir, repo, commit)
    with _locked(root.with_name(root.name + ".lock")):
        started = time.perf_counter()
        if not (root / READY).exists():
            if root.exists():
                shutil.rmtree(root)
            materialise(find_git_dir(repos_dir, repo), commit, root)
            (root / READY).write_text(commit + "\n")
        result = Project(root, find=False, ephemeral=False).index()  # incremental: a no-op unless graphctx's schema changed
        spent = time.perf_counter() - started if (result.parsed or result.removed) else 0.0
    return root, spent
