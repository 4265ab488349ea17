"""WorkStore, the library API of coordination that Project offers: tasks and claims, runs, agents,
the activity board, peers, session state, skills, feedback, the review of records and git sync over one WorkRepository (files under `.graphctx/` by
default; memory, or the team server's, given). It wires the use cases together and checks what
crosses them: a run's task exists, a peer's task is known."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from graphctx.coord import traces
from graphctx.coord.feedback import Feedback
from graphctx.coord.files import FileWorkRepository
from graphctx.coord.hypotheses import Hypotheses
from graphctx.coord.models import Peer, Run, SessionState
from graphctx.coord.repository import WorkRepository
from graphctx.coord.review import Review
from graphctx.coord.runs import Runs
from graphctx.coord.sessions import SessionWork, Sessions
from graphctx.coord.skills import Skills
from graphctx.coord.sync import Sync
from graphctx.coord.tasks import Tasks
from graphctx.coord.team import Team, check_name


class WorkStore:
    def __init__(self, root: Path | None, repo: WorkRepository | None = None):
        self.root = Path(root).resolve() if root is not None else None
        if repo is None:
            if self.root is None:
                raise ValueError("a WorkStore needs a root folder or a repository")
            repo = FileWorkRepository(self.root)
        self.repo = repo
        self.tasks = Tasks(repo)
        self.runs = Runs(repo, self.root)
        self.team = Team(repo)
        self.sessions = Sessions(repo, self.root)
        self.skills = Skills(repo)
        self.feedback = Feedback(repo)
        self.review = Review(repo)
        self.hypotheses = Hypotheses(repo)
        self.sync = Sync(self.root) if self.root is not None else None

    def close(self) -> None:
        self.repo.close()

    @staticmethod
    def agent(name: str | None) -> str:
        """An agent name, checked (one line, not empty)."""
        return check_name(name)

    @staticmethod
    def agent_from_environment() -> str | None:
        return os.environ.get("GRAPHCTX_AGENT", "").strip() or None

    def has_activity(self, *, served: bool = True) -> bool:
        """Whether anything was ever coordinated here (tasks, runs, claims, the board; and with `served`,
        context served to a named agent): a cheap check before computing peers."""
        if self.root is None or not isinstance(self.repo, FileWorkRepository):
            return True
        return traces.has_activity(self.root, served=served)

    def start_run(self, agent: str, *, task_id: str | None = None, ticket: str | None = None) -> Run:
        if task_id:
            task_id = self.tasks.get(task_id).id
        return self.runs.start(agent, task_id=task_id, ticket=ticket)

    def peers(self, entity_ids: Iterable[str] = (), files: Iterable[str] = (), *, me: str | None = None) -> list[Peer]:
        """Other agents active on these entities or files; with neither, anywhere in the repository."""
        entity_ids, files = list(entity_ids), list(files)
        return self.team.peers(entity_ids, files, me=me, tasks={t.id: t for t in self.repo.tasks()},
                               open_runs=self.runs.list(open_only=True), whole_repository=not (entity_ids or files))

    def task_focus(self, task_id: str) -> tuple[list[str], list[str]]:
        """(entity ids, files) a task is about: those it links, and the files its runs touched."""
        task = self.tasks.get(task_id)
        touched = [path for run in self.runs.list(task_id=task.id) for path in run.files_touched]
        return task.entities, list(dict.fromkeys([*task.files, *touched]))

    def note_served(self, agent: str, entity_ids: list[str]) -> None:
        self.team.note_served(agent, entity_ids)

    def session_start(self, agent: str, scope: str = "standard") -> SessionWork:
        return self.sessions.start(agent, scope, tasks=self.tasks, runs=self.runs, team=self.team, skills=self.skills)

    def session_end(self, agent: str, *, records: Any = None, **state: Any) -> SessionState:
        if state.get("current_task"):
            state["current_task"] = self.tasks.get(state["current_task"]).id
        return self.sessions.end(agent, records=records, **state)
