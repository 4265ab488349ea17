"""The shared vocabulary, defined once: entities, edges, and the request and answer models of
every library call. The MCP tool schemas are these models and the CLI's JSON output prints them."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, Field

Format = Literal["compact", "json"]
Mode = Literal["context", "intent", "path"]
Intent = Literal["modify", "understand", "review", "debug", "add", "plan"]
INTENTS: tuple[str, ...] = get_args(Intent)
DetailLevel = Literal["summary", "neighbors", "full"]
Detail = Literal["full", "summary", "line"]
EntityKind = Literal["file", "class", "struct", "interface", "trait", "enum", "function", "method", "constant"]
ENTITY_KINDS: tuple[str, ...] = get_args(EntityKind)

DEFAULT_BUDGET = 4000
MAX_BUDGET = 100_000
MIN_BUDGET = 100


class Entity(BaseModel):
    id: str
    kind: str
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
    kind: str
    resolution: str
    confidence: float
    line: int = 0


class EntityEdges(BaseModel):
    """One entity with its incoming and outgoing edges (graphctx show)."""

    entity: Entity
    outgoing: list[Edge]
    incoming: list[Edge]


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
    kind: str
    path: str
    start_line: int
    signature: str
    score: float
    match: str


class SearchAnswer(BaseModel):
    query: str
    hits: list[SearchHit]
    generation: int


class PacketItem(BaseModel):
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


class Omitted(BaseModel):
    id: str
    score: float


class ContextAnswer(BaseModel):
    mode: str
    query: str
    root: str | None
    items: list[PacketItem]
    notes: list[str] = Field(default_factory=list)
    truncated: bool
    omitted: list[Omitted]
    omitted_count: int
    total_candidates: int
    tokens_used: int
    token_budget: int
    generation: int
