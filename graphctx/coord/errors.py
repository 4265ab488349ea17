"""The errors of coordination: each is a GraphctxError whose one sentence names the problem and the
fix, so the CLI prints it (exit status 2) and the MCP server returns it as an error result."""

from __future__ import annotations

from graphctx.errors import GraphctxError, InvalidRequest, NotFound


class WorkError(GraphctxError):
    """A coordination request that cannot be done as asked."""


class WorkConflict(WorkError):
    """Someone else got there first: a task held by another agent's claim, or changed since it was read."""


def check_task_version(task_id: str, stored_version: int | None, expected_version: int | None) -> None:
    """Refuse a task write whose expectation does not hold: a create (`expected_version` None) of an id
    that exists, or an update of a task that is gone or moved on. Every repository writes through it."""
    check_version(f"a task with id {task_id}", stored_version, expected_version, again="create it again for a new id")


def check_version(label: str, stored_version: int | None, expected_version: int | None, *,
                  again: str = "choose another name") -> None:
    """The same check for any versioned item (`label`: "skill deploy", "the learned weights"); `again`
    says how to retry a create whose name is taken."""
    if expected_version is None and stored_version is not None:
        raise WorkConflict(f"{label} exists already; {again}")
    if expected_version is not None and stored_version != expected_version:
        now = "is gone" if stored_version is None else f"is at version {stored_version}"
        raise WorkConflict(f"{label.removeprefix('a ').replace(' with id ', ' ')} changed meanwhile "
                           f"(it {now}, not {expected_version}); read it again and retry")


__all__ = ["WorkError", "WorkConflict", "InvalidRequest", "NotFound"]
