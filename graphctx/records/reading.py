"""The read use cases: one record by id (whole, or its outline, a section or its tables), its history,
search a page at a time, the records anchored to code (for context answers), key conflicts and the
records that cannot be read. Every record read carries its staleness."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from graphctx.records import ids, markdown, queries
from graphctx.records.answers import (
    AnchoredRecord, Heading, HistoryEntry, KeyConflict, Problem, RecallPage, RecordHit, Section, Table,
)
from graphctx.records.models import Record
from graphctx.records.presenting import hit, present
from graphctx.records.workspace import Workspace


class Reader:
    def __init__(self, ws: Workspace):
        self.ws = ws

    def find(self, record_id: str) -> Record:
        """The record as stored (not yet presented); RecordNotFound with suggestions when there is none."""
        return self.ws.holder(record_id)[1]

    def get(self, record_id: str) -> Record:
        record = self.find(record_id)
        with self.ws.code() as code:
            return present(record, code, self.ws.repos)

    def recall(self, query: str, made: dict[str, Any], sort: str, limit: int, cursor: str | None) -> RecallPage:
        filters = queries.filters(**made)
        queries.check_page(sort, limit)
        query = (query or "").strip()
        search = queries.signature(query, filters, sort)
        offset = queries.read_cursor(cursor, search) if cursor else 0
        repos = self.ws.repos
        repos.refresh()
        found = repos.search(filters, query, sort, offset + limit + 1)
        found.sort(key=queries.hit_order(sort if query else "recent"))
        total = repos.count(filters, query)
        with self.ws.code() as code:
            hits = [hit(h.record, code, repos, h.score, h.snippet) for h in found[offset:offset + limit]]
        more = len(found) > offset + limit
        return RecallPage(hits=hits, total=total, next_cursor=queries.cursor(offset + limit, search) if more else None,
                          problems=repos.problems(), conflicts=_involving(repos.key_conflicts(), hits))

    def conflicts(self, record_ids: Iterable[str] | None) -> list[KeyConflict]:
        self.ws.repos.refresh()
        found = self.ws.repos.key_conflicts()
        if record_ids is None:
            return found
        record_ids = list(record_ids)
        wanted = {ids.normalize(i) for i in record_ids} | {i.strip() for i in record_ids}
        return [c for c in found if wanted & set(c.ids)]

    def outline(self, record_id: str) -> list[Heading]:
        return markdown.outline(self.find(record_id).markdown())

    def section(self, record_id: str, heading: str) -> Section:
        record = self.find(record_id)
        text = record.markdown()
        found = markdown.find_heading(text, heading, record.id)
        body = markdown.section(text, found)
        return Section(record_id=record.id, heading=found, text=body, tables=markdown.tables(body, found.line))

    def tables(self, record_id: str, heading: str | None) -> list[Table]:
        if heading:
            return self.section(record_id, heading).tables
        return markdown.tables(self.find(record_id).markdown())

    def history(self, record_id: str, patch: bool, limit: int | None) -> list[HistoryEntry]:
        repository, record = self.ws.holder(record_id)
        return repository.history(record.id, patch=patch, limit=limit)

    def records_for_entities(self, entity_ids: Iterable[str], paths: Iterable[str], include_retracted: bool,
                             include_inactive: bool) -> list[AnchoredRecord]:
        repos = self.ws.repos
        repos.refresh()
        found = repos.anchored(list(dict.fromkeys(entity_ids)), list(dict.fromkeys(paths)))
        out = []
        with self.ws.code() as code:
            for record, matched in found:
                record = present(record, code, repos)
                if record.retracted and not include_retracted:
                    continue
                if record.inactive and not include_inactive:
                    continue
                out.append(AnchoredRecord(record=record, matched=matched))
        out.sort(key=lambda item: (item.record.weight(), -item.record.updated.timestamp(), item.record.id))
        return out

    def problems(self) -> list[Problem]:
        self.ws.repos.refresh()
        return self.ws.repos.problems()


def _involving(conflicts: list[KeyConflict], hits: list[RecordHit]) -> list[KeyConflict]:
    shown = {h.id for h in hits}
    return [c for c in conflicts if shown & set(c.ids)]
