"""The integer keys of an index run: entity rowids by id and the rowids of names outside the
repository, and the compact edge rows built from them. An entity keeps its rowid while its id lives
(a rewritten file's entities get back the rowids they had), so that edges from files not resolved
again still point at it, as they would by id; new ids are numbered after the largest ever given in
this index, in the order the run writes them, so the same tree always gets the same keys."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from graphctx.index.naming import EXTERNAL_PREFIX
from graphctx.index.scope import Edge
from graphctx.layout import ID_SEPARATOR
from graphctx.models import EDGE_KINDS, RESOLUTIONS

KIND_CODE = {kind: i for i, kind in enumerate(EDGE_KINDS)}
RESOLUTION_CODE = {resolution: i for i, resolution in enumerate(RESOLUTIONS)}
# (source rowid, target rowid (negative: an external name), kind code, resolution code, confidence, line,
# maker: the rowid of the file whose resolution made the edge, None when that is the source's own file)
EdgeRow = tuple[int, int, int, int, float, int, int | None]


class RowKeys:
    """Entity and external rowids by id, as the index holds them: those this process has met, and
    the others read from the index when first asked (`lookup`), so an edit reads the keys of the
    ids its edges name instead of every key of the index."""

    def __init__(self, entities: dict[str, int], externals: dict[str, int], last_entity: int, last_external: int,
                 lookup: Callable[[str, bool], int | None] | None = None):
        self.entities = entities
        self.externals = externals
        self.last_entity = last_entity
        self.last_external = last_external
        self.new_externals: list[tuple[int, str]] = []  # (rowid, id) to write
        self.lookup = lookup  # (id, external?) -> its rowid in the index, None when it has none

    def entity(self, entity_id: str) -> int | None:
        """The rowid of an entity of the index, None for an id it does not hold."""
        return self._key(self.entities, entity_id, False)

    def _external(self, external_id: str) -> int | None:
        return self._key(self.externals, external_id, True)

    def _key(self, known: dict[str, int], name: str, external: bool) -> int | None:
        """The rowid known for `name`, else the index's (then known too), else None."""
        key = known.get(name)
        if key is None and self.lookup is not None:
            key = self.lookup(name, external)
            if key is not None:
                known[name] = key
        return key

    def assign(self, ids: Iterable[str], previous: dict[str, int]) -> list[int]:
        """Rowids for a file's entities: the one an id had before, else the next new one."""
        out = []
        for entity_id in ids:
            rowid = previous.get(entity_id)
            if rowid is None:
                self.last_entity += 1
                rowid = self.last_entity
            self.entities[entity_id] = rowid
            out.append(rowid)
        return out

    def forget(self, ids: Iterable[str]) -> None:
        for entity_id in ids:
            self.entities.pop(entity_id, None)

    def edge_rows(self, edges: Iterable[Edge], maker: str) -> Iterator[EdgeRow]:
        """Edges (source, target, kind, resolution, confidence, line) by id that the resolution of
        the file `maker` made, as rows by rowid. An external name seen for the first time gets a
        rowid (kept in new_externals until written); an edge whose source or target is no entity at
        all is dropped (none is made that way). An edge whose source is in another file (a function
        handed to it, a method of a type declared there) names its maker: resolving the maker again
        replaces it, resolving the source's file again leaves it."""
        maker_prefix, maker_key = maker + ID_SEPARATOR, None
        for source, target, kind, resolution, confidence, line in edges:
            source_key = self.entity(source)
            target_key = self.entities.get(target)
            if target_key is None and not target.startswith(EXTERNAL_PREFIX):
                target_key = self.entity(target)
            elif target_key is None:
                target_key = self._external(target)
                if target_key is None:
                    self.last_external += 1
                    target_key = self.externals[target] = self.last_external
                    self.new_externals.append((target_key, target))
                target_key = -target_key
            if source_key is None or target_key is None:
                continue
            foreign = None
            if source != maker and not source.startswith(maker_prefix):
                foreign = maker_key = maker_key if maker_key is not None else self.entity(maker)
            yield (source_key, target_key, KIND_CODE[kind], RESOLUTION_CODE[resolution], confidence, line, foreign)

    def take_new_externals(self) -> list[tuple[int, str]]:
        out, self.new_externals = self.new_externals, []
        return out
