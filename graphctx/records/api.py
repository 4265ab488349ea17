"""RecordStore, the library API of the records layer that the context engine, the CLI and the MCP
server call: write knowledge and decisions, search and read them, navigate long ones, revise with
a version check, retract, verify anchors, show history, find records anchored to code, and check
decisions against changed code. Every write holds the writers' lock while it reads, checks and
replaces a file, so concurrent writers never lose an update; every answer carries staleness."""

from __future__ import annotations

import base64
import difflib
import hashlib
import json
import os
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from graphctx.errors import quote

from graphctx.records import files, gitio, ids, keys, markdown
from graphctx.records.errors import (
    BrokenRecordFile, InvalidRecord, RecordError, RecordNotFound, StaleVersion, validation_message,
)
from graphctx.records.index import Filters, RecordIndex
from graphctx.records.models import (
    ENACTED, KINDS, SCOPES, STATUSES, Anchor, AnchoredRecord, CheckItem, CheckReport, Decision,
    EntityChange, Heading, HistoryEntry, KeyConflict, Knowledge, Overview, Problem, RecallPage, Record, RecordHit, Section,
    Table, WriteResult, normalize_category, normalize_type, now, one_of,
)
from graphctx.records.staleness import CodeIndex, SourceCache, changes_since, rank_moves, stamp, verdict

KNOWLEDGE_FIELDS = ("title", "body", "type", "category", "key", "confidence", "tags", "refs", "anchors", "author")
DECISION_FIELDS = ("title", "context", "decision", "consequences", "status", "supersedes", "tags", "anchors", "author")
# How widely a scope is seen; a decision may only supersede decisions seen at most as widely.
SCOPE_REACH = {"shared": 0, "private": 1, "ephemeral": 2}
MAX_LIMIT = 100
# Fields whose change is not a change of content (an upsert with the same content writes nothing).
_BOOKKEEPING = {"updated", "version", "created", "path", "staleness", "superseded_by"}

AnchorInput = str | Mapping[str, Any] | Anchor


