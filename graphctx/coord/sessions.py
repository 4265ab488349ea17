"""Session state for the baton-pass: what session_init brings an agent by scope (its open claims and
runs, the tasks ready to claim, who else is active, the skills flagged by poor ratings, and with `resume` the state it left, what changed
in the code since, its blockers), and session_end, which saves the agent's state (summary, current
task, blockers, the commit the code was at) as an append-only event and turns what it learned into
knowledge records. The session history is that stream of start and end events."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from graphctx.coord import gitinfo
from graphctx.coord.errors import InvalidRequest
from graphctx.coord.models import AgentProfile, BoardEntry, Claim, Event, Peer, Run, SessionState, Task, now
from graphctx.coord.repository import WorkRepository
from graphctx.coord.skills import SkillInfo
from graphctx.models import SESSION_SCOPES

READY_SHOWN = {"quick": 0, "standard": 5, "resume": 5, "full": 50}
MAX_LEARNED = 20
LEARNED_CATEGORY = "learned"
MAX_TITLE = 80


class SessionWork(BaseModel):
    """The coordination part of session_init for one agent."""

    agent: str
    scope: str
    last_state: SessionState | None = None
    changed_since: list[str] | None = None  # files changed since the last session's commit (resume)
    claims: list[Claim] = Field(default_factory=list)
    open_runs: list[Run] = Field(default_factory=list)
    ready: list[Task] = Field(default_factory=list)
    open_tasks: list[Task] = Field(default_factory=list)  # full: every task not done
    peers: list[Peer] = Field(default_factory=list)
    board: list[BoardEntry] = Field(default_factory=list)
    recent_runs: list[Run] = Field(default_factory=list)  # full
    agents: list[AgentProfile] = Field(default_factory=list)  # full
    flagged_skills: list[SkillInfo] = Field(default_factory=list)  # rated 2+ times, averaging under 3


class Sessions:
    def __init__(self, repo: WorkRepository, root: Path | None):
        self.repo = repo
        self.root = root

    def last_state(self, agent: str) -> SessionState | None:
        ends = [e for e in self.repo.events("sessions", [agent]) if e.kind == "end"]
        return SessionState.model_validate({"agent": agent, "ended_at": ends[-1].at, **ends[-1].data}) if ends else None

    def history(self, agent: str, limit: int = 20) -> list[Event]:
        return self.repo.events("sessions", [agent])[-limit:]

    def start(self, agent: str, scope: str, *, tasks, runs, team, skills) -> SessionWork:
        if scope not in SESSION_SCOPES:
            raise InvalidRequest(f"scope must be one of {', '.join(SESSION_SCOPES)}; got {scope!r}")
        last = self.last_state(agent)
        self.repo.append("sessions", Event(kind="start", agent=agent, at=now(),
                                           data={"scope": scope, "head": gitinfo.head(self.root) if self.root else None}))
        work = SessionWork(agent=agent, scope=scope,
                           claims=[c for c in self.repo.claims() if c.agent == agent and c.live()],
                           open_runs=runs.list(agent=agent, open_only=True))
        if scope in ("resume", "full"):
            work.last_state = last
            if last is not None and self.root:
                work.changed_since = gitinfo.changed_since(self.root, last.head)
        if scope == "quick":
            return work
        by_id = {t.id: t for t in self.repo.tasks()}
        work.ready = tasks.list(ready=True)[: READY_SHOWN[scope]]
        work.peers = team.peers(me=agent, tasks=by_id, open_runs=runs.list(open_only=True), whole_repository=True)
        work.board = [b for b in team.board() if b.checked_in and b.agent != agent]
        work.flagged_skills = skills.flagged()
        if scope == "full":
            work.open_tasks = [t for t in tasks.list() if t.status != "done"]
            work.recent_runs = runs.list(limit=10)
            work.agents = team.agents()
        return work

    def end(self, agent: str, *, summary: str = "", learned: Iterable[str] = (), current_task: str | None = None,
            blockers: Iterable[str] = (), records: Any = None) -> SessionState:
        """Save the agent's state; each `learned` line becomes a knowledge record (category `learned`),
        signed by the agent, when a record store is given."""
        lessons = [text.strip() for text in learned if text and text.strip()]
        if len(lessons) > MAX_LEARNED:
            raise InvalidRequest(f"at most {MAX_LEARNED} learned items per session; got {len(lessons)}: merge some")
        if lessons and records is None:
            raise InvalidRequest("learned items need the record store; this storage keeps no records")
        ids: list[str] = []
        if lessons:
            drafts = [{"title": _title(text), "body": text, "type": "note", "category": LEARNED_CATEGORY}
                      for text in lessons]
            ids = [written.record.id for written in records.remember(drafts, author=agent)]
        state = {"summary": summary.strip(), "current_task": current_task or None,
                 "blockers": [b.strip() for b in blockers if b and b.strip()], "learned": ids,
                 "head": gitinfo.head(self.root) if self.root else None}
        event = Event(kind="end", agent=agent, at=now(), data=state)
        self.repo.append("sessions", event)
        return SessionState.model_validate({"agent": agent, "ended_at": event.at, **state})


def _title(text: str) -> str:
    line = text.strip().splitlines()[0].strip().rstrip(".")
    return line if len(line) <= MAX_TITLE else line[: MAX_TITLE - 1].rstrip() + "…"
