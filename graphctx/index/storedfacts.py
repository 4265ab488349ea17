"""A file's facts read back from the index for an incremental run, each list made on first use.

An edit resolves the edited file against its neighbours, and value flow reads a few of each
neighbour's lists (its definitions, imports, flows...) but rarely all fourteen: making every item of
every list, and sharing their equal strings, cost an edit more than its own parse. The JSON is
decoded once (cheap); the items of a list are made, with their strings shared, when the list is
first read. Such facts equal the eager ones (parse/facts.py) list for list."""

from __future__ import annotations

import json
import zlib

from graphctx.parse.facts import _LIST_TYPES, FACT_LISTS, FileFacts

_POSITION = {name: i for i, name in enumerate(FACT_LISTS)}


class StoredFacts(FileFacts):
    """FileFacts whose lists stay JSON rows until read (then they are plain lists, as in FileFacts)."""

    __slots__ = ("_rows", "_shared")

    def __getattr__(self, name: str):  # called only for a slot not set yet: a list not read yet
        position = _POSITION.get(name)
        if position is None:
            raise AttributeError(name)
        rows = self._rows[position]
        self._rows[position] = None
        items = _made(_LIST_TYPES[name], rows, self._shared)
        object.__setattr__(self, name, items)
        return items


def unpack_stored(data: bytes) -> StoredFacts:
    """Facts as `pack_facts` stored them (compressed JSON), their lists made on first use."""
    path, language, lines, errors, package, doc, *lists = json.loads(zlib.decompress(data))
    facts = StoredFacts.__new__(StoredFacts)
    for name, value in (("path", path), ("language", language), ("lines", lines), ("error_count", errors),
                        ("package", package), ("doc", doc), ("complete", True), ("rest", None), ("bound", None),
                        ("_rows", lists), ("_shared", {})):
        object.__setattr__(facts, name, value)
    lists += [[]] * (len(FACT_LISTS) - len(lists))  # (facts stored before a list existed have none)
    return facts


def _made(item_type: type, rows: list[list] | None, shared: dict[str, str]) -> list:
    """The items of one list, each string equal to one already met in these facts made that object."""
    if not rows:
        return []
    share = shared.setdefault
    return [item_type(*[share(v, v) if type(v) is str else _shared_list(v, share) if type(v) is list else v
                        for v in row]) for row in rows]


def _shared_list(values: list, share) -> list:
    return [share(v, v) if type(v) is str else v for v in values]
