"""What every records use case works with, handed to each of them: the repositories by scope, a way
to open the code facts the anchors are judged against, the hashes served to the agent, the
repository root (for git), and who signs a write that names no author."""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from graphctx.errors import quote
from graphctx.index.codefacts import CodeFacts
from graphctx.records import gitio
from graphctx.records.anchoring import AnchorResolver, ServedHashes
from graphctx.records.errors import BrokenRecordFile, InvalidRecord, RecordError, RecordNotFound
from graphctx.records.models import Record
from graphctx.records.repository import RecordRepository
from graphctx.records.scopes import ScopedRepositories
from graphctx.records.vocabulary import SCOPES, one_of

CodeOpener = Callable[[], AbstractContextManager[CodeFacts]]

EPHEMERAL_REFUSED = ("scope 'ephemeral' keeps a record only in the memory of a running server, and this process ends"
                     " with its command, so the record would vanish at once; use scope 'private' (this clone only) or"
                     " 'shared' (committed), or write it through the MCP server (graphctx serve)")


class Workspace:
    def __init__(self, root: Path, repos: ScopedRepositories, open_code: CodeOpener, *, author: str | None = None):
        self.root = root
        self.repos = repos
        self.served = ServedHashes()
        self._open_code = open_code
        self._author = author

    @property
    def author(self) -> str:
        """Who signs a write that names no author: the one given, $GRAPHCTX_AUTHOR, or `git config user.name`
        (asked once, at the first write that needs it)."""
        if self._author is None:
            self._author = os.environ.get("GRAPHCTX_AUTHOR", "").strip() or gitio.user_name(self.root) or ""
        return self._author

    @contextmanager
    def code(self) -> Iterator[CodeFacts]:
        """The code facts as they are now, for one call."""
        with self._open_code() as code:
            yield code

    def anchors(self, code: CodeFacts) -> AnchorResolver:
        return AnchorResolver(code, self.served, self.root)

    def write_scope(self, value: Any) -> str:
        """A scope a write may go to: a known one, kept by a repository of this store."""
        try:
            scope = one_of(value, SCOPES, "scope")
        except ValueError as exc:
            raise InvalidRecord(str(exc)) from None
        if not self.repos.holds(scope):
            raise InvalidRecord(EPHEMERAL_REFUSED if scope == "ephemeral" else
                                f"scope {quote(scope)} has no storage in this process; use {', '.join(self.repos.by_scope)}")
        return scope

    def holder(self, record_id: str) -> tuple[RecordRepository, Record]:
        """The repository holding a record, and the record as stored now."""
        found = self.repos.find(record_id)
        if found is None:
            raise self.not_found(record_id)
        return found

    def not_found(self, record_id: str) -> RecordError:
        """The error for an id no record has: a broken file of that id, or the closest ids and titles."""
        given = record_id.strip()
        if not given:
            return InvalidRecord("record id is empty: give the id of a record (see recall for ids)")
        problems = self.repos.problems()
        broken = [p for p in problems if Path(p.path).stem.upper().startswith(given.upper())]
        if broken:
            return BrokenRecordFile(broken[0].path, broken[0].message.split(": ", 1)[-1].split("; fix")[0])
        names = self.repos.names()
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
