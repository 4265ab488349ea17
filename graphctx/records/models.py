"""The vocabulary of the records layer: knowledge and decision records, their anchors to code
entities, staleness verdicts, and the answers of every RecordStore call. Fields a record stores in
its file are validated here with messages that name the allowed values; fields derived on read
(scope, path, staleness, superseded_by) are marked so the file writer leaves them out."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from graphctx import inputs
from graphctx.errors import quote

RecordKind = Literal["knowledge", "decision"]
KnowledgeType = Literal["note", "convention", "fact", "how-to", "pitfall"]
DecisionStatus = Literal["proposed", "accepted", "rejected", "superseded", "deprecated"]
Scope = Literal["shared", "private", "ephemeral"]
AnchorState = Literal["fresh", "drifted", "contract-changed", "moved", "orphaned", "unknown"]
StalenessState = Literal["fresh", "drifted", "contract-changed", "moved", "orphaned", "unbound", "unknown"]
Sort = Literal["relevance", "recent"]

KINDS: tuple[str, ...] = ("knowledge", "decision")
TYPES: tuple[str, ...] = ("note", "convention", "fact", "how-to", "pitfall")
STATUSES: tuple[str, ...] = ("proposed", "accepted", "rejected", "superseded", "deprecated")
SCOPES: tuple[str, ...] = ("shared", "private", "ephemeral")
# Decisions in these states were in force at some point, so they retire what they supersede.
ENACTED: tuple[str, ...] = ("accepted", "superseded", "deprecated")
# Fields computed on read; never written to a record file.
DERIVED_FIELDS = frozenset({"scope", "path", "staleness", "superseded_by"})

_CATEGORY = re.compile(r"^[a-z0-9][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*)*$")
_TYPE_ALIASES = {"howto": "how-to", "how_to": "how-to", "how to": "how-to"}


def now() -> datetime:
    # Milliseconds are enough to order writes and keep the files readable.
    stamp = datetime.now(UTC)
    return stamp.replace(microsecond=stamp.microsecond // 1000 * 1000)


def one_of(value: object, allowed: tuple[str, ...], what: str) -> str:
    text = str(value).strip().lower() if value is not None else ""
    if text not in allowed:
        raise ValueError(f"invalid {what} {quote(value)}: use one of {', '.join(allowed)}")
    return text


def normalize_type(value: object) -> str:
    text = " ".join(str(value or "note").split()).lower()
    return one_of(_TYPE_ALIASES.get(text, text), TYPES, "type")


def normalize_category(value: object) -> str:
    text = refuse(str(value or "general").strip().lower(), "category", "label")
    if not _CATEGORY.match(text):
        raise ValueError(f"invalid category {quote(value)}: use dotted lowercase words, e.g. 'infra.database'")
    return text


def refuse(value: str, label: str, kind: inputs.Kind, limit: int | None = None) -> str:
    """`value` unchanged, or a ValueError (which pydantic reports by field) saying what is wrong with it."""
    refused = inputs.problem(value, label, kind, limit)
    if refused:
        raise ValueError(refused)
    return value


def clean_text(value: object) -> str:
    """Text as stored: surrounding blank lines and trailing spaces dropped, so a file round-trips."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"expected text, got {type(value).__name__}")
    return value.replace("\r\n", "\n").strip("\n").rstrip()


def clean_list(value: object, *, lower: bool = False) -> list[str]:
    """A list of non-empty unique strings, in the order given; a single string counts as one item."""
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    out: dict[str, None] = {}  # ordered, and a long list costs no quadratic time
    for item in value:  # type: ignore[union-attr]
        text = str(item).strip()
        text = text.lower() if lower else text
        if text:
            out[text] = None
    return list(out)


class Anchor(BaseModel):
    """The code a record is about, as it was when the record was written or last verified."""

    model_config = ConfigDict(extra="ignore")

    entity: str  # entity id: path::Qualified.name, or a file path for a whole file
    sig_hash: str = ""
    body_hash: str = ""
    generation: int | None = None  # the code index generation the hashes came from
    commit: str | None = None  # git HEAD at that time, when the repository is in git

    @field_validator("entity")
    @classmethod
    def _entity(cls, value: str) -> str:
        value = refuse(value.strip(), "anchor", "name")
        if not value:
            raise ValueError("an anchor needs an entity id (path::Qualified.name or a file path)")
        return value


class AnchorStatus(BaseModel):
    """How one anchor compares with the code index now."""

    entity: str
    state: AnchorState
    message: str
    candidates: list[str] = Field(default_factory=list)  # for moved: where the same code is now


class Staleness(BaseModel):
    """The verdict on a record's anchors, computed on read; it never hides a record. The record's
    state is its worst anchor's: orphaned > contract-changed > drifted > moved > fresh."""

    state: StalenessState
    message: str
    anchors: list[AnchorStatus] = Field(default_factory=list)
    generation: int | None = None  # the code index generation it was computed against


