"""The records.db index of the record files, `<repo>/.graphctx/records.db`: a RecordIndex kept in
step with the files (a stat fingerprint tells, per file, which changed since the last sync), plus the
files that could not be read and why. It never holds the only copy of anything and can be deleted
at any time: the next sync builds it again."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from graphctx.records import files
from graphctx.records.answers import Problem
from graphctx.records.errors import BrokenRecordFile
from graphctx.records.index import RecordIndex

Listing = dict[str, tuple[str, tuple[int, int, int]]]  # relative path -> (scope, (mtime_ns, size, inode))


class FileRecordIndex(RecordIndex):
    """The search index of one repository's record files."""

    def sync(self, root: Path) -> None:
        """Bring the index up to date with the record files: re-read only files whose stat changed."""
        with self._lock:
            if self._meta("fingerprint") == _fingerprint(files.scan(root)):
                return
            with self.writing():
                # List again under the write lock, so a file another process wrote meanwhile is seen.
                listing = files.scan(root)
                fingerprint = _fingerprint(listing)
                if self._meta("fingerprint") != fingerprint:
                    self._apply(root, listing)
                    self._set_meta(fingerprint=fingerprint)

    def _apply(self, root: Path, listing: Listing) -> None:
        known = {path: (mtime, size, inode) for path, mtime, size, inode in
                 self.conn.execute("SELECT path, mtime_ns, size, inode FROM files")}
        broken = {path for (path,) in self.conn.execute("SELECT path FROM problems")}
        for path in set(known) - set(listing):
            self._forget_file(path)
        # Files that failed before are read again: a duplicate id may have gone away since.
        todo = sorted(path for path, (_, stat) in listing.items() if known.get(path) != stat or path in broken)
        for path in todo:
            self._forget_file(path)
        for path in todo:
            self._load_file(root, path, listing[path][0])
        self._derive_status()

    def _forget_file(self, path: str) -> None:
        row = self.conn.execute("SELECT record_id FROM files WHERE path=?", (path,)).fetchone()
        if row and row[0]:
            self._delete(row[0])
        self.conn.execute("DELETE FROM files WHERE path=?", (path,))
        self.conn.execute("DELETE FROM problems WHERE path=?", (path,))

    def _load_file(self, root: Path, path: str, scope: str) -> None:
        full = root / path
        try:
            with open(full, "rb") as handle:
                # The stat of the very file read, so content and stat always agree.
                stat = os.fstat(handle.fileno())
                raw = handle.read()
        except FileNotFoundError:
            return  # removed between listing and reading: the next sync sees it gone
        record_id = None
        try:
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise BrokenRecordFile(path, f"not UTF-8 text (byte {exc.start})") from None
            record = files.parse(text, path, scope)
            clash = self.conn.execute("SELECT path FROM records WHERE id=?", (record.id,)).fetchone()
            if clash:
                raise BrokenRecordFile(path, f"its id {record.id} is also the id of {clash[0]}; give one of them"
                                             " a new id (or delete the copy)")
            self._insert(record)
            record_id = record.id
        except BrokenRecordFile as exc:
            self.conn.execute("INSERT OR REPLACE INTO problems(path, message) VALUES (?, ?)", (path, str(exc)))
        self.conn.execute(
            "INSERT OR REPLACE INTO files(path, scope, mtime_ns, size, inode, record_id) VALUES (?,?,?,?,?,?)",
            (path, scope, stat.st_mtime_ns, stat.st_size, stat.st_ino, record_id),
        )

    def problems(self) -> list[Problem]:
        with self._lock:
            return [Problem(path=p, message=m) for p, m in self.conn.execute("SELECT path, message FROM problems ORDER BY path")]


def _fingerprint(listing: Listing) -> str:
    # The inode catches a rewrite within the file system's timestamp granularity: every atomic
    # write is a new inode.
    digest = hashlib.blake2b(digest_size=16)
    for path in sorted(listing):
        scope, (mtime, size, inode) = listing[path]
        digest.update(f"{path}\0{scope}\0{mtime}\0{size}\0{inode}\n".encode())
    return digest.hexdigest()
