"""The records themselves: knowledge and decision records. Fields a record stores in its file are
validated here with messages that name the allowed values; fields derived on read (scope, path,
staleness, superseded_by) are never written. What differs between kinds lives on the kind's class,
never in branches elsewhere: its fields, its file layout, how it reads in a list or an answer, its
status rules, what it supersedes. A new kind is a subclass registered in KIND_MODELS."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from graphctx import inputs
from graphctx.errors import quote

from graphctx.records import sections
from graphctx.records.anchors import Anchor, Staleness
from graphctx.records.vocabulary import (
    ENACTED, INACTIVE, STATUSES, DecisionStatus, KnowledgeType, Scope, clean_list, clean_text, normalize_category,
    normalize_type, now, one_of, refuse,
)

if TYPE_CHECKING:
    from graphctx.records.answers import RecordHit


class RecordBase(BaseModel):
    """What every record has, and the behaviour each kind defines (the defaults here are those of a
    kind without keys, statuses or superseding)."""

    model_config = ConfigDict(extra="ignore")

    FOLDER: ClassVar[str]  # the folder of its files inside a scope's records folder
    WRITABLE: ClassVar[tuple[str, ...]]  # the fields a caller may write
    BINDING: ClassVar[dict[str, str]]  # the filter of the records that bind code, which `check` reviews
    SUPERSEDABLE: ClassVar[bool] = False  # whether a decision may supersede records of this kind

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
    path: str | None = None  # where the record is stored, for people (a file relative to the repository)
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

    # ---- content and files

    def markdown(self) -> str:
        """The record's Markdown, as its file shows it below the front matter."""
        raise NotImplementedError

    def file_fields(self) -> list[str]:
        """The kind's own fields in the front matter, in order, between the title and the tags."""
        raise NotImplementedError

    @classmethod
    def from_file(cls, data: dict[str, Any], body: str) -> dict[str, Any]:
        """The fields of a record file: its front matter, completed from the Markdown below it."""
        raise NotImplementedError

    # ---- search and lists

    def listed_fields(self) -> dict[str, Any]:
        """The kind's fields that search hits show and search filters on (type, category, key, status,
        confidence: those it has)."""
        return {}

    def field_words(self) -> list[str]:
        """Field values worth finding the record by, besides its title, body, tags and anchors."""
        return []

    @classmethod
    def filter_problem(cls, type_: str | None, status: str | None) -> str | None:
        """Why a search for this kind cannot use these filters, or None when it can."""
        return None

    def weight(self) -> int:
        """Order among the records anchored to one entity: what binds the code most comes first."""
        return 3

    # ---- how it reads

    def label(self) -> str:
        """What it is, for its head line: 'convention infra.db key=pool', 'decision [accepted]'."""
        raise NotImplementedError

    @classmethod
    def hit_label(cls, hit: RecordHit) -> str:
        """What a search hit of this kind is, for its line in a list."""
        raise NotImplementedError

    def detail_lines(self) -> list[str]:
        """The kind's own fields worth a line when the record is read whole."""
        return []

    def answer_head(self, state: str) -> str:
        """The record's line in a context answer, with the state of its anchors."""
        raise NotImplementedError

    def answer_body(self) -> str:
        """The record's substance in a context answer."""
        return self.markdown()

    # ---- rules

    def key_slot(self) -> tuple[str, str, str] | None:
        """(scope, category, key) when the record holds a key: one live record per slot."""
        return None

    def replaces(self) -> list[str]:
        """The ids of the records this one supersedes."""
        return []

    @property
    def enacted(self) -> bool:
        """Whether it is in force (or was): only an enacted record retires what it supersedes."""
        return False

    @property
    def inactive(self) -> bool:
        """Whether it no longer governs its code (rejected, superseded)."""
        return False

    def with_superseders(self, superseders: Iterable[tuple[str, str, bool]]) -> RecordBase:
        """The record as read, given (id, stored status, retracted) of the records superseding it."""
        return self

    def retired(self) -> RecordBase | None:
        """The record marked superseded, or None when it already is (or cannot be)."""
        return None


KNOWLEDGE_FIELDS = ("title", "body", "type", "category", "key", "confidence", "tags", "refs", "anchors", "author")
DECISION_FIELDS = ("title", "context", "decision", "consequences", "status", "supersedes", "tags", "anchors", "author")


