"""The request and answer models of every library call (pydantic), over the vocabulary in
models.py, but for the context answer's (packets.py); read through graphctx.models, which loads this
module on first use. A model's validator and serializer are built when first used, not when this
module loads: a command builds those of the answers it makes."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel as _PydanticModel, ConfigDict, Field

from graphctx.models import EdgeKind, EntityKind, Resolution


class BaseModel(_PydanticModel):
    """An answer model whose validator and serializer are built on first use."""

    model_config = ConfigDict(defer_build=True)


class Entity(BaseModel):
    id: str
    kind: EntityKind
    name: str
    qualified_name: str
    language: str
    path: str
    start_line: int
    end_line: int
    signature: str = ""
    doc: str = ""
    sig_hash: str = ""
    body_hash: str = ""


class Edge(BaseModel):
    source: str
    target: str
    kind: EdgeKind
    resolution: Resolution
    confidence: float
    line: int = 0


class EntityEdges(BaseModel):
    """One entity with its incoming and outgoing edges (graphctx show)."""

    entity: Entity
    outgoing: list[Edge]
    incoming: list[Edge]


class ProjectFacts(BaseModel):
    """What a newcomer needs to know first, read from the index and a few small files."""

    root: str
    name: str
    overview: str
    files: int
    entities: int
    edges: int
    languages: dict[str, int]
    generation: int
    indexed_at: float | None
    entry_points: list[str] = Field(default_factory=list)  # "label -> entity id" or an entity id

    def languages_text(self) -> str:
        return ", ".join(f"{lang} {n}" for lang, n in sorted(self.languages.items(), key=lambda kv: (-kv[1], kv[0])))


class IndexStats(BaseModel):
    root: str
    generation: int
    files: int
    entities: int
    edges: int
    indexed_at: float | None
    age_seconds: float | None
    languages: dict[str, int]
    entity_kinds: dict[str, int]
    edge_kinds: dict[str, int]
    resolutions: dict[str, int]
    calls_resolved_share: float
    parse_errors: int
    files_with_errors: int
    warnings: list[tuple[str, str]]
    skipped: dict[str, int] = Field(default_factory=dict)  # files not indexed, by reason
    skipped_languages: dict[str, int] = Field(default_factory=dict)  # files in languages with no parser yet
    skipped_files: list[tuple[str, str, str]] = Field(default_factory=list)  # (path, reason, detail), per-file reasons


class SearchHit(BaseModel):
    id: str
    kind: EntityKind
    path: str
    start_line: int
    signature: str
    score: float
    match: str


class SearchAnswer(BaseModel):
    query: str
    hits: list[SearchHit]
    generation: int


class DocumentHeading(BaseModel):
    """A heading of a repository document, with the id of its section entity."""

    level: int
    title: str
    line: int
    end_line: int
    path: str  # the titles from the top: "Install > From source"
    id: str


class DocumentTable(BaseModel):
    line: int
    header: list[str]
    rows: list[list[str]]


class DocumentAnswer(BaseModel):
    """One Markdown document of the repository, in the part asked for (graphctx doc)."""

    path: str
    title: str
    view: Literal["outline", "section", "tables"]
    headings: list[DocumentHeading]
    section: DocumentHeading | None = None
    text: str = ""  # the section's lines, heading included
    tables: list[DocumentTable] = Field(default_factory=list)
    generation: int

    def is_empty(self) -> bool:
        """Nothing found: no headings to outline, no tables."""
        return not self.headings if self.view == "outline" else self.view == "tables" and not self.tables
