"""The file repository: the shared and private scopes as Markdown files with YAML front matter
under `.graphctx/records/` and `.graphctx/private/records/`, the truth that git versions and
reviews, searched through the derived records.db. Each write replaces one file atomically while the
writers' lock is held, so a version check and the write after it are one step for every process."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from graphctx.errors import quote
from graphctx.records import files, gitio
from graphctx.records.answers import HistoryEntry, KeyConflict, Problem
from graphctx.records.errors import InvalidRecord, RecordNotFound, StaleVersion
from graphctx.records.file_index import FileRecordIndex
from graphctx.records.keys import KeyHolder
from graphctx.records.models import Record
from graphctx.records.repository import Filters, Hit, Superseder
from graphctx.records.vocabulary import Sort

SCOPES = tuple(files.SCOPE_DIRS)  # the scopes kept in files: shared (committed) and private (gitignored)


class FileRepository:
    """The record files of the repository at `root` (a RecordRepository). Thread-safe; several
    processes may use the same files at once. Until the repository has a `.graphctx` folder, reads
    find nothing and nothing is created; the first write creates it."""

    scopes = SCOPES

    def __init__(self, root: Path | str):
        self.root = Path(root).resolve()
        self._lock = threading.RLock()
        self._files_holder: int | None = None  # the thread holding the cross-process writers' lock
        self._index: FileRecordIndex | None = None
        self._dirty = True  # the files may have changed since the index last looked

    # ---- the derived index

    def _synced(self, sync: bool | None = None) -> FileRecordIndex | None:
        """records.db, synced with the files when asked (default: when this repository wrote since);
        None while the repository has no .graphctx folder."""
        with self._lock:
            if self._index is None:
                folder = files.graphctx_dir(self.root)
                if not folder.is_dir():
                    return None
                files.ensure_layout(self.root)  # records.db must be gitignored before it exists
                self._index = FileRecordIndex(folder / files.RECORDS_DB)
                sync = True
            if sync or (sync is None and self._dirty):
                self._index.sync(self.root)
                self._dirty = False
            return self._index

    def refresh(self) -> None:
        self._synced(sync=True)

    def rebuild(self) -> None:
        with self._lock:
            if self._index is not None:
                self._index.close()
                self._index = None
            db = files.graphctx_dir(self.root) / files.RECORDS_DB
            for suffix in ("", "-wal", "-shm"):
                try:
                    os.unlink(f"{db}{suffix}")
                except FileNotFoundError:
                    pass
            self._synced(sync=True)

    def close(self) -> None:
        with self._lock:
            if self._index is not None:
                self._index.close()
                self._index = None

    # ---- reads

    def get(self, record_id: str) -> Record | None:
        index = self._synced(sync=True)
        return index.get(record_id) if index is not None else None

    def get_many(self, record_ids: Sequence[str]) -> list[Record]:
        index = self._synced()
        return index.get_many(record_ids) if index is not None else []

    def search(self, filters: Filters, text: str = "", sort: Sort = "relevance", limit: int | None = 10) -> list[Hit]:
        index = self._synced()
        return index.search(filters, text, sort, limit) if index is not None else []

    def count(self, filters: Filters, text: str = "") -> int:
        index = self._synced()
        return index.count(filters, text) if index is not None else 0

    def find_key(self, scope: str, category: str, key: str) -> list[KeyHolder]:
        index = self._synced(sync=True)
        return index.key_holders(scope, category, key) if index is not None else []

    def key_conflicts(self) -> list[KeyConflict]:
        index = self._synced()
        return index.key_conflicts() if index is not None else []

    def anchored(self, entity_ids: Sequence[str], code_paths: Sequence[str]) -> dict[str, list[str]]:
        index = self._synced()
        return index.anchored(entity_ids, code_paths) if index is not None else {}

    def superseders(self, record_id: str) -> list[Superseder]:
        index = self._synced()
        return index.superseders(record_id) if index is not None else []

    def names(self) -> list[tuple[str, str]]:
        index = self._synced()
        return index.names() if index is not None else []

    def problems(self) -> list[Problem]:
        index = self._synced()
        return index.problems() if index is not None else []

    def history(self, record_id: str, *, patch: bool = True, limit: int | None = None) -> list[HistoryEntry]:
        """The git history of the record's file (`git log --follow`); none for a private record, which
        git ignores."""
        record = self.get(record_id)
        if record is None or record.scope == "private":
            return []
        return gitio.history(self.root, record.path or "", patch=patch, limit=limit)

    # ---- writes

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """The writers' lock on `.graphctx/records.lock`, then the in-process lock (reentrant). The
        cross-process one is taken first: a writer waiting for another process holds nothing that this
        process's readers need (a server answering other calls meanwhile)."""
        if self._files_holder == threading.get_ident():
            with self._lock:
                yield
            return
        files.ensure_layout(self.root)
        with files.WriteLock(files.graphctx_dir(self.root) / files.LOCK_FILE), self._lock:
            self._files_holder = threading.get_ident()
            try:
                yield
            finally:
                self._files_holder = None

    def put(self, record: Record, expected_version: int | None) -> Record:
        if record.scope not in self.scopes:
            raise InvalidRecord(f"record {record.id} is {record.scope}; record files keep {' and '.join(self.scopes)}")
        with self.transaction():
            current = self._expect(record.id, expected_version)
            same_file = current is not None and current.scope == record.scope and current.path
            path = self.root / current.path if same_file else files.new_path(self.root, record)  # type: ignore[union-attr,operator]
            stored = record.model_copy(update={"path": files.relative(self.root, path), "staleness": None})
            files.write_atomic(path, files.render(stored))
            if current is not None and not same_file and current.path:
                files.remove(self.root / current.path)  # moved to another scope's folder
            self._dirty = True
        return stored

    def delete(self, record_id: str, expected_version: int) -> None:
        with self.transaction():
            current = self._expect(record_id, expected_version)
            if current is not None and current.path:
                files.remove(self.root / current.path)
            self._dirty = True

    def _expect(self, record_id: str, expected_version: int | None) -> Record | None:
        """The stored record, checked against the version the writer expects (None: that there is none)."""
        current = self.get(record_id)
        if expected_version is None:
            if current is not None:
                raise InvalidRecord(f"record {record_id} already exists (version {current.version}); pass its version"
                                    " to replace it")
            return None
        if current is None:
            raise RecordNotFound(f"no record with id {quote(record_id)} to replace; it may have been deleted")
        if current.version != expected_version:
            raise StaleVersion(record_id, expected_version, current)
        return current
