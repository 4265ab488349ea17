"""WorkRepository on files under `.graphctx/`, laid out to merge across git branches: one JSON file per
task (`tasks/<id>.json`), per agent (`agents/<name>.json`), per skill (`skills/<name>/SKILL.md`, Markdown
with front matter, as hosts read skills) and per skill proposal (`proposals/<id>.json`); runs, sessions,
the activity board, skill usage and ratings and review decisions as append-only JSON Lines, one file
per agent (`runs/<agent>.jsonl`, ...), which `.graphctx/.gitattributes` merges with git's `union` driver,
so two branches' events both survive a merge. Claims, served context, feedback and the weights it
taught are live state of this clone (under `private/`, gitignored). Writers hold
`private/work.lock` (an OS file lock, dropped if its holder dies) so a check and the write after it
are one step across processes: two agents never both win a claim."""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading

import yaml
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ValidationError

from graphctx.coord import traces
from graphctx.coord.errors import check_task_version, check_version
from graphctx.coord.models import AgentProfile, Claim, Event, LearnedWeights, Skill, SkillProposal, Stream, Task
from graphctx.errors import GraphctxError
from graphctx.layout import index_dir
from graphctx.records.files import WriteLock, ensure_layout, format_time, remove, split_front_matter, write_atomic

log = logging.getLogger("graphctx.coord")

SHARED_STREAMS = ("runs", "sessions", "activity", "skill_events", "review")
GITATTRIBUTES_LINES = tuple(f"{stream}/*.jsonl merge=union" for stream in SHARED_STREAMS)
SERVED_TAIL_BYTES = 256 * 1024  # served context only matters while recent: read the end of each file
SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")


def file_name(name: str) -> str:
    """A file name for an agent or task name: itself when it is plain, else its plain characters
    with a short hash of the whole, so two names never share a file."""
    plain = SAFE_NAME.sub("_", name)[:80].strip(".") or "_"
    if plain == name:
        return plain
    return f"{plain}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


class FileWorkRepository:
    def __init__(self, root: Path):
        self.root = Path(root)
        self.folder = index_dir(self.root)
        self._thread_lock = threading.RLock()
        self._depth = threading.local()
        self._os_lock: WriteLock | None = None

    # ---- the writers' lock

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._thread_lock:
            depth = getattr(self._depth, "value", 0)
            if depth == 0:
                self._prepare()
                self._os_lock = WriteLock(self.folder / "private" / "work.lock")
                self._os_lock.__enter__()
            self._depth.value = depth + 1
            try:
                yield
            finally:
                self._depth.value = depth
                if depth == 0 and self._os_lock is not None:
                    lock, self._os_lock = self._os_lock, None
                    lock.__exit__(None, None, None)

    def _prepare(self) -> None:
        """The folder, its .gitignore (private/ stays local) and the .gitattributes that merges streams."""
        ensure_layout(self.root)
        attributes = self.folder / ".gitattributes"
        current = attributes.read_text(encoding="utf-8") if attributes.exists() else ""
        missing = [line for line in GITATTRIBUTES_LINES if line not in current.splitlines()]
        if missing:
            prefix = current if not current or current.endswith("\n") else current + "\n"
            write_atomic(attributes, prefix + "".join(f"{line}\n" for line in missing))

    # ---- tasks

    def _task_path(self, task_id: str) -> Path:
        return self.folder / "tasks" / f"{file_name(task_id)}.json"

    def get_task(self, task_id: str) -> Task | None:
        return _load(self._task_path(task_id), Task)

    def tasks(self) -> list[Task]:
        return [task for path in sorted((self.folder / "tasks").glob("*.json")) if (task := _load(path, Task))]

    def put_task(self, task: Task, expected_version: int | None) -> Task:
        with self.transaction():
            stored = self.get_task(task.id)
            check_task_version(task.id, None if stored is None else stored.version, expected_version)
            write_atomic(self._task_path(task.id), task.model_dump_json(indent=2) + "\n")
            return task

    # ---- claims

    def _claim_path(self, task_id: str) -> Path:
        return self.folder / "private" / "claims" / f"{file_name(task_id)}.json"

    def get_claim(self, task_id: str) -> Claim | None:
        return _load(self._claim_path(task_id), Claim)

    def claims(self) -> list[Claim]:
        folder = self.folder / "private" / "claims"
        return [claim for path in sorted(folder.glob("*.json")) if (claim := _load(path, Claim))]

    def put_claim(self, claim: Claim) -> None:
        with self.transaction():
            write_atomic(self._claim_path(claim.task_id), claim.model_dump_json(indent=2) + "\n")

    def drop_claim(self, task_id: str) -> None:
        with self.transaction():
            remove(self._claim_path(task_id))

    # ---- agents

    def get_agent(self, name: str) -> AgentProfile | None:
        return _load(self.folder / "agents" / f"{file_name(name)}.json", AgentProfile)

    def agents(self) -> list[AgentProfile]:
        return [a for path in sorted((self.folder / "agents").glob("*.json")) if (a := _load(path, AgentProfile))]

    def put_agent(self, profile: AgentProfile) -> None:
        with self.transaction():
            write_atomic(self.folder / "agents" / f"{file_name(profile.name)}.json", profile.model_dump_json(indent=2) + "\n")

    # ---- skills and proposals

    def _skill_path(self, name: str) -> Path:
        return self.folder / "skills" / file_name(name) / "SKILL.md"

    def get_skill(self, name: str) -> Skill | None:
        return _load_skill(self._skill_path(name))

    def skills(self) -> list[Skill]:
        return [s for path in sorted((self.folder / "skills").glob("*/SKILL.md")) if (s := _load_skill(path))]

    def put_skill(self, skill: Skill, expected_version: int | None) -> Skill:
        with self.transaction():
            stored = self.get_skill(skill.name)
            check_version(f"skill {skill.name}", stored and stored.version, expected_version)
            write_atomic(self._skill_path(skill.name), skill_markdown(skill))
            return skill

    def drop_skill(self, name: str, expected_version: int) -> None:
        with self.transaction():
            stored = self.get_skill(name)
            check_version(f"skill {name}", stored and stored.version, expected_version)
            path = self._skill_path(name)
            remove(path)
            try:
                path.parent.rmdir()  # the folder, unless the team keeps other files beside SKILL.md
            except OSError:
                pass

    def _proposal_path(self, proposal_id: str) -> Path:
        return self.folder / "proposals" / f"{file_name(proposal_id)}.json"

    def get_proposal(self, proposal_id: str) -> SkillProposal | None:
        return _load(self._proposal_path(proposal_id), SkillProposal)

    def proposals(self, skill: str | None = None) -> list[SkillProposal]:
        found = [p for path in sorted((self.folder / "proposals").glob("*.json")) if (p := _load(path, SkillProposal))]
        return [p for p in found if skill is None or p.skill == skill]

    def put_proposal(self, proposal: SkillProposal, expected_version: int | None) -> SkillProposal:
        with self.transaction():
            stored = self.get_proposal(proposal.id)
            check_version(f"proposal {proposal.id}", stored and stored.version, expected_version)
            write_atomic(self._proposal_path(proposal.id), proposal.model_dump_json(indent=2) + "\n")
            return proposal

    # ---- learned ranking weights

    def _weights_path(self) -> Path:
        return self.folder / traces.WEIGHTS

    def get_weights(self) -> LearnedWeights | None:
        return _load(self._weights_path(), LearnedWeights)

    def put_weights(self, weights: LearnedWeights, expected_version: int | None) -> LearnedWeights:
        with self.transaction():
            stored = self.get_weights()
            check_version("the learned weights", stored and stored.version, expected_version,
                          again="read them and update them")
            write_atomic(self._weights_path(), weights.model_dump_json(indent=2) + "\n")
            return weights

    def drop_weights(self) -> None:
        with self.transaction():
            remove(self._weights_path())

    # ---- event streams

    def _stream_folder(self, stream: Stream) -> Path:
        return self.folder / stream if stream in SHARED_STREAMS else self.folder / "private" / stream

    def append(self, stream: Stream, event: Event) -> None:
        line = event.model_dump_json() + "\n"
        with self.transaction():
            path = self._stream_folder(stream) / f"{file_name(event.agent)}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "a", encoding="utf-8") as handle:  # append only: what is there stays as it is
                handle.write(line)

    def events(self, stream: Stream, agents: Sequence[str] | None = None, since: datetime | None = None) -> list[Event]:
        folder = self._stream_folder(stream)
        paths = ([folder / f"{file_name(a)}.jsonl" for a in agents] if agents is not None
                 else sorted(folder.glob("*.jsonl")))
        tail = SERVED_TAIL_BYTES if stream == "served" else None
        found = [e for path in paths for e in _read_lines(path, tail)
                 if (agents is None or e.agent in agents) and (since is None or e.at >= since)]
        return sorted(found, key=lambda e: e.at)

    def close(self) -> None:
        pass


