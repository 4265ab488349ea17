"""Whether an index file is exactly as a checked run of graphctx left it, so that the next check
(PRAGMA quick_check, which reads every page: 0.2 s on sympy's 100 MB) can be skipped.

A run that checked the index (or found it so marked) and closed its connection with nothing else
having written the file meanwhile records the state of the file and its write-ahead log (device,
inode, size, modification and change times) beside them, in `index.db-checked`. Anything that
writes either file afterwards changes that state: another process, a copy over it, a crash midway,
even a write whose modification time is put back (the change time cannot be). A file whose state
differs from the record is checked again."""

from __future__ import annotations

import json
import os
from pathlib import Path

SUFFIX = "-checked"


def _record(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + SUFFIX)


def state(db_path: Path) -> list:
    """The index file and its write-ahead log as the file system sees them (None for one missing)."""
    out: list = []
    for path in (db_path, db_path.with_name(db_path.name + "-wal")):
        try:
            st = os.stat(path)
        except OSError:
            out.append(None)
            continue
        out.append([st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns])
    return out


def identity(path: Path) -> tuple[int, int]:
    """The file's (device, inode), or (-1, -1) when it is missing: which file a path names now."""
    try:
        st = os.stat(path)
    except OSError:
        return (-1, -1)
    return st.st_dev, st.st_ino


def unchanged(db_path: Path) -> bool:
    """Whether the index file is as the last checked run recorded it."""
    try:
        recorded = json.loads(_record(db_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return recorded == state(db_path) and recorded[0] is not None


def mark(db_path: Path) -> None:
    """Record the index file as checked, as it is now (its connections closed)."""
    record = _record(db_path)
    scratch = record.with_name(record.name + ".tmp")
    try:
        scratch.write_text(json.dumps(state(db_path)), encoding="utf-8")
        os.replace(scratch, record)
    except OSError:  # a read-only folder: the next run checks the file again, nothing worse
        forget(db_path)


def forget(db_path: Path) -> None:
    """Drop the record: the file is checked again by the next run that verifies it."""
    for path in (_record(db_path), _record(db_path).with_name(_record(db_path).name + ".tmp")):
        try:
            path.unlink()
        except OSError:
            pass