class Knowledge(RecordBase):
    """A note, convention, fact, how-to or pitfall, in a dotted category."""

    FOLDER: ClassVar[str] = "knowledge"
    WRITABLE: ClassVar[tuple[str, ...]] = KNOWLEDGE_FIELDS
    BINDING: ClassVar[dict[str, str]] = {"type": "convention"}

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

    def file_fields(self) -> list[str]:
        return ["type", "category", "key", "confidence", "refs"]

    @classmethod
    def from_file(cls, data: dict[str, Any], body: str) -> dict[str, Any]:
        data.setdefault("body", body)
        return data

    def listed_fields(self) -> dict[str, Any]:
        return {"type": self.type, "category": self.category, "key": self.key, "confidence": self.confidence}

    def field_words(self) -> list[str]:
        return [self.type, self.category, self.key or "", *self.refs]

    def weight(self) -> int:
        return {"convention": 1, "pitfall": 2}.get(self.type, 3)

    def label(self) -> str:
        return f"{self.type} {self.category}" + (f" key={self.key}" if self.key else "")

    @classmethod
    def hit_label(cls, hit: RecordHit) -> str:
        return f"{hit.type} {hit.category}"

    def detail_lines(self) -> list[str]:
        lines = []
        if self.confidence != 1.0:
            lines.append(f"confidence: {self.confidence:.2f}")
        if self.refs:
            lines.append(f"refs: {', '.join(self.refs)}")
        return lines

    def answer_head(self, state: str) -> str:
        return f"{self.type} {self.category} {self.title} (anchors {state}, confidence {self.confidence:.2f})"

    def key_slot(self) -> tuple[str, str, str] | None:
        return (self.scope, self.category, self.key) if self.key else None


class Decision(RecordBase):
    """An architecture decision record: context, decision, consequences and a status."""

    FOLDER: ClassVar[str] = "decisions"
    WRITABLE: ClassVar[tuple[str, ...]] = DECISION_FIELDS
    BINDING: ClassVar[dict[str, str]] = {"status": "accepted"}
    SUPERSEDABLE: ClassVar[bool] = True

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
        return sections.join(self.context, self.decision, self.consequences)

    def file_fields(self) -> list[str]:
        fields = ["status", "supersedes"]
        if sections.split(self.markdown()) != (self.context, self.decision, self.consequences):
            # The text holds a line that reads as one of the section headings, so the sections
            # would not split back apart: keep them in the front matter, where they round-trip.
            fields += list(sections.SECTIONS)
        return fields

    @classmethod
    def from_file(cls, data: dict[str, Any], body: str) -> dict[str, Any]:
        if not any(name in data for name in sections.SECTIONS):
            data["context"], data["decision"], data["consequences"] = sections.split(body)
        return data

    def listed_fields(self) -> dict[str, Any]:
        return {"status": self.status}

    def field_words(self) -> list[str]:
        return [self.status]

    @classmethod
    def filter_problem(cls, type_: str | None, status: str | None) -> str | None:
        return "decisions have no type: filter decisions by status, or knowledge by type" if type_ else None

    def weight(self) -> int:
        return 0 if self.status == "accepted" else 4

    def label(self) -> str:
        return f"decision [{self.status}]"

    @classmethod
    def hit_label(cls, hit: RecordHit) -> str:
        return f"decision [{hit.status}]"

    def detail_lines(self) -> list[str]:
        lines = []
        if self.supersedes:
            lines.append(f"supersedes: {', '.join(self.supersedes)}")
        if self.superseded_by:
            lines.append(f"superseded by: {', '.join(self.superseded_by)}")
        return lines

    def answer_head(self, state: str) -> str:
        return f"decision [{self.status}] {self.title} (anchors {state})"

    def answer_body(self) -> str:
        consequences = self.consequences and f"Consequences: {self.consequences}"
        return "\n".join(part for part in (self.decision, consequences) if part)

    def replaces(self) -> list[str]:
        return self.supersedes

    @property
    def enacted(self) -> bool:
        return self.status in ENACTED

    @property
    def inactive(self) -> bool:
        return self.status in INACTIVE

    def with_superseders(self, superseders: Iterable[tuple[str, str, bool]]) -> Decision:
        # A decision listed by an enacted one reads as superseded, whatever its own file says.
        live = [(record_id, status) for record_id, status, retracted in superseders if not retracted]
        update: dict[str, Any] = {"superseded_by": [record_id for record_id, _ in live]}
        if any(status in ENACTED for _, status in live):
            update["status"] = "superseded"
        return self.model_copy(update=update)

    def retired(self) -> Decision | None:
        return None if self.status == "superseded" else self.model_copy(update={"status": "superseded"})


Record = Annotated[Union[Knowledge, Decision], Field(discriminator="kind")]
# Every kind by its name: files, search rows and hits find a kind's behaviour here.
KIND_MODELS: dict[str, type[Knowledge] | type[Decision]] = {
    model.model_fields["kind"].default: model for model in (Knowledge, Decision)
}
