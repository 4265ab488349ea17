"""Knowledge and decision records anchored to code entities: Markdown files with YAML front matter
under .graphctx/records/ are the truth, a derived SQLite index serves search, and staleness is
computed against the code index on read. RecordStore is the API; RecordRepository is the storage
seam; records/render.py renders records as text for every adapter."""

from graphctx.records.anchors import Anchor, AnchorStatus, Staleness
from graphctx.records.answers import (
    AnchoredRecord, CheckItem, CheckReport, EntityChange, Heading, HistoryEntry, KeyConflict, Overview, Problem,
    RecallPage, RecordHit, Section, Table, WriteResult,
)
from graphctx.records.api import RecordStore
from graphctx.records.errors import BrokenRecordFile, InvalidRecord, RecordError, RecordNotFound, StaleVersion
from graphctx.records.models import Decision, Knowledge, Record
from graphctx.records.repository import RecordRepository

__all__ = [
    "Anchor", "AnchoredRecord", "AnchorStatus", "BrokenRecordFile", "CheckItem", "CheckReport", "Decision",
    "EntityChange", "Heading", "HistoryEntry", "InvalidRecord", "KeyConflict", "Knowledge", "Overview", "Problem",
    "RecallPage", "Record", "RecordError", "RecordHit", "RecordNotFound", "RecordRepository", "RecordStore", "Section",
    "Staleness", "StaleVersion", "Table", "WriteResult",
]
