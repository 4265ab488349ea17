"""The shared vocabulary, defined once: entity and edge kinds, resolutions, record types, statuses
and scopes, and the request and answer models of every library call. The MCP tool schemas and the
CLI's choices derive from these names, and the CLI's JSON output prints these models."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, Field

Format = Literal["compact", "json"]
FORMATS: tuple[str, ...] = get_args(Format)
ExportFormat = Literal["json", "graphml", "mermaid", "html"]
EXPORT_FORMATS: tuple[str, ...] = get_args(ExportFormat)
HostFormat = Literal["agents-md", "claude-md", "cursor-rules"]  # the team's memory in the files hosts read
HOST_FORMATS: tuple[str, ...] = get_args(HostFormat)
Mode = Literal["context", "intent", "path"]
Intent = Literal["modify", "understand", "review", "debug", "add", "plan"]
INTENTS: tuple[str, ...] = get_args(Intent)
DetailLevel = Literal["summary", "neighbors", "full"]
DETAIL_LEVELS: tuple[str, ...] = get_args(DetailLevel)
Detail = Literal["full", "summary", "line"]

EntityKind = Literal["file", "class", "struct", "interface", "trait", "enum", "function", "method", "constant",
                     "route", "document", "section", "lambda"]
ENTITY_KINDS: tuple[str, ...] = get_args(EntityKind)
CLASS_KINDS: frozenset[str] = frozenset({"class", "struct", "interface", "trait", "enum"})  # kinds that hold members
FUNCTION_KINDS: frozenset[str] = frozenset({"function", "method"})
# Code with no name of its own (a lambda, `outer.<lambda:12>`): a node of the call graph, never listed in an
# outline, a file's entities or the session map.
ANONYMOUS_KINDS: frozenset[str] = frozenset({"lambda"})
# Entities no code names: an HTTP route (`route:GET /users`), a Markdown document and its sections.
# They are no symbols, so no call or import resolves to them; their edges say what they serve or name.
TEXT_KINDS: frozenset[str] = frozenset({"route", "document", "section"})
# The order is the edge-kind code of the graph's sparse arrays.
EdgeKind = Literal["calls", "contains", "imports", "inherits", "implements", "references", "tests", "handles"]
EDGE_KINDS: tuple[str, ...] = get_args(EdgeKind)
Resolution = Literal["exact", "import", "same-scope", "inferred", "heuristic", "ambiguous", "external", "unresolved"]
RESOLUTIONS: tuple[str, ...] = get_args(Resolution)
INFERRED: frozenset[str] = frozenset({"heuristic", "inferred", "ambiguous"})  # guessed, not proven by syntax or imports
# How get_impact labels the entities a change touches, and how its dependents' relations begin ("tier1 called-by").
ChangeRelation = Literal["changed", "added", "removed"]
CHANGE_RELATIONS: tuple[str, ...] = get_args(ChangeRelation)
TIER_PREFIX = "tier"
NO_PARSER = "no parser"  # the skip reason of a file whose grammar wheel is not installed here (counted by language)

RecordKind = Literal["knowledge", "decision"]
RECORD_KINDS: tuple[str, ...] = get_args(RecordKind)
KnowledgeType = Literal["note", "convention", "fact", "how-to", "pitfall", "hypothesis"]
KNOWLEDGE_TYPES: tuple[str, ...] = get_args(KnowledgeType)
DecisionStatus = Literal["proposed", "accepted", "rejected", "superseded", "deprecated"]
DECISION_STATUSES: tuple[str, ...] = get_args(DecisionStatus)
Scope = Literal["shared", "private", "ephemeral"]  # committed, this clone only, this process only
SCOPES: tuple[str, ...] = get_args(Scope)
# Working together (graphctx.coord): a task's states, a run's outcomes and session_init's scopes.
TaskStatus = Literal["pending", "in_progress", "done", "failed", "blocked"]
TASK_STATUSES: tuple[str, ...] = get_args(TaskStatus)
RunOutcome = Literal["success", "partial", "failure", "abandoned"]
RUN_OUTCOMES: tuple[str, ...] = get_args(RunOutcome)
SessionScope = Literal["quick", "standard", "resume", "full"]
SESSION_SCOPES: tuple[str, ...] = get_args(SessionScope)

DEFAULT_BUDGET = 4000
MAX_DEPTH = 6  # hops an answer may follow from its root
MAX_BUDGET = 100_000
MIN_BUDGET = 100


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
