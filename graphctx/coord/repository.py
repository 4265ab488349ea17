"""The storage seam of coordination: WorkRepository, what the use cases need from wherever tasks,
claims, agent profiles and event streams are kept, in models only (no paths, no SQL). Tasks are
written with a version check (`put_task` names the version it replaces); claims are live state,
replaced whole; runs, sessions, the activity board and served context are append-only streams per
agent, never rewritten. `transaction` makes a read, a check and the writes after it one step for
every other writer, in every process (claims rely on it). Implementations: files (files.py) and
memory (memory.py); tests/test_work_repository.py is the contract every implementation passes."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Protocol

from graphctx.coord.models import AgentProfile, Claim, Event, Stream, Task


class WorkRepository(Protocol):
    def transaction(self) -> AbstractContextManager[None]:
        """Hold off every other writer of this repository (reentrant within a thread)."""
        ...

    def get_task(self, task_id: str) -> Task | None: ...

    def tasks(self) -> list[Task]:
        """Every task, in no particular order."""
        ...

    def put_task(self, task: Task, expected_version: int | None) -> Task:
        """Store `task` as given. expected_version None creates it (WorkConflict when the id exists);
        otherwise the stored task must be at that version (WorkConflict when it moved on)."""
        ...

    def get_claim(self, task_id: str) -> Claim | None:
        """The claim on a task, live or expired; None when there is none."""
        ...

    def claims(self) -> list[Claim]: ...

    def put_claim(self, claim: Claim) -> None: ...

    def drop_claim(self, task_id: str) -> None: ...

    def get_agent(self, name: str) -> AgentProfile | None: ...

    def agents(self) -> list[AgentProfile]: ...

    def put_agent(self, profile: AgentProfile) -> None: ...

    def append(self, stream: Stream, event: Event) -> None:
        """Add one event to the agent's stream; nothing already there changes."""
        ...

    def events(self, stream: Stream, agents: Sequence[str] | None = None, since: datetime | None = None) -> list[Event]:
        """The stream's events (of those agents, at or after `since`), oldest first."""
        ...

    def close(self) -> None: ...
