"""Bytes a run needs again later but need not hold meanwhile, kept in an unnamed temporary file and
read back by position: a full build's main process would otherwise hold every file's packed facts
to the end of the run (they are read again only for the files a question reaches), and so would each
resolution worker it forks. A forked worker reads them through the descriptor it inherits; reading
at a position (pread) shares no file offset between the processes. Where the platform cannot read at
a position, the bytes stay in memory as they were."""

from __future__ import annotations

import os
import tempfile
from typing import IO


class SpillFile:
    """Where a run puts bytes away: `put` them, `read()` what it gives back, in this process or a fork."""

    def __init__(self) -> None:
        self._file: IO[bytes] | None = tempfile.TemporaryFile() if hasattr(os, "pread") else None
        self._end = 0

    def put(self, data: bytes) -> Spilled | bytes:
        """What reads `data` back later: a handle on the file, or the bytes themselves where there is none."""
        if self._file is None:
            return data
        offset, fd = self._end, self._file.fileno()
        written = 0
        while written < len(data):  # (a write may take less than it was given)
            written += os.pwrite(fd, memoryview(data)[written:], offset + written)
        self._end += len(data)
        return Spilled(self._file, offset, len(data))


class Spilled:
    """Bytes put in a SpillFile; holds the file open while it lives, so its descriptor cannot name another."""

    __slots__ = ("_file", "_offset", "_length")

    def __init__(self, file: IO[bytes], offset: int, length: int):
        self._file, self._offset, self._length = file, offset, length

    def read(self) -> bytes:
        data = os.pread(self._file.fileno(), self._length, self._offset)
        if len(data) != self._length:  # (a regular file reads whole, short of an I/O error)
            raise OSError(f"read {len(data)} of {self._length} spilled bytes")
        return data
