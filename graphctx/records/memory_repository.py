"""The memory repository: records that live only as long as the process holding them (the ephemeral
scope of a serving process: an agent's scratch notes), kept in an in-memory RecordIndex so they are
searched exactly like the records in files."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from graphctx.errors import quote
from graphctx.records.answers import HistoryEntry, KeyConflict, Problem
from graphctx.records.errors import InvalidRecord, RecordError, RecordNotFound, StaleVersion
from graphctx.records.index import RecordIndex
from graphctx.records.keys import KeyHolder
from graphctx.records.models import Record
from graphctx.records.repository import Filters, Hit, Superseder
from graphctx.records.vocabulary import Sort


class MemoryRepository:
    """Records of `scopes` (by default the ephemeral one) in this process's memory (a RecordRepository).
    Thread-safe; nothing outlives the process."""

    def __init__(self, scopes: tuple[str, ...] = ("ephemeral",)):
        self.scopes = scopes
        self._lock = threading.RLock()
        self._index = RecordIndex(None)

    def get(self, record_id: str) -> Record | None:
        return self._index.get(record_id)

    def get_many(self, record_ids: Sequence[str]) -> list[Record]:
        return self._index.get_many(record_ids)

    def search(self, filters: Filters, text: str = "", sort: Sort = "relevance", limit: int | None = 10) -> list[Hit]:
        return self._index.search(filters, text, sort, limit)

    def count(self, filters: Filters, text: str = "") -> int:
        return self._index.count(filters, text)

    def find_key(self, scope: str, category: str, key: str) -> list[KeyHolder]:
        return self._index.key_holders(scope, category, key)

    def key_conflicts(self) -> list[KeyConflict]:
        return self._index.key_conflicts()

    def anchored(self, entity_ids: Sequence[str], code_paths: Sequence[str]) -> dict[str, list[str]]:
        return self._index.anchored(entity_ids, code_paths)

    def superseders(self, record_id: str) -> list[Superseder]:
        return self._index.superseders(record_id)

    def names(self) -> list[tuple[str, str]]:
        return self._index.names()

    def problems(self) -> list[Problem]:
        return []  # nothing here is ever unreadable

    def history(self, record_id: str, *, patch: bool = True, limit: int | None = None) -> list[HistoryEntry]:
        raise RecordError(f"record {record_id} is ephemeral: it lives only in this process and has no history")

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            yield

    def put(self, record: Record, expected_version: int | None) -> Record:
        if record.scope not in self.scopes:
            raise InvalidRecord(f"record {record.id} is {record.scope}; this repository keeps {' and '.join(self.scopes)}")
        with self._lock:
            self._expect(record.id, expected_version)
            stored = record.model_copy(update={"path": None, "staleness": None})
            self._index.put(stored)
        return stored

    def delete(self, record_id: str, expected_version: int) -> None:
        with self._lock:
            self._expect(record_id, expected_version)
            self._index.drop(record_id)

    def _expect(self, record_id: str, expected_version: int | None) -> None:
        current = self._index.get(record_id)
        if expected_version is None:
            if current is not None:
                raise InvalidRecord(f"record {record_id} already exists (version {current.version}); pass its version"
                                    " to replace it")
        elif current is None:
            raise RecordNotFound(f"no record with id {quote(record_id)} to replace; it may have been deleted")
        elif current.version != expected_version:
            raise StaleVersion(record_id, expected_version, current)

    def refresh(self) -> None:
        pass  # what it holds is what it answers from

    def rebuild(self) -> None:
        pass  # no derived data

    def close(self) -> None:
        self._index.close()
