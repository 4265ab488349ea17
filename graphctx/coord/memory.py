"""WorkRepository in memory: the same behaviour as the files, for tests and for a process that keeps
nothing (and the model the team server's storage is checked against)."""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime

from graphctx.coord.errors import check_task_version, check_version
from graphctx.coord.models import AgentProfile, Claim, Event, LearnedWeights, Skill, SkillProposal, Stream, Task


class MemoryWorkRepository:
    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._tasks: dict[str, str] = {}  # kept as JSON, so a caller never changes what is stored
        self._claims: dict[str, str] = {}
        self._agents: dict[str, str] = {}
        self._streams: dict[str, list[str]] = defaultdict(list)
        self._skills: dict[str, str] = {}
        self._proposals: dict[str, str] = {}
        self._weights: str | None = None

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            yield

    def get_task(self, task_id: str) -> Task | None:
        data = self._tasks.get(task_id)
        return Task.model_validate_json(data) if data else None

    def tasks(self) -> list[Task]:
        return [Task.model_validate_json(data) for data in list(self._tasks.values())]

    def put_task(self, task: Task, expected_version: int | None) -> Task:
        with self._lock:
            stored = self.get_task(task.id)
            check_task_version(task.id, None if stored is None else stored.version, expected_version)
            self._tasks[task.id] = task.model_dump_json()
            return task

    def get_claim(self, task_id: str) -> Claim | None:
        data = self._claims.get(task_id)
        return Claim.model_validate_json(data) if data else None

    def claims(self) -> list[Claim]:
        return [Claim.model_validate_json(data) for data in list(self._claims.values())]

    def put_claim(self, claim: Claim) -> None:
        with self._lock:
            self._claims[claim.task_id] = claim.model_dump_json()

    def drop_claim(self, task_id: str) -> None:
        with self._lock:
            self._claims.pop(task_id, None)

    def get_agent(self, name: str) -> AgentProfile | None:
        data = self._agents.get(name)
        return AgentProfile.model_validate_json(data) if data else None

    def agents(self) -> list[AgentProfile]:
        return [AgentProfile.model_validate_json(data) for data in list(self._agents.values())]

    def put_agent(self, profile: AgentProfile) -> None:
        with self._lock:
            self._agents[profile.name] = profile.model_dump_json()

    def get_skill(self, name: str) -> Skill | None:
        data = self._skills.get(name)
        return Skill.model_validate_json(data) if data else None

    def skills(self) -> list[Skill]:
        return [Skill.model_validate_json(data) for data in list(self._skills.values())]

    def put_skill(self, skill: Skill, expected_version: int | None) -> Skill:
        with self._lock:
            stored = self.get_skill(skill.name)
            check_version(f"skill {skill.name}", stored and stored.version, expected_version)
            self._skills[skill.name] = skill.model_dump_json()
            return skill

    def drop_skill(self, name: str, expected_version: int) -> None:
        with self._lock:
            stored = self.get_skill(name)
            check_version(f"skill {name}", stored and stored.version, expected_version)
            del self._skills[name]

    def get_proposal(self, proposal_id: str) -> SkillProposal | None:
        data = self._proposals.get(proposal_id)
        return SkillProposal.model_validate_json(data) if data else None

    def proposals(self, skill: str | None = None) -> list[SkillProposal]:
        found = [SkillProposal.model_validate_json(data) for data in list(self._proposals.values())]
        return [p for p in found if skill is None or p.skill == skill]

    def put_proposal(self, proposal: SkillProposal, expected_version: int | None) -> SkillProposal:
        with self._lock:
            stored = self.get_proposal(proposal.id)
            check_version(f"proposal {proposal.id}", stored and stored.version, expected_version)
            self._proposals[proposal.id] = proposal.model_dump_json()
            return proposal

    def get_weights(self) -> LearnedWeights | None:
        data = self._weights
        return LearnedWeights.model_validate_json(data) if data else None

    def put_weights(self, weights: LearnedWeights, expected_version: int | None) -> LearnedWeights:
        with self._lock:
            stored = self.get_weights()
            check_version("the learned weights", stored and stored.version, expected_version,
                          again="read them and update them")
            self._weights = weights.model_dump_json()
            return weights

    def drop_weights(self) -> None:
        with self._lock:
            self._weights = None

    def append(self, stream: Stream, event: Event) -> None:
        with self._lock:
            self._streams[stream].append(event.model_dump_json())

    def events(self, stream: Stream, agents: Sequence[str] | None = None, since: datetime | None = None) -> list[Event]:
        with self._lock:
            lines = list(self._streams[stream])
        found = [e for e in map(Event.model_validate_json, lines)
                 if (agents is None or e.agent in agents) and (since is None or e.at >= since)]
        return sorted(found, key=lambda e: e.at)

    def close(self) -> None:
        pass
