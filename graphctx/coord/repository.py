"""The storage seam of coordination: WorkRepository, what the use cases need from wherever tasks,
claims, agent profiles and event streams are kept, in models only (no paths, no SQL). Tasks are
written with a version check (`put_task` names the version it replaces); claims are live state,
replaced whole; skills, skill proposals and the learned ranking weights are written with the same
version check; runs, sessions, the activity board, skill usage and ratings, review decisions, served
context and feedback are append-only streams per agent, never rewritten. `transaction` makes a read, a check and the writes after it one step for
every other writer, in every process (claims rely on it). Implementations: files (files.py) and
memory (memory.py); tests/test_work_repository.py is the contract every implementation passes."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Protocol

from graphctx.coord.models import AgentProfile, Claim, Event, LearnedWeights, Skill, SkillProposal, Stream, Task


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

    def get_skill(self, name: str) -> Skill | None: ...

    def skills(self) -> list[Skill]:
        """Every skill, in no particular order."""
        ...

    def put_skill(self, skill: Skill, expected_version: int | None) -> Skill:
        """Store `skill` as given, checked like put_task (None creates it; WorkConflict when the name is
        taken or the stored skill is not at expected_version)."""
        ...

    def drop_skill(self, name: str, expected_version: int) -> None:
        """Remove a skill, refused like put_skill when it is gone or not at expected_version; its
        proposals stay (they are its history)."""
        ...

    def get_proposal(self, proposal_id: str) -> SkillProposal | None: ...

    def proposals(self, skill: str | None = None) -> list[SkillProposal]:
        """Every proposal (of that skill), in no particular order."""
        ...

    def put_proposal(self, proposal: SkillProposal, expected_version: int | None) -> SkillProposal:
        """Store a proposal, checked like put_task."""
        ...

    def get_weights(self) -> LearnedWeights | None:
        """The ranking weights feedback taught this repository; None before any feedback."""
        ...

    def put_weights(self, weights: LearnedWeights, expected_version: int | None) -> LearnedWeights:
        """Store the learned weights, checked like put_task (None: there are none yet)."""
        ...

    def drop_weights(self) -> None:
        """Forget the learned weights (no error when there are none)."""
        ...

    def append(self, stream: Stream, event: Event) -> None:
        """Add one event to the agent's stream; nothing already there changes."""
        ...

    def events(self, stream: Stream, agents: Sequence[str] | None = None, since: datetime | None = None) -> list[Event]:
        """The stream's events (of those agents, at or after `since`), oldest first."""
        ...

    def close(self) -> None: ...
