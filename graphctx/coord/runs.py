"""Runs: an agent's unit of work as an append-only audit trail. `start` appends a start event and
returns the run id; `fail` appends a failure event; `end` appends the end event with the outcome,
summary, tokens and files touched, and the git branch, head and pull request read from the
repository when not given (files touched: what changed since the run started). Nothing is ever
rewritten: a run is read by folding its events, and a second end is refused."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from graphctx.coord import gitinfo
from graphctx.coord.errors import InvalidRequest, NotFound, WorkConflict
from graphctx.coord.models import Event, Failure, Run, new_id, now
from graphctx.coord.repository import WorkRepository
from graphctx.models import RUN_OUTCOMES

MAX_TOKENS = 10**12


class Runs:
    def __init__(self, repo: WorkRepository, root: Path | None):
        self.repo = repo
        self.root = root  # the repository's folder, where git is asked; None: git is not asked

    def start(self, agent: str, *, task_id: str | None = None, ticket: str | None = None) -> Run:
        start_head = gitinfo.head(self.root) if self.root else None
        event = Event(kind="start", subject=new_id("r-", 10), agent=agent, at=now(),
                      data={"task_id": task_id, "ticket": ticket, "start_head": start_head})
        self.repo.append("runs", event)
        return _fold([event])[0]

    def fail(self, run_id: str, agent: str, error: str, detail: str = "") -> Run:
        if not error.strip():
            raise InvalidRequest("a failure needs `error`: one line saying what went wrong")
        with self.repo.transaction():
            run = self._open(run_id, agent, "record a failure in")
            self.repo.append("runs", Event(kind="failure", subject=run.id, agent=run.agent, at=now(),
                                           data={"error": error.strip(), "detail": detail}))
        return self.get(run.id)

    def end(self, run_id: str, agent: str, *, outcome: str, summary: str = "", tokens: int | None = None,
            files_touched: Iterable[str] | None = None, branch: str | None = None, head: str | None = None,
            pr: str | None = None) -> Run:
        if outcome not in RUN_OUTCOMES:
            raise InvalidRequest(f"outcome must be one of {', '.join(RUN_OUTCOMES)}; got {outcome!r}")
        if tokens is not None and not 0 <= tokens <= MAX_TOKENS:
            raise InvalidRequest(f"tokens must be a count of 0 or more; got {tokens}")
        with self.repo.transaction():
            run = self._open(run_id, agent, "end")
            if files_touched is None and self.root:
                files_touched = gitinfo.changed_since(self.root, run.start_head)
            data = {"outcome": outcome, "summary": summary, "tokens": tokens,
                    "files_touched": sorted(set(files_touched or ())),
                    "branch": branch or (gitinfo.branch(self.root) if self.root else None),
                    "head": head or (gitinfo.head(self.root) if self.root else None),
                    "pr": pr or gitinfo.pull_request()}
            self.repo.append("runs", Event(kind="end", subject=run.id, agent=run.agent, at=now(), data=data))
        return self.get(run.id)

    def get(self, run_id: str) -> Run:
        runs = [r for r in self.list(open_only=False) if r.id == run_id.strip()]
        if not runs:
            raise NotFound(f"no run has the id {run_id!r}; `graphctx runs list` shows the runs")
        return runs[0]

    def list(self, *, agent: str | None = None, task_id: str | None = None, open_only: bool = False,
             since: datetime | None = None, limit: int | None = None) -> list[Run]:
        """Runs, newest first."""
        events = self.repo.events("runs", [agent] if agent else None)
        runs = [r for r in _fold(events)
                if (task_id is None or r.task_id == task_id) and (not open_only or r.open)
                and (since is None or r.started_at >= since)]
        runs.sort(key=lambda r: r.started_at, reverse=True)
        return runs[:limit] if limit else runs

    def _open(self, run_id: str, agent: str, what: str) -> Run:
        run = self.get(run_id)
        if run.agent != agent:
            raise WorkConflict(f"run {run.id} is {run.agent}'s; only that agent may {what} it")
        if not run.open:
            raise WorkConflict(f"run {run.id} ended at {run.ended_at:%Y-%m-%d %H:%M:%S} UTC ({run.outcome}); "
                               "runs are never rewritten: start a new run")
        return run


def _fold(events: list[Event]) -> list[Run]:
    """Runs from their events, in order; events of a run whose start is missing are left out."""
    runs: dict[str, Run] = {}
    for event in events:
        data = event.data
        if event.kind == "start" and event.subject not in runs:
            runs[event.subject] = Run(id=event.subject, agent=event.agent, started_at=event.at,
                                      task_id=data.get("task_id"), ticket=data.get("ticket"),
                                      start_head=data.get("start_head"))
        elif event.subject in runs:
            run = runs[event.subject]
            if event.kind == "failure":
                run.failures.append(Failure(at=event.at, error=data.get("error", ""), detail=data.get("detail", "")))
            elif event.kind == "end" and run.open:  # the first end counts; a run is never rewritten
                run.ended_at = event.at
                for name in ("outcome", "summary", "tokens", "files_touched", "branch", "head", "pr"):
                    if data.get(name) is not None:
                        setattr(run, name, data[name])
    return list(runs.values())
