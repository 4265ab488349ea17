"""The code facts that layers beside the graph may ask of the index, and nothing more: an entity by
id, the entities of several ids at once (their current hashes), the ids a name may mean, the entities
whose code hashes to a body hash (where moved code went), and the index generation the answers come
from. CodeFacts is that interface (records judge their anchors through it); IndexCodeFacts answers it
from `index.db`, read-only, and is unavailable, not an error, while there is no index."""

from __future__ import annotations

import difflib
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from graphctx.index import store
from graphctx.index.store import reads

@dataclass(frozen=True, slots=True)
class CodeEntity:
    id: str
    kind: str
    name: str
    path: str
    sig_hash: str
    body_hash: str  # for a whole file: the file's content hash, so a file anchor can drift too


class CodeFacts(Protocol):
    """What the code looks like now, as far as a record's anchors need to know."""

    @property
    def available(self) -> bool:
        """False while there is no code to compare with (no index yet): every answer is then empty."""
        ...

    @property
    def generation(self) -> int | None:
        """The index generation the answers come from (None when unavailable)."""
        ...

    def entity(self, entity_id: str) -> CodeEntity | None: ...

    def entities(self, entity_ids: Iterable[str]) -> dict[str, CodeEntity]:
        """The entities of those ids that exist now, by id: their current hashes in one look-up."""
        ...

    def named(self, name: str) -> list[str]:
        """Ids of entities a caller may mean by `name`: a qualified name, a bare name or an id suffix."""
        ...

    def close_names(self, name: str, limit: int = 5) -> list[str]:
        """Ids resembling `name`, for did-you-mean on an unknown one."""
        ...

    def same_body(self, body_hash: str, exclude: str) -> list[CodeEntity]:
        """Entities (or files) other than `exclude` whose code hashes to `body_hash`."""
        ...


class IndexCodeFacts:
    """CodeFacts read from `<root>/.graphctx/index.db` through one read-only connection; close it
    (or use it as a context manager) when done."""

    def __init__(self, root: Path):
        self.root = root
        self._conn: sqlite3.Connection | None = None
        self._generation: int | None = None
        try:
            self._conn = store.connect(store.index_path(root), readonly=True)
            self._generation = store.generation(self._conn)
        except (store.IndexMissing, sqlite3.Error):
            # No index yet, or one being created this instant: the facts are unknown, not an error.
            self.close()

    @property
    def available(self) -> bool:
        return self._conn is not None

    @property
    def generation(self) -> int | None:
        return self._generation

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> IndexCodeFacts:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _rows(self, query: Callable[..., list[tuple]], *args: object) -> list[CodeEntity]:
        if self._conn is None:
            return []
        try:
            rows = query(self._conn, *args)
        except sqlite3.Error:
            return []
        return [CodeEntity(*row) for row in rows]

    def entity(self, entity_id: str) -> CodeEntity | None:
        rows = self._rows(reads.code_entities, [entity_id])
        return rows[0] if rows else None

    def entities(self, entity_ids: Iterable[str]) -> dict[str, CodeEntity]:
        return {row.id: row for row in self._rows(reads.code_entities, list(dict.fromkeys(entity_ids)))}

    def same_body(self, body_hash: str, exclude: str) -> list[CodeEntity]:
        if not body_hash:
            return []
        return self._rows(reads.code_entities_with_body, body_hash, exclude)

    def named(self, name: str) -> list[str]:
        rows = self._rows(reads.code_entities_named, name)
        if not rows:
            rows = self._rows(reads.code_entities_id_ending, name)
        return sorted({row.id for row in rows})

    def close_names(self, name: str, limit: int = 5) -> list[str]:
        last = name.rsplit("::", 1)[-1].rsplit(".", 1)[-1]
        rows = self._rows(reads.code_entities_name_containing, last[:4]) if last else []
        ids = [row.id for row in rows]
        return difflib.get_close_matches(name, ids, n=limit, cutoff=0.3) or ids[:limit]


def open_code_facts(root: Path) -> IndexCodeFacts:
    """The code facts of the repository at `root`, as its index has them now."""
    return IndexCodeFacts(root)

