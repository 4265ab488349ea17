"""Tasks and claims: create, list, read, update, claim with a lease, release, and move through the
state machine. A claim is exclusive: inside one transaction of the repository, a claim that is live
and held by another agent refuses the claimant, naming the holder and until when; an expired lease
holds nothing. A task whose dependencies are not all done cannot be claimed, and the refusal names
them. Every refused transition names the ones allowed from the task's status."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from datetime import datetime, timedelta

from graphctx.coord.errors import InvalidRequest, NotFound, WorkConflict
from graphctx.coord.models import Claim, Task, Transition, new_id, now
from graphctx.coord.repository import WorkRepository
from graphctx.models import TASK_STATUSES

# The state machine: where each status may go. Claiming moves a pending task to in_progress;
# releasing an unfinished one moves it back to pending.
ALLOWED: dict[str, tuple[str, ...]] = {
    "pending": ("in_progress", "blocked"),
    "in_progress": ("done", "failed", "blocked", "pending"),
    "blocked": ("pending",),
    "failed": ("pending",),
    "done": (),
}
FINISHED = frozenset({"done", "failed"})  # a claim ends with these
DEFAULT_LEASE = 30 * 60  # seconds
MAX_LEASE = 24 * 3600
MIN_PRIORITY, MAX_PRIORITY = 1, 5
MAX_TITLE = 300
EDITABLE = ("title", "description", "priority", "depends_on", "entities", "files")


class Tasks:
    def __init__(self, repo: WorkRepository):
        self.repo = repo

    # ---- reading

    def get(self, task_id: str) -> Task:
        task = self.repo.get_task(task_id.strip())
        if task is None:
            raise self._unknown(task_id)
        return task

    def list(self, *, status: str | None = None, agent: str | None = None, ready: bool = False,
             entity: str | None = None, file: str | None = None) -> list[Task]:
        """Tasks by priority then age; `agent`: those it holds a live claim on; `ready`: pending ones
        whose dependencies are done (what an agent can claim now)."""
        if status is not None and status not in TASK_STATUSES:
            raise InvalidRequest(f"unknown status {status!r}{_close(status, TASK_STATUSES)}; "
                                 f"the statuses are {', '.join(TASK_STATUSES)}")
        tasks = self.repo.tasks()
        by_id = {t.id: t for t in tasks}
        held = {c.task_id: c.agent for c in self.repo.claims() if c.live()}
        chosen = [t for t in tasks
                  if (status is None or t.status == status)
                  and (agent is None or held.get(t.id) == agent)
                  and (not ready or (t.status == "pending" and not _undone(t, by_id)))
                  and (entity is None or entity in t.entities)
                  and (file is None or file in t.files or any(e.split("::")[0] == file for e in t.entities))]
        return sorted(chosen, key=lambda t: (t.priority, t.created_at))

    def holder(self, task_id: str) -> Claim | None:
        """The live claim on a task, if any."""
        claim = self.repo.get_claim(task_id)
        return claim if claim is not None and claim.live() else None

    # ---- writing

    def create(self, title: str, *, by: str, description: str = "", priority: int = 3,
               depends_on: Iterable[str] = (), entities: Iterable[str] = (), files: Iterable[str] = ()) -> Task:
        title = _title(title)
        _check_priority(priority)
        at = now()
        task = Task(id=new_id("t-"), title=title, description=description, priority=priority,
                    depends_on=_unique(depends_on), entities=_unique(entities), files=_unique(files),
                    created_by=by, created_at=at, updated_at=at,
                    history=[Transition(status="pending", by=by, at=at, reason="created")])
        with self.repo.transaction():
            self._check_dependencies(task)
            return self.repo.put_task(task, None)

    def update(self, task_id: str, *, by: str, **changes) -> Task:
        unknown = [name for name in changes if name not in EDITABLE]
        if unknown:
            raise InvalidRequest(f"a task has no editable field {unknown[0]!r}{_close(unknown[0], EDITABLE)}; "
                                 f"edit {', '.join(EDITABLE)} (the status changes by transition)")
        changes = {k: v for k, v in changes.items() if v is not None}
        if not changes:
            raise InvalidRequest(f"nothing to change: give one of {', '.join(EDITABLE)}")
        if "title" in changes:
            changes["title"] = _title(changes["title"])
        if "priority" in changes:
            _check_priority(changes["priority"])
        for name in ("depends_on", "entities", "files"):
            if name in changes:
                changes[name] = _unique(changes[name])
        with self.repo.transaction():
            task = self.get(task_id)
            self._check_holder(task, by, "update")
            new = task.model_copy(update={**changes, "version": task.version + 1, "updated_at": now()})
            self._check_dependencies(new)
            return self.repo.put_task(new, task.version)

    def claim(self, task_id: str, agent: str, lease_seconds: float | None = None) -> tuple[Task, Claim]:
        """Hold a task exclusively for `lease_seconds` (default 30 min; claiming it again renews the lease)."""
        lease_seconds = DEFAULT_LEASE if lease_seconds is None else lease_seconds
        if not 1 <= lease_seconds <= MAX_LEASE:
            raise InvalidRequest(f"a lease must be between 1 and {MAX_LEASE} seconds; got {lease_seconds:g}")
        with self.repo.transaction():
            task = self.get(task_id)
            at = now()
            current = self.repo.get_claim(task.id)
            if current is not None and current.live(at) and current.agent != agent:
                raise WorkConflict(f"task {task.id} is claimed by {current.agent} until {_time(current.expires_at)}; "
                                   "pick another task (tasks list --ready) or wait for the lease to end")
            renewing = current is not None and current.live(at) and current.agent == agent
            if not renewing:
                if task.status not in ("pending", "in_progress"):
                    raise WorkConflict(f"task {task.id} is {task.status}, so it cannot be claimed; "
                                       + _from_here(task.status))
                waiting = _undone(task, {t.id: t for t in self.repo.tasks()})
                if waiting:
                    names = ", ".join(f"{t.id} {t.title!r} ({t.status})" for t in waiting)
                    raise WorkConflict(f"task {task.id} cannot be claimed until its dependencies are done: {names}")
            claim = Claim(task_id=task.id, agent=agent, claimed_at=current.claimed_at if renewing else at,
                          expires_at=at + timedelta(seconds=lease_seconds))
            if task.status == "pending":
                task = self._move(task, "in_progress", agent, "claimed")
            self.repo.put_claim(claim)
            return task, claim

    def release(self, task_id: str, agent: str, reason: str = "") -> Task:
        """Give a claim up: an unfinished task goes back to pending for someone else."""
        with self.repo.transaction():
            task = self.get(task_id)
            claim = self.holder(task.id)
            if claim is None:
                raise WorkConflict(f"task {task.id} is not claimed by anyone now; nothing to release")
            if claim.agent != agent:
                raise WorkConflict(f"task {task.id} is claimed by {claim.agent}, not {agent}; only the holder releases it")
            self.repo.drop_claim(task.id)
            if task.status == "in_progress":
                task = self._move(task, "pending", agent, reason or "released")
            return task

    def transition(self, task_id: str, status: str, agent: str, reason: str = "") -> Task:
        if status not in TASK_STATUSES:
            raise InvalidRequest(f"unknown status {status!r}{_close(status, TASK_STATUSES)}; "
                                 f"the statuses are {', '.join(TASK_STATUSES)}")
        with self.repo.transaction():
            task = self.get(task_id)
            if status not in ALLOWED[task.status]:
                raise InvalidRequest(f"task {task.id} cannot go from {task.status} to {status}; " + _from_here(task.status))
            self._check_holder(task, agent, f"move it to {status}")
            task = self._move(task, status, agent, reason)
            if status != "in_progress":
                self.repo.drop_claim(task.id)  # finished, blocked or back in the queue: the lease ends
            return task

    # ---- helpers

    def _move(self, task: Task, status: str, by: str, reason: str) -> Task:
        at = now()
        step = Transition(status=status, previous=task.status, by=by, at=at, reason=reason)
        new = task.model_copy(update={"status": status, "version": task.version + 1, "updated_at": at,
                                      "history": [*task.history, step]})
        return self.repo.put_task(new, task.version)

    def _check_holder(self, task: Task, agent: str, what: str) -> None:
        claim = self.holder(task.id)
        if claim is not None and claim.agent != agent:
            raise WorkConflict(f"task {task.id} is claimed by {claim.agent} until {_time(claim.expires_at)}; "
                               f"only the holder may {what}")

    def _check_dependencies(self, task: Task) -> None:
        by_id = {t.id: t for t in self.repo.tasks()}
        by_id[task.id] = task
        for dep in task.depends_on:
            if dep == task.id:
                raise InvalidRequest(f"task {task.id} cannot depend on itself")
            if dep not in by_id:
                raise self._unknown(dep, what="dependency")
        seen, path = set(), [task.id]

        def visit(node: str) -> None:
            for dep in by_id[node].depends_on if node in by_id else ():
                if dep == task.id:
                    raise InvalidRequest(f"depending on {' -> '.join([*path, dep][1:])} would make a cycle back to "
                                         f"{task.id}; drop one of those dependencies")
                if dep not in seen:
                    seen.add(dep)
                    path.append(dep)
                    visit(dep)
                    path.pop()
        visit(task.id)

    def _unknown(self, task_id: str, what: str = "task") -> NotFound:
        tasks = self.repo.tasks()
        close = difflib.get_close_matches(task_id.strip(), [t.id for t in tasks], n=3, cutoff=0.5)
        titled = [t.id for t in tasks if task_id.strip().lower() in t.title.lower()][:3]
        suggestions = [f"{t.id} {t.title!r}" for t in tasks if t.id in dict.fromkeys([*close, *titled])]
        hint = "did you mean one of these?" if suggestions else "`graphctx tasks list` shows the tasks"
        return NotFound(f"no {what} has the id {task_id!r}; {hint}", suggestions)


def _undone(task: Task, by_id: dict[str, Task]) -> list[Task]:
    return [by_id[d] for d in task.depends_on if d in by_id and by_id[d].status != "done"]


def _from_here(status: str) -> str:
    allowed = ALLOWED[status]
    return (f"from {status} it may go to {', '.join(allowed)}" if allowed
            else f"{status} is final; create a new task for more work")


def _title(title: str) -> str:
    title = " ".join((title or "").split())
    if not title:
        raise InvalidRequest("a task needs a title: a short line saying what is to be done")
    if len(title) > MAX_TITLE:
        raise InvalidRequest(f"a task title must be at most {MAX_TITLE} characters (got {len(title)}); "
                             "put the rest in the description")
    return title


def _check_priority(priority: int) -> None:
    if not MIN_PRIORITY <= priority <= MAX_PRIORITY:
        raise InvalidRequest(f"priority must be between {MIN_PRIORITY} (most urgent) and {MAX_PRIORITY}; got {priority}")


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(v.strip() for v in values if v and v.strip()))


def _close(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _time(at: datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M:%S UTC")
