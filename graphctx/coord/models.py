"""What agents working together share, as data: tasks with their dependencies and status history,
claims (an exclusive lease on a task), runs (folded from their append-only events), agent profiles,
session state, activity-board entries and peers. Plain pydantic models, so every storage keeps and
every adapter prints the same shapes."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from graphctx.models import RunOutcome, TaskStatus

ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford base32, lower case: easy to type and read
# Event streams: each is kept per agent, append-only (runs, sessions, the board, skill usage and
# ratings and review decisions are shared with the team; served context and feedback stay in this clone).
Stream = Literal["runs", "sessions", "activity", "served", "skill_events", "review", "feedback"]
STREAMS: tuple[str, ...] = ("runs", "sessions", "activity", "served", "skill_events", "review", "feedback")
ProposalStatus = Literal["open", "accepted", "rejected"]


def now() -> datetime:
    return datetime.now(UTC)


def new_id(prefix: str, length: int = 8) -> str:
    """A short random id (`t-3k9x0q2m`): 40 random bits for 8 characters, so two branches or processes
    never mint the same one in practice, and a person can type it."""
    return prefix + "".join(secrets.choice(ALPHABET) for _ in range(length))


class Transition(BaseModel):
    """One change of a task's status: from, to, who, when and why."""

    status: TaskStatus
    previous: TaskStatus | None = None
    by: str = ""
    at: datetime
    reason: str = ""


class Task(BaseModel):
    id: str
    title: str
    description: str = ""
    priority: int = 3  # 1 (most urgent) to 5
    status: TaskStatus = "pending"
    depends_on: list[str] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list)  # entity ids the task is about
    files: list[str] = Field(default_factory=list)
    created_by: str = ""
    created_at: datetime
    updated_at: datetime
    version: int = 1
    history: list[Transition] = Field(default_factory=list)


class Claim(BaseModel):
    """An agent's exclusive hold on a task until `expires_at`; an expired claim holds nothing."""

    task_id: str
    agent: str
    claimed_at: datetime
    expires_at: datetime

    def live(self, at: datetime | None = None) -> bool:
        return self.expires_at > (at or now())


class Failure(BaseModel):
    at: datetime
    error: str
    detail: str = ""


class Run(BaseModel):
    """A run as its events tell it: started, failures on the way, and its end (if it ended)."""

    id: str
    agent: str
    task_id: str | None = None
    ticket: str | None = None
    started_at: datetime
    start_head: str | None = None
    ended_at: datetime | None = None
    outcome: RunOutcome | None = None
    summary: str = ""
    tokens: int | None = None
    files_touched: list[str] = Field(default_factory=list)
    branch: str | None = None
    head: str | None = None
    pr: str | None = None
    failures: list[Failure] = Field(default_factory=list)

    @property
    def open(self) -> bool:
        return self.ended_at is None


class AgentProfile(BaseModel):
    name: str
    capabilities: list[str] = Field(default_factory=list)
    model: str | None = None
    registered_at: datetime
    updated_at: datetime


class SessionState(BaseModel):
    """What an agent left at the end of a session, for the next one to pick up."""

    agent: str
    ended_at: datetime
    summary: str = ""
    current_task: str | None = None
    blockers: list[str] = Field(default_factory=list)
    learned: list[str] = Field(default_factory=list)  # ids of the knowledge records written
    head: str | None = None  # the git commit the code was at


class BoardEntry(BaseModel):
    """An agent's latest check-in or check-out on the activity board."""

    agent: str
    checked_in: bool
    at: datetime
    task_id: str | None = None
    issue: str | None = None
    note: str = ""


class Peer(BaseModel):
    """Another agent active on some of the same code: how (claim, run, context) and how long ago."""

    agent: str
    via: Literal["claim", "run", "context"]
    on: list[str]  # the shared entity ids or files, a few
    task_id: str | None = None
    seconds_ago: int


class Event(BaseModel):
    """One line of an append-only stream: what happened (`kind`), to what (`subject`), when, by whom."""

    kind: str
    subject: str = ""
    agent: str
    at: datetime
    data: dict[str, Any] = Field(default_factory=dict)


class Skill(BaseModel):
    """A SKILL.md: how to do one kind of work here, with a name and a description saying when to use it."""

    name: str  # lower-case words joined by hyphens: its file is skills/<name>/SKILL.md
    description: str
    body: str = ""  # the Markdown below the front matter
    author: str = ""
    created_at: datetime
    updated_at: datetime
    version: int = 1


class SkillProposal(BaseModel):
    """An agent's proposed improvement of a skill: the full new content, why, and what changes;
    accepted (the skill takes the content) or rejected by another decision."""

    id: str
    skill: str
    agent: str
    content: str  # the whole new SKILL.md body
    description: str | None = None  # a new description, when it changes
    rationale: str
    diff_summary: str = ""
    base_version: int  # the skill version it was written against
    status: ProposalStatus = "open"
    created_at: datetime
    resolved_by: str | None = None
    resolved_at: datetime | None = None
    resolution: str = ""
    version: int = 1


class LearnedWeights(BaseModel):
    """What feedback taught the ranking of this repository: a multiplier per edge kind and per text
    signal (1.0 is the hand-set weight), how many answers taught it, and when it last changed."""

    edges: dict[str, float] = Field(default_factory=dict)
    signals: dict[str, float] = Field(default_factory=dict)
    feedback: int = 0
    updated_at: datetime
    version: int = 1
