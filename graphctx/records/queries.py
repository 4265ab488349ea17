"""A recall's arguments made into a search: the filters checked and normalized (with a message naming
the allowed values), the order in which hits from several repositories merge, and the cursor that
carries a search to its next page (refused when it belongs to a different search)."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Iterable
from typing import Any

from graphctx.errors import quote
from graphctx.records.errors import InvalidRecord
from graphctx.records.models import KIND_MODELS
from graphctx.records.repository import Filters, Hit
from graphctx.records.vocabulary import SCOPES, SORTS, STATUSES, normalize_category, normalize_type, one_of

MAX_LIMIT = 100


def filters(kind: str | None, type_: str | None, category: str | None, status: str | None,
            tags: Iterable[str] | str, entity: str | None, min_confidence: Any, scope: str | None,
            include_retracted: bool) -> Filters:
    try:
        made = Filters(
            kind=one_of(kind, tuple(KIND_MODELS), "kind") if kind else None,
            type=normalize_type(type_) if type_ else None,
            category=normalize_category(category) if category else None,
            status=one_of(status, STATUSES, "status") if status else None,
            tags=[t.strip().lower() for t in ([tags] if isinstance(tags, str) else tags) if t.strip()],
            entity=entity.strip() if entity else None,
            min_confidence=None if min_confidence is None else float(min_confidence),
            scope=one_of(scope, SCOPES, "scope") if scope else None,
            include_retracted=include_retracted,
        )
    except ValueError as exc:
        raise InvalidRecord(str(exc)) from None
    if made.min_confidence is not None and not 0 <= made.min_confidence <= 1:
        raise InvalidRecord(f"min_confidence {min_confidence} is out of range: give a number from 0 to 1")
    problem = KIND_MODELS[made.kind].filter_problem(made.type, made.status) if made.kind else None
    if problem:
        raise InvalidRecord(problem)
    return made


def check_page(sort: str, limit: int) -> None:
    if sort not in SORTS:
        raise InvalidRecord(f"invalid sort {quote(sort)}: use relevance or recent")
    if not 1 <= int(limit) <= MAX_LIMIT:
        raise InvalidRecord(f"limit {limit} is out of range: give 1 to {MAX_LIMIT}")


def signature(query: str, made: Filters, sort: str) -> str:
    """What a cursor belongs to: the words, the filters and the order of one search."""
    data = json.dumps([query, sort, made.__dict__], sort_keys=True, default=str)
    return hashlib.blake2b(data.encode(), digest_size=6).hexdigest()


def cursor(offset: int, search: str) -> str:
    return base64.urlsafe_b64encode(json.dumps({"o": offset, "s": search}).encode()).decode().rstrip("=")


def read_cursor(text: str, search: str) -> int:
    try:
        data = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
        offset, made_for = int(data["o"]), data["s"]
    except (ValueError, KeyError, TypeError):
        raise InvalidRecord("invalid cursor: pass next_cursor exactly as a previous recall returned it") from None
    if made_for != search:
        raise InvalidRecord("this cursor belongs to a different search: repeat the same query and filters with it,"
                            " or drop the cursor to start again")
    return max(0, offset)


def hit_order(sort: str) -> Callable[[Hit], tuple]:
    """How hits from several repositories merge: best first (then newest), or newest first."""
    if sort == "relevance":
        return lambda h: (-(h.score or 0.0), -h.record.updated.timestamp(), _desc(h.record.id))
    return lambda h: (-h.record.updated.timestamp(), _desc(h.record.id))


def _desc(text: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in text)
