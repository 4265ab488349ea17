"""The hypothesize loop, run only when someone asks for it: each synthesis record (what `distill`
wrote) that no hypothesis tests yet is a candidate; a hypothesis is a knowledge record of type
`hypothesis` stating one falsifiable claim drawn from it, how to test it, and its evidence, with a
status (open, confirmed, refuted) kept as its `status-...` tag; judging it appends the evidence and
moves the status. Each step is appended to the review stream."""

from __future__ import annotations

from typing import Any

from graphctx.coord.errors import InvalidRequest
from graphctx.coord.models import Event, now
from graphctx.coord.repository import WorkRepository
from graphctx.coord.review import SYNTHESIS_TAG

HYPOTHESIS = "hypothesis"
STATUSES: tuple[str, ...] = ("open", "confirmed", "refuted")
VERDICTS: tuple[str, ...] = ("confirmed", "refuted")
EVIDENCE_HEADING = "## Evidence"
PAGE = 100


def status_of(record: Any) -> str:
    return next((t.removeprefix("status-") for t in record.tags if t.startswith("status-")), "open")


class Hypotheses:
    def __init__(self, repo: WorkRepository):
        self.repo = repo

    def candidates(self, records: Any) -> list[Any]:
        """Synthesis records no hypothesis refers to yet, oldest first."""
        tested = {ref for h in self.list(records) for ref in records.get(h.id).refs}
        return [h for h in _hits(records, tags=[SYNTHESIS_TAG]) if h.id not in tested]

    def list(self, records: Any, status: str | None = None) -> list[Any]:
        if status is not None and status not in STATUSES:
            raise InvalidRequest(f"a hypothesis is open, confirmed or refuted; got {status!r}")
        found = _hits(records, type=HYPOTHESIS)
        return [h for h in found if status is None or f"status-{status}" in h.tags
                or (status == "open" and not any(t.startswith("status-") for t in h.tags))]

    def write(self, records: Any, synthesis_id: str, statement: str, test: str, agent: str) -> Any:
        synthesis = records.get(synthesis_id)
        if synthesis.retracted or SYNTHESIS_TAG not in synthesis.tags:
            raise InvalidRequest(f"{synthesis.id} is not a live synthesis record; hypotheses come from what distill "
                                 "wrote (review hypotheses lists them)")
        if not statement.strip() or not test.strip():
            raise InvalidRequest("a hypothesis needs its statement (one falsifiable claim) and how to test it")
        body = f"{statement.strip()}\n\n## How to test\n\n{test.strip()}\n\n{EVIDENCE_HEADING}\n\n(none yet)"
        written = records.remember(
            title=statement, body=body, type=HYPOTHESIS, category=getattr(synthesis, "category", "general"),
            tags=[HYPOTHESIS, "status-open"], refs=[synthesis.id], anchors=[a.entity for a in synthesis.anchors],
            author=agent)[0].record
        self.repo.append("review", Event(kind="hypothesized", subject=written.id, agent=agent, at=now(),
                                         data={"from": synthesis.id}))
        return written

    def judge(self, records: Any, hypothesis_id: str, verdict: str, evidence: str, agent: str) -> Any:
        if verdict not in VERDICTS:
            raise InvalidRequest(f"a verdict is confirmed or refuted; got {verdict!r}")
        if not evidence.strip():
            raise InvalidRequest("a verdict needs its evidence: what was observed, and where")
        record = records.get(hypothesis_id)
        if record.kind != "knowledge" or record.type != HYPOTHESIS:
            raise InvalidRequest(f"{record.id} is not a hypothesis; review hypotheses lists them")
        body = record.body.replace(f"{EVIDENCE_HEADING}\n\n(none yet)", EVIDENCE_HEADING)
        if EVIDENCE_HEADING not in body:
            body += f"\n\n{EVIDENCE_HEADING}"
        body += f"\n\n- {now():%Y-%m-%d} {agent}: {verdict}: {' '.join(evidence.split())}"
        tags = [t for t in record.tags if not t.startswith("status-")] + [f"status-{verdict}"]
        revised = records.revise(record.id, record.version, body=body, tags=tags,
                                 confidence=1.0 if verdict == "confirmed" else 0.0).record
        self.repo.append("review", Event(kind="judged", subject=record.id, agent=agent, at=now(),
                                         data={"verdict": verdict, "evidence": evidence.strip()}))
        return revised


def _hits(records: Any, **filters: Any) -> list[Any]:
    hits, cursor = [], None
    while True:
        page = records.recall("", sort="recent", limit=PAGE, cursor=cursor, **filters)
        hits += page.hits
        cursor = page.next_cursor
        if not cursor:
            return sorted(hits, key=lambda h: h.id)
