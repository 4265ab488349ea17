"""Agents and what they are doing: profiles (name, capabilities, model), the activity board (check in
with a task and an issue, check out), the context each agent was served, and peers: the other agents
active on the same entities or files, through a live claim on a task about them, an open run (its
task's code and the files it touched), or context served to them lately, with how long ago."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from graphctx.coord import traces
from graphctx.coord.errors import InvalidRequest, NotFound
from graphctx.coord.models import AgentProfile, BoardEntry, Event, Peer, Task, now
from graphctx.coord.repository import WorkRepository
from graphctx.layout import entity_path

RECENT = timedelta(seconds=traces.RECENT_SECONDS)  # served context and open runs older than this no longer make a peer
OPEN_RUN_WINDOW = timedelta(hours=12)
SERVED_ITEMS = 12  # the entities of an answer noted for peers: its best ones
MAX_SHOWN = 3  # shared entities or files named per peer
MAX_NAME = 200


def check_name(name: str | None, what: str = "agent") -> str:
    name = (name or "").strip()
    if not name:
        raise InvalidRequest(f"an {what} name is required: pass --agent NAME (or set $GRAPHCTX_AGENT)")
    if len(name) > MAX_NAME or any(ord(c) < 32 for c in name):
        raise InvalidRequest(f"an {what} name must be one line of at most {MAX_NAME} characters")
    return name


class Team:
    def __init__(self, repo: WorkRepository):
        self.repo = repo

    # ---- profiles

    def register(self, name: str, *, capabilities: Iterable[str] = (), model: str | None = None) -> AgentProfile:
        name = check_name(name)
        with self.repo.transaction():
            known = self.repo.get_agent(name)
            at = now()
            profile = AgentProfile(name=name, capabilities=list(dict.fromkeys(c.strip() for c in capabilities if c.strip())),
                                   model=model, registered_at=known.registered_at if known else at, updated_at=at)
            self.repo.put_agent(profile)
            return profile

    def agents(self) -> list[AgentProfile]:
        return sorted(self.repo.agents(), key=lambda a: a.name)

    # ---- the activity board

    def check_in(self, agent: str, *, task_id: str | None = None, issue: str | None = None, note: str = "") -> BoardEntry:
        self.repo.append("activity", Event(kind="check_in", agent=agent, at=now(), subject=task_id or "",
                                           data={"issue": issue, "note": note}))
        return self.board(agents=[agent])[0]

    def check_out(self, agent: str, note: str = "") -> BoardEntry:
        entries = self.board(agents=[agent])
        if not entries or not entries[0].checked_in:
            raise InvalidRequest(f"{agent} is not checked in; check in first (agents check_in)")
        self.repo.append("activity", Event(kind="check_out", agent=agent, at=now(), data={"note": note}))
        return self.board(agents=[agent])[0]

    def board(self, agents: list[str] | None = None) -> list[BoardEntry]:
        """Each agent's latest board entry, checked-in agents first, newest first."""
        latest: dict[str, Event] = {}
        for event in self.repo.events("activity", agents):
            latest[event.agent] = event
        entries = [BoardEntry(agent=e.agent, checked_in=e.kind == "check_in", at=e.at,
                              task_id=e.subject or None, issue=e.data.get("issue"), note=e.data.get("note") or "")
                   for e in latest.values()]
        return sorted(entries, key=lambda b: (not b.checked_in, -b.at.timestamp()))

    # ---- served context and peers

    def note_served(self, agent: str, entity_ids: list[str]) -> None:
        """Remember what an agent was served, so others see it working there."""
        ids = list(dict.fromkeys(entity_ids))[:SERVED_ITEMS]
        if ids:
            self.repo.append("served", Event(kind="served", agent=agent, at=now(), data={"entities": ids}))

    def peers(self, entity_ids: Iterable[str] = (), files: Iterable[str] = (), *, me: str | None = None,
              tasks: dict[str, Task], open_runs: list, whole_repository: bool = False) -> list[Peer]:
        """Other agents active on these entities or files (on anything, with `whole_repository`),
        each once, by the most recent sign; newest first."""
        wanted_ids = set(entity_ids)
        wanted_files = set(files) | {entity_path(e) for e in wanted_ids}
        at = now()

        def shared(ids: Iterable[str], paths: Iterable[str]) -> list[str]:
            ids, paths = list(ids), list(paths)
            if whole_repository:
                return list(dict.fromkeys([*ids, *paths]))[:MAX_SHOWN] or ["the repository"]
            hits = [e for e in ids if e in wanted_ids or entity_path(e) in wanted_files]
            hits += [p for p in paths if p in wanted_files]
            return list(dict.fromkeys(hits))[:MAX_SHOWN]

        signs: list[Peer] = []
        for claim in self.repo.claims():
            task = tasks.get(claim.task_id)
            if claim.agent != me and claim.live(at) and task and (on := shared(task.entities, task.files)):
                signs.append(_peer(claim.agent, "claim", on, task.id, claim.claimed_at, at))
        for run in open_runs:
            if run.agent == me or at - run.started_at > OPEN_RUN_WINDOW:
                continue
            task = tasks.get(run.task_id) if run.task_id else None
            on = shared(task.entities if task else [], [*(task.files if task else []), *run.files_touched])
            if on:
                signs.append(_peer(run.agent, "run", on, run.task_id, run.started_at, at))
        for event in self.repo.events("served", since=at - RECENT):
            if event.agent != me and (on := shared(event.data.get("entities", []), [])):
                signs.append(_peer(event.agent, "context", on, None, event.at, at))
        newest: dict[str, Peer] = {}
        for peer in sorted(signs, key=lambda p: p.seconds_ago):
            newest.setdefault(peer.agent, peer)
        return list(newest.values())

    def require(self, name: str) -> AgentProfile:
        profile = self.repo.get_agent(name)
        if profile is None:
            raise NotFound(f"no agent is registered as {name!r}; `graphctx agents list` shows them")
        return profile


def _peer(agent: str, via: str, on: list[str], task_id: str | None, since: datetime, at: datetime) -> Peer:
    return Peer(agent=agent, via=via, on=on, task_id=task_id, seconds_ago=max(0, int((at - since).total_seconds())))
