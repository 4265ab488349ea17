"""The few git facts the records layer needs, each one `git` call run in the repository: the HEAD
commit an anchor is stamped with, the files changed since a revision, a file's content at a
revision, a record file's history, and the user's name (the author of a write no agent signs).
Outside git they answer None or raise a RecordError."""

from __future__ import annotations

import subprocess
from pathlib import Path

from graphctx.errors import quote
from graphctx.records.errors import RecordError
from graphctx.records.answers import HistoryEntry

_RECORD_SEP = "\x1e"
_FIELD_SEP = "\x1f"


def _git(root: Path, *args: str, text: bool = True) -> subprocess.CompletedProcess | None:
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=text, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None  # no git on this machine: behave as outside a repository


def head(root: Path) -> str | None:
    """The commit checked out, or None outside git (or in a repository without commits)."""
    done = _git(root, "rev-parse", "--verify", "-q", "HEAD")
    return done.stdout.strip() if done is not None and done.returncode == 0 and done.stdout.strip() else None


def user_name(root: Path) -> str | None:
    """`git config user.name` as the repository sees it (its own config, else the global one)."""
    done = _git(root, "config", "user.name")
    name = " ".join(done.stdout.split()) if done is not None and done.returncode == 0 else ""
    return name or None


def in_repository(root: Path) -> bool:
    done = _git(root, "rev-parse", "--is-inside-work-tree")
    return done is not None and done.returncode == 0 and done.stdout.strip() == "true"


def changed_files(root: Path, base: str) -> set[str]:
    """Paths (relative to root) that differ between `base` and the working tree, both sides of a rename."""
    if not in_repository(root):
        raise RecordError(f"{root} is not in a git repository; check --base needs git (drop --base to check anchors only)")
    done = _git(root, "diff", "--name-only", "--relative", "--no-renames", base, "--")
    if done is None or done.returncode != 0:
        message = (done.stderr.strip().splitlines() or ["unknown revision"])[0] if done else "git failed"
        raise RecordError(f"cannot compare with {quote(base)} ({message}); pass a commit, branch or tag that exists")
    return {line.strip() for line in done.stdout.splitlines() if line.strip()}


def show(root: Path, rev: str, path: str) -> bytes | None:
    """A file's bytes at `rev`, or None when it did not exist there."""
    done = _git(root, "show", f"{rev}:./{path}", text=False)
    return done.stdout if done is not None and done.returncode == 0 else None


def history(root: Path, path: str, *, patch: bool = True, limit: int | None = None) -> list[HistoryEntry]:
    """`git log --follow` of one file, newest first, with each commit's patch when asked."""
    if not in_repository(root):
        raise RecordError(f"{root} is not in a git repository; a record's history is its file's git history")
    args = ["log", "--follow", f"--format={_RECORD_SEP}%H{_FIELD_SEP}%an{_FIELD_SEP}%aI{_FIELD_SEP}%s{_FIELD_SEP}"]
    if patch:
        args.append("-p")
    if limit:
        args.append(f"-n{int(limit)}")
    done = _git(root, *args, "--", path)
    if done is None or done.returncode != 0:
        return []
    entries = []
    for chunk in done.stdout.split(_RECORD_SEP)[1:]:
        commit, author, date, subject, rest = (chunk.split(_FIELD_SEP, 4) + [""] * 5)[:5]
        entries.append(HistoryEntry(commit=commit, author=author, date=date, subject=subject,
                                    patch=rest.strip("\n") if patch else ""))
    return entries
