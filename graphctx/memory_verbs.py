"""The team-memory verbs of the one library face: records (remember, decide, recall, revise...) and
their review, hypotheses, host files and merge driver. `Project` inherits them; they reach the
stores only through `self.records`, `self.work` and `self.agent_name`, which Project provides."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any


class MemoryVerbs:
    # ---- reviewing the records (graphctx.coord.review)

    def review_queue(self):
        """What to review now: stale, duplicated and unused records, each with its evidence."""
        return self.work.review.queue(self.records)

    def review_decide(self, item_id: str, decision: str, agent: str | None = None, **options: Any):
        """(the item, what was done) for a decision on one queue item (keep, verify, retract, merge, rewrite)."""
        item = self.work.review.item(self.records, item_id)
        return item, self.work.review.decide(self.records, item, decision, self.agent_name(agent), **options)

    def distill(self, record_ids: list[str], agent: str | None = None, **fields: Any):
        """(synthesis record, retracted ids): several records merged into one that names them."""
        return self.work.review.distill(self.records, record_ids, self.agent_name(agent), **fields)

    def hypotheses(self, status: str | None = None):
        """(synthesis records no hypothesis tests yet, the hypotheses in that status): the hypothesize loop."""
        h = self.work.hypotheses
        return h.candidates(self.records), h.list(self.records, status)

    def hypothesize(self, synthesis_id: str, statement: str, test: str, agent: str | None = None):
        return self.work.hypotheses.write(self.records, synthesis_id, statement, test, self.agent_name(agent))

    def judge(self, hypothesis_id: str, verdict: str, evidence: str, agent: str | None = None):
        return self.work.hypotheses.judge(self.records, hypothesis_id, verdict, evidence, self.agent_name(agent))

    def export_host(self, fmt: str):
        """(path, changed, counts): the team's shared conventions, accepted decisions, key knowledge and
        skills written into the host file of `fmt` (agents-md, claude-md, cursor-rules), in its marked section."""
        from graphctx.coord import hostfiles

        text, counts = hostfiles.section(self.records, [i.skill for i in self.work.skills.list()])
        path, changed = hostfiles.write(self.root, fmt, text)
        return path, changed, counts

    @staticmethod
    def merge_memory_file(base: Path, ours: Path, theirs: Path, path: str) -> int:
        """The git merge driver of the team's memory files (graphctx.coord.sync): 0 merged, 1 conflicts left."""
        from graphctx.coord.sync import run_driver

        return run_driver(base, ours, theirs, path)

    def remember(self, entries: Mapping[str, Any] | Iterable[Mapping[str, Any]] | None = None, **fields: Any):
        return self.records.remember(entries, **fields)

    def decide(self, title: str, decision: str, **fields: Any):
        return self.records.decide(title, decision, **fields)

    def recall(self, query: str = "", **filters: Any):
        return self.records.recall(query, **filters)

    def record(self, record_id: str):
        return self.records.get(record_id)

    def revise(self, record_id: str, version: int, **changes: Any):
        return self.records.revise(record_id, version, **changes)

    def retract(self, record_id: str, version: int, reason: str = ""):
        return self.records.retract(record_id, version, reason)

    def verify(self, record_id: str, **options: Any):
        return self.records.verify(record_id, **options)

    def check(self, base_rev: str | None = None):
        return self.records.check(base_rev)

    def outline(self, record_id: str):
        return self.records.outline(record_id)

    def section(self, record_id: str, heading: str):
        return self.records.section(record_id, heading)

    def tables(self, record_id: str, heading: str | None = None):
        return self.records.tables(record_id, heading)

    def history(self, record_id: str, **options: Any):
        return self.records.history(record_id, **options)

    def conflicts(self, record_ids: Iterable[str] | None = None):
        return self.records.conflicts(record_ids)
