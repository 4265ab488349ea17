"""Git plumbing for the benchmark: finding a repository's bare git directory under --repos-dir,
materialising one commit's tree without any later history (`git archive | tar -x`), reading
commits and their unified diffs, and turning a diff into edited lines of the original files."""

from __future__ import annotations

import io
import re
import subprocess
import tarfile
from dataclasses import dataclass, field
from pathlib import Path


class BenchError(Exception):
    """Something the person running the benchmark can fix (a missing repository, a bad set file)."""


def find_git_dir(repos_dir: Path, repo: str) -> Path:
    """The git directory of `repo` ("owner/name") under `repos_dir`. Accepted layouts, first match wins:
    owner__name.git, owner__name, owner+name.git, owner+name (each possibly holding repo/, repo.git/
    or .git/), owner/name.git, owner/name, name.git, name. `repos_dir` may itself be the git directory."""
    repos_dir = Path(repos_dir).expanduser()
    owner, _, name = repo.partition("/")
    stems = [f"{owner}__{name}", f"{owner}+{name}", f"{owner}/{name}", f"{owner}-{name}", name] if name else [repo]
    tried: list[Path] = []
    for stem in stems:
        for base in (repos_dir / f"{stem}.git", repos_dir / stem):
            for candidate in (base, base / "repo", base / "repo.git", base / ".git"):
                tried.append(candidate)
                if _is_git_dir(candidate):
                    return candidate
    if _is_git_dir(repos_dir) or _is_git_dir(repos_dir / ".git"):
        return repos_dir if _is_git_dir(repos_dir) else repos_dir / ".git"
    raise BenchError(
        f"no git directory for {repo} under {repos_dir}; expected e.g. {repos_dir / (owner + '__' + name + '.git')}"
        f" (a bare clone: git clone --bare https://github.com/{repo} {owner}__{name}.git)"
    )


def _is_git_dir(path: Path) -> bool:
    return (path / "HEAD").is_file() and (path / "objects").is_dir()


def git(git_dir: Path, *args: str, text: bool = True, check: bool = True) -> str | bytes:
    result = subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, text=text,
                            **({"encoding": "utf-8", "errors": "replace"} if text else {}))
    if check and result.returncode != 0:
        raise BenchError(f"git {' '.join(args[:3])} failed in {git_dir}: {result.stderr.strip()[:300]}")
    return result.stdout


def materialise(git_dir: Path, commit: str, dest: Path) -> None:
    """Write the tree of `commit` into `dest` (created): the files only, no history."""
    dest.mkdir(parents=True, exist_ok=True)
    data = git(git_dir, "archive", "--format=tar", commit, text=False)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")


def show_file(git_dir: Path, commit: str, path: str) -> bytes | None:
    result = subprocess.run(["git", f"--git-dir={git_dir}", "show", f"{commit}:{path}"], capture_output=True)
    return result.stdout if result.returncode == 0 else None


# ---- diffs

@dataclass
class FileDiff:
    old_path: str | None  # None: the file was added
    new_path: str | None  # None: the file was deleted
    removed: list[int] = field(default_factory=list)  # original-file line numbers removed
    insert_points: list[int] = field(default_factory=list)  # original line right after each run of added lines
    changed_text: list[str] = field(default_factory=list)  # the removed and added lines' text

    @property
    def edited_lines(self) -> list[int]:
        return sorted(set(self.removed) | set(self.insert_points))


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def parse_unified_diff(text: str) -> list[FileDiff]:
    """Files of a unified diff (git format) with the original lines each one edited: removed lines,
    plus each insertion point, the original line right after a run of added lines."""
    files: list[FileDiff] = []
    current: FileDiff | None = None
    old_line = 0
    adding = False
    for line in text.splitlines():
        if line.startswith("diff --git "):
            current = FileDiff(None, None)
            files.append(current)
            old_line, adding = 0, False
            continue
        if current is None:
            continue
        if line.startswith("--- ") and old_line == 0 and not current.removed and not current.insert_points:
            current.old_path = _diff_path(line[4:])
            continue
        if line.startswith("+++ ") and old_line == 0 and not current.removed and not current.insert_points:
            current.new_path = _diff_path(line[4:])
            continue
        match = _HUNK.match(line)
        if match:
            start, count = int(match.group(1)), int(match.group(2) if match.group(2) is not None else 1)
            old_line = start if count > 0 else start + 1  # "-5,0": insertion after line 5
            adding = False
            continue
        if old_line == 0:
            continue
        if line.startswith("+"):
            if not adding:
                current.insert_points.append(old_line)
                adding = True
            current.changed_text.append(line[1:])
        elif line.startswith("-"):
            current.removed.append(old_line)
            current.changed_text.append(line[1:])
            old_line += 1
            adding = False
        elif line.startswith("\\"):
            continue
        else:
            old_line += 1
            adding = False
    for f in files:
        f.insert_points = sorted(set(f.insert_points))
    return files


def _diff_path(raw: str) -> str | None:
    raw = raw.strip().split("\t")[0]
    if raw == "/dev/null":
        return None
    if raw.startswith('"') and raw.endswith('"'):
        raw = raw[1:-1]
    return raw[2:] if raw[:2] in ("a/", "b/") else raw


def commit_diff(git_dir: Path, parent: str, commit: str, *, ignore_whitespace: bool = False) -> list[FileDiff]:
    args = ["diff", "--no-color", "--no-renames", "--no-ext-diff", "-U0"]
    if ignore_whitespace:
        args += ["-w", "--ignore-blank-lines"]
    return parse_unified_diff(git(git_dir, *args, parent, commit))


# ---- history

@dataclass
class Commit:
    sha: str
    parents: list[str]
    author: str
    email: str
    date: int
    message: str  # subject and body


def first_parent_log(git_dir: Path, rev: str = "HEAD", limit: int | None = None, since: str | None = None) -> list[Commit]:
    """Commits on the first-parent chain of `rev`, newest first."""
    args = ["log", "--first-parent", "--format=%H%x1f%P%x1f%an%x1f%ae%x1f%at%x1f%B%x1e"]
    if limit:
        args.append(f"-n{limit}")
    if since:
        args.append(f"--since={since}")
    out = git(git_dir, *args, rev)
    commits = []
    for record in out.split("\x1e"):
        record = record.strip("\n")
        if not record:
            continue
        sha, parents, author, email, date, message = record.split("\x1f", 5)
        commits.append(Commit(sha, parents.split(), author, email, int(date), message.strip()))
    return commits
