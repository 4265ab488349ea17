"""RecordStore, the library API of the records layer that the context engine, the CLI and the MCP
server call: write knowledge and decisions, search and read them, navigate long ones, revise with
a version check, retract, verify anchors, show history, find records anchored to code, and check
decisions against changed code. It only wires the use cases (writing, reading, checking) to their
collaborators: the repositories that keep each scope (repository.py, backends.py) and the code facts
the anchors are judged against (graphctx.index.codefacts)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from graphctx.index.codefacts import CodeFacts, open_code_facts
from graphctx.records.anchoring import AnchorInput
from graphctx.records.answers import (
    AnchoredRecord, CheckReport, Heading, HistoryEntry, KeyConflict, Overview, Problem, RecallPage, Section, Table,
    WriteResult,
)
from graphctx.records.backends import local_repositories
from graphctx.records.checking import Checker
from graphctx.records.models import Knowledge, Record
from graphctx.records.reading import Reader
from graphctx.records.repository import RecordRepository
from graphctx.records.scopes import ScopedRepositories
from graphctx.records.workspace import Workspace
from graphctx.records.writing import Writer

CodeFactsOpener = Callable[[Path], AbstractContextManager[CodeFacts]]


class RecordStore:
    """The records of one repository: shared files, private files and this instance's ephemeral ones.

    Thread-safe; several processes may use the same repository at once. Errors are RecordError
    subclasses (GraphctxError) whose message names the problem and the fix. `author` signs the writes
    that name no author (default: $GRAPHCTX_AUTHOR, else the git user). A store in a process that ends
    with its command passes holds_ephemeral=False: its ephemeral records would vanish as they are made,
    so writing one is refused. `repositories` (scope -> RecordRepository) replaces the default storage;
    `code_facts` opens the code facts of a repository root (default: its index.db)."""

    def __init__(self, root: Path | str, *, author: str | None = None, holds_ephemeral: bool = True,
                 repositories: Mapping[str, RecordRepository] | None = None,
                 code_facts: CodeFactsOpener = open_code_facts):
        self.root = Path(root).resolve()
        self.holds_ephemeral = holds_ephemeral
        by_scope = repositories if repositories is not None else local_repositories(
            self.root, holds_ephemeral=holds_ephemeral)
        self._ws = Workspace(self.root, ScopedRepositories(by_scope), lambda: code_facts(self.root), author=author)
        self._writer = Writer(self._ws)
        self._reader = Reader(self._ws)
        self._checker = Checker(self._ws)

    @property
    def author(self) -> str:
        """Who signs a write that names no author: the one given, $GRAPHCTX_AUTHOR, or `git config user.name`
        (asked once, at the first write that needs it)."""
        return self._ws.author

    def close(self) -> None:
        self._ws.repos.close()

    def __enter__(self) -> RecordStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- writing

    def note_served(self, entities: Iterable[Any]) -> None:
        """Remember the hashes of entities served to the agent in this session (objects or dicts with
        id, sig_hash, body_hash): a record later anchored to one of them by id takes these hashes, so
        its staleness is judged against the code the agent actually saw."""
        self._ws.served.note(entities)

    def remember(self, entries: Mapping[str, Any] | Knowledge | Iterable[Mapping[str, Any] | Knowledge] | None = None,
                 /, *, scope: str = "shared", author: str | None = None, **fields: Any) -> list[WriteResult]:
        """Write one or several knowledge records. Give the fields as keywords (one record) or as a
        list of dicts: title, body, type (note|convention|fact|how-to|pitfall), category (dotted),
        key, confidence (0..1), tags, refs, anchors (entity ids, or dicts with entity and hashes),
        author, scope (shared|private|ephemeral). A key already used in the same scope and category
        updates that record: only the fields given change (its title and anchors stay unless given);
        a new keyed record without a title takes one from its key. A key that several records hold
        (after a git merge) is refused with their ids. Every entry is checked before any is written,
        so a bad entry writes nothing."""
        return self._writer.remember(entries, scope, author, fields)

    def decide(self, title: str, decision: str, *, context: str = "", consequences: str = "",
               status: str = "accepted", supersedes: Iterable[str] | str = (), tags: Iterable[str] = (),
               anchors: Iterable[AnchorInput] = (), author: str | None = None, scope: str = "shared") -> WriteResult:
        """Record a decision (ADR style). With `supersedes`, the decisions named there become
        superseded in the same locked write (once this one is enacted: accepted, superseded or
        deprecated); 'superseded_by' is derived from this record, never stored."""
        fields = dict(title=title, decision=decision, context=context, consequences=consequences, status=status,
                      supersedes=supersedes, tags=tags, author=author or self.author)
        return self._writer.decide(fields, anchors, scope)

    def revise(self, record_id: str, version: int, **changes: Any) -> WriteResult:
        """Change fields of a record, given the version you read. A stale version is refused with
        StaleVersion, which carries the current record: merge your change into it and retry.
        Knowledge fields: title, body, type, category, key, confidence, tags, refs, anchors, author.
        Decision fields: title, context, decision, consequences, status, supersedes, tags, anchors,
        author. Both: scope (moves the record), retracted (False restores a retracted record)."""
        return self._writer.revise(record_id, version, changes)

    def retract(self, record_id: str, version: int, reason: str = "", *, purge: bool = False) -> WriteResult:
        """Withdraw a record, given the version you read. It stays on file marked retracted (and out
        of searches unless include_retracted), so the retraction is reviewable; purge=True deletes the
        file instead (its git history keeps it)."""
        return self._writer.retract(record_id, version, reason, purge)

    def verify(self, record_id: str, *, version: int | None = None, entities: Iterable[str] | None = None,
               follow_moves: bool = True) -> WriteResult:
        """Re-stamp a record's anchors with the code's current hashes, after the agent has checked the
        record still holds (all anchors, or only `entities`). A moved anchor is re-pointed to where its
        code went (with follow_moves); an orphaned one is left for you to revise or drop."""
        return self._writer.verify(record_id, version, entities, follow_moves)

    # ---- reading

    def get(self, record_id: str) -> Record:
        """One record, whole, with its staleness and (for decisions) superseded_by."""
        return self._reader.get(record_id)

    def recall(self, query: str = "", *, kind: str | None = None, type: str | None = None,
               category: str | None = None, status: str | None = None, tags: Iterable[str] | str = (),
               entity: str | None = None, min_confidence: float | None = None, scope: str | None = None,
               include_retracted: bool = False, sort: str = "relevance", limit: int = 10,
               cursor: str | None = None) -> RecallPage:
        """Search records: full text (any word may match; best matches first) and filters, a page at a
        time; pass next_cursor back as cursor for the next page. sort='recent' browses newest first.
        category matches sub-categories too; entity matches an entity id, or a file or folder path of
        the anchored code; min_confidence filters knowledge (decisions have no confidence)."""
        made = dict(kind=kind, type_=type, category=category, status=status, tags=tags, entity=entity,
                    min_confidence=min_confidence, scope=scope, include_retracted=include_retracted)
        return self._reader.recall(query, made, sort, limit, cursor)

    def conflicts(self, record_ids: Iterable[str] | None = None) -> list[KeyConflict]:
        """Keys held by more than one live record of a scope and category (as after a git merge of two
        branches that each created the record): all of them, or those involving `record_ids`."""
        return self._reader.conflicts(record_ids)

    def outline(self, record_id: str) -> list[Heading]:
        """The headings of a record's Markdown (a decision's sections included), to read it by parts."""
        return self._reader.outline(record_id)

    def section(self, record_id: str, heading: str) -> Section:
        """One section of a record: by heading title, path ('Setup > Database') or '#<line>'."""
        return self._reader.section(record_id, heading)

    def tables(self, record_id: str, heading: str | None = None) -> list[Table]:
        """The Markdown tables of a record, or of one of its sections."""
        return self._reader.tables(record_id, heading)

    def history(self, record_id: str, *, patch: bool = True, limit: int | None = None) -> list[HistoryEntry]:
        """The history of a record (for a record file, `git log --follow` of it), newest first, with patches."""
        return self._reader.history(record_id, patch, limit)

    def records_for_entities(self, entity_ids: Iterable[str] = (), paths: Iterable[str] = (), *,
                             include_retracted: bool = False, include_inactive: bool = False) -> list[AnchoredRecord]:
        """Records anchored to any of `entity_ids`, or to code in the files or folders `paths`, each
        with its staleness; for the context engine. Accepted decisions and conventions come first.
        Rejected and superseded decisions are left out unless include_inactive."""
        return self._reader.records_for_entities(entity_ids, paths, include_retracted, include_inactive)

    def problems(self) -> list[Problem]:
        """Stored records that could not be loaded (broken front matter, duplicate ids), and why."""
        return self._reader.problems()

    # ---- review

    def check(self, base_rev: str | None = None) -> CheckReport:
        """Accepted decisions and conventions anchored to code that changed: anchors no longer fresh
        against the index, and (with `base_rev`, a git revision) entities whose code differs between base
        and the working tree."""
        return self._checker.check(base_rev)

    def overview(self, limit: int = 20) -> Overview:
        """For session_init: conventions and accepted decisions (newest first, capped at `limit` each)
        and the anchored records whose code changed under them."""
        return self._checker.overview(limit)

    def rebuild(self) -> None:
        """Throw the derived search data away and build it again from the stored records."""
        self._ws.repos.rebuild()


__all__ = ["RecordStore"]