class RecordStore:
    """The records of one repository: shared files, private files and this instance's ephemeral ones.

    Thread-safe; several processes may use the same repository at once. Errors are RecordError
    subclasses (GraphctxError) whose message names the problem and the fix. `author` signs the writes
    that name no author (default: $GRAPHCTX_AUTHOR, else the git user). A store in a process that ends
    with its command passes holds_ephemeral=False: its ephemeral records would vanish as they are made,
    so writing one is refused."""

    def __init__(self, root: Path | str, *, author: str | None = None, holds_ephemeral: bool = True):
        self.root = Path(root).resolve()
        self.holds_ephemeral = holds_ephemeral
        self._author = author
        self._lock = threading.RLock()
        self._files_holder: int | None = None  # the thread holding the cross-process writers' lock
        self._ephemeral = RecordIndex(None)
        self._files: RecordIndex | None = None
        self._served: dict[str, Anchor] = {}

    @property
    def author(self) -> str:
        """Who signs a write that names no author: the one given, $GRAPHCTX_AUTHOR, or `git config user.name`
        (asked once, at the first write that needs it)."""
        if self._author is None:
            self._author = os.environ.get("GRAPHCTX_AUTHOR", "").strip() or gitio.user_name(self.root) or ""
        return self._author

    def close(self) -> None:
        with self._lock:
            if self._files is not None:
                self._files.close()
                self._files = None
            self._ephemeral.close()

    def __enter__(self) -> RecordStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ================================================================ writing

    def note_served(self, entities: Iterable[Any]) -> None:
        """Remember the hashes of entities served to the agent in this session (objects or dicts with
        id, sig_hash, body_hash): a record later anchored to one of them by id takes these hashes, so
        its staleness is judged against the code the agent actually saw."""
        with self._lock:
            for entity in entities:
                get = entity.get if isinstance(entity, Mapping) else lambda name, e=entity: getattr(e, name, None)
                entity_id, body_hash = get("id") or get("entity"), get("body_hash")
                if entity_id and body_hash:  # a file entity has no body hash of its own: stamp it from the index
                    self._served[entity_id] = Anchor(entity=entity_id, sig_hash=get("sig_hash") or "",
                                                     body_hash=body_hash, generation=get("generation"))

    def remember(self, entries: Mapping[str, Any] | Knowledge | Iterable[Mapping[str, Any] | Knowledge] | None = None,
                 /, *, scope: str = "shared", author: str | None = None, **fields: Any) -> list[WriteResult]:
        """Write one or several knowledge records. Give the fields as keywords (one record) or as a
        list of dicts: title, body, type (note|convention|fact|how-to|pitfall), category (dotted),
        key, confidence (0..1), tags, refs, anchors (entity ids, or dicts with entity and hashes),
        author, scope (shared|private|ephemeral). A key already used in the same scope and category
        updates that record: only the fields given change (its title and anchors stay unless given);
        a new keyed record without a title takes one from its key. A key that several records hold
        (after a git merge) is refused with their ids. Every entry is checked before any is written,
        so a bad entry writes nothing."""
        drafts = _drafts(entries, fields)
        if not drafts:
            raise InvalidRecord("nothing to remember: give a title (or a key) and a body, or a list of entries")
        prepared = [self._prepare_knowledge(i, draft, scope, author) for i, draft in enumerate(drafts, 1)]
        with self._writing(on_disk=any(p[0] != "ephemeral" for p in prepared)):
            results = [self._upsert_knowledge(*p) for p in prepared]
        return self._present_results(results)

    def decide(self, title: str, decision: str, *, context: str = "", consequences: str = "",
               status: str = "accepted", supersedes: Iterable[str] | str = (), tags: Iterable[str] = (),
               anchors: Iterable[AnchorInput] = (), author: str | None = None, scope: str = "shared") -> WriteResult:
        """Record a decision (ADR style). With `supersedes`, the decisions named there become
        superseded in the same locked write (once this one is enacted: accepted, superseded or
        deprecated); 'superseded_by' is derived from this record, never stored."""
        scope = self._write_scope(scope)
        fields = dict(title=title, decision=decision, context=context, consequences=consequences, status=status,
                      supersedes=supersedes, tags=tags, author=author or self.author)
        record = _validate(Decision, dict(fields, id=ids.new_id(), scope=scope), "decision")
        with self._code() as code:
            new_anchors = [a for a, _ in self._resolve_anchors(anchors, code, gitio.head(self.root))]
        with self._writing(on_disk=True):
            targets = [self._supersede_target(record, target) for target in record.supersedes]
            stamp_time = now()
            record = record.model_copy(update=dict(anchors=new_anchors, created=stamp_time, updated=stamp_time))
            record = self._write(record)
            changed = self._retire(record, targets)
        return self._present_results([(WriteResult(action="created", record=record), changed)])[0]

    def revise(self, record_id: str, version: int, **changes: Any) -> WriteResult:
        """Change fields of a record, given the version you read. A stale version is refused with
        StaleVersion, which carries the current record: merge your change into it and retry.
        Knowledge fields: title, body, type, category, key, confidence, tags, refs, anchors, author.
        Decision fields: title, context, decision, consequences, status, supersedes, tags, anchors,
        author. Both: scope (moves the record), retracted (False restores a retracted record)."""
        if not changes:
            raise InvalidRecord("nothing to revise: pass the fields to change, e.g. revise(id, version, title=...)")
        with self._code() as code:
            commit = gitio.head(self.root)
            with self._writing(on_disk=self._touches_files(record_id, changes.get("scope"))):
                current = self._current(record_id)
                self._check_version(current, version)
                allowed = KNOWLEDGE_FIELDS if current.kind == "knowledge" else DECISION_FIELDS
                unknown = sorted(set(changes) - set(allowed) - {"scope", "retracted"})
                if unknown:
                    raise InvalidRecord(f"{current.kind} records have no field {', '.join(map(quote, unknown))};"
                                        f" you can revise {', '.join(allowed)}, scope and retracted")
                update = dict(changes)
                if "anchors" in update:
                    update["anchors"] = self._merge_anchors(current, update["anchors"], code, commit)
                if "retracted" in update:
                    retract = bool(update.pop("retracted"))
                    update["retracted_at"] = (current.retracted_at or now()) if retract else None
                    if not retract:
                        update["retracted_reason"] = ""
                if "scope" in update:
                    update["scope"] = self._write_scope(update["scope"])
                revised = _validate(type(current), {**current.model_dump(), **update}, current.kind)
                if isinstance(revised, Knowledge):
                    self._check_key_free(revised, current)
                targets = self._targets(revised, current)
                if _content(revised) == _content(current):
                    return self._present_results([(WriteResult(action="unchanged", record=current), [])])[0]
                revised = revised.model_copy(update=dict(version=current.version + 1, updated=now()))
                revised = self._write(revised, previous=current)
                changed = self._retire(revised, targets)
        return self._present_results([(WriteResult(action="updated", record=revised), changed)])[0]

    def retract(self, record_id: str, version: int, reason: str = "", *, purge: bool = False) -> WriteResult:
        """Withdraw a record, given the version you read. It stays on file marked retracted (and out
        of searches unless include_retracted), so the retraction is reviewable; purge=True deletes the
        file instead (its git history keeps it)."""
        with self._writing(on_disk=self._touches_files(record_id, None)):
            current = self._current(record_id)
            self._check_version(current, version)
            if purge:
                self._delete(current)
                return self._present_results([(WriteResult(action="deleted", record=current), [])])[0]
            if current.retracted and current.retracted_reason == " ".join(reason.split()):
                return self._present_results([(WriteResult(action="unchanged", record=current), [])])[0]
            retracted = current.model_copy(update=dict(
                retracted_at=current.retracted_at or now(), retracted_reason=" ".join(reason.split()),
                version=current.version + 1, updated=now()))
            retracted = self._write(retracted, previous=current)
        return self._present_results([(WriteResult(action="retracted", record=retracted), [])])[0]

    def verify(self, record_id: str, *, version: int | None = None, entities: Iterable[str] | None = None,
               follow_moves: bool = True) -> WriteResult:
        """Re-stamp a record's anchors with the code's current hashes, after the agent has checked the
        record still holds (all anchors, or only `entities`). A moved anchor is re-pointed to where its
        code went (with follow_moves); an orphaned one is left for you to revise or drop."""
        with self._code() as code:
            if not code.available:
                raise RecordError("there is no code index to verify against; run `graphctx index` first")
            commit = gitio.head(self.root)
            with self._writing(on_disk=self._touches_files(record_id, None)):
                current = self._current(record_id)
                if version is not None:
                    self._check_version(current, version)
                only = set(entities) if entities is not None else None
                if only is not None and (missing := only - {a.entity for a in current.anchors}):
                    raise InvalidRecord(f"record {current.id} is not anchored to {', '.join(sorted(missing))}",
                                        [a.entity for a in current.anchors])
                anchors = [self._restamp(a, code, commit, follow_moves) if only is None or a.entity in only else a
                           for a in current.anchors]
                anchors = list({a.entity: a for a in anchors}.values())  # two anchors may follow to one place
                # Same code as stamped: a new generation alone is no reason for a write.
                if [_code_of(a) for a in anchors] == [_code_of(a) for a in current.anchors]:
                    return self._present_results([(WriteResult(action="unchanged", record=current), [])])[0]
                verified = current.model_copy(update=dict(anchors=anchors, version=current.version + 1, updated=now()))
                verified = self._write(verified, previous=current)
        return self._present_results([(WriteResult(action="updated", record=verified), [])])[0]

    # ================================================================ reading

    def get(self, record_id: str) -> Record:
        """One record, whole, with its staleness and (for decisions) superseded_by."""
        record = self._find(record_id)
        with self._code() as code:
            return self._present(record, code, self._sources(sync=False))

    def recall(self, query: str = "", *, kind: str | None = None, type: str | None = None,
               category: str | None = None, status: str | None = None, tags: Iterable[str] | str = (),
               entity: str | None = None, min_confidence: float | None = None, scope: str | None = None,
               include_retracted: bool = False, sort: str = "relevance", limit: int = 10,
               cursor: str | None = None) -> RecallPage:
        """Search records: full text (any word may match; best matches first) and filters, a page at a
        time; pass next_cursor back as cursor for the next page. sort='recent' browses newest first.
        category matches sub-categories too; entity matches an entity id, or a file or folder path of
        the anchored code; min_confidence filters knowledge (decisions have no confidence)."""
        filters = _filters(kind, type, category, status, tags, entity, min_confidence, scope, include_retracted)
        if sort not in ("relevance", "recent"):
            raise InvalidRecord(f"invalid sort {quote(sort)}: use relevance or recent")
        if not 1 <= int(limit) <= MAX_LIMIT:
            raise InvalidRecord(f"limit {limit} is out of range: give 1 to {MAX_LIMIT}")
        query = (query or "").strip()
        signature = _signature(query, filters, sort)
        offset = _read_cursor(cursor, signature) if cursor else 0
        sources = self._sources()
        wanted = offset + limit + 1
        hits = [hit for source in sources for hit in source.search(filters, query, sort, wanted)]
        hits.sort(key=_hit_order(sort if query else "recent"))
        page = hits[offset:offset + limit]
        total = sum(source.count(filters, query) for source in sources)
        with self._code() as code:
            out = [self._hit(h.record, code, sources, h.score, h.snippet) for h in page]
        more = len(hits) > offset + limit
        return RecallPage(hits=out, total=total, next_cursor=_cursor(offset + limit, signature) if more else None,
                          problems=self._problems(sources), conflicts=_involving(_conflicts(sources), out))

    def conflicts(self, record_ids: Iterable[str] | None = None) -> list[KeyConflict]:
        """Keys held by more than one live record of a scope and category (as after a git merge of two
        branches that each created the record): all of them, or those involving `record_ids`."""
        found = _conflicts(self._sources())
        if record_ids is None:
            return found
        wanted = {ids.normalize(i) for i in record_ids} | {i.strip() for i in record_ids}
        return [c for c in found if wanted & set(c.ids)]

    def outline(self, record_id: str) -> list[Heading]:
        """The headings of a record's Markdown (a decision's sections included), to read it by parts."""
        return markdown.outline(self._find(record_id).markdown())

    def section(self, record_id: str, heading: str) -> Section:
        """One section of a record: by heading title, path ('Setup > Database') or '#<line>'."""
        record = self._find(record_id)
        text = record.markdown()
        found = markdown.find_heading(text, heading, record.id)
        body = markdown.section(text, found)
        return Section(record_id=record.id, heading=found, text=body, tables=markdown.tables(body, found.line))

    def tables(self, record_id: str, heading: str | None = None) -> list[Table]:
        """The Markdown tables of a record, or of one of its sections."""
        if heading:
            return self.section(record_id, heading).tables
        return markdown.tables(self._find(record_id).markdown())

    def history(self, record_id: str, *, patch: bool = True, limit: int | None = None) -> list[HistoryEntry]:
        """The git history of a record's file (`git log --follow`), newest first, with patches."""
        record = self._find(record_id)
        if record.scope == "ephemeral":
            raise RecordError(f"record {record.id} is ephemeral: it lives only in this process and has no history")
        if record.scope == "private":
            return []  # private records are gitignored: git has no history of them
        return gitio.history(self.root, record.path or "", patch=patch, limit=limit)

    def records_for_entities(self, entity_ids: Iterable[str] = (), paths: Iterable[str] = (), *,
                             include_retracted: bool = False, include_inactive: bool = False) -> list[AnchoredRecord]:
        """Records anchored to any of `entity_ids`, or to code in the files or folders `paths`, each
        with its staleness; for the context engine. Accepted decisions and conventions come first.
        Rejected and superseded decisions are left out unless include_inactive."""
        entity_ids, paths = list(dict.fromkeys(entity_ids)), list(dict.fromkeys(paths))
        matched: dict[str, list[str]] = {}
        records: list[Record] = []
        sources = self._sources()
        for source in sources:
            found = source.anchored(entity_ids, paths)
            matched.update(found)
            records += source.get_many(list(found))
        out = []
        with self._code() as code:
            for record in records:
                record = self._present(record, code, sources)
                if record.retracted and not include_retracted:
                    continue
                if isinstance(record, Decision) and record.status in ("rejected", "superseded") and not include_inactive:
                    continue
                out.append(AnchoredRecord(record=record, matched=matched[record.id]))
        out.sort(key=lambda item: (_weight(item.record), -item.record.updated.timestamp(), item.record.id))
        return out

    def check(self, base_rev: str | None = None) -> CheckReport:
        """Accepted decisions and conventions anchored to code that changed: anchors no longer fresh
        against the index, and (with `base_rev`, a git revision) entities whose code differs between base
        and the working tree."""
        candidates = self._select(Filters(kind="decision", status="accepted")) \
            + self._select(Filters(kind="knowledge", type="convention"))
        candidates = [r for r in candidates if r.anchors]
        sources = self._sources(sync=False)  # _select just synced them
        notes = []
        changed_files = gitio.changed_files(self.root, base_rev) if base_rev else set()
        source_code = SourceCache(self.root)
        items = []
        with self._code() as code:
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
                    hit = self._hit(record, code, sources)
                    items.append(CheckItem(record=hit, changes=changes))
        items.sort(key=lambda item: (item.record.kind != "decision", item.record.id))
        return CheckReport(base=base_rev, checked=len(candidates), items=items, problems=self._problems(sources),
                           notes=notes, conflicts=_conflicts(sources))

    def overview(self, limit: int = 20) -> Overview:
        """For session_init: conventions and accepted decisions (newest first, capped at `limit` each)
        and the anchored records whose code changed under them."""
        conventions = self._select(Filters(kind="knowledge", type="convention"))
        decisions = self._select(Filters(kind="decision", status="accepted"))
        anchored = [r for r in self._select(Filters()) if r.anchors]
        sources = self._sources(sync=False)  # _select just synced them
        with self._code() as code:
            stale = []
            if code.available:
                for record in anchored:
                    hit = self._hit(record, code, sources)
                    if hit.staleness and hit.staleness.state not in ("fresh", "unbound", "unknown"):
                        stale.append(hit)
            counts = {"conventions": len(conventions), "decisions": len(decisions), "stale": len(stale),
                      "records": sum(s.count(Filters()) for s in sources)}
            return Overview(conventions=[self._hit(r, code, sources) for r in conventions[:limit]],
                            decisions=[self._hit(r, code, sources) for r in decisions[:limit]],
                            stale=stale[:limit], counts=counts, problems=self._problems(sources))

    def problems(self) -> list[Problem]:
        """Record files that could not be loaded (broken front matter, duplicate ids), and why."""
        return self._problems(self._sources())

    def rebuild(self) -> None:
        """Throw the derived search index away and build it again from the record files."""
        with self._lock:
            if self._files is not None:
                self._files.close()
                self._files = None
            db = files.graphctx_dir(self.root) / files.RECORDS_DB
            for suffix in ("", "-wal", "-shm"):
                try:
                    os.unlink(f"{db}{suffix}")
                except FileNotFoundError:
                    pass
            self._file_index()

    # ================================================================ internals: indexes and reads

    def _file_index(self, sync: bool = True) -> RecordIndex | None:
        """The records.db index, synced with the files; None while the repository has no .graphctx."""
        with self._lock:
            if self._files is None:
                folder = files.graphctx_dir(self.root)
                if not folder.is_dir():
                    return None
                files.ensure_layout(self.root)  # records.db must be gitignored before it exists
                self._files = RecordIndex(folder / files.RECORDS_DB)
            if sync:
                self._files.sync(self.root)
            return self._files

    def _sources(self, sync: bool = True) -> list[RecordIndex]:
        """The indexes to read: records.db (synced with the files, once per call) and the ephemeral one."""
        index = self._file_index(sync)
        return [index, self._ephemeral] if index is not None else [self._ephemeral]

    @staticmethod
    def _problems(sources: list[RecordIndex]) -> list[Problem]:
        return [p for source in sources for p in source.problems()]

    def _select(self, filters: Filters) -> list[Record]:
        out = [hit.record for source in self._sources() for hit in source.search(filters, "", "recent", -1)]
        out.sort(key=lambda r: (r.updated, r.id), reverse=True)
        return out

    def _lookup(self, record_id: str) -> Record | None:
        sources = self._sources()
        for candidate in dict.fromkeys((record_id.strip(), ids.normalize(record_id))):
            for source in sources:
                record = source.get(candidate)
                if record is not None:
                    return record
        return None

    def _find(self, record_id: str) -> Record:
        record = self._lookup(record_id)
        if record is None:
            raise self._not_found(record_id)
        return record

    def _current(self, record_id: str) -> Record:
        """The record as its file says now (writers hold the lock, so nobody changes it under us)."""
        for candidate in dict.fromkeys((record_id.strip(), ids.normalize(record_id))):
            record = self._ephemeral.get(candidate)
            if record is not None:
                return record
            found = files.find_file(self.root, candidate)
            if found is not None:
                return files.read(self.root, found[1], found[0])
        raise self._not_found(record_id)

    def _not_found(self, record_id: str) -> RecordError:
        given = record_id.strip()
        if not given:
            return InvalidRecord("record id is empty: give the id of a record (see recall for ids)")
        sources = self._sources(sync=False)  # the lookup that failed has just synced them
        problems = self._problems(sources)
        broken = [p for p in problems if Path(p.path).stem.upper().startswith(given.upper())]
        if broken:
            return BrokenRecordFile(broken[0].path, broken[0].message.split(": ", 1)[-1].split("; fix")[0])
        names = [n for source in sources for n in source.names()]
        upper = given.upper()
        close = [rid for rid, _ in names if rid.startswith(upper) or upper.startswith(rid)]
        close += difflib.get_close_matches(upper, [rid for rid, _ in names], n=5, cutoff=0.6)
        titles = {title.lower(): rid for rid, title in names}
        close += [titles[t] for t in difflib.get_close_matches(given.lower(), list(titles), n=5, cutoff=0.5)]
        close += [rid for rid, title in names if len(given) >= 4 and given.lower() in title.lower()]
        shown = list(dict.fromkeys(close))[:8]
        by_id = dict(names)
        hint = "did you mean one of these?" if shown else "use recall to search records by words"
        broken_note = f" ({len(problems)} record file(s) could not be read: see problems)" if problems else ""
        return RecordNotFound(f"no record with id {quote(given)}{broken_note}; {hint}",
                              [f"{rid}  {by_id[rid]}" for rid in shown])

    @contextmanager
    def _code(self) -> Iterator[CodeIndex]:
        code = CodeIndex(self.root)
        try:
            yield code
        finally:
            code.close()

    def _present(self, record: Record, code: CodeIndex, sources: list[RecordIndex]) -> Record:
        """The record as answers show it: with staleness, and a decision's derived status and superseded_by."""
        update: dict[str, Any] = {"staleness": verdict(record.anchors, code)}
        if isinstance(record, Decision):
            superseders = [s for source in sources for s in source.superseders(record.id) if not s[2]]
            update["superseded_by"] = [s[0] for s in superseders]
            if any(status in ENACTED for _, status, _ in superseders):
                update["status"] = "superseded"
        return record.model_copy(update=update)

    def _present_results(self, results: list[tuple[WriteResult, list[str]]]) -> list[WriteResult]:
        out = []
        sources = self._sources()
        with self._code() as code:
            for result, changed in results:
                record = self._present(result.record, code, sources)
                out.append(WriteResult(action=result.action, record=record, changed=changed))
        return out

    def _hit(self, record: Record, code: CodeIndex, sources: list[RecordIndex], score: float | None = None,
             snippet: str = "") -> RecordHit:
        record = self._present(record, code, sources)
        knowledge = isinstance(record, Knowledge)
        return RecordHit(
            id=record.id, kind=record.kind, title=record.title, scope=record.scope,
            type=record.type if knowledge else None, category=record.category if knowledge else None,
            key=record.key if knowledge else None, status=None if knowledge else record.status,
            confidence=record.confidence if knowledge else None, tags=record.tags,
            anchors=[a.entity for a in record.anchors], updated=record.updated, version=record.version,
            retracted=record.retracted, score=score, snippet=snippet, staleness=record.staleness,
        )

    # ================================================================ internals: writes

    @contextmanager
    def _writing(self, *, on_disk: bool) -> Iterator[None]:
        """Hold the in-process lock, and the cross-process writers' lock when files are involved. The
        cross-process one is taken first: a writer waiting for another process holds nothing that this
        process's readers need (a server answering other calls meanwhile)."""
        if not on_disk or self._files_holder == threading.get_ident():
            with self._lock:
                yield
            return
        files.ensure_layout(self.root)
        with files.WriteLock(files.graphctx_dir(self.root) / files.LOCK_FILE), self._lock:
            self._files_holder = threading.get_ident()
            try:
                yield
            finally:
                self._files_holder = None

    def _touches_files(self, record_id: str, new_scope: str | None) -> bool:
        with self._lock:
            in_memory = self._ephemeral.get(ids.normalize(record_id)) or self._ephemeral.get(record_id.strip())
        return in_memory is None or (new_scope is not None and new_scope != "ephemeral")

    def _check_version(self, current: Record, version: int) -> None:
        try:
            given = int(version)
        except (TypeError, ValueError):
            raise InvalidRecord(f"version {quote(version)} is not a number: pass the version of the record you read") from None
        if given != current.version:
            with self._code() as code:
                raise StaleVersion(current.id, given, self._present(current, code, self._sources()))

    def _write_scope(self, value: Any) -> str:
        scope = _scope(value)
        if scope == "ephemeral" and not self.holds_ephemeral:
            raise InvalidRecord("scope 'ephemeral' keeps a record only in the memory of a running server, and this"
                                " process ends with its command, so the record would vanish at once; use scope"
                                " 'private' (this clone only) or 'shared' (committed), or write it through the"
                                " MCP server (graphctx serve)")
        return scope

    def _write(self, record: Record, previous: Record | None = None) -> Record:
        """Store a record in its scope (a file, or memory), moving it if its scope changed."""
        if record.scope == "ephemeral":
            record = record.model_copy(update={"path": None})
            self._ephemeral.put(record)
        else:
            keep = previous is not None and previous.scope == record.scope and previous.path
            path = self.root / previous.path if keep else files.new_path(self.root, record)  # type: ignore[union-attr]
            record = record.model_copy(update={"path": files.relative(self.root, path)})
            files.write_atomic(path, files.render(record))
        if previous is not None and previous.scope != record.scope:
            self._delete(previous)
        return record

    def _delete(self, record: Record) -> None:
        if record.scope == "ephemeral":
            self._ephemeral.drop(record.id)
        elif record.path:
            files.remove(self.root / record.path)

    def _prepare_knowledge(self, number: int, draft: Mapping[str, Any], scope: str,
                           author: str | None) -> tuple[str, dict[str, Any], list[tuple[Anchor, bool]] | None]:
        """Check one remember entry before anything is written: (scope, given fields, stamped anchors)."""
        draft = dict(draft)
        entry_scope = self._write_scope(draft.pop("scope", None) or scope)
        unknown = sorted(set(draft) - set(KNOWLEDGE_FIELDS))
        if unknown:
            raise InvalidRecord(f"entry {number}: knowledge has no field {', '.join(map(quote, unknown))};"
                                f" use {', '.join(KNOWLEDGE_FIELDS)} (and scope)")
        anchors = draft.pop("anchors", None)
        if not draft.get("author"):
            draft["author"] = author or self.author
        probe = {"title": "(kept)", **draft, "id": "probe"}
        try:
            checked = Knowledge.model_validate(probe)
        except ValidationError as exc:
            raise InvalidRecord(f"entry {number}: {validation_message(exc)}") from None
        given = {name: getattr(checked, name) for name in draft}
        if "title" not in given and not checked.key:
            raise InvalidRecord(f"entry {number}: a new record needs a title, or a key (its title is then"
                                " taken from the key)")
        stamped = None
        if anchors is not None:
            with self._code() as code:
                stamped = self._resolve_anchors(anchors, code, gitio.head(self.root))
        return entry_scope, given, stamped

    def _upsert_knowledge(self, scope: str, given: dict[str, Any],
                          anchors: list[tuple[Anchor, bool]] | None) -> tuple[WriteResult, list[str]]:
        existing_id = None
        if given.get("key"):
            source = self._ephemeral if scope == "ephemeral" else self._file_index()
            category = given.get("category", "general")
            holders = source.key_holders(scope, category, given["key"]) if source is not None else []
            existing_id = keys.record_to_update(holders, scope, category, given["key"])
        if existing_id is None:
            stamp_time = now()
            title = given.get("title") or keys.title_from_key(given["key"])
            record = Knowledge.model_validate({**given, "title": title, "id": ids.new_id(), "scope": scope,
                                               "anchors": [a for a, _ in anchors or []],
                                               "created": stamp_time, "updated": stamp_time})
            return WriteResult(action="created", record=self._write(record)), []
        current = self._current(existing_id)
        update = dict(given)
        if anchors is not None:
            update["anchors"] = _keep_stamps(current.anchors, anchors)
        revised = _validate(Knowledge, {**current.model_dump(), **update, "retracted_at": None,
                                        "retracted_reason": ""}, "knowledge")
        if _content(revised) == _content(current):
            return WriteResult(action="unchanged", record=current), []
        revised = revised.model_copy(update=dict(version=current.version + 1, updated=now()))
        return WriteResult(action="updated", record=self._write(revised, previous=current)), []

    def _check_key_free(self, record: Knowledge, current: Record) -> None:
        """Refuse a revision that would make a second live holder of a key. One that leaves the record's
        key where it was passes, so the records of a merge conflict can still be edited and retracted."""
        if not record.key or record.retracted:
            return
        if (isinstance(current, Knowledge) and not current.retracted
                and (current.scope, current.category, current.key) == (record.scope, record.category, record.key)):
            return
        source = self._ephemeral if record.scope == "ephemeral" else self._file_index()
        holders = source.key_holders(record.scope, record.category, record.key) if source is not None else []
        others = [h.id for h in holders if h.id != record.id and not h.retracted]
        if others:
            raise InvalidRecord(f"key {quote(record.key)} in category {quote(record.category)} already belongs to record"
                                f" {others[0]}; revise that record, or choose another key")

    def _supersede_target(self, record: Decision, target_id: str) -> Decision:
        if target_id == record.id:
            raise InvalidRecord(f"decision {record.id} cannot supersede itself")
        try:
            target = self._current(target_id)
        except RecordNotFound as exc:
            raise RecordNotFound(f"cannot supersede {quote(target_id)}: {exc.message}", exc.suggestions) from None
        if not isinstance(target, Decision):
            raise InvalidRecord(f"cannot supersede {quote(target_id)}: it is a knowledge record; only decisions supersede"
                                " decisions (retract or revise the knowledge instead)")
        if SCOPE_REACH[record.scope] > SCOPE_REACH[target.scope]:
            raise InvalidRecord(f"a {record.scope} decision cannot supersede the {target.scope} decision {target.id}:"
                                f" people who see that one would not see this one; use scope={target.scope!r}")
        return target

    def _targets(self, revised: Record, current: Record) -> list[Decision]:
        """The decisions a revised decision supersedes: new ones checked (they must exist, be decisions
        and be seen at least as widely); ones listed before and gone since are skipped."""
        if not isinstance(revised, Decision) or not isinstance(current, Decision):
            return []
        targets = []
        for target in revised.supersedes:
            if target not in current.supersedes:
                targets.append(self._supersede_target(revised, target))
                continue
            try:
                found = self._current(target)
            except RecordError:
                continue
            if isinstance(found, Decision):
                targets.append(found)
        return targets

    def _retire(self, record: Record, targets: list[Decision]) -> list[str]:
        """Mark the decisions that an enacted decision supersedes as superseded (same locked write)."""
        if not isinstance(record, Decision) or record.status not in ENACTED or record.retracted:
            return []
        changed = []
        for target in targets:
            current = self._current(target.id)
            if isinstance(current, Decision) and current.status != "superseded":
                self._write(current.model_copy(update=dict(status="superseded", version=current.version + 1,
                                                           updated=now())), previous=current)
                changed.append(current.id)
        return changed

    def _resolve_anchors(self, inputs: Iterable[AnchorInput] | AnchorInput | None, code: CodeIndex,
                         commit: str | None) -> list[tuple[Anchor, bool]]:
        """Anchors stamped with the hashes given, the hashes the agent was served, or else the index's
        hashes now; each with True when it was stamped from the index now (an existing record keeps
        its older stamp for such an entity, so re-anchoring cannot hide drift)."""
        if inputs is None:
            return []
        if isinstance(inputs, (str, Mapping, Anchor)):
            inputs = [inputs]
        out: dict[str, tuple[Anchor, bool]] = {}
        for item in inputs:
            anchor, from_index = self._resolve_anchor(item, code, commit)
            out[anchor.entity] = (anchor, from_index)
        return list(out.values())

    def _resolve_anchor(self, item: AnchorInput, code: CodeIndex, commit: str | None) -> tuple[Anchor, bool]:
        if isinstance(item, Anchor):
            given = item
        elif isinstance(item, Mapping):
            data = dict(item)
            if "entity" not in data and "id" in data:  # an Entity as the index or get_context returns it
                data["entity"] = data.pop("id")
            try:
                given = Anchor.model_validate(data)
            except ValidationError as exc:
                raise InvalidRecord(f"invalid anchor {quote(item)}: {validation_message(exc)}") from None
        elif isinstance(item, str) and item.strip():
            given = Anchor(entity=item.strip())
        else:
            raise InvalidRecord(f"invalid anchor {quote(item)}: give an entity id (path::Qualified.name) or a dict with"
                                " 'entity' and optionally 'sig_hash' and 'body_hash'")
        if given.sig_hash or given.body_hash:  # the caller says what it saw: keep it
            return given.model_copy(update=dict(generation=given.generation if given.generation is not None
                                                else code.generation, commit=given.commit or commit)), False
        served = self._served.get(given.entity)
        if served is not None:
            return served.model_copy(update=dict(generation=served.generation if served.generation is not None
                                                  else code.generation, commit=commit)), False
        if not code.available:
            raise InvalidRecord(f"cannot anchor to {quote(given.entity)}: there is no code index to take its hashes from;"
                                " run `graphctx index` first, or pass the anchor with its sig_hash and body_hash")
        entity = code.entity(given.entity)
        if entity is None:
            named = code.named(given.entity)
            if len(named) == 1:
                entity = code.entity(named[0])
            elif named:
                raise InvalidRecord(f"{quote(given.entity)} names {len(named)} entities; anchor to one of these ids",
                                    named[:10])
            else:
                raise InvalidRecord(f"no entity {quote(given.entity)} in the code index; anchor to an entity id"
                                    " (path::Qualified.name) or a file path, re-indexing first if the code is new",
                                    code.close_names(given.entity))
        return stamp(entity, code, commit), True

    def _merge_anchors(self, current: Record, inputs: Any, code: CodeIndex, commit: str | None) -> list[Anchor]:
        return _keep_stamps(current.anchors, self._resolve_anchors(inputs, code, commit))

    def _restamp(self, anchor: Anchor, code: CodeIndex, commit: str | None, follow_moves: bool) -> Anchor:
        entity = code.entity(anchor.entity)
        if entity is None and follow_moves:
            found = code.same_body(anchor.body_hash, anchor.entity)
            if found:
                entity = code.entity(rank_moves(anchor.entity, found)[0])
        return stamp(entity, code, commit) if entity is not None else anchor


