"""Which repository keeps each scope, and reads over all of them: the one view of storage the use
cases have. A record lives in the repository of its scope; a look-up by id asks each repository in
turn, a search asks them all and merges, and a write holds the transactions of the repositories it
touches (always in the same order, so two writers never wait on each other)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager

from graphctx.records import ids
from graphctx.records.answers import KeyConflict, Problem
from graphctx.records.models import Record
from graphctx.records.repository import Filters, Hit, RecordRepository, Superseder


class ScopedRepositories:
    def __init__(self, by_scope: Mapping[str, RecordRepository]):
        self.by_scope = dict(by_scope)
        # Each repository once, in the order of its first scope: the order reads merge and locks nest in.
        self.all: list[RecordRepository] = list({id(r): r for r in self.by_scope.values()}.values())

    def holds(self, scope: str) -> bool:
        return scope in self.by_scope

    def of(self, scope: str) -> RecordRepository:
        return self.by_scope[scope]

    def find(self, record_id: str) -> tuple[RecordRepository, Record] | None:
        """The repository holding a record and the record, by its id as given or in canonical form."""
        for candidate in dict.fromkeys((record_id.strip(), ids.normalize(record_id))):
            for repository in self.all:
                record = repository.get(candidate)
                if record is not None:
                    return repository, record
        return None

    @contextmanager
    def transaction(self, repositories: Iterable[RecordRepository]) -> Iterator[None]:
        """The transactions of these repositories, taken in the fixed order of `all`."""
        wanted = {id(r) for r in repositories}
        with ExitStack() as stack:
            for repository in self.all:
                if id(repository) in wanted:
                    stack.enter_context(repository.transaction())
            yield

    def refresh(self) -> None:
        for repository in self.all:
            repository.refresh()

    def search(self, filters: Filters, text: str, sort: str, limit: int | None) -> list[Hit]:
        """Each repository's first `limit` hits, unmerged: the caller orders them."""
        return [hit for repository in self.all for hit in repository.search(filters, text, sort, limit)]

    def select(self, filters: Filters) -> list[Record]:
        """Every record matching the filters, newest first."""
        out = [hit.record for hit in self.search(filters, "", "recent", None)]
        out.sort(key=lambda r: (r.updated, r.id), reverse=True)
        return out

    def count(self, filters: Filters, text: str = "") -> int:
        return sum(repository.count(filters, text) for repository in self.all)

    def anchored(self, entity_ids: Sequence[str], code_paths: Sequence[str]) -> list[tuple[Record, list[str]]]:
        """(record, its matched anchors) for the records anchored to those entities or code paths."""
        out = []
        for repository in self.all:
            matched = repository.anchored(entity_ids, code_paths)
            out += [(record, matched[record.id]) for record in repository.get_many(list(matched))]
        return out

    def superseders(self, record_id: str) -> list[Superseder]:
        return [s for repository in self.all for s in repository.superseders(record_id)]

    def key_conflicts(self) -> list[KeyConflict]:
        return [c for repository in self.all for c in repository.key_conflicts()]

    def problems(self) -> list[Problem]:
        return [p for repository in self.all for p in repository.problems()]

    def names(self) -> list[tuple[str, str]]:
        return [n for repository in self.all for n in repository.names()]

    def rebuild(self) -> None:
        for repository in self.all:
            repository.rebuild()

    def close(self) -> None:
        for repository in self.all:
            repository.close()
