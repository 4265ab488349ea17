"""Keys of knowledge records: one live record per scope, category and key. A keyed write finds the
record it updates here, a new keyed record takes a title from its key, and a key held by several
live records (as after a git merge of two branches that each created it) is a conflict: reported
with the ids and the fix, never resolved by a silent pick."""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphctx.errors import quote
from graphctx.records.errors import InvalidRecord
from graphctx.records.answers import KeyConflict

_SEPARATORS = re.compile(r"[\s_./:-]+")
HOW_TO_RESOLVE = "retract one of them, or revise one to another key or category"


@dataclass(frozen=True)
class KeyHolder:
    """A record that holds a key, as the record index lists it."""

    id: str
    title: str
    retracted: bool


def title_from_key(key: str) -> str:
    """'pool-size' -> 'Pool size': a readable title for a record created by its key alone."""
    text = " ".join(_SEPARATORS.sub(" ", key).split()) or key.strip()
    return text[:1].upper() + text[1:]


def conflict(scope: str, category: str, key: str, ids: list[str]) -> KeyConflict:
    return KeyConflict(scope=scope, category=category, key=key, ids=ids,
                       message=f"records {_names(ids)} {'both' if len(ids) == 2 else 'all'} have key {quote(key)} in"
                               f" category {quote(category)} ({scope}), as after merging two branches that each"
                               f" created it; {HOW_TO_RESOLVE}")


def record_to_update(holders: list[KeyHolder], scope: str, category: str, key: str) -> str | None:
    """The id of the record a keyed write updates: the one live holder, else the one retracted holder
    (the write restores it), else None (the write creates one). Several candidates are refused."""
    live = [h for h in holders if not h.retracted]
    if len(live) > 1:
        raise InvalidRecord(f"key {quote(key)} in category {quote(category)} ({scope}) is held by {len(live)} records,"
                            f" {_names([h.id for h in live])}, as after merging two branches that each created it;"
                            f" a keyed write will not pick one: {HOW_TO_RESOLVE}, then write again", _listed(live))
    if live:
        return live[0].id
    if len(holders) > 1:
        raise InvalidRecord(f"key {quote(key)} in category {quote(category)} ({scope}) is held only by the retracted records"
                            f" {_names([h.id for h in holders])}; restore the one you mean (revise it with"
                            " retracted=false) and write again, or give a new key", _listed(holders))
    return holders[0].id if holders else None


def _listed(holders: list[KeyHolder]) -> list[str]:
    return [f"{h.id}  {h.title}" for h in holders]


def _names(ids: list[str]) -> str:
    return ids[0] if len(ids) == 1 else f"{', '.join(ids[:-1])} and {ids[-1]}"