# ---- helpers


def _drafts(entries: Any, fields: dict[str, Any]) -> list[dict[str, Any]]:
    if entries is None:
        return [fields] if fields else []
    if fields:
        raise InvalidRecord("give either a list of entries or one record's fields as keywords, not both")
    if isinstance(entries, Knowledge):
        return [entries.model_dump(include=set(KNOWLEDGE_FIELDS))]
    if isinstance(entries, Mapping):
        return [dict(entries)]
    out = []
    for entry in entries:
        if isinstance(entry, Knowledge):
            out.append(entry.model_dump(include=set(KNOWLEDGE_FIELDS)))
        elif isinstance(entry, Mapping):
            out.append(dict(entry))
        else:
            raise InvalidRecord(f"invalid entry {quote(entry)}: each entry is a dict of fields (title, body, ...)")
    return out


def _scope(value: Any) -> str:
    try:
        return one_of(value, SCOPES, "scope")
    except ValueError as exc:
        raise InvalidRecord(str(exc)) from None


def _validate(model: type[Knowledge] | type[Decision], data: dict[str, Any], what: str) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InvalidRecord(f"invalid {what}: {validation_message(exc)}") from None


def _content(record: Record) -> dict[str, Any]:
    return record.model_dump(exclude=_BOOKKEEPING)


