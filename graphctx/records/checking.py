"""The review use cases: `check` (the records that bind code, accepted decisions and conventions,
whose anchored code changed: against the index now, and optionally since a git revision) and the
onboarding overview (conventions, accepted decisions, and the records whose code changed under
them)."""

from __future__ import annotations

from graphctx.records import gitio
from graphctx.records.answers import CheckItem, CheckReport, EntityChange, Overview
from graphctx.records.models import KIND_MODELS
from graphctx.records.presenting import hit
from graphctx.records.repository import Filters
from graphctx.records.staleness import SourceCache, changes_since, verdict
from graphctx.records.workspace import Workspace


class Checker:
    def __init__(self, ws: Workspace):
        self.ws = ws

    def check(self, base_rev: str | None) -> CheckReport:
        repos = self.ws.repos
        repos.refresh()
        candidates = [record for kind, model in KIND_MODELS.items()
                      for record in repos.select(Filters(kind=kind, **model.BINDING))]
        candidates = [r for r in candidates if r.anchors]
        notes = []
        changed_files = gitio.changed_files(self.ws.root, base_rev) if base_rev else set()
        source_code = SourceCache(self.ws.root)
        items = []
        with self.ws.code() as code:
            if not code.available:
                notes.append("no code index: anchors were not compared with the code; run `graphctx index`")
            for record in candidates:
                staleness = verdict(record.anchors, code)
                changes = [EntityChange(entity=a.entity, change=a.state, detail=a.message)
                           for a in staleness.anchors if a.state not in ("fresh", "unknown")]
                if base_rev:
                    seen = {c.entity for c in changes}
                    changes += [c for c in changes_since(base_rev, record.anchors, changed_files, source_code)
                                if c.entity not in seen]
                if changes:
                    items.append((record.weight(), CheckItem(record=hit(record, code, repos), changes=changes)))
        items.sort(key=lambda item: (item[0], item[1].record.id))  # what binds most first, then by id
        return CheckReport(base=base_rev, checked=len(candidates), items=[item for _, item in items],
                           problems=repos.problems(), notes=notes, conflicts=repos.key_conflicts())

    def overview(self, limit: int) -> Overview:
        repos = self.ws.repos
        repos.refresh()
        conventions = repos.select(Filters(kind="knowledge", type="convention"))
        decisions = repos.select(Filters(kind="decision", status="accepted"))
        anchored = [r for r in repos.select(Filters()) if r.anchors]
        with self.ws.code() as code:
            stale = []
            if code.available:
                for record in anchored:
                    found = hit(record, code, repos)
                    if found.staleness and found.staleness.state not in ("fresh", "unbound", "unknown"):
                        stale.append(found)
            counts = {"conventions": len(conventions), "decisions": len(decisions), "stale": len(stale),
                      "records": repos.count(Filters())}
            return Overview(conventions=[hit(r, code, repos) for r in conventions[:limit]],
                            decisions=[hit(r, code, repos) for r in decisions[:limit]],
                            stale=stale[:limit], counts=counts, problems=repos.problems())
