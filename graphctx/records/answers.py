"""The answers of the records layer's calls: write results, search pages and hits, key conflicts,
a long record's headings, sections and tables, a record file's history, the records anchored to
code, the check report and the onboarding overview."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from graphctx.records.anchors import Staleness
from graphctx.records.models import Record
from graphctx.records.vocabulary import Scope


class Problem(BaseModel):
    """A record file that could not be loaded, and why."""

    path: str
    message: str


class WriteResult(BaseModel):
    action: Literal["created", "updated", "unchanged", "retracted", "deleted"]
    record: Record
    changed: list[str] = Field(default_factory=list)  # other records this write changed (superseded ones)


class RecordHit(BaseModel):
    """One record in a search answer: enough to decide whether to fetch it whole."""

    id: str
    kind: str  # a key of KIND_MODELS
    title: str
    scope: Scope
    type: str | None = None
    category: str | None = None
    key: str | None = None
    status: str | None = None
    confidence: float | None = None
    tags: list[str] = Field(default_factory=list)
    anchors: list[str] = Field(default_factory=list)
    updated: datetime
    version: int
    retracted: bool = False
    score: float | None = None
    snippet: str = ""
    staleness: Staleness | None = None


class KeyConflict(BaseModel):
    """Several live knowledge records holding one key in one scope and category, as after a git merge
    of two branches that each created it: a keyed write refuses to pick one until someone resolves it."""

    scope: Scope
    category: str
    key: str
    ids: list[str]  # oldest first
    message: str  # names the records and how to resolve it


class RecallPage(BaseModel):
    hits: list[RecordHit]
    total: int
    next_cursor: str | None = None  # pass back as `cursor` for the next page; None on the last
    problems: list[Problem] = Field(default_factory=list)
    conflicts: list[KeyConflict] = Field(default_factory=list)  # keys of the hits held by several records


class Heading(BaseModel):
    level: int
    title: str
    line: int  # 1-based, in the record's Markdown
    path: str  # the titles from the top: "Setup > Database"


class Table(BaseModel):
    line: int
    header: list[str]
    rows: list[list[str]]


class Section(BaseModel):
    record_id: str
    heading: Heading
    text: str  # the heading line and everything under it, up to the next heading of its level or above
    tables: list[Table] = Field(default_factory=list)


class HistoryEntry(BaseModel):
    commit: str
    author: str
    date: str
    subject: str
    patch: str = ""


class AnchoredRecord(BaseModel):
    """A record found through its anchors, with the anchors that matched the request."""

    record: Record
    matched: list[str]


class EntityChange(BaseModel):
    entity: str
    change: Literal["body", "signature", "removed", "file-changed", "drifted", "contract-changed",
                    "moved", "orphaned"]
    detail: str


class CheckItem(BaseModel):
    record: RecordHit
    changes: list[EntityChange]


class CheckReport(BaseModel):
    """Accepted decisions and conventions whose anchored code changed."""

    base: str | None
    checked: int  # records examined
    items: list[CheckItem]
    problems: list[Problem] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    conflicts: list[KeyConflict] = Field(default_factory=list)  # every key held by several records


class Overview(BaseModel):
    """What session_init shows: conventions and accepted decisions (titles, capped), stale records."""

    conventions: list[RecordHit]
    decisions: list[RecordHit]
    stale: list[RecordHit]
    counts: dict[str, int]
    problems: list[Problem] = Field(default_factory=list)
