"""Agents working together on one repository: tasks with dependencies, exclusive claims with a lease
and a state machine; runs as append-only audit trails; agent profiles, the activity board and peers;
session state for the baton-pass. Beside records/ in the layers: it may use records and index facts,
the context engine reads peers from it, and adapters reach it only through Project."""

from graphctx.coord.store import WorkStore

__all__ = ["WorkStore"]