class RecordBase(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str
    title: str
    tags: list[str] = Field(default_factory=list)
    anchors: list[Anchor] = Field(default_factory=list)
    author: str = ""
    created: datetime = Field(default_factory=now)
    updated: datetime = Field(default_factory=now)
    version: int = 1
    retracted_at: datetime | None = None
    retracted_reason: str = ""
    # Derived on read:
    scope: Scope = "shared"
    path: str | None = None  # the record file, relative to the repository root
    staleness: Staleness | None = None

    @field_validator("title", mode="before")
    @classmethod
    def _title(cls, value: object) -> str:
        text = refuse(" ".join(str(value or "").split()), "title", "text", inputs.MAX_TITLE)
        if not text:
            raise ValueError("a record needs a non-empty title")
        return text

    @field_validator("tags", mode="before")
    @classmethod
    def _tags(cls, value: object) -> list[str]:
        return [refuse(tag, "tag", "label") for tag in clean_list(value, lower=True)]

    @field_validator("author", "retracted_reason", mode="before")
    @classmethod
    def _line(cls, value: object, info: ValidationInfo) -> str:
        return refuse(" ".join(str(value or "").split()), str(info.field_name), "text")

    @field_validator("created", "updated", "retracted_at")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        # A hand-written time without a zone is read as UTC, so every time compares with every other.
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value

    @field_validator("version")
    @classmethod
    def _version(cls, value: int) -> int:
        if value < 1:
            raise ValueError(f"version {value} is invalid: versions start at 1")
        return value

    @property
    def retracted(self) -> bool:
        return self.retracted_at is not None


class Knowledge(RecordBase):
    """A note, convention, fact, how-to or pitfall, in a dotted category."""

    kind: Literal["knowledge"] = "knowledge"
    type: KnowledgeType = "note"
    category: str = "general"
    key: str | None = None  # unique within (scope, category): writing the same key updates the record
    confidence: float = 1.0
    refs: list[str] = Field(default_factory=list)
    body: str = ""

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, value: object) -> str:
        return normalize_type(value)

    @field_validator("category", mode="before")
    @classmethod
    def _category(cls, value: object) -> str:
        return normalize_category(value)

    @field_validator("key", mode="before")
    @classmethod
    def _key(cls, value: object) -> str | None:
        text = refuse(str(value).strip(), "key", "label") if value is not None else ""
        return text or None

    @field_validator("confidence", mode="before")
    @classmethod
    def _confidence(cls, value: object) -> float:
        try:
            number = float(value if value is not None else 1.0)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise ValueError(f"confidence {quote(value)} is not a number: give a number from 0 to 1") from None
        if not 0.0 <= number <= 1.0:
            raise ValueError(f"confidence {quote(value)} is out of range: give a number from 0 to 1")
        return number

    @field_validator("refs", mode="before")
    @classmethod
    def _refs(cls, value: object) -> list[str]:
        return clean_list(value)

    @field_validator("body", mode="before")
    @classmethod
    def _body(cls, value: object) -> str:
        return refuse(clean_text(value), "body", "text")

    def markdown(self) -> str:
        return self.body


class Decision(RecordBase):
    """An architecture decision record: context, decision, consequences and a status."""

    kind: Literal["decision"] = "decision"
    status: DecisionStatus = "accepted"
    context: str = ""
    decision: str
    consequences: str = ""
    supersedes: list[str] = Field(default_factory=list)
    # Derived on read from the decisions that list this one in `supersedes`:
    superseded_by: list[str] = Field(default_factory=list)

    @field_validator("status", mode="before")
    @classmethod
    def _status(cls, value: object) -> str:
        return one_of(value, STATUSES, "status")

    @field_validator("context", "consequences", mode="before")
    @classmethod
    def _text(cls, value: object, info: ValidationInfo) -> str:
        return refuse(clean_text(value), str(info.field_name), "text")

    @field_validator("decision", mode="before")
    @classmethod
    def _decision(cls, value: object) -> str:
        text = refuse(clean_text(value), "decision", "text")
        if not text:
            raise ValueError("a decision needs the decision text (what was decided)")
        return text

    @field_validator("supersedes", mode="before")
    @classmethod
    def _supersedes(cls, value: object) -> list[str]:
        return [item.upper() for item in clean_list(value)]

    def markdown(self) -> str:
        """The record as one Markdown document, the way its file shows it."""
        parts = []
        for heading, text in (("Context", self.context), ("Decision", self.decision),
                              ("Consequences", self.consequences)):
            parts.append(f"## {heading}\n\n{text}".rstrip())
        return "\n\n".join(parts)


Record = Annotated[Union[Knowledge, Decision], Field(discriminator="kind")]


# ---- answers


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
    kind: RecordKind
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
