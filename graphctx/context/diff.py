"""Reads a change from git: the revision to compare with (given, or the merge base with the
default branch), the working tree's changed lines against it per file (`git diff -U0`, untracked
files counting as added), and the old side's file contents. Knows nothing of the index."""

from __future__ import annotations

import difflib
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from graphctx.errors import InvalidRequest, quote

DEFAULT_BASE = "default"  # the revision keyword for "the merge base with the default branch"
DEFAULT_BRANCHES = ("main", "master", "trunk")
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


@dataclass
class FileDiff:
    """One changed file: its non-blank added lines (new side) and removed lines (old side)."""

    path: str
    status: str  # modified, added, deleted
    added: list[int] = field(default_factory=list)
    removed: list[int] = field(default_factory=list)
    untracked: bool = False  # every line is new; left unread here (it may be large, or no code at all)


@dataclass
class Diff:
    base: str  # the commit compared with
    label: str  # how it was chosen, for people: "HEAD", "the merge base with origin/main"
    files: list[FileDiff]


def read(root: Path, rev: str | None) -> Diff:
    """The working tree (staged, unstaged and untracked changes) against `rev`; None, "" or
    DEFAULT_BASE compares with the merge base of HEAD and the default branch."""
    base, label = resolve_base(root, rev)
    done = _git(root, "-c", "core.quotePath=false", "diff", "-U0", "--no-color", "--no-ext-diff", "--no-renames",
                "--relative", "--src-prefix=a/", "--dst-prefix=b/", base, "--")
    if done.returncode != 0:
        raise InvalidRequest(f"git diff against {label} failed ({_first_line(done.stderr)}); check the repository "
                             "with `git status`")
    files = parse_patch(done.stdout)
    seen = {f.path for f in files}
    for path in untracked(root):
        if path not in seen:
            files.append(FileDiff(path, "added", untracked=True))
    return Diff(base, label, files)


def resolve_base(root: Path, rev: str | None) -> tuple[str, str]:
    """The commit to compare with and a phrase saying which it is."""
    _require_repository(root)
    if _commit(root, "HEAD") is None:
        raise InvalidRequest("the repository has no commits yet, so there is no base to compare with; commit "
                             "first, or name the changed files with --files")
    if rev is None or not rev.strip() or rev.strip() == DEFAULT_BASE:
        branch = default_branch(root)
        done = _git(root, "merge-base", branch, "HEAD")
        if done.returncode != 0 or not done.stdout.strip():
            raise InvalidRequest(f"HEAD and {branch} share no history, so they have no merge base; pass the revision "
                                 "to compare with (graphctx impact --diff REV)")
        return done.stdout.strip(), f"the merge base with {branch}"
    rev = rev.strip()
    commit = None if rev.startswith("-") else _commit(root, rev)
    if commit is None:
        raise InvalidRequest(f"unknown revision {quote(rev)}: pass a commit, branch or tag that exists "
                             f"(or {DEFAULT_BASE!r} for the merge base with the default branch)",
                             difflib.get_close_matches(rev, _refs(root), n=5, cutoff=0.5))
    return commit, rev


def default_branch(root: Path) -> str:
    """The branch a change is measured against: origin/HEAD when set, else the current branch's
    upstream, else whichever of main, master or trunk exists (local first, then on origin)."""
    done = _git(root, "symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD")
    if done.returncode == 0 and done.stdout.strip() and _commit(root, done.stdout.strip()):
        return done.stdout.strip()
    done = _git(root, "rev-parse", "-q", "--abbrev-ref", "--symbolic-full-name", "@{upstream}")
    if done.returncode == 0 and done.stdout.strip():
        return done.stdout.strip()
    for prefix in ("refs/heads/", "refs/remotes/origin/"):
        for name in DEFAULT_BRANCHES:
            if _commit(root, prefix + name):
                return prefix.removeprefix("refs/heads/").removeprefix("refs/remotes/") + name
    raise InvalidRequest("cannot tell the default branch (no origin/HEAD, no upstream for the current branch, no "
                         "main, master or trunk branch); pass the revision to compare with: graphctx impact --diff REV")


