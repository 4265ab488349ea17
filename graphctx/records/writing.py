"""The write use cases: remember (knowledge, keyed upserts included), decide (with superseding),
revise, retract and verify. Each validates everything before it writes, holds the transactions of
the repositories it touches while it reads, checks and writes, names the version it replaces, and
answers with the records as read (staleness, derived status)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from graphctx.errors import quote
from graphctx.records import ids, keys
from graphctx.records.anchoring import AnchorInput, AnchorResolver, code_of, keep_stamps
from graphctx.records.answers import WriteResult
from graphctx.records.errors import InvalidRecord, RecordError, RecordNotFound, StaleVersion, validation_message
from graphctx.records.models import Decision, Knowledge, Record, RecordBase
from graphctx.records.presenting import present, results
from graphctx.records.repository import RecordRepository
from graphctx.records.vocabulary import SCOPES, now, one_of
from graphctx.records.workspace import Workspace

# How widely a scope is seen; a record may only supersede records seen at most as widely.
SCOPE_REACH = {"shared": 0, "private": 1, "ephemeral": 2}
# Fields whose change is not a change of content (an upsert with the same content writes nothing).
_BOOKKEEPING = {"updated", "version", "created", "path", "staleness", "superseded_by"}

Done = tuple[str, Record, list[str]]  # (action, the record written, other records the write changed)


class Writer:
    def __init__(self, ws: Workspace):
        self.ws = ws

    # ---- the use cases

    def remember(self, entries: Any, scope: str, author: str | None, fields: dict[str, Any]) -> list[WriteResult]:
        drafts = _drafts(entries, fields)
        if not drafts:
            raise InvalidRecord("nothing to remember: give a title (or a key) and a body, or a list of entries")
        with self.ws.code() as code:
            anchors = self.ws.anchors(code)
            prepared = [self._prepare_knowledge(i, draft, scope, author, anchors) for i, draft in enumerate(drafts, 1)]
        with self.ws.repos.transaction(self.ws.repos.of(entry_scope) for entry_scope, _, _ in prepared):
            done = [self._upsert_knowledge(*entry) for entry in prepared]
        return self._results(done)

    def decide(self, fields: dict[str, Any], anchors: Iterable[AnchorInput], scope: str) -> WriteResult:
        scope = self.ws.write_scope(scope)
        record = _validate(Decision, dict(fields, id=ids.new_id(), scope=scope), "decision")
        with self.ws.code() as code:
            new_anchors = [a for a, _ in self.ws.anchors(code).resolve(anchors)]
        # What it supersedes may be kept anywhere: hold every repository.
        with self.ws.repos.transaction(self.ws.repos.all):
            targets = [self._supersede_target(record, target) for target in record.replaces()]
            stamp_time = now()
            record = record.model_copy(update=dict(anchors=new_anchors, created=stamp_time, updated=stamp_time))
            record = self._save(record, None)
            changed = self._retire(record, targets)
        return self._results([("created", record, changed)])[0]

    def revise(self, record_id: str, version: int, changes: dict[str, Any]) -> WriteResult:
        if not changes:
            raise InvalidRecord("nothing to revise: pass the fields to change, e.g. revise(id, version, title=...)")
        with self.ws.code() as code:
            anchors = self.ws.anchors(code)
            with self.ws.repos.transaction(self._touched(record_id, changes.get("scope"))):
                current = self._current(record_id)
                self._check_version(current, version)
                allowed = type(current).WRITABLE
                unknown = sorted(set(changes) - set(allowed) - {"scope", "retracted"})
                if unknown:
                    raise InvalidRecord(f"{current.kind} records have no field {', '.join(map(quote, unknown))};"
                                        f" you can revise {', '.join(allowed)}, scope and retracted")
                update = dict(changes)
                if "anchors" in update:
                    update["anchors"] = keep_stamps(current.anchors, anchors.resolve(update["anchors"]))
                if "retracted" in update:
                    retract = bool(update.pop("retracted"))
                    update["retracted_at"] = (current.retracted_at or now()) if retract else None
                    if not retract:
                        update["retracted_reason"] = ""
                if "scope" in update:
                    update["scope"] = self.ws.write_scope(update["scope"])
                revised = _validate(type(current), {**current.model_dump(), **update}, current.kind)
                self._check_key_free(revised, current)
                targets = self._targets(revised, current)
                if _content(revised) == _content(current):
                    return self._results([("unchanged", current, [])])[0]
                revised = revised.model_copy(update=dict(version=current.version + 1, updated=now()))
                revised = self._save(revised, current)
                changed = self._retire(revised, targets)
        return self._results([("updated", revised, changed)])[0]

    def retract(self, record_id: str, version: int, reason: str, purge: bool) -> WriteResult:
        with self.ws.repos.transaction(self._touched(record_id, None)):
            current = self._current(record_id)
            self._check_version(current, version)
            if purge:
                self._repository(current).delete(current.id, current.version)
                return self._results([("deleted", current, [])])[0]
            reason = " ".join(reason.split())
            if current.retracted and current.retracted_reason == reason:
                return self._results([("unchanged", current, [])])[0]
            retracted = current.model_copy(update=dict(
                retracted_at=current.retracted_at or now(), retracted_reason=reason,
                version=current.version + 1, updated=now()))
            retracted = self._save(retracted, current)
        return self._results([("retracted", retracted, [])])[0]

    def verify(self, record_id: str, version: int | None, entities: Iterable[str] | None,
               follow_moves: bool) -> WriteResult:
        with self.ws.code() as code:
            if not code.available:
                raise RecordError("there is no code index to verify against; run `graphctx index` first")
            anchors = self.ws.anchors(code)
            with self.ws.repos.transaction(self._touched(record_id, None)):
                current = self._current(record_id)
                if version is not None:
                    self._check_version(current, version)
                only = set(entities) if entities is not None else None
                if only is not None and (missing := only - {a.entity for a in current.anchors}):
                    raise InvalidRecord(f"record {current.id} is not anchored to {', '.join(sorted(missing))}",
                                        [a.entity for a in current.anchors])
                restamped = [anchors.restamp(a, follow_moves) if only is None or a.entity in only else a
                             for a in current.anchors]
                restamped = list({a.entity: a for a in restamped}.values())  # two anchors may follow to one place
                # Same code as stamped: a new generation alone is no reason for a write.
                if [code_of(a) for a in restamped] == [code_of(a) for a in current.anchors]:
                    return self._results([("unchanged", current, [])])[0]
                verified = current.model_copy(update=dict(anchors=restamped, version=current.version + 1,
                                                          updated=now()))
                verified = self._save(verified, current)
        return self._results([("updated", verified, [])])[0]

    # ---- knowledge entries

    def _prepare_knowledge(self, number: int, draft: Mapping[str, Any], scope: str, author: str | None,
                           anchors: AnchorResolver) -> tuple[str, dict[str, Any], list | None]:
        """Check one remember entry before anything is written: (scope, given fields, stamped anchors)."""
        draft = dict(draft)
        entry_scope = self.ws.write_scope(draft.pop("scope", None) or scope)
        unknown = sorted(set(draft) - set(Knowledge.WRITABLE))
        if unknown:
            raise InvalidRecord(f"entry {number}: knowledge has no field {', '.join(map(quote, unknown))};"
                                f" use {', '.join(Knowledge.WRITABLE)} (and scope)")
        given_anchors = draft.pop("anchors", None)
        if not draft.get("author"):
            draft["author"] = author or self.ws.author
        probe = {"title": "(kept)", **draft, "id": "probe"}
        try:
            checked = Knowledge.model_validate(probe)
        except ValidationError as exc:
            raise InvalidRecord(f"entry {number}: {validation_message(exc)}") from None
        given = {name: getattr(checked, name) for name in draft}
        if "title" not in given and not checked.key:
            raise InvalidRecord(f"entry {number}: a new record needs a title, or a key (its title is then"
                                " taken from the key)")
        stamped = anchors.resolve(given_anchors) if given_anchors is not None else None
        return entry_scope, given, stamped

    def _upsert_knowledge(self, scope: str, given: dict[str, Any], anchors: list | None) -> Done:
        existing_id = None
        if given.get("key"):
            category = given.get("category", "general")
            holders = self.ws.repos.of(scope).find_key(scope, category, given["key"])
            existing_id = keys.record_to_update(holders, scope, category, given["key"])
        if existing_id is None:
            stamp_time = now()
            title = given.get("title") or keys.title_from_key(given["key"])
            record = Knowledge.model_validate({**given, "title": title, "id": ids.new_id(), "scope": scope,
                                               "anchors": [a for a, _ in anchors or []],
                                               "created": stamp_time, "updated": stamp_time})
            return "created", self._save(record, None), []
        current = self._current(existing_id)
        update = dict(given)
        if anchors is not None:
            update["anchors"] = keep_stamps(current.anchors, anchors)
        revised = _validate(Knowledge, {**current.model_dump(), **update, "retracted_at": None,
                                        "retracted_reason": ""}, "knowledge")
        if _content(revised) == _content(current):
            return "unchanged", current, []
        revised = revised.model_copy(update=dict(version=current.version + 1, updated=now()))
        return "updated", self._save(revised, current), []

    def _check_key_free(self, record: Record, current: Record) -> None:
        """Refuse a revision that would make a second live holder of a key. One that leaves the record's
        key where it was passes, so the records of a merge conflict can still be edited and retracted."""
        slot = record.key_slot()
        if slot is None or record.retracted:
            return
        if not current.retracted and current.key_slot() == slot:
            return
        holders = self.ws.repos.of(record.scope).find_key(*slot)
        others = [h.id for h in holders if h.id != record.id and not h.retracted]
        if others:
            raise InvalidRecord(f"key {quote(slot[2])} in category {quote(slot[1])} already belongs to record"
                                f" {others[0]}; revise that record, or choose another key")

    # ---- superseding

    def _supersede_target(self, record: Record, target_id: str) -> Record:
        if target_id == record.id:
            raise InvalidRecord(f"{record.kind} {record.id} cannot supersede itself")
        try:
            target = self._current(target_id)
        except RecordNotFound as exc:
            raise RecordNotFound(f"cannot supersede {target_id}: {exc.message}", exc.suggestions) from None
        if not target.SUPERSEDABLE:
            raise InvalidRecord(f"cannot supersede {target_id}: it is a {target.kind} record; only {record.kind}s"
                                f" supersede {record.kind}s (retract or revise the {target.kind} instead)")
        if SCOPE_REACH[record.scope] > SCOPE_REACH[target.scope]:
            raise InvalidRecord(f"a {record.scope} {record.kind} cannot supersede the {target.scope} {target.kind}"
                                f" {target.id}: people who see that one would not see this one;"
                                f" use scope={quote(target.scope)}")
        return target

    def _targets(self, revised: Record, current: Record) -> list[Record]:
        """The records a revised record supersedes: new ones checked (they must exist, be supersedable
        and be seen at least as widely); ones listed before and gone since are skipped."""
        targets = []
        for target in revised.replaces():
            if target not in current.replaces():
                targets.append(self._supersede_target(revised, target))
                continue
            found = self.ws.repos.find(target)
            if found is not None and found[1].SUPERSEDABLE:
                targets.append(found[1])
        return targets

    def _retire(self, record: Record, targets: list[Record]) -> list[str]:
        """Mark what an enacted record supersedes as superseded (in the same transaction)."""
        if not record.enacted or record.retracted:
            return []
        changed = []
        for target in targets:
            current = self._current(target.id)
            retired = current.retired()
            if retired is not None:
                self._save(retired.model_copy(update=dict(version=current.version + 1, updated=now())), current)
                changed.append(current.id)
        return changed

    # ---- storage

    def _current(self, record_id: str) -> Record:
        """The record as stored now (inside a transaction, nobody changes it under us)."""
        return self.ws.holder(record_id)[1]

    def _repository(self, record: Record) -> RecordRepository:
        return self.ws.repos.of(record.scope)

    def _touched(self, record_id: str, new_scope: Any) -> list[RecordRepository]:
        """The repositories a write to this record may change: its own, and the one of a new scope."""
        touched = [self.ws.holder(record_id)[0]]
        try:
            scope = one_of(new_scope, SCOPES, "scope") if new_scope is not None else None
        except ValueError:
            scope = None  # refused later, in order with the other checks
        if scope is not None and self.ws.repos.holds(scope):
            touched.append(self.ws.repos.of(scope))
        return touched

    def _save(self, record: Record, previous: Record | None) -> Record:
        """Store a record in its scope's repository, replacing `previous` (moving it when its scope changed)."""
        target = self._repository(record)
        try:
            if previous is None:
                return target.put(record, None)
            source = self._repository(previous)
            if source is target:
                return target.put(record, previous.version)
            stored = target.put(record, None)
            source.delete(previous.id, previous.version)
            return stored
        except StaleVersion as exc:  # a writer got in first: refuse with the record as it is now
            with self.ws.code() as code:
                raise StaleVersion(exc.current.id, exc.given, present(exc.current, code, self.ws.repos)) from None

    def _check_version(self, current: Record, version: Any) -> None:
        try:
            given = int(version)
        except (TypeError, ValueError):
            raise InvalidRecord(f"version {quote(version)} is not a number: pass the version of the record you read") from None
        if given != current.version:
            with self.ws.code() as code:
                raise StaleVersion(current.id, given, present(current, code, self.ws.repos))

    def _results(self, done: list[Done]) -> list[WriteResult]:
        with self.ws.code() as code:
            return results(done, code, self.ws.repos)


# ---- input


def _drafts(entries: Any, fields: dict[str, Any]) -> list[dict[str, Any]]:
    if entries is None:
        return [fields] if fields else []
    if fields:
        raise InvalidRecord("give either a list of entries or one record's fields as keywords, not both")
    if isinstance(entries, (RecordBase, Mapping)):
        entries = [entries]
    out = []
    for entry in entries:
        if isinstance(entry, RecordBase):  # a record: what its kind lets a caller write (knowledge takes its own)
            out.append(entry.model_dump(include=set(entry.WRITABLE)))
        elif isinstance(entry, Mapping):
            out.append(dict(entry))
        else:
            raise InvalidRecord(f"invalid entry {quote(entry)}: each entry is a dict of fields (title, body, ...)")
    return out


def _validate(model: type[Record], data: dict[str, Any], what: str) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InvalidRecord(f"invalid {what}: {validation_message(exc)}") from None


def _content(record: Record) -> dict[str, Any]:
    return record.model_dump(exclude=_BOOKKEEPING)
