"""Staleness: how a record's anchors compare with the code as it is now (through the index's
CodeFacts), computed on read and never used to hide a record; and, for `check --base`, the anchored
entities whose code changed since a git revision, both sides parsed from source."""

from __future__ import annotations

from pathlib import Path

from graphctx.index.codefacts import CodeEntity, CodeFacts
from graphctx.layout import entity_path
from graphctx.index.root import Boundary
from graphctx.records import gitio
from graphctx.records.anchors import Anchor, AnchorStatus, Staleness
from graphctx.records.answers import EntityChange

# A record's verdict is its worst anchor's.
SEVERITY = {"fresh": 0, "moved": 1, "drifted": 2, "contract-changed": 3, "orphaned": 4, "unknown": 5}


def entity_file(entity_id: str) -> str:
    """The file an entity id lives in: ids are `path::Qualified.name`, a file's id is its path."""
    return entity_path(entity_id)


def anchor_status(anchor: Anchor, code: CodeFacts, current: CodeEntity | None) -> AnchorStatus:
    """One anchor against the code now (`current`: its entity as the index has it, if it exists):
    fresh, drifted, contract-changed, moved, orphaned or unknown."""
    name = anchor.entity
    if not code.available:
        return AnchorStatus(entity=name, state="unknown",
                            message="no code index to compare with; run `graphctx index` first")
    if current is not None:
        if anchor.sig_hash and current.sig_hash != anchor.sig_hash:
            return AnchorStatus(entity=name, state="contract-changed",
                                message=f"the signature of {name} changed since the record was written;"
                                        " check the record against the new contract, then verify it")
        if anchor.body_hash and current.body_hash != anchor.body_hash:
            return AnchorStatus(entity=name, state="drifted",
                                message=f"the code of {name} changed since the record was written;"
                                        " re-read it, then verify the record (or revise it)")
        return AnchorStatus(entity=name, state="fresh", message=f"{name} is unchanged")
    moved = rank_moves(name, code.same_body(anchor.body_hash, name))
    if moved:
        where = moved[0]
        return AnchorStatus(entity=name, state="moved", candidates=moved,
                            message=f"{name} is gone but the same code is now {where}; verify re-anchors the record"
                                    " to it")
    return AnchorStatus(entity=name, state="orphaned",
                        message=f"{name} is gone and its code was not found elsewhere; revise the record's anchors"
                                " or retract it")


def rank_moves(old_id: str, found: list[CodeEntity]) -> list[str]:
    """Moved-to candidates, those keeping the old name first (a moved function more likely than a twin)."""
    old_name = old_id.rsplit("::", 1)[-1].rsplit(".", 1)[-1]
    ranked = sorted(found, key=lambda e: (e.name != old_name and e.kind != "file", e.id))
    return [e.id for e in ranked]


def verdict(anchors: list[Anchor], code: CodeFacts) -> Staleness:
    """A record's staleness: 'unbound' without anchors, else its worst anchor's state."""
    if not anchors:
        return Staleness(state="unbound", message="the record is not anchored to any code", generation=code.generation)
    current = code.entities(a.entity for a in anchors)
    statuses = [anchor_status(anchor, code, current.get(anchor.entity)) for anchor in anchors]
    worst = max(statuses, key=lambda s: SEVERITY[s.state])
    if worst.state == "fresh":
        message = "all anchored code is unchanged" if len(statuses) > 1 else worst.message
    else:
        others = sum(1 for s in statuses if s.state != "fresh") - 1
        message = worst.message + (f" (and {others} more anchor(s) not fresh)" if others > 0 else "")
    return Staleness(state=worst.state, message=message, anchors=statuses, generation=code.generation)


# ---- changes since a git revision, for check --base


class SourceCache:
    """File contents and parsed definitions at a revision (None: the working tree), read once each."""

    def __init__(self, root: Path):
        self.root = root
        self._bytes: dict[tuple[str, str], bytes | None] = {}
        self._defs: dict[tuple[str, str], dict[str, tuple[str, str]] | None] = {}

    def source(self, rev: str | None, path: str) -> bytes | None:
        key = (rev or "", path)
        if key not in self._bytes:
            if rev is None:
                try:
                    self._bytes[key] = Boundary(self.root).read_bytes(path)
                except OSError:  # missing, unreadable, or a link out of the repository
                    self._bytes[key] = None
            else:
                self._bytes[key] = gitio.show(self.root, rev, path)
        return self._bytes[key]

    def definitions(self, rev: str | None, path: str) -> dict[str, tuple[str, str]] | None:
        """qualified name -> (sig_hash, body_hash); {} for an absent file, None when not parsed."""
        key = (rev or "", path)
        if key not in self._defs:
            self._defs[key] = self._parse(path, self.source(rev, path))
        return self._defs[key]

    @staticmethod
    def _parse(path: str, data: bytes | None) -> dict[str, tuple[str, str]] | None:
        if data is None:
            return {}
        # Imported here: only check --base parses code, and the parsers are heavy to load.
        from graphctx.parse.extract import extract
        from graphctx.parse.languages import language_for_path

        spec = language_for_path(path)
        if spec is None:
            return None
        try:
            facts = extract(path, spec.name, data)
        except (RecursionError, ValueError, RuntimeError):
            return None
        found: dict[str, tuple[str, str]] = {}
        for d in facts.definitions:
            found.setdefault(d.qualified_name, (d.sig_hash, d.body_hash))  # the first definition names it
        return found


def changes_since(base: str, anchors: list[Anchor], changed: set[str], sources: SourceCache) -> list[EntityChange]:
    """The anchored entities whose code differs between `base` and the working tree. Both sides are
    parsed from source, so the answer does not depend on how fresh the index is."""
    out: list[EntityChange] = []
    for anchor in anchors:
        path = entity_file(anchor.entity)
        if path not in changed or sources.source(base, path) is None:
            continue  # unchanged, or a file added since base: nothing under the record changed
        qualified = anchor.entity.split("::", 1)[1] if "::" in anchor.entity else None
        before = sources.definitions(base, path)
        after = sources.definitions(None, path)
        if qualified is None or before is None or after is None:
            out.append(EntityChange(entity=anchor.entity, change="file-changed", detail=f"{path} changed since {base}"))
            continue
        old, new = before.get(qualified), after.get(qualified)
        if old is None:
            continue  # the entity was added since base
        if new is None:
            out.append(EntityChange(entity=anchor.entity, change="removed", detail=f"removed since {base}"))
        elif new[0] != old[0]:
            out.append(EntityChange(entity=anchor.entity, change="signature", detail=f"signature changed since {base}"))
        elif new[1] != old[1]:
            out.append(EntityChange(entity=anchor.entity, change="body", detail=f"body changed since {base}"))
    return out
