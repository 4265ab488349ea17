"""The errors a caller can fix, shared by every layer: each names the problem and the fix, and
carries suggestions (did-you-mean names, candidate ids) that the CLI prints and the MCP server
returns as an error result."""

from __future__ import annotations


class GraphctxError(Exception):
    """A request graphctx cannot answer as asked; the message says how to fix it."""

    def __init__(self, message: str, suggestions: list[str] | None = None):
        super().__init__(message)
        self.message = message
        self.suggestions = suggestions or []

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


class NoIndex(GraphctxError):
    """The repository has not been indexed yet."""
