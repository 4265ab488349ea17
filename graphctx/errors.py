"""The errors a caller can fix, shared by every layer: each names the problem and the fix, and
carries suggestions (did-you-mean names, candidate ids) that the CLI prints and the MCP server
returns as an error result. A message quotes what the caller sent only up to a short prefix
(`quote`), and is bounded as a whole, so a huge input never comes back as a huge error."""

from __future__ import annotations

MAX_QUOTED = 80  # characters of a caller's value that an error message quotes back
MAX_MESSAGE = 2000  # characters of a whole message; a longer one loses its middle
MAX_SUGGESTION = 300
MAX_SUGGESTIONS = 20


def quote(value: object, limit: int = MAX_QUOTED) -> str:
    """A value as an error message quotes it: like repr, cut to its first `limit` characters with
    its length named (`'aaaa…' (50,000 characters)`)."""
    if not isinstance(value, str):
        text = repr(value)
        return text if len(text) <= limit else text[:limit] + "…"
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit] + '…'!r} ({len(value):,} characters)"


def bounded(text: str, limit: int = MAX_MESSAGE) -> str:
    """Text cut to `limit` characters by dropping its middle: a message's problem opens it and its
    fix closes it, so both ends stay."""
    if len(text) <= limit:
        return text
    tail = limit // 4
    return f"{text[: limit - tail - 3]} … {text[-tail:]}"


class GraphctxError(Exception):
    """A request graphctx cannot answer as asked; the message says how to fix it."""

    def __init__(self, message: str, suggestions: list[str] | None = None):
        message = bounded(message)
        super().__init__(message)
        self.message = message
        self.suggestions = [bounded(s, MAX_SUGGESTION) for s in (suggestions or [])[:MAX_SUGGESTIONS]]

    def __str__(self) -> str:
        if not self.suggestions:
            return self.message
        return f"{self.message}\n" + "\n".join(f"  - {s}" for s in self.suggestions)


class NotFound(GraphctxError):
    """No entity, file or record answers to the name given."""


class Ambiguous(GraphctxError):
    """Several entities answer to the name given; the suggestions list them."""


class InvalidRequest(GraphctxError):
    """A parameter is out of range or malformed."""


class StaleEdit(GraphctxError):
    """An edit of a version that is no longer the current one; `current` is what is current now, for
    the caller to re-apply its change to."""

    current: object = None


class IndexMoved(GraphctxError):
    """The index moved to a new generation while a graph loaded from an older one was still being
    read (its entity rows are read on demand); the answering code asks again on the new one."""


class NoIndex(GraphctxError):
    """The repository has not been indexed yet."""


class DeadlineExceeded(GraphctxError):
    """A request ran past the time it was given and was stopped (see graphctx.deadline)."""