def _load(path: Path, model: type[BaseModel]):
    try:
        return model.model_validate_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (ValidationError, ValueError, OSError) as exc:
        log.warning("graphctx: skipped %s, which cannot be read (%s); fix or remove it", path, str(exc).splitlines()[0])
        return None


SKILL_FIELDS = ("name", "description", "author", "created", "updated", "version")


def skill_markdown(skill: Skill) -> str:
    """A SKILL.md: the front matter hosts read (name, description) and ours, then the Markdown."""
    front = {"name": skill.name, "description": skill.description, "author": skill.author,
             "created": format_time(skill.created_at), "updated": format_time(skill.updated_at), "version": skill.version}
    dumped = yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=100, default_flow_style=False)
    return f"---\n{dumped}---\n" + (f"\n{skill.body}\n" if skill.body else "")


def parse_skill(text: str, where: str) -> Skill:
    """A skill from its SKILL.md (a file written by hand needs only name and description)."""
    data, body = split_front_matter(text, where)
    created = data.get("created") or data.get("updated") or "1970-01-01T00:00:00Z"
    return Skill(name=str(data.get("name") or ""), description=str(data.get("description") or ""),
                 body=body.strip("\n").rstrip(), author=str(data.get("author") or ""), created_at=created,
                 updated_at=data.get("updated") or created, version=int(data.get("version") or 1))


def _load_skill(path: Path) -> Skill | None:
    try:
        return parse_skill(path.read_text(encoding="utf-8"), str(path))
    except FileNotFoundError:
        return None
    except (GraphctxError, ValidationError, ValueError, OSError) as exc:
        log.warning("graphctx: skipped %s, which cannot be read (%s); fix or remove it", path, str(exc).splitlines()[0])
        return None


def _read_lines(path: Path, tail: int | None) -> list[Event]:
    try:
        with open(path, "rb") as handle:
            if tail is not None:
                size = handle.seek(0, 2)
                handle.seek(max(0, size - tail))
                if size > tail:
                    handle.readline()  # a partial first line
            data = handle.read().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return []
    events = []
    for number, line in enumerate(data.splitlines(), 1):
        if not line.strip() or line.startswith(("<<<<<<<", "=======", ">>>>>>>")):
            continue
        try:
            events.append(Event.model_validate(json.loads(line)))
        except (ValueError, ValidationError):
            log.warning("graphctx: skipped line %d of %s, which is not an event; fix or remove it", number, path)
    return events
