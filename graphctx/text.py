"""Text helpers every layer shares: identifiers and prose split into lowercase words, the stop
words left out of full-text queries, and clipping long text for one-line display. Pure functions
with no graphctx imports, so any layer may use them."""

from __future__ import annotations

import re

# Words too common to tell one entity from another: full-text queries and the BM25 baselines drop them.
STOP_WORDS = frozenset(
    "a an and are as at be been but by can could did do does for from had has have how i if in into is it its "
    "me my no not of on or our should so than that the their them then there these they this to was we were what "
    "when where which while who why will with would you your".split()
)
ELLIPSIS = "…"

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_SEPARATORS = re.compile(r"[^A-Za-z0-9]+")


def words(*names: str) -> str:
    """Identifiers and paths split into lowercase words (snake_case, CamelCase, dotted, slashed): each
    part whole, then its CamelCase pieces, so `GraphCache` gives `graphcache graph cache`."""
    out: list[str] = []
    for name in names:
        for part in _SEPARATORS.split(name):
            if part:
                out.append(part.lower())
                pieces = camel_pieces(part)
                if len(pieces) > 1:
                    out.extend(p.lower() for p in pieces)
    return " ".join(out)


def camel_pieces(name: str) -> list[str]:
    """The pieces of a CamelCase (or snake_case) name as written: `HTTPServer` gives `HTTP`, `Server`."""
    return _WORD.findall(name)


def clip(text: str, limit: int, *, one_line: bool = True) -> str:
    """At most `limit` characters, a cut marked by an ellipsis. One line by default (runs of
    whitespace, newlines included, become one space); `one_line=False` keeps the lines, for text
    shown preformatted."""
    if one_line:
        flat = " ".join(text.split())
        return flat if len(flat) <= limit else flat[: limit - 1] + ELLIPSIS
    return text if len(text) <= limit else text[: limit - 1].rstrip() + ELLIPSIS


def clip_words(text: str, limit: int) -> str:
    """At most about `limit` characters, cut at the last whole word and marked ` …`: for prose."""
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + " " + ELLIPSIS