def _code_of(anchor: Anchor) -> tuple[str, str, str]:
    return anchor.entity, anchor.sig_hash, anchor.body_hash


def _keep_stamps(old: list[Anchor], new: list[tuple[Anchor, bool]]) -> list[Anchor]:
    """Anchors for an edited record: an entity already anchored keeps its stamp unless the caller gave
    hashes (re-stamping it here would hide drift; verify does that on purpose)."""
    by_entity = {a.entity: a for a in old}
    return [by_entity[a.entity] if from_index and a.entity in by_entity else a for a, from_index in new]


def _conflicts(sources: list[RecordIndex]) -> list[KeyConflict]:
    return [c for source in sources for c in source.key_conflicts()]


def _involving(conflicts: list[KeyConflict], hits: list[RecordHit]) -> list[KeyConflict]:
    shown = {h.id for h in hits}
    return [c for c in conflicts if shown & set(c.ids)]


def _filters(kind, type_, category, status, tags, entity, min_confidence, scope, include_retracted) -> Filters:
    try:
        filters = Filters(
            kind=one_of(kind, KINDS, "kind") if kind else None,
            type=normalize_type(type_) if type_ else None,
            category=normalize_category(category) if category else None,
            status=one_of(status, STATUSES, "status") if status else None,
            tags=[t.strip().lower() for t in ([tags] if isinstance(tags, str) else tags) if t.strip()],
            entity=entity.strip() if entity else None,
            min_confidence=None if min_confidence is None else float(min_confidence),
            scope=one_of(scope, SCOPES, "scope") if scope else None,
            include_retracted=include_retracted,
        )
    except ValueError as exc:
        raise InvalidRecord(str(exc)) from None
    if filters.min_confidence is not None and not 0 <= filters.min_confidence <= 1:
        raise InvalidRecord(f"min_confidence {min_confidence} is out of range: give a number from 0 to 1")
    if filters.type and filters.kind == "decision":
        raise InvalidRecord("decisions have no type: filter decisions by status, or knowledge by type")
    return filters


