"""Stamping anchors: an entity a record is about becomes an anchor holding the hashes of the code as
the agent saw it (hashes given with the anchor, else those of the code served to it in this process,
else the index's hashes now), re-stamped on verify, and followed to where its code moved. The code
is asked through the index's narrow CodeFacts interface, never through SQL."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from graphctx.errors import quote
from graphctx.index.codefacts import CodeEntity, CodeFacts
from graphctx.records import gitio
from graphctx.records.anchors import Anchor
from graphctx.records.errors import InvalidRecord, validation_message
from graphctx.records.staleness import rank_moves

AnchorInput = str | Mapping[str, Any] | Anchor


class ServedHashes:
    """The hashes of the entities served to the agent in this process, by entity id (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._served: dict[str, Anchor] = {}

    def note(self, entities: Iterable[Any]) -> None:
        """Objects or dicts with id, sig_hash, body_hash (and generation)."""
        with self._lock:
            for entity in entities:
                get = entity.get if isinstance(entity, Mapping) else lambda name, e=entity: getattr(e, name, None)
                entity_id, body_hash = get("id") or get("entity"), get("body_hash")
                if entity_id and body_hash:  # a file entity has no body hash of its own: stamp it from the index
                    self._served[entity_id] = Anchor(entity=entity_id, sig_hash=get("sig_hash") or "",
                                                     body_hash=body_hash, generation=get("generation"))

    def get(self, entity_id: str) -> Anchor | None:
        with self._lock:
            return self._served.get(entity_id)


class AnchorResolver:
    """Anchors for one write, against the code as `code` has it and the git commit checked out in the
    repository at `root`."""

    def __init__(self, code: CodeFacts, served: ServedHashes, root: Path):
        self.code = code
        self.served = served
        self.root = root

    @cached_property
    def commit(self) -> str | None:
        """HEAD, asked of git once and only when an anchor is stamped."""
        return gitio.head(self.root)

    def resolve(self, inputs: Iterable[AnchorInput] | AnchorInput | None) -> list[tuple[Anchor, bool]]:
        """Anchors stamped with the hashes given, the hashes the agent was served, or else the index's
        hashes now; each with True when it was stamped from the index now (an existing record keeps
        its older stamp for such an entity, so re-anchoring cannot hide drift)."""
        if inputs is None:
            return []
        if isinstance(inputs, (str, Mapping, Anchor)):
            inputs = [inputs]
        out: dict[str, tuple[Anchor, bool]] = {}
        for item in inputs:
            anchor, from_index = self._resolve_one(item)
            out[anchor.entity] = (anchor, from_index)
        return list(out.values())

    def _resolve_one(self, item: AnchorInput) -> tuple[Anchor, bool]:
        given = _given(item)
        code = self.code
        if given.sig_hash or given.body_hash:  # the caller says what it saw: keep it
            return given.model_copy(update=dict(generation=given.generation if given.generation is not None
                                                else code.generation, commit=given.commit or self.commit)), False
        served = self.served.get(given.entity)
        if served is not None:
            return served.model_copy(update=dict(generation=served.generation if served.generation is not None
                                                  else code.generation, commit=self.commit)), False
        if not code.available:
            raise InvalidRecord(f"cannot anchor to {quote(given.entity)}: there is no code index to take its hashes from;"
                                " run `graphctx index` first, or pass the anchor with its sig_hash and body_hash")
        entity = code.entity(given.entity)
        if entity is None:
            named = code.named(given.entity)
            if len(named) == 1:
                entity = code.entity(named[0])
            elif named:
                raise InvalidRecord(f"the name {quote(given.entity)} names {len(named)} entities; anchor to one of these ids",
                                    named[:10])
            else:
                raise InvalidRecord(f"no entity {quote(given.entity)} in the code index; anchor to an entity id"
                                    " (path::Qualified.name) or a file path, re-indexing first if the code is new",
                                    code.close_names(given.entity))
        return self.stamp(entity), True  # type: ignore[arg-type]

    def restamp(self, anchor: Anchor, follow_moves: bool) -> Anchor:
        """The anchor with the hashes of its code now; a moved entity's anchor points where its code went."""
        entity = self.code.entity(anchor.entity)
        if entity is None and follow_moves:
            found = self.code.same_body(anchor.body_hash, anchor.entity)
            if found:
                entity = self.code.entity(rank_moves(anchor.entity, found)[0])
        return self.stamp(entity) if entity is not None else anchor

    def stamp(self, entity: CodeEntity) -> Anchor:
        """An anchor holding the entity's hashes as the index has them now."""
        return Anchor(entity=entity.id, sig_hash=entity.sig_hash, body_hash=entity.body_hash,
                      generation=self.code.generation, commit=self.commit)


def keep_stamps(old: list[Anchor], new: list[tuple[Anchor, bool]]) -> list[Anchor]:
    """Anchors for an edited record: an entity already anchored keeps its stamp unless the caller gave
    hashes (re-stamping it here would hide drift; verify does that on purpose)."""
    by_entity = {a.entity: a for a in old}
    return [by_entity[a.entity] if from_index and a.entity in by_entity else a for a, from_index in new]


def code_of(anchor: Anchor) -> tuple[str, str, str]:
    """What an anchor says about the code, without when it was said."""
    return anchor.entity, anchor.sig_hash, anchor.body_hash


def _given(item: AnchorInput) -> Anchor:
    if isinstance(item, Anchor):
        return item
    if isinstance(item, Mapping):
        data = dict(item)
        if "entity" not in data and "id" in data:  # an Entity as the index or get_context returns it
            data["entity"] = data.pop("id")
        try:
            return Anchor.model_validate(data)
        except ValidationError as exc:
            raise InvalidRecord(f"invalid anchor {quote(item)}: {validation_message(exc)}") from None
    if isinstance(item, str) and item.strip():
        return Anchor(entity=item.strip())
    raise InvalidRecord(f"invalid anchor {quote(item)}: give an entity id (path::Qualified.name) or a dict with"
                        " 'entity' and optionally 'sig_hash' and 'body_hash'")
