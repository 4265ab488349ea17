"""The context answer's model: a ContextAnswer of PacketItems and Omitted entries, defined once, as
plain dataclasses that pydantic validates and serializes on demand (a TypeAdapter made on first use),
with the model methods callers use (model_dump, model_dump_json, model_validate). The answering code
makes them from values already valid, so an answer printed as compact text never loads pydantic (a
fifth of a one-shot command's start-up). Read through graphctx.models, like the other answer models."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from graphctx.models import Detail  # noqa: F401  (the annotations below name it; pydantic resolves them here)

if TYPE_CHECKING:
    from pydantic import TypeAdapter

M = TypeVar("M", bound="_Validated")


class _Validated:
    """pydantic's model methods over a dataclass: validation and serialization by a TypeAdapter of
    the class, made when first needed."""

    @classmethod
    def _adapter(cls) -> TypeAdapter:
        adapter = cls.__dict__.get("_made_adapter")
        if adapter is None:
            from pydantic import TypeAdapter

            adapter = TypeAdapter(cls)
            setattr(cls, "_made_adapter", adapter)
        return adapter

    @classmethod
    def model_validate(cls: type[M], data: Any) -> M:
        """An instance from `data` (a dict, or an instance), checked and converted as pydantic does."""
        return cls._adapter().validate_python(data)

    def model_dump(self, **options: Any) -> dict[str, Any]:
        return self._adapter().dump_python(self, **options)

    def model_dump_json(self, *, indent: int | None = None, **options: Any) -> str:
        return self._adapter().dump_json(self, indent=indent, **options).decode()


@dataclass(kw_only=True, eq=True)
class PacketItem(_Validated):
    """One entity in a context answer, at the detail the budget allowed."""

    id: str
    kind: str
    path: str
    start_line: int
    end_line: int
    score: float
    relation: str  # root, seed, calls, called-by, contains, ... as seen from the root
    distance: int
    detail: Detail
    text: str  # the code (full), signature and doc (summary) or nothing (line)
    body_hash: str = ""  # pass it back as known_hash: an unchanged body then comes as one line
    resolution: str = ""
    confidence: float = 1.0
    stale: bool = False  # the file changed on disk since it was indexed


@dataclass(kw_only=True, eq=True)
class Omitted(_Validated):
    id: str
    score: float


@dataclass(kw_only=True, eq=True)
class ContextAnswer(_Validated):
    mode: str
    query: str
    root: str | None
    items: list[PacketItem]
    notes: list[str] = field(default_factory=list)
    truncated: bool
    omitted: list[Omitted]
    omitted_count: int
    total_candidates: int
    tokens_used: int
    token_budget: int
    generation: int
