"""Git sync of the team's memory: the committed files under `.graphctx/` (records, tasks, skills,
proposals, agents, runs and the other streams; never the index or `private/`). `push` commits them
alone and pushes; `pull` commits them, then merges the upstream with graphctx's merge driver
(merging.py) registered for record, skill and JSON files, the append-only streams merging by union.
What the driver cannot merge is taken from one side (`ours`, `theirs`) or left to an agent (`agent`):
`conflicts` lists the files, `show` gives one with base, ours, theirs and which fields or sections
conflict, `resolve` settles it, `finalize` commits the merge."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from graphctx.coord.errors import InvalidRequest, WorkError
from graphctx.coord.files import GITATTRIBUTES_LINES
from graphctx.coord.merging import merge_file
from graphctx.records.files import write_atomic

SyncStrategy = Literal["ours", "theirs", "agent"]
STRATEGIES: tuple[str, ...] = ("ours", "theirs", "agent")
FOLDER = ".graphctx"
DRIVER = "graphctx"
DRIVER_LINES = tuple(f"{pattern} merge={DRIVER}" for pattern in (
    "records/**/*.md", "skills/*/SKILL.md", "tasks/*.json", "proposals/*.json", "agents/*.json"))
STRATEGY_VARIABLE = "GRAPHCTX_SYNC_STRATEGY"
COMMIT_MESSAGE = "graphctx: sync the team's memory"


class SyncStatus(BaseModel):
    branch: str | None
    upstream: str | None
    ahead: int = 0
    behind: int = 0
    changed: list[str] = Field(default_factory=list)  # team memory files not committed yet
    merging: bool = False
    conflicts: list[str] = Field(default_factory=list)


class Conflict(BaseModel):
    path: str
    base: str | None
    ours: str | None
    theirs: str | None
    analysis: list[str] = Field(default_factory=list)  # every field and section, with how it merges
    conflicting: list[str] = Field(default_factory=list)
    current: str = ""  # the file as it stands in the work tree


class SyncResult(BaseModel):
    action: str
    committed: bool = False
    message: str
    conflicts: list[str] = Field(default_factory=list)


class Sync:
    def __init__(self, root: Path):
        self.root = Path(root)

    # ---- git

    def git(self, *args: str, env: dict | None = None, check: bool = True) -> subprocess.CompletedProcess:
        try:
            done = subprocess.run(["git", "-C", str(self.root), *args], capture_output=True, text=True, timeout=300,
                                  env={**os.environ, **(env or {})})
        except (OSError, subprocess.SubprocessError) as exc:
            raise WorkError(f"git could not run ({exc}); install git and retry") from None
        if check and done.returncode != 0:
            detail = (done.stderr.strip() or done.stdout.strip()).splitlines()
            raise WorkError(f"git {args[0]} failed: {detail[-1] if detail else 'no output'}")
        return done

    def _check_repository(self) -> None:
        if self.git("rev-parse", "--is-inside-work-tree", check=False).returncode != 0:
            raise InvalidRequest(f"{self.root} is not a git work tree: sync shares the team's memory through git "
                                 "(git init, add a remote, then sync push)")

    def install_driver(self) -> None:
        """Name the merge driver for record, skill and JSON files (in .graphctx/.gitattributes, committed)
        and define it in this clone's git config (each clone needs it; sync does it every time)."""
        command = f"{shlex.quote(sys.executable)} -m graphctx.cli.main sync merge-driver %O %A %B %P"
        self.git("config", f"merge.{DRIVER}.name", "graphctx: records field by field, Markdown section by section")
        self.git("config", f"merge.{DRIVER}.driver", command)
        attributes = self.root / FOLDER / ".gitattributes"
        current = attributes.read_text(encoding="utf-8") if attributes.exists() else ""
        missing = [line for line in (*GITATTRIBUTES_LINES, *DRIVER_LINES) if line not in current.splitlines()]
        if missing:
            prefix = current if not current or current.endswith("\n") else current + "\n"
            attributes.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(attributes, prefix + "".join(f"{line}\n" for line in missing))

    # ---- status, push, pull

    def status(self, fetch: bool = True) -> SyncStatus:
        self._check_repository()
        branch = self.git("rev-parse", "--abbrev-ref", "HEAD", check=False).stdout.strip() or None
        upstream = self.git("rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}", check=False).stdout.strip() or None
        if upstream and fetch:
            self.git("fetch", "--quiet", check=False)
        ahead = behind = 0
        if upstream:
            counts = self.git("rev-list", "--left-right", "--count", "HEAD...@{u}", check=False).stdout.split()
            ahead, behind = (int(counts[0]), int(counts[1])) if len(counts) == 2 else (0, 0)
        changed = [line[3:] for line in self.git("status", "--porcelain", "--untracked-files=all", "--", FOLDER).stdout.splitlines()]
        return SyncStatus(branch=None if branch == "HEAD" else branch, upstream=upstream, ahead=ahead, behind=behind,
                          changed=changed, merging=self._merging(), conflicts=self.conflicts())

    def commit_memory(self) -> bool:
        """Commit the team memory files alone (other staged work stays staged); False when none changed."""
        self.git("add", "--all", "--", FOLDER)
        if not self.git("diff", "--cached", "--name-only", "--", FOLDER).stdout.strip():
            return False
        self.git("commit", "--quiet", "--no-verify", "-m", COMMIT_MESSAGE, "--", FOLDER)
        return True

    def push(self) -> SyncResult:
        self._check_repository()
        self._not_merging()
        self.install_driver()
        committed = self.commit_memory()
        upstream = self.git("rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}", check=False).returncode == 0
        if upstream:
            self.git("push", "--quiet")
        else:
            remotes = self.git("remote").stdout.split()
            if not remotes:
                raise InvalidRequest("this repository has no remote to push to; add one (git remote add origin URL)")
            self.git("push", "--quiet", "-u", remotes[0], "HEAD")
        return SyncResult(action="push", committed=committed, message="pushed the team's memory"
                          + (" (committed the changes first)" if committed else ""))

    def pull(self, strategy: SyncStrategy = "agent") -> SyncResult:
        if strategy not in STRATEGIES:
            raise InvalidRequest(f"unknown strategy {strategy!r}: use ours, theirs or agent")
        self._check_repository()
        self._not_merging()
        self.install_driver()
        committed = self.commit_memory()
        done = self.git("pull", "--no-rebase", "--no-edit", "--quiet", env={STRATEGY_VARIABLE: strategy}, check=False)
        conflicts = self.conflicts()
        if done.returncode != 0 and not conflicts:
            detail = (done.stderr.strip() or done.stdout.strip()).splitlines()
            raise WorkError(f"git pull failed: {detail[-1] if detail else 'no output'}")
        if conflicts and strategy != "agent":
            for path in [p for p in conflicts if p.startswith(FOLDER + "/")]:  # what the driver left: one side whole
                self.git("checkout", f"--{strategy}", "--", path)
                self.git("add", "--", path)
            conflicts = self.conflicts()  # code conflicts are not the team memory's to settle
            if not conflicts:
                self.git("commit", "--quiet", "--no-edit", "--no-verify")
        if conflicts:
            return SyncResult(action="pull", committed=committed, conflicts=conflicts, message=(
                f"merged, with {len(conflicts)} conflicted file(s) left to resolve: sync show FILE, then sync resolve "
                "FILE, then sync finalize"))
        return SyncResult(action="pull", committed=committed, message="pulled and merged the team's memory")

    # ---- the agent strategy

    def conflicts(self) -> list[str]:
        return [p for p in self.git("diff", "--name-only", "--diff-filter=U", check=False).stdout.splitlines() if p]

    def show(self, path: str) -> Conflict:
        path = self._conflicted(path)
        base, ours, theirs = (self._stage(n, path) for n in (1, 2, 3))
        merged = merge_file(path, base or "", ours or "", theirs or "")
        current = (self.root / path).read_text(encoding="utf-8", errors="replace") if (self.root / path).exists() else ""
        return Conflict(path=path, base=base, ours=ours, theirs=theirs, current=current,
                        analysis=merged.sections if merged else ["not a record, skill or JSON file: merged by lines"],
                        conflicting=merged.conflicts if merged else ["the whole file"])

    def resolve(self, path: str, take: Literal["ours", "theirs"] | None = None, content: str | None = None) -> str:
        """Settle one conflicted file: one side's whole version, the driver's merge with that side winning
        the conflicts, or the content given (the resolution an agent wrote)."""
        path = self._conflicted(path)
        if (take is None) == (content is None):
            raise InvalidRequest("resolve takes either take=ours|theirs or the resolved content")
        if content is None:
            base, ours, theirs = (self._stage(n, path) or "" for n in (1, 2, 3))
            merged = merge_file(path, base, ours, theirs, take)
            content = merged.text if merged else (ours if take == "ours" else theirs)
        if "<<<<<<< " in content and "\n>>>>>>> " in content:
            raise InvalidRequest("the content still has conflict markers: settle each marked part, then resolve")
        write_atomic(self.root / path, content)
        self.git("add", "--", path)
        return f"resolved {path}" + (f" (conflicts taken from {take})" if take else "")

    def finalize(self) -> SyncResult:
        if not self._merging():
            raise InvalidRequest("no merge is in progress; sync pull starts one")
        left = self.conflicts()
        if left:
            raise InvalidRequest(f"{len(left)} file(s) still conflicted ({', '.join(left[:3])}): sync resolve them first")
        self.git("commit", "--quiet", "--no-edit", "--no-verify")
        return SyncResult(action="finalize", committed=True, message="merge committed; sync push shares it")

    def _merging(self) -> bool:
        git_dir = self.git("rev-parse", "--git-dir", check=False).stdout.strip()
        return bool(git_dir) and ((self.root / git_dir) if not Path(git_dir).is_absolute() else Path(git_dir)).joinpath(
            "MERGE_HEAD").exists()

    def _not_merging(self) -> None:
        if self._merging():
            raise InvalidRequest("a merge is in progress: settle it first (sync conflicts, sync show, sync resolve, "
                                 "sync finalize)")

    def _conflicted(self, path: str) -> str:
        conflicts = self.conflicts()
        wanted = path.strip().removeprefix("./")
        found = [p for p in conflicts if p == wanted or p.endswith("/" + wanted)]
        if len(found) != 1:
            listed = ", ".join(conflicts[:5]) or "none"
            raise InvalidRequest(f"{path!r} is not a conflicted file{' (ambiguous)' if found else ''}; "
                                 f"the conflicted ones: {listed}")
        return found[0]

    def _stage(self, number: int, path: str) -> str | None:
        done = self.git("show", f":{number}:{path}", check=False)
        return done.stdout if done.returncode == 0 else None


def run_driver(base: Path, ours: Path, theirs: Path, path: str) -> int:
    """The git merge driver: merge %O %A %B of file %P into %A; 0 when clean, 1 with conflicts left."""
    texts = [p.read_text(encoding="utf-8", errors="replace") if p.exists() else "" for p in (base, ours, theirs)]
    strategy = os.environ.get(STRATEGY_VARIABLE)
    side = strategy if strategy in ("ours", "theirs") else None
    merged = merge_file(path, *texts, side)
    if merged is None:  # not ours to merge: git's own line merge, in place
        done = subprocess.run(["git", "merge-file", "-L", "ours", "-L", "base", "-L", "theirs",
                               str(ours), str(base), str(theirs)], capture_output=True)
        return 0 if done.returncode == 0 else 1
    ours.write_text(merged.text, encoding="utf-8")
    return 1 if merged.conflicts and side is None else 0  # with a side, every conflict took it
