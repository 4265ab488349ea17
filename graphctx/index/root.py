"""Which folder is the repository, and where it ends: the folder the user named (never an ancestor
that happens to hold an index), and the boundary every read of a repository file goes through, so
that a symbolic link never serves code from outside it. Light on imports, so that every command
can call it before loading anything heavy."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
from pathlib import Path

from graphctx.errors import InvalidRequest
from graphctx.layout import index_path
from graphctx.text import clip

MAX_PATH_SHOWN = 200  # characters of a path an error repeats


def find_root(start: Path | str | None = None) -> Path:
    """The repository at `start` (default: the current folder): git's top level when `start` is in a
    work tree, else `start` itself. A file, or a folder that does not exist, is an error."""
    here = Path(start or ".").expanduser().resolve()
    if not here.exists():
        raise InvalidRequest(f"{clip(str(here), MAX_PATH_SHOWN, one_line=False)} does not exist; pass --repo with the repository's folder")
    if not here.is_dir():
        raise InvalidRequest(f"{clip(str(here), MAX_PATH_SHOWN, one_line=False)} is a file, not a folder; pass --repo with the repository's folder")
    top = subprocess.run(["git", "-C", str(here), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if top.returncode == 0 and top.stdout.strip():
        return Path(top.stdout.strip()).resolve()
    return here


def indexed_ancestor(root: Path) -> Path | None:
    """The nearest folder above `root` holding an index: a hint for a user who ran a command in a
    subfolder of a project outside git (never used as the root on its own)."""
    return next((folder for folder in root.parents if index_path(folder).is_file()), None)


class OutsideRepository(OSError):
    """A repository path whose symbolic links lead out of the repository. An OSError, so that every
    reader treats it as a file it cannot read."""

    def __init__(self, rel: str):
        super().__init__(errno.EACCES, "it is a symbolic link to a place outside the repository", rel)


class Boundary:
    """Reads repository files by their repository-relative paths, refusing any whose symbolic links
    lead out of the root. The one way graphctx reads source: the indexer, the views that answers
    quote, freshness checks and record anchors all go through it. A read opens the file first and
    judges the file it opened (Linux names it in /proc/self/fd), so no link swapped in between gets
    through. Resolved folders are remembered for the object's life: make one per run or per answer."""

    def __init__(self, root: Path | str):
        self.root = os.path.realpath(root)
        self._prefix = os.path.join(self.root, "")
        self._folders: dict[str, str] = {"": self.root}

    def contains(self, real: str) -> bool:
        """Whether a resolved absolute path is the root or lies under it."""
        return real == self.root or real.startswith(self._prefix)

    def real_path(self, rel: str, is_link: bool | None = None) -> str | None:
        """The resolved absolute path of `rel`, or None when it leaves the repository; `is_link` says
        whether its last part is a symbolic link when the caller's lstat already knows."""
        if os.path.isabs(rel):
            full = os.path.realpath(rel)
            return full if self.contains(full) else None
        folder, _, name = rel.replace(os.sep, "/").rpartition("/")
        full = self._real_folder(folder) + "/" + name
        if name in ("", ".", "..") or (os.path.islink(full) if is_link is None else is_link):
            full = os.path.realpath(full)
        return full if self.contains(full) else None

    def path(self, rel: str) -> Path:
        """The resolved path of `rel`; OutsideRepository when its links lead out of the repository."""
        real = self.real_path(rel)
        if real is None:
            raise OutsideRepository(rel)
        return Path(real)

    def read_bytes(self, rel: str) -> bytes:
        with os.fdopen(self._open(rel), "rb") as handle:
            return handle.read()

    def read_text(self, rel: str, limit: int | None = None) -> str:
        """The file decoded as UTF-8 (undecodable bytes replaced); its first `limit` characters if given."""
        with open(self._open(rel), encoding="utf-8", errors="replace") as handle:
            return handle.read() if limit is None else handle.read(limit)

    def _open(self, rel: str) -> int:
        # Non-blocking, so that a named pipe put in a file's place cannot hang the read.
        fd = os.open(os.path.join(self.root, rel), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            opened = _opened_path(fd)
            inside = self.real_path(rel) is not None if opened is None else self.contains(opened)
            if not inside:
                raise OutsideRepository(rel)
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(errno.EINVAL, "not a regular file", rel)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _real_folder(self, folder: str) -> str:
        """The resolved folder, one lstat per folder level: a link is resolved where it is found."""
        real = self._folders.get(folder)
        if real is None:
            parent, _, name = folder.rpartition("/")
            real = os.path.join(self._real_folder(parent), name)
            if name in ("", ".", "..") or os.path.islink(real):
                real = os.path.realpath(real)
            self._folders[folder] = real
        return real


def _opened_path(fd: int) -> str | None:
    """The resolved path of an open file, where the system says (Linux's /proc); None elsewhere."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
