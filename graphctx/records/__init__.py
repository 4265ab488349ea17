"""Knowledge and decision records anchored to code entities: Markdown files with YAML front matter
under .graphctx/records/ are the truth, a derived SQLite index serves search, and staleness is
computed against the code index on read. RecordStore is the API."""

from graphctx.records.api import RecordStore
from graphctx.records.errors import BrokenRecordFile, InvalidRecord, RecordError, RecordNotFound, StaleVersion
from graphctx.records.models import (
    Anchor, AnchoredRecord, AnchorStatus, CheckItem, CheckReport, Decision, EntityChange, Heading, HistoryEntry,
    KeyConflict, Knowledge, Overview, Problem, RecallPage, Record, RecordHit, Section, Staleness, Table, WriteResult,
)

__all__ = [
    "Anchor", "AnchoredRecord", "AnchorStatus", "BrokenRecordFile", "CheckItem", "CheckReport", "Decision",
    "EntityChange", "Heading", "HistoryEntry", "InvalidRecord", "KeyConflict", "Knowledge", "Overview", "Problem",
    "RecallPage", "Record", "RecordError", "RecordHit", "RecordNotFound", "RecordStore", "Section", "Staleness",
    "StaleVersion", "Table", "WriteResult",
]
