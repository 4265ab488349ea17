"""What each pattern of a language's fact query yields, read once off the compiled query: which
reader of extract.py takes its matches (a call, an attribute use, a value flow, an import...) and
whether it may define a scope. A match's captures say the same, but asking them costs a dozen
lookups per match, and a file has thousands of matches; a pattern whose deciding captures are
optional leaves the choice to each match (`decide`)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from tree_sitter import Query

from graphctx.parse import languages
from graphctx.parse.flows import vocabulary

# The readers, in the order a match's captures pick them (see `decide`).
CALL, ATTRIBUTE, FLOW, IMPORT, BASES, TYPE, BINDING, PACKAGE, MODULE_DOC = (
    "call", "attribute", "flow", "import", "bases", "type", "binding", "package", "module.doc")
_DECIDING = frozenset({"call", "attribute.use", "import", "inherits", "implements", "reference.type", "binding",
                       "package", "module.doc"})
_MANDATORY = frozenset({"", "+"})  # capture quantifiers: one, one or more


@dataclass(frozen=True, slots=True)
class Pattern:
    reader: str | None  # None: each match decides (a deciding capture is optional in the pattern)
    flow_capture: str | None  # the pattern's one `flow.*` capture, when it is its only one
    defines: bool  # it has a `definition.*` or `scope.impl` capture: it may open a scope


def decide(captures, with_flow: bool) -> str:
    """The reader of a match with these capture names ("" for none of them: a definition's own)."""
    if "call" in captures:
        return CALL
    if "attribute.use" in captures:
        return ATTRIBUTE
    if with_flow and any(name.startswith("flow.") for name in captures):
        return FLOW
    if "import" in captures:
        return IMPORT
    if "inherits" in captures or "implements" in captures:
        return BASES
    if "reference.type" in captures:
        return TYPE
    if "binding" in captures:
        return BINDING
    if "package" in captures:
        return PACKAGE
    if "module.doc" in captures:
        return MODULE_DOC
    return ""


@cache
def of(language: str) -> tuple[Pattern, ...]:
    """Each pattern of the language's fact query, by pattern index (cached per process, as the query is)."""
    return read(languages.load(language)[1], vocabulary(language) is not None)


def read(query: Query, with_flow: bool) -> tuple[Pattern, ...]:
    """Each pattern of `query`, by pattern index."""
    out = []
    for index in range(query.pattern_count):
        captures = {}  # name -> quantifier, of the captures this pattern has
        for capture in range(query.capture_count):
            try:
                captures[query.capture_name(capture)] = query.capture_quantifier(index, capture)
            except SystemError:  # (the binding's answer for a capture the pattern lacks)
                continue
        deciding = [name for name in captures if name in _DECIDING or name.startswith("flow.")]
        sure = all(captures[name] in _MANDATORY for name in deciding)
        flows = [name for name in captures if name.startswith("flow.")]
        out.append(Pattern(decide(captures, with_flow) if sure else None,
                           flows[0] if len(flows) == 1 and captures[flows[0]] in _MANDATORY else None,
                           any(name.startswith("definition.") or name == "scope.impl" for name in captures)))
    return tuple(out)
