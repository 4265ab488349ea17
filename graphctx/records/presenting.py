"""Records as answers show them: with their staleness against the code now, a superseded record's
derived status and superseded_by, and as search hits (the fields a list needs, not the body)."""

from __future__ import annotations

from graphctx.index.codefacts import CodeFacts
from graphctx.records.answers import RecordHit, WriteResult
from graphctx.records.models import Record
from graphctx.records.scopes import ScopedRepositories
from graphctx.records.staleness import verdict


def present(record: Record, code: CodeFacts, repos: ScopedRepositories) -> Record:
    """The record with its staleness and, for a kind that can be superseded, what supersedes it."""
    if record.SUPERSEDABLE:
        record = record.with_superseders(repos.superseders(record.id))
    return record.model_copy(update={"staleness": verdict(record.anchors, code)})


def hit(record: Record, code: CodeFacts, repos: ScopedRepositories, score: float | None = None,
        snippet: str = "") -> RecordHit:
    record = present(record, code, repos)
    return RecordHit(
        id=record.id, kind=record.kind, title=record.title, scope=record.scope, **record.listed_fields(),
        tags=record.tags, anchors=[a.entity for a in record.anchors], updated=record.updated,
        version=record.version, retracted=record.retracted, score=score, snippet=snippet, staleness=record.staleness,
    )


def results(done: list[tuple[str, Record, list[str]]], code: CodeFacts, repos: ScopedRepositories) -> list[WriteResult]:
    """Write results from (action, record written, other records the write changed)."""
    return [WriteResult(action=action, record=present(record, code, repos), changed=changed)
            for action, record, changed in done]
