"""The review loop over the team's records: a queue of records that are stale (their anchored code
changed), duplicated (one key held by several records, or near-identical text) or unused (no answer
served them since they were written, for a while), one item at a time with its evidence; each
decision (keep, verify, retract, merge, rewrite) is applied to the records and appended to the review
stream, so the item leaves the queue until its records change again. `distill` merges several
records into one synthesis record that names its originals (refs) and retracts them."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any, Literal

from pydantic import BaseModel, Field

from graphctx.coord.errors import InvalidRequest, NotFound
from graphctx.coord.models import Event, now
from graphctx.coord.repository import WorkRepository

Reason = Literal["stale", "duplicate", "unused"]
DECISIONS: dict[str, tuple[str, ...]] = {  # what each reason may be decided with
    "stale": ("keep", "verify", "retract", "rewrite"),
    "duplicate": ("keep", "merge", "retract"),
    "unused": ("keep", "retract", "rewrite"),
}
STALE_STATES = ("drifted", "contract-changed", "moved", "orphaned")
UNUSED_AFTER = timedelta(days=30)
NEAR_IDENTICAL = 0.8  # word-shingle overlap (Jaccard) above which two records say the same thing
MAX_COMPARED = 600  # records compared for near-identical text (the newest)
SYNTHESIS_TAG = "synthesis"
PAGE = 100


class ReviewItem(BaseModel):
    id: str  # the record id, or dup:<id>+<id>... for duplicates
    reason: Reason
    records: list[str]  # the records it is about (the first is the one kept by default)
    titles: list[str]
    versions: list[int]
    evidence: list[str]
    decisions: list[str]


class ReviewQueue(BaseModel):
    items: list[ReviewItem]
    counts: dict[str, int] = Field(default_factory=dict)
    decided: int = 0  # decisions recorded so far


class Review:
    def __init__(self, repo: WorkRepository):
        self.repo = repo

    # ---- the queue

    def queue(self, records: Any) -> ReviewQueue:
        """Every item to review now, stale first, then duplicates, then unused; an item decided at the
        records' current versions stays out."""
        hits = _all_hits(records)
        kept = self._settled()
        items = [*_stale(hits), *_duplicates(records, hits), *_unused(hits, self._served_records())]
        items = [i for i in items if (i.id, tuple(i.versions)) not in kept]
        counts = {reason: sum(1 for i in items if i.reason == reason) for reason in DECISIONS}
        return ReviewQueue(items=items, counts=counts,
                           decided=sum(1 for e in self.repo.events("review") if e.kind == "decided"))

    def item(self, records: Any, item_id: str) -> ReviewItem:
        queue = self.queue(records)
        for item in queue.items:
            if item.id == item_id or (item_id in item.records and item.reason != "duplicate"):
                return item
        raise NotFound(f"{item_id} is not in the review queue (decided already, or nothing to review); "
                       f"review next shows the next item" + (f", such as {queue.items[0].id}" if queue.items else ""))

    def _served_records(self) -> set[str]:
        """The records any answer noted in this clone carried (answers are noted for feedback)."""
        return {entity_id for e in self.repo.events("feedback") if e.kind == "answer"
                for entity_id, relation in e.data.get("items", []) if relation == "record"}

    def _settled(self) -> set[tuple[str, tuple[int, ...]]]:
        """(item id, the record versions after the decision) of every decision recorded."""
        return {(e.subject, tuple(e.data.get("versions_after", []))) for e in self.repo.events("review")
                if e.kind == "decided"}

    # ---- deciding

    def decide(self, records: Any, item: ReviewItem, decision: str, agent: str, *, reason: str = "",
               into: str | None = None, title: str | None = None, body: str | None = None) -> list[str]:
        """Apply a decision to the item's records; returns what was done, a line each."""
        if decision not in item.decisions:
            raise InvalidRequest(f"a {item.reason} item is decided with {', '.join(item.decisions)}; got {decision!r}")
        if (title or body) and decision != "rewrite" and decision != "merge":
            raise InvalidRequest("title and body are for decision=rewrite (or the merged record of decision=merge)")
        done: list[str] = []
        reason = " ".join(reason.split())
        if decision == "keep":
            done.append(f"kept {', '.join(item.records)}")
        elif decision == "verify":
            result = records.verify(item.records[0], version=item.versions[0])
            done.append(f"verified {result.record.id} (v{result.record.version}): its anchors are stamped anew")
        elif decision == "retract":
            for record_id, version in zip(item.records, item.versions):
                records.retract(record_id, version, reason or f"retracted in review ({item.reason})")
                done.append(f"retracted {record_id}")
        elif decision == "rewrite":
            if not (title or body):
                raise InvalidRequest("decision=rewrite needs the new title or body (a decision's text as body)")
            record = records.get(item.records[0])
            field = "body" if record.kind == "knowledge" else "decision"
            changes = {k: v for k, v in (("title", title), (field, body)) if v}
            result = records.revise(record.id, item.versions[0], **changes)
            done.append(f"rewrote {result.record.id} (v{result.record.version})")
        else:  # merge
            keep = into or item.records[0]
            if keep not in item.records:
                raise InvalidRequest(f"into names the record kept: one of {', '.join(item.records)}")
            others = [r for r in item.records if r != keep]
            kept = records.get(keep)
            changes: dict[str, Any] = {"refs": list(dict.fromkeys([*getattr(kept, "refs", []), *others]))}
            changes |= {k: v for k, v in (("title", title), ("body", body)) if v}
            result = records.revise(keep, item.versions[item.records.index(keep)], **changes)
            for record_id in others:
                records.retract(record_id, item.versions[item.records.index(record_id)], f"merged into {keep}")
            done.append(f"merged {', '.join(others)} into {result.record.id} (v{result.record.version})")
        after = [_version_now(records, record_id) for record_id in item.records]
        self.repo.append("review", Event(kind="decided", subject=item.id, agent=agent, at=now(), data={
            "reason": item.reason, "decision": decision, "records": item.records, "versions": item.versions,
            "versions_after": after, "note": reason, "done": done}))
        return done

    def distill(self, records: Any, record_ids: list[str], agent: str, *, title: str, body: str,
                category: str | None = None, type: str | None = None) -> tuple[Any, list[str]]:
        """One synthesis record from several: it names them in refs and carries their anchors and tags;
        they are retracted, pointing at it. Returns the new record and the retracted ids."""
        ids = list(dict.fromkeys(record_ids))
        if len(ids) < 2:
            raise InvalidRequest("distill merges two or more records: give their ids")
        if not title.strip() or not body.strip():
            raise InvalidRequest("distill needs the synthesis's title and body (what the records say together)")
        originals = [records.get(record_id) for record_id in ids]
        gone = [r for r in originals if r.retracted]
        if gone:
            raise InvalidRequest(f"{gone[0].id} is retracted already; distill live records")
        knowledge = [r for r in originals if r.kind == "knowledge"]
        types = {r.type for r in knowledge}
        anchors = list(dict.fromkeys(a.entity for r in originals for a in r.anchors))
        tags = list(dict.fromkeys([SYNTHESIS_TAG, *(t for r in originals for t in r.tags)]))
        written = records.remember(
            title=title, body=body, type=type or (types.pop() if len(types) == 1 else "note"),
            category=category or (knowledge[0].category if knowledge else "general"), tags=tags, refs=ids,
            anchors=anchors, author=agent)[0].record
        for record in originals:
            records.retract(record.id, record.version, f"distilled into {written.id}")
        self.repo.append("review", Event(kind="distilled", subject=written.id, agent=agent, at=now(),
                                         data={"records": ids}))
        return written, ids

    def decisions(self, limit: int = 50) -> list[Event]:
        return self.repo.events("review")[-limit:]


