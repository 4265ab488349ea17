"""Where the file work repository leaves traces under `.graphctx/`, and the cheap question asked
before any coordination code loads: did this repository ever coordinate work or learn from feedback?
A plain answer (no agent, no task, no feedback) in a repository where nobody did reads nothing else,
so a one-shot command skips importing the work store. Standard library only."""

from __future__ import annotations

import time
from pathlib import Path

from graphctx.layout import index_dir

# Tasks, runs, the board and claims: what peers and the coordination section are made from.
ACTIVITY = ("tasks", "runs", "activity", "private/claims")
SERVED = "private/served"  # context served to named agents, a file per agent appended to
RECENT_SECONDS = 30 * 60  # served context older than this no longer makes a peer (coord.team.RECENT)
WEIGHTS = "private/weights.json"  # what feedback taught the ranking


def has_activity(root: Path, *, served: bool = True) -> bool:
    """Whether anything was ever coordinated in the repository at `root` (and, with `served`, context
    served to a named agent lately enough to make it a peer: a file's time is its newest event)."""
    folder = index_dir(root)
    return any((folder / name).exists() for name in ACTIVITY) or (served and _served_lately(folder / SERVED))


def _served_lately(folder: Path) -> bool:
    try:
        entries = list(folder.iterdir())
    except OSError:
        return False
    since = time.time() - RECENT_SECONDS
    for entry in entries:
        try:
            if entry.stat().st_mtime >= since:
                return True
        except OSError:
            continue
    return False


def has_learned(root: Path) -> bool:
    """Whether feedback ever taught the ranking of the repository at `root` anything."""
    return (index_dir(root) / WEIGHTS).exists()
