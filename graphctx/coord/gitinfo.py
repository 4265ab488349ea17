"""What a run's end record takes from the repository when the agent does not say: the branch, the
head commit, the pull request (from the CI environment: GitHub's GITHUB_REF `refs/pull/N/...`, or
GRAPHCTX_PR), and the files changed since a commit (committed, staged, unstaged and untracked)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

PULL_REF = re.compile(r"^refs/pull/(\d+)/")


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def head(root: Path) -> str | None:
    return _git(root, "rev-parse", "HEAD")


def branch(root: Path) -> str | None:
    name = _git(root, "rev-parse", "--abbrev-ref", "HEAD")
    return None if name in (None, "HEAD") else name  # HEAD: a detached head has no branch


def pull_request() -> str | None:
    given = os.environ.get("GRAPHCTX_PR", "").strip()
    if given:
        return given
    found = PULL_REF.match(os.environ.get("GITHUB_REF", ""))
    return found.group(1) if found else None


def changed_since(root: Path, commit: str | None) -> list[str] | None:
    """Files changed since `commit` in the working tree, sorted; None when git cannot say (no
    repository, or the commit is unknown here)."""
    if not commit or _git(root, "cat-file", "-e", f"{commit}^{{commit}}") is None:
        return None
    committed = _git(root, "diff", "--name-only", commit)
    untracked = _git(root, "ls-files", "--others", "--exclude-standard")
    if committed is None:
        return None
    names = {n for n in (committed + "\n" + (untracked or "")).splitlines() if n and not n.startswith(".graphctx/")}
    return sorted(names)
