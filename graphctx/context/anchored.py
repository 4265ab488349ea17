"""Brings knowledge and decision records into answers: the records anchored to the entities an
answer ranks (or to their files) join its candidates just below the entity they govern, each
shown with its staleness verdict, and are packed within the same token budget. The RecordStore is
the caller's (a Project's), so its ephemeral records and served hashes last as long as the caller."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from graphctx.context.packer import Candidate
from graphctx.context.policy import PackPolicy
from graphctx.layout import entity_path, record_dirs

if TYPE_CHECKING:  # a store is passed in: this module needs no record code of its own
    from graphctx.records import AnchoredRecord, RecordStore


def may_have_records(root: Path) -> bool:
    """Cheap test before opening a record store: are there record folders on disk?"""
    return any(folder.is_dir() for folder in record_dirs(root))


def with_records(store: RecordStore | None, candidates: list[Candidate],
                 policy: PackPolicy) -> tuple[list[Candidate], dict[str, AnchoredRecord]]:
    """The candidates with the records of `store` anchored to the best of them (`policy.max_anchor_lookups`)
    inserted, each scored `policy.record_share` of its best entity's score, and those records by id."""
    if not candidates or store is None:
        return candidates, {}
    ranked = candidates[:policy.max_anchor_lookups]
    score = {c.id: c.score for c in ranked}
    paths = {entity_path(c.id) for c in ranked}
    found = store.records_for_entities([c.id for c in ranked], sorted(paths))
    if not found:
        return candidates, {}
    records = {item.record.id: item for item in found}
    added = []
    for item in found:
        best = max((score.get(e, score.get(entity_path(e), 0.0)) for e in item.matched), default=0.0)
        added.append(Candidate(item.record.id, best * policy.record_share, "record", 0, max_detail="full"))
    root_first = candidates[:1]
    rest = sorted(candidates[1:] + added, key=lambda c: -c.score)
    return root_first + rest, records
