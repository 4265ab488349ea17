"""WorkRepository on PostgreSQL: tasks, skills, skill proposals and the learned weights (each with
the version check), claims, agent profiles and the append-only event streams of one project. `transaction` holds the project's work lock (an advisory
lock) in a database transaction, so a claim's read, check and write are one step on every machine
at once: exactly one agent wins a task."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from psycopg.types.json import Jsonb

from graphctx.coord.errors import check_task_version, check_version
from graphctx.coord.models import AgentProfile, Claim, Event, LearnedWeights, Skill, SkillProposal, Stream, Task
from graphctx.teamstore.database import Database


class PostgresWorkRepository:
    def __init__(self, db: Database, project: str):
        self.db = db
        self.project = project
        self.lock = f"graphctx:work:{project}"

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self.db.transaction(self.lock):
            yield

    def _rows(self, sql: str, *params) -> list[tuple]:
        with self.db.connection() as conn:
            return conn.execute(sql, (self.project, *params)).fetchall()

    def get_task(self, task_id: str) -> Task | None:
        rows = self._rows("SELECT data::text FROM work_tasks WHERE project=%s AND id=%s", task_id)
        return Task.model_validate_json(rows[0][0]) if rows else None

    def tasks(self) -> list[Task]:
        return [Task.model_validate_json(data) for (data,) in self._rows("SELECT data::text FROM work_tasks WHERE project=%s")]

    def put_task(self, task: Task, expected_version: int | None) -> Task:
        with self.db.transaction(self.lock) as conn:
            row = conn.execute("SELECT version FROM work_tasks WHERE project=%s AND id=%s",
                               (self.project, task.id)).fetchone()
            check_task_version(task.id, None if row is None else row[0], expected_version)
            conn.execute("INSERT INTO work_tasks (project, id, version, data) VALUES (%s, %s, %s, %s)"
                         " ON CONFLICT (project, id) DO UPDATE SET version=excluded.version, data=excluded.data",
                         (self.project, task.id, task.version, Jsonb(task.model_dump(mode="json"))))
        return task

    def get_claim(self, task_id: str) -> Claim | None:
        rows = self._rows("SELECT data::text FROM work_claims WHERE project=%s AND task_id=%s", task_id)
        return Claim.model_validate_json(rows[0][0]) if rows else None

    def claims(self) -> list[Claim]:
        return [Claim.model_validate_json(data) for (data,) in self._rows("SELECT data::text FROM work_claims WHERE project=%s")]

    def put_claim(self, claim: Claim) -> None:
        self._rows("INSERT INTO work_claims (project, task_id, data) VALUES (%s, %s, %s) ON CONFLICT (project, task_id)"
                   " DO UPDATE SET data=excluded.data RETURNING 1", claim.task_id, Jsonb(claim.model_dump(mode="json")))

    def drop_claim(self, task_id: str) -> None:
        self._rows("DELETE FROM work_claims WHERE project=%s AND task_id=%s RETURNING 1", task_id)

    def get_agent(self, name: str) -> AgentProfile | None:
        rows = self._rows("SELECT data::text FROM work_agents WHERE project=%s AND name=%s", name)
        return AgentProfile.model_validate_json(rows[0][0]) if rows else None

    def agents(self) -> list[AgentProfile]:
        return [AgentProfile.model_validate_json(data)
                for (data,) in self._rows("SELECT data::text FROM work_agents WHERE project=%s")]

    def put_agent(self, profile: AgentProfile) -> None:
        self._rows("INSERT INTO work_agents (project, name, data) VALUES (%s, %s, %s) ON CONFLICT (project, name)"
                   " DO UPDATE SET data=excluded.data RETURNING 1", profile.name, Jsonb(profile.model_dump(mode="json")))

    # ---- versioned documents: skills, proposals, the learned weights

    def _document(self, kind: str, key: str) -> str | None:
        rows = self._rows("SELECT data::text FROM work_documents WHERE project=%s AND kind=%s AND id=%s", kind, key)
        return rows[0][0] if rows else None

    def _put_document(self, kind: str, key: str, item: Any, expected_version: int | None, label: str,
                      **again: str) -> None:
        with self.db.transaction(self.lock) as conn:
            row = conn.execute("SELECT version FROM work_documents WHERE project=%s AND kind=%s AND id=%s",
                               (self.project, kind, key)).fetchone()
            check_version(label, None if row is None else row[0], expected_version, **again)
            conn.execute("INSERT INTO work_documents (project, kind, id, version, data) VALUES (%s, %s, %s, %s, %s)"
                         " ON CONFLICT (project, kind, id) DO UPDATE SET version=excluded.version, data=excluded.data",
                         (self.project, kind, key, item.version, Jsonb(item.model_dump(mode="json"))))

    def get_skill(self, name: str) -> Skill | None:
        data = self._document("skill", name)
        return Skill.model_validate_json(data) if data else None

    def skills(self) -> list[Skill]:
        return [Skill.model_validate_json(data) for (data,) in
                self._rows("SELECT data::text FROM work_documents WHERE project=%s AND kind='skill'")]

    def put_skill(self, skill: Skill, expected_version: int | None) -> Skill:
        self._put_document("skill", skill.name, skill, expected_version, f"skill {skill.name}")
        return skill

    def drop_skill(self, name: str, expected_version: int) -> None:
        with self.db.transaction(self.lock) as conn:
            row = conn.execute("SELECT version FROM work_documents WHERE project=%s AND kind='skill' AND id=%s",
                               (self.project, name)).fetchone()
            check_version(f"skill {name}", None if row is None else row[0], expected_version)
            conn.execute("DELETE FROM work_documents WHERE project=%s AND kind='skill' AND id=%s", (self.project, name))

    def get_proposal(self, proposal_id: str) -> SkillProposal | None:
        data = self._document("proposal", proposal_id)
        return SkillProposal.model_validate_json(data) if data else None

    def proposals(self, skill: str | None = None) -> list[SkillProposal]:
        found = [SkillProposal.model_validate_json(data) for (data,) in
                 self._rows("SELECT data::text FROM work_documents WHERE project=%s AND kind='proposal'")]
        return [p for p in found if skill is None or p.skill == skill]

    def put_proposal(self, proposal: SkillProposal, expected_version: int | None) -> SkillProposal:
        self._put_document("proposal", proposal.id, proposal, expected_version, f"proposal {proposal.id}")
        return proposal

    def get_weights(self) -> LearnedWeights | None:
        data = self._document("weights", "learned")
        return LearnedWeights.model_validate_json(data) if data else None

    def put_weights(self, weights: LearnedWeights, expected_version: int | None) -> LearnedWeights:
        self._put_document("weights", "learned", weights, expected_version, "the learned weights",
                           again="read them and update them")
        return weights

    def drop_weights(self) -> None:
        self._rows("DELETE FROM work_documents WHERE project=%s AND kind='weights' RETURNING 1")

    # ---- streams

    def append(self, stream: Stream, event: Event) -> None:
        self._rows("INSERT INTO work_events (project, stream, agent, at, data) VALUES (%s, %s, %s, %s, %s) RETURNING 1",
                   stream, event.agent, event.at, Jsonb(event.model_dump(mode="json")))

    def events(self, stream: Stream, agents: Sequence[str] | None = None, since: datetime | None = None) -> list[Event]:
        sql = "SELECT data::text FROM work_events WHERE project=%s AND stream=%s"
        params: list = [stream]
        if agents is not None:
            sql += " AND agent = ANY(%s)"
            params.append(list(agents))
        if since is not None:
            sql += " AND at >= %s"
            params.append(since)
        return [Event.model_validate_json(data) for (data,) in self._rows(sql + " ORDER BY at, seq", *params)]

    def close(self) -> None:
        pass  # the connections belong to the Database, shared by every project's repositories
