"""Agents working together on one repository: tasks with dependencies, exclusive claims with a lease
and a state machine; runs as append-only audit trails; agent profiles, the activity board and peers;
session state for the baton-pass. Beside records/ in the layers: it may use records and index facts,
the context engine reads peers from it, and adapters reach it only through Project."""

__all__ = ["WorkStore"]


def __getattr__(name: str):
    # The work store loads the coordination models (pydantic): only when something uses it, so that
    # a module of this package (traces) can be read without it.
    if name == "WorkStore":
        from graphctx.coord.store import WorkStore

        return WorkStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
