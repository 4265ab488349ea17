"""The errors of the records layer: each names the problem and the fix, so the CLI can print it and
the MCP server can return it as is. They extend the shared GraphctxError family, so an adapter that
handles GraphctxError handles these too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphctx.errors import GraphctxError, InvalidRequest, NotFound, StaleEdit

if TYPE_CHECKING:
    from graphctx.records.models import Record


class RecordError(GraphctxError):
    """A records request that cannot be carried out as asked."""


class RecordNotFound(RecordError, NotFound):
    """No record answers to the id given; suggestions hold close ids and titles."""


class InvalidRecord(RecordError, InvalidRequest):
    """A field is missing, out of range or not one of the allowed values."""


class BrokenRecordFile(RecordError):
    """A record file whose front matter cannot be read; every other record still loads."""

    def __init__(self, path: str, problem: str):
        super().__init__(
            f"{path}: {problem}; fix the front matter by hand (or restore the file with git) and retry"
        )
        self.path = path
        self.problem = problem


class StaleVersion(RecordError, StaleEdit):
    """The caller edited a version that is no longer the current one; `current` is the record as it
    is now, so the caller can merge its change into it and retry without losing anyone's update."""

    def __init__(self, record_id: str, given: int, current: Record):
        super().__init__(
            f"record {record_id} is at version {current.version}, not {given}: someone changed it since you"
            f" read it; re-apply your change to the current record (attached) and pass version={current.version}"
        )
        self.given = given
        self.current = current


def validation_message(exc: Exception) -> str:
    """A pydantic ValidationError as one line per field: "field 'status': invalid status 'done': use ..."."""
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return str(exc)
    lines = []
    for error in errors():
        where = ".".join(str(part) for part in error.get("loc", ()))
        message = str(error.get("msg", "invalid value"))
        message = message.removeprefix("Value error, ")
        if error.get("type") == "missing":
            message = "is required"
        lines.append(f"field '{where}': {message}" if where else message)
    return "; ".join(lines)
