"""Checks on the strings a caller sends (tool arguments, resource names, record fields), shared by
every way in: a name (an entity, a path, a revision, a record id) is one line of printable text, a
label (a record category, key or tag) a short one, and free text (a task, a query, a record body)
anything but a NUL byte; each within a length limit. A refused value gets one sentence naming the
problem, the limit and the fix, and is never quoted back in full."""

from __future__ import annotations

import re
from typing import Literal

from graphctx.errors import InvalidRequest

Kind = Literal["name", "label", "text"]

MAX_NAME = 4096  # an entity id or a path (PATH_MAX on Linux)
MAX_LABEL = 200  # a record category, key or tag
MAX_TEXT = 1_000_000  # free text: an issue, a stack trace, a record body
MAX_TITLE = 1000  # a record's title
MAX_QUERY = 10_000  # search words
LIMITS: dict[str, int] = {"name": MAX_NAME, "label": MAX_LABEL, "text": MAX_TEXT}

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # C0, DEL and C1: never part of a name
_NUL_FIX = {"name": "remove it: no name or path holds one", "label": "remove it", "text": "send the text without it"}
_CONTROL_FIX = {"name": "pass it as one line of printable text",
                "label": "use a short word or dotted name, such as 'infra.database'"}


def problem(value: str, label: str, kind: Kind = "name", limit: int | None = None) -> str | None:
    """What is wrong with `value` as the `label` argument of this kind, as one sentence; None if nothing."""
    limit = limit or LIMITS[kind]
    if len(value) > limit:
        return (f"{label} is {len(value):,} characters long; the limit is {limit:,}: "
                + ("send the part that matters" if kind == "text" else "pass a shorter one"))
    nul = value.find("\x00")
    if nul >= 0:
        return f"{label} contains a NUL byte (\\x00) at character {nul + 1}; {_NUL_FIX[kind]}"
    if kind != "text":  # surrounding whitespace (a pasted newline) is trimmed where names are read
        start = len(value) - len(value.lstrip())
        control = _CONTROL.search(value.strip())
        if control:
            return (f"{label} contains a control character ({control.group()!r}) at character "
                    f"{start + control.start() + 1}; {_CONTROL_FIX[kind]}")
    return None


def check(value: str, label: str, kind: Kind = "name", limit: int | None = None) -> str:
    """`value` unchanged, or InvalidRequest saying what is wrong with it."""
    refused = problem(value, label, kind, limit)
    if refused:
        raise InvalidRequest(refused)
    return value
