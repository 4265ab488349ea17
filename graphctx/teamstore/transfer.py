"""`graphctx store import|export`: copy a repository's records and coordination (tasks, claims, agents,
skills and their proposals, the learned weights, the event streams) between its
`.graphctx/` files and its project in the team store, either way, without losing or doubling
anything when run again. A record or task the target already has at the same or a later version is
kept; an older one is replaced. Events already in the target are not appended twice; claims and
agent profiles are copied as they are (a later profile wins); skills, proposals and weights go by
version like tasks (`skills` counts skills and proposals)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graphctx.coord.files import FileWorkRepository
from graphctx.coord.models import STREAMS
from graphctx.records.file_repository import FileRepository
from graphctx.records.repository import Filters
from graphctx.teamstore.storage import ProjectStorage

DIRECTIONS = ("into-store", "out-of-store")


def transfer(root: Path, storage: ProjectStorage, direction: str) -> dict[str, int]:
    files_work, files_records = FileWorkRepository(root), FileRepository(root)
    store_work = storage.work_repository()
    store_records = storage.record_repositories(holds_ephemeral=False)["shared"]
    try:
        if direction == "into-store":
            return copy(files_work, files_records, store_work, store_records)
        if direction == "out-of-store":
            return copy(store_work, store_records, files_work, files_records)
        raise ValueError(f"direction is one of {DIRECTIONS}; got {direction!r}")
    finally:
        for opened in (files_work, files_records, store_work, store_records):
            opened.close()


def copy(source_work: Any, source_records: Any, target_work: Any, target_records: Any) -> dict[str, int]:
    counts = dict.fromkeys(("records", "tasks", "claims", "agents", "skills", "weights", "events"), 0)
    source_records.refresh()
    for hit in source_records.search(Filters(include_retracted=True), "", "recent", None):
        record = source_records.get(hit.record.id) or hit.record
        with target_records.transaction():
            there = target_records.get(record.id)
            if there is not None and there.version >= record.version:
                continue
            target_records.put(record, None if there is None else there.version)
        counts["records"] += 1
    with target_work.transaction():
        for task in source_work.tasks():
            there = target_work.get_task(task.id)
            if there is None or there.version < task.version:
                target_work.put_task(task, None if there is None else there.version)
                counts["tasks"] += 1
        for claim in source_work.claims():
            if target_work.get_claim(claim.task_id) != claim:
                target_work.put_claim(claim)
                counts["claims"] += 1
        for profile in source_work.agents():
            there = target_work.get_agent(profile.name)
            if there is None or there.updated_at < profile.updated_at:
                target_work.put_agent(profile)
                counts["agents"] += 1
        for skill in source_work.skills():
            there = target_work.get_skill(skill.name)
            if there is None or there.version < skill.version:
                target_work.put_skill(skill, None if there is None else there.version)
                counts["skills"] += 1
        for proposal in source_work.proposals():
            there = target_work.get_proposal(proposal.id)
            if there is None or there.version < proposal.version:
                target_work.put_proposal(proposal, None if there is None else there.version)
                counts["skills"] += 1
        weights, there = source_work.get_weights(), target_work.get_weights()
        if weights is not None and (there is None or there.version < weights.version):
            target_work.put_weights(weights, None if there is None else there.version)
            counts["weights"] += 1
        for stream in STREAMS:
            present = {event.model_dump_json() for event in target_work.events(stream)}
            for event in source_work.events(stream):
                if event.model_dump_json() not in present:
                    target_work.append(stream, event)
                    counts["events"] += 1
    return counts
