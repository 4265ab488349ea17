"""The storage seam of the records layer: RecordRepository, the operations the use cases need from
wherever records are kept, in ids, models and queries only (no paths, no SQL). A repository holds
the records of one or more scopes; the use cases route each scope to one (scopes.py). Writes are
optimistic: `put` and `delete` name the version they expect and are refused with StaleVersion when
the stored record moved on; `transaction` makes a read, a check and the writes after it one step
for every other writer. Implementations: files (file_repository.py), memory (memory_repository.py);
tests/test_record_repository.py is the contract every implementation passes."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from graphctx.records.answers import HistoryEntry, KeyConflict, Problem
from graphctx.records.keys import KeyHolder
from graphctx.records.models import Record
from graphctx.records.vocabulary import Sort


@dataclass
class Filters:
    """What a search keeps; every filter given must match."""

    kind: str | None = None
    type: str | None = None
    category: str | None = None  # matches the category and everything under it
    status: str | None = None  # a decision's status as read (superseded once an enacted one supersedes it)
    tags: list[str] = field(default_factory=list)  # all must be present
    entity: str | None = None  # an entity id, or a file or folder path its anchors are in
    min_confidence: float | None = None  # applies to records with a confidence; others pass
    scope: str | None = None
    include_retracted: bool = False


@dataclass
class Hit:
    """One search match: the record, its relevance (None when browsing without words) and the
    matching words in context, [marked]."""

    record: Record
    score: float | None
    snippet: str


class Superseder(NamedTuple):
    """A record that lists another in `supersedes`, with its status as stored."""

    id: str
    status: str
    retracted: bool


class RecordRepository(Protocol):
    """Records of some scopes, kept somewhere. Reads other than `get` and `find_key` answer from the
    state as of the last `refresh` (and this repository's own writes since); `get` and `find_key`
    always see what is stored now, so a check made inside a transaction holds for the write after it."""

    scopes: tuple[str, ...]  # the scopes this repository can keep

    def get(self, record_id: str) -> Record | None:
        """The record as stored now (its derived fields, staleness and superseded_by, left empty)."""
        ...

    def get_many(self, record_ids: Sequence[str]) -> list[Record]:
        """The records of those ids that exist, in no particular order."""
        ...

    def put(self, record: Record, expected_version: int | None) -> Record:
        """Store `record` as given (its version included) and return it as stored. expected_version None
        creates it: refused with InvalidRecord when the id exists. Otherwise it replaces the record of
        that id, which must be at expected_version (StaleVersion with the stored record when not,
        RecordNotFound when gone); a record whose scope changed moves within this repository."""
        ...

    def delete(self, record_id: str, expected_version: int) -> None:
        """Remove a record for good, refused like `put` when it is not at expected_version."""
        ...

    def search(self, filters: Filters, text: str = "", sort: Sort = "relevance", limit: int | None = 10) -> list[Hit]:
        """The first `limit` records (None: all) matching the filters and any word of `text`: best first
        (bm25, a word in the title counting most), or newest first for sort='recent' or without text."""
        ...

    def count(self, filters: Filters, text: str = "") -> int:
        """How many records `search` would find without a limit."""
        ...

    def find_key(self, scope: str, category: str, key: str) -> list[KeyHolder]:
        """The records holding a key in a scope and category, retracted ones included, oldest first."""
        ...

    def key_conflicts(self) -> list[KeyConflict]:
        """Every key held by more than one live record of a scope and category."""
        ...

    def anchored(self, entity_ids: Sequence[str], code_paths: Sequence[str]) -> dict[str, list[str]]:
        """record id -> its anchored entities that are among `entity_ids` or in the code files or folders
        `code_paths`."""
        ...

    def superseders(self, record_id: str) -> list[Superseder]:
        """The records that list `record_id` in their `supersedes`."""
        ...

    def names(self) -> list[tuple[str, str]]:
        """(id, title) of every record, for did-you-mean."""
        ...

    def history(self, record_id: str, *, patch: bool = True, limit: int | None = None) -> list[HistoryEntry]:
        """The record's past versions, newest first (RecordError where this storage keeps none)."""
        ...

    def problems(self) -> list[Problem]:
        """Stored records that cannot be read, and why; every other record still loads."""
        ...

    def transaction(self) -> AbstractContextManager[None]:
        """Hold off every other writer of this repository (reentrant): reads, checks and writes inside
        are one step for them."""
        ...

    def refresh(self) -> None:
        """Bring what reads answer from up to date with what is stored (a no-op where they are the same)."""
        ...

    def rebuild(self) -> None:
        """Rebuild derived search data from the stored records (a no-op where there is none)."""
        ...

    def close(self) -> None: ...
