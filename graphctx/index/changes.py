"""Which indexed files changed on disk since they were indexed: the one notion of a changed file
that answers' stale flags, the session packet and the fresh-answer logic share. A file whose stat
moved but whose bytes hash the same was only touched: it is reported apart, not as changed."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from graphctx.index.root import Boundary
from graphctx.index.store import content_hash


@dataclass
class Changes:
    changed: list[str] = field(default_factory=list)  # content differs, or the file is gone
    touched: list[tuple[str, os.stat_result]] = field(default_factory=list)  # new stat, same bytes


def changed_files(boundary: Boundary, files: Mapping[str, Mapping], paths: Iterable[str] | None = None, *,
                  first_only: bool = False) -> Changes:
    """The indexed files among `paths` (default: all of `files`, the index's path -> {size, mtime_ns,
    hash}) that differ from the disk; a stat per file, and a hash only where the stat moved.
    Paths the index does not hold are ignored. `first_only` stops at the first changed file."""
    changes = Changes()
    for path in dict.fromkeys(files if paths is None else paths):
        known = files.get(path)
        if known is None:
            continue
        try:
            st = os.stat(boundary.path(path))
            if (st.st_size, st.st_mtime_ns) == (known.get("size"), known.get("mtime_ns")):
                continue
            same = content_hash(boundary.read_bytes(path)) == known.get("hash")
        except OSError:
            same = False
        if same:
            changes.touched.append((path, st))
            continue
        changes.changed.append(path)
        if first_only:
            break
    return changes