# ---- finding the items


def _all_hits(records: Any) -> list[Any]:
    hits, cursor = [], None
    while True:
        page = records.recall("", sort="recent", limit=PAGE, cursor=cursor)
        hits += page.hits
        cursor = page.next_cursor
        if not cursor:
            return hits


def _item(reason: Reason, item_id: str, hits: list[Any], evidence: list[str]) -> ReviewItem:
    return ReviewItem(id=item_id, reason=reason, records=[h.id for h in hits], titles=[h.title for h in hits],
                      versions=[h.version for h in hits], evidence=evidence, decisions=list(DECISIONS[reason]))


def _stale(hits: list[Any]) -> list[ReviewItem]:
    found = [h for h in hits if h.staleness is not None and h.staleness.state in STALE_STATES]
    items = []
    for h in found:
        anchors = [f"anchor {a.entity}: {a.state}" + (f" (now at {', '.join(a.candidates[:3])})" if a.candidates else "")
                   for a in h.staleness.anchors if a.state != "fresh"]
        items.append(_item("stale", h.id, [h], [f"{h.staleness.state}: {h.staleness.message}", *anchors][:6]))
    return items


def _duplicates(records: Any, hits: list[Any]) -> list[ReviewItem]:
    by_id = {h.id: h for h in hits}
    groups: list[list[str]] = []
    evidence: dict[tuple[str, ...], str] = {}
    for conflict in records.conflicts():
        ids = [i for i in conflict.ids if i in by_id]
        if len(ids) > 1:
            groups.append(ids)
            evidence[tuple(ids)] = f"same key: {conflict.scope} {conflict.category} key={conflict.key}"
    grouped = {i for g in groups for i in g}
    texts = {}
    for hit in [h for h in hits if h.id not in grouped][:MAX_COMPARED]:
        record = records.get(hit.id)
        body = record.markdown()
        # The body says what a record holds; a short one is compared with its title.
        texts[hit.id] = (record.kind, _shingles(body if len(body.split()) >= 8 else f"{record.title} {body}"))
    ids = list(texts)
    for n, first in enumerate(ids):
        if first in grouped:
            continue
        kind, words = texts[first]
        same = [other for other in ids[n + 1:] if other not in grouped and texts[other][0] == kind
                and _overlap(words, texts[other][1]) >= NEAR_IDENTICAL]
        if same:
            group = sorted([first, *same], key=lambda i: (by_id[i].updated, i))
            groups.append(group)
            grouped.update(group)
            share = min(_overlap(words, texts[o][1]) for o in same)
            evidence[tuple(group)] = f"near-identical text: {share:.0%} of their word triples are shared"
    items = []
    for group in groups:
        ordered = sorted(group, key=lambda i: (by_id[i].updated, i))
        items.append(_item("duplicate", "dup:" + "+".join(ordered), [by_id[i] for i in ordered],
                           [evidence[tuple(group)], *(f"{i}: {by_id[i].title}" for i in ordered)]))
    return items


def _unused(hits: list[Any], served: set[str]) -> list[ReviewItem]:
    old = now() - UNUSED_AFTER
    found = [h for h in hits if h.updated < old and h.id not in served]
    return [_item("unused", h.id, [h], [f"no answer served it since it was last written, "
                                        f"{(now() - h.updated).days} days ago"]) for h in found]


def _shingles(text: str) -> set[tuple[str, ...]]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {tuple(words[i:i + 3]) for i in range(max(1, len(words) - 2))}


def _overlap(a: set, b: set) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _version_now(records: Any, record_id: str) -> int:
    try:
        return records.get(record_id).version
    except NotFound:  # a purged record has no version
        return 0
