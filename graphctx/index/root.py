"""Which folder is the repository: the one the user named, never an ancestor that happens to hold
an index. Light on imports, so that every command can call it before loading anything heavy."""

from __future__ import annotations

import subprocess
from pathlib import Path

from graphctx.errors import InvalidRequest
from graphctx.layout import index_path


def find_root(start: Path | str | None = None) -> Path:
    """The repository at `start` (default: the current folder): git's top level when `start` is in a
    work tree, else `start` itself. A file, or a folder that does not exist, is an error."""
    here = Path(start or ".").expanduser().resolve()
    if not here.exists():
        raise InvalidRequest(f"{_short(here)} does not exist; pass --repo with the repository's folder")
    if not here.is_dir():
        raise InvalidRequest(f"{_short(here)} is a file, not a folder; pass --repo with the repository's folder")
    top = subprocess.run(["git", "-C", str(here), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if top.returncode == 0 and top.stdout.strip():
        return Path(top.stdout.strip()).resolve()
    return here


def indexed_ancestor(root: Path) -> Path | None:
    """The nearest folder above `root` holding an index: a hint for a user who ran a command in a
    subfolder of a project outside git (never used as the root on its own)."""
    return next((folder for folder in root.parents if index_path(folder).is_file()), None)


def _short(path: Path, limit: int = 200) -> str:
    text = str(path)
    return text if len(text) <= limit else text[: limit - 1] + "…"
