"""Which names a file binds where, as its structure pass asks it, answered without its flows.

Resolving a class's bases and what a `from m import x` binds asks one thing of value flow: whether a
scope binds a name as a variable (`FlowTables.local_level`, `module_variable`). The tables that answer
it are made of the file's flows and parameters, most of what a file's facts hold, and a full build's
main process would read them for a quarter of a repository's files (every file whose classes have
bases) only to learn that it does not. This summary, made where the file is parsed, answers those
questions exactly as the tables would, for the module's own names and for the names its bases are
written with; any other question reads the flows as before."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from graphctx.index.flowrules import flows_by_target
from graphctx.index.flowtables import variables_of
from graphctx.index.symbols import CLASS_KINDS
from graphctx.parse.facts import FileFacts


@dataclass(frozen=True, slots=True)
class BoundNames:
    """(scope, name) pairs a file binds: assigned variables and parameters, those of module level and
    those of `names` at any level."""

    names: frozenset[str]  # answered at every level: the first word of each base the file names
    assigned: frozenset[tuple[str, str]]
    params: frozenset[tuple[str, str]]

    def answers(self, scope: str, name: str) -> bool:
        return _answers(self.names, scope, name)


def bound_names(facts: FileFacts) -> BoundNames:
    """The summary of full (not structure-only) facts."""
    names = frozenset(base.name.split(".", 1)[0] for base in facts.bases)
    assigned = variables_of(flows_by_target(_FileOnly(facts)))
    params = [(param.scope, param.name) for param in facts.params]
    answered = [frozenset(pair for pair in pairs if _answers(names, *pair)) for pairs in (assigned, params)]
    return BoundNames(names, *answered)


def _answers(names: frozenset[str], scope: str, name: str) -> bool:
    return not scope or name in names


class _FileOnly:
    """What flows_by_target reads of a resolver, from the file's facts alone. A `self.x` store, which
    needs the class hierarchy, binds no variable and is left out."""

    def __init__(self, facts: FileFacts):
        self.facts, self.path = facts, facts.path

    @cached_property
    def _classes(self) -> frozenset[str]:
        first: dict[str, str] = {}  # (a redefinition keeps the first, as the file's entities do)
        for definition in self.facts.definitions:
            first.setdefault(definition.qualified_name, definition.kind)
        return frozenset(name for name, kind in first.items() if kind in CLASS_KINDS)

    def _is_class(self, qualified: str) -> bool:
        return qualified in self._classes

    def _enclosing_class(self, scope: str) -> None:
        return None