def _signature(query: str, filters: Filters, sort: str) -> str:
    data = json.dumps([query, sort, filters.__dict__], sort_keys=True, default=str)
    return hashlib.blake2b(data.encode(), digest_size=6).hexdigest()


def _cursor(offset: int, signature: str) -> str:
    return base64.urlsafe_b64encode(json.dumps({"o": offset, "s": signature}).encode()).decode().rstrip("=")


def _read_cursor(cursor: str, signature: str) -> int:
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        offset, made_for = int(data["o"]), data["s"]
    except (ValueError, KeyError, TypeError):
        raise InvalidRecord("invalid cursor: pass next_cursor exactly as a previous recall returned it") from None
    if made_for != signature:
        raise InvalidRecord("this cursor belongs to a different search: repeat the same query and filters with it,"
                            " or drop the cursor to start again")
    return max(0, offset)


def _hit_order(sort: str):
    if sort == "relevance":
        return lambda h: (-(h.score or 0.0), -h.record.updated.timestamp(), _desc(h.record.id))
    return lambda h: (-h.record.updated.timestamp(), _desc(h.record.id))


def _desc(text: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in text)


def _weight(record: Record) -> int:
    if isinstance(record, Decision):
        return 0 if record.status == "accepted" else 4
    return {"convention": 1, "pitfall": 2}.get(record.type, 3)


__all__ = ["RecordStore"]
