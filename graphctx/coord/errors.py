"""The errors of coordination: each is a GraphctxError whose one sentence names the problem and the
fix, so the CLI prints it (exit status 2) and the MCP server returns it as an error result."""

from __future__ import annotations

from graphctx.errors import GraphctxError, InvalidRequest, NotFound


class WorkError(GraphctxError):
    """A coordination request that cannot be done as asked."""


class WorkConflict(WorkError):
    """Someone else got there first: a task held by another agent's claim, or changed since it was read."""


__all__ = ["WorkError", "WorkConflict", "InvalidRequest", "NotFound"]
