"""The words of the records layer: knowledge types, decision statuses and scopes (taken from
graphctx.models, where every vocabulary is defined once), staleness states and sorts (the record
kinds are the keys of models.KIND_MODELS), and the normalizers that turn what a person or agent
typed into them (with a message naming the allowed values when they cannot)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Literal

from graphctx import inputs
from graphctx.errors import quote
from graphctx.models import DECISION_STATUSES, KNOWLEDGE_TYPES, SCOPES, DecisionStatus, KnowledgeType, Scope  # noqa: F401

AnchorState = Literal["fresh", "drifted", "contract-changed", "moved", "orphaned", "unknown"]
StalenessState = Literal["fresh", "drifted", "contract-changed", "moved", "orphaned", "unbound", "unknown"]
Sort = Literal["relevance", "recent"]

TYPES, STATUSES = KNOWLEDGE_TYPES, DECISION_STATUSES  # the record vocabulary is graphctx.models'
SORTS: tuple[str, ...] = ("relevance", "recent")
# Decisions in these states were in force at some point, so they retire what they supersede.
ENACTED: tuple[str, ...] = ("accepted", "superseded", "deprecated")
# Decisions in these states no longer govern code: anchored lookups leave them out unless asked.
INACTIVE: tuple[str, ...] = ("rejected", "superseded")
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
