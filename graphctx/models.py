"""The shared vocabulary, defined once: entity and edge kinds, resolutions, record types, statuses
and scopes, and the request and answer models of every library call. The MCP tool schemas and the
CLI's choices derive from these names, and the CLI's JSON output prints these models. The models
are pydantic's (answers.py; the context answer's are dataclasses pydantic validates and dumps on
demand, packets.py) and load on first use, so that a command reading only the vocabulary
(`graphctx index`, the CLI's choices) or printing a context answer as text does not load pydantic."""

from __future__ import annotations

from typing import Literal, get_args

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
# Code with no name of its own (a lambda, `outer.<lambda1>`): a node of the call graph, never listed in an
# outline, a file's entities or the session map.
ANONYMOUS_KINDS: frozenset[str] = frozenset({"lambda"})
# Every anonymous entity's name has this mark (parse/lambdas.local_name makes them): an id without it names
# no anonymous entity, so ranking reads the kind of none of the thousands of other entities it reaches.
ANONYMOUS_MARK = "<lambda"
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


PACKET_MODELS = ("ContextAnswer", "PacketItem", "Omitted")  # packets.py: no pydantic until one is validated or dumped


def __getattr__(name: str):
    """An answer model (answers.py, packets.py), loaded on first use: every name this module does not define."""
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name in PACKET_MODELS:
        from graphctx import packets as models
    else:
        from graphctx import answers as models
    try:
        value = globals()[name] = getattr(models, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    return value