def old_sources(root: Path, commit: str, paths: list[str]) -> dict[str, bytes]:
    """The contents of `paths` at `commit`, in one git process; paths that did not exist there are left out."""
    if not paths:
        return {}
    prefix = _git(root, "rev-parse", "--show-prefix").stdout.strip()  # `git cat-file` paths are from the top
    request = "".join(f"{commit}:{prefix}{path}\n" for path in paths).encode()
    done = subprocess.run(["git", "-C", str(root), "cat-file", "--batch"], input=request, capture_output=True,
                          timeout=120)
    out, position, found = done.stdout, 0, {}
    for path in paths:
        end = out.find(b"\n", position)
        if end < 0:
            break
        header = out[position:end].split()
        position = end + 1
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            found[path] = out[position:position + size]
            position += size + 1
    return found


def untracked(root: Path) -> list[str]:
    """Files git does not track and does not ignore, relative to root."""
    done = _git(root, "ls-files", "--others", "--exclude-standard", "-z")
    return [p for p in done.stdout.split("\0") if p] if done.returncode == 0 else []


def parse_patch(text: str) -> list[FileDiff]:
    """The files of a `git diff -U0` patch with their non-blank added and removed line numbers."""
    files: list[FileDiff] = []
    current: FileDiff | None = None
    old_path = new_path = None
    old_line = new_line = 0
    for line in text.splitlines():
        if line.startswith("diff --git "):
            current, old_path, new_path = None, None, None
        elif current is None and line.startswith("--- "):
            old_path = _patch_path(line[4:])
        elif current is None and line.startswith("+++ "):
            new_path = _patch_path(line[4:])
            status = "added" if old_path is None else "deleted" if new_path is None else "modified"
            current = FileDiff(new_path or old_path or "", status)
            files.append(current)
        elif current is not None and (match := _HUNK.match(line)):
            old_line, new_line = int(match.group(1)), int(match.group(3))
        elif current is not None and line.startswith("-"):
            if line[1:].strip():
                current.removed.append(old_line)
            old_line += 1
        elif current is not None and line.startswith("+"):
            if line[1:].strip():
                current.added.append(new_line)
            new_line += 1
    return [f for f in files if f.path]


def _patch_path(text: str) -> str | None:
    """The path of a `--- a/x` or `+++ b/x` header, unquoted; None for /dev/null."""
    text = text.rstrip("\t")  # git ends a path holding spaces with a tab
    if text.startswith('"'):
        text = _unquote(text[1:-1])
    if text == "/dev/null":
        return None
    return text[2:] if text[:2] in ("a/", "b/") else text


def _unquote(text: str) -> str:
    """Undo git's C-style quoting of a path: backslash escapes and octal bytes."""
    out, i = bytearray(), 0
    while i < len(text):
        ch = text[i]
        if ch != "\\" or i + 1 == len(text):
            out += ch.encode()
            i += 1
        elif text[i + 1] in _ESCAPES:
            out.append(_ESCAPES[text[i + 1]])
            i += 2
        else:
            out.append(int(text[i + 1:i + 4], 8))
            i += 4
    return out.decode("utf-8", errors="replace")


def _require_repository(root: Path) -> None:
    done = _git(root, "rev-parse", "--is-inside-work-tree")
    if done.returncode != 0 or done.stdout.strip() != "true":
        raise InvalidRequest(f"{root} is not in a git work tree, so there is no diff to read; run it inside a git "
                             "repository, or name the changed files with --files")


def _commit(root: Path, rev: str) -> str | None:
    done = _git(root, "rev-parse", "--verify", "-q", f"{rev}^{{commit}}")
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None


def _refs(root: Path) -> list[str]:
    done = _git(root, "for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/remotes", "refs/tags")
    return done.stdout.split() if done.returncode == 0 else []


def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=120,
                              encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise InvalidRequest("git is not installed or not on PATH; install git, or name the changed files with "
                             "--files") from None
    except subprocess.TimeoutExpired:
        raise InvalidRequest(f"git {args[0]} took over two minutes in {root}; check the repository with "
                             "`git status`") from None


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or ["no message"])[0]
