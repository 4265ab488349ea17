"""The tables a file's value flow (flow.py's FlowScope) reads off its own facts and definitions
alone: the flows into each target, the subscripts stored into it, the parameters of each function,
and which scope binds a name as a local variable. Made on first use, dropped and made again the same
(`forget_tables`): nothing in them depends on another file."""

from __future__ import annotations

from collections import defaultdict
from functools import cached_property
from typing import TYPE_CHECKING

from graphctx.index import flowrules
from graphctx.index.symbols import CLASS_KINDS
from graphctx.parse.facts import Flow, NotLoaded, Param

if TYPE_CHECKING:
    from graphctx.index.flowsummary import BoundNames

# The tables made (once) of the file's own facts and definitions alone: see forget_tables (the typed
# bindings' table is its FileScope's).
FILE_TABLES = ("flow_sources", "_targets", "subscripts", "params", "bindings")


def variables_of(flow_sources, subscripts: dict[tuple[str, str], set[str]] | None = None) -> set[tuple[str, str]]:
    """The (scope, name) pairs the stores of a file's flow table (flowrules.flows_by_target) assign
    as variables: `d` for `d[k] = v` too, whose subscripts go into `subscripts`."""
    variables: set[tuple[str, str]] = set()  # (the table's own pairs where they can be)
    for key in flow_sources:
        owner, target = key
        base = target.split("[", 1)[0]
        if base != target:
            key = (owner, base)  # (the first one made is the dict's key, and the set's)
            if subscripts is not None:
                subscripts.setdefault(key, set()).add(target[len(base):])
        if "." not in target:
            variables.add(key)
    return variables


class FlowTables:
    """A FlowScope's tables of its own file, whose state (`facts`, `defs`, `_levels`) it keeps."""

    # The tables below are made on first use: the structure pass of every file needs none of them,
    # and a worker makes them only for the files its questions reach.
    @cached_property
    def flow_sources(self) -> dict[tuple[str, str], tuple[Flow, ...]]:
        """(scope, target) -> the flows into it, in the file's order; `self.x` targets live on the class."""
        return flowrules.flows_by_target(self)

    @cached_property  # (a worker holds these for thousands of files: few objects of their own)
    def _targets(self) -> tuple[set[tuple[str, str]], dict[tuple[str, str], tuple[str, ...]]]:
        subscripts: dict[tuple[str, str], set[str]] = {}
        variables = variables_of(self.flow_sources, subscripts)
        return variables, {key: tuple(sorted(stored)) for key, stored in subscripts.items()}

    def assigns(self, scope: str, name: str) -> bool:
        """Whether the flows of `scope` assign the variable `name` (`d` for `d[] <- f` too)."""
        summary = self._summary(scope, name)
        return (scope, name) in (summary.assigned if summary is not None else self._targets[0])

    def _binds_param(self, scope: str, name: str) -> bool:
        summary = self._summary(scope, name)
        return (scope, name) in summary.params if summary is not None else name in self.params.get(scope, ())

    def _summary(self, scope: str, name: str) -> BoundNames | None:
        """The file's bound names (flowsummary.py), when its flows are not read and they answer for
        `name` in `scope`: what a full build's structure pass asks, without reading the flows."""
        summary = self.facts.bound
        if summary is None or not isinstance(self.facts.flows, NotLoaded) or not summary.answers(scope, name):
            return None
        return summary

    @cached_property
    def subscripts(self) -> dict[tuple[str, str], tuple[str, ...]]:
        """(scope, target) -> the subscripts stored into it, in order: "['a'][]" for `d['a'][] <- f`."""
        return self._targets[1]

    @cached_property
    def params(self) -> dict[str, dict[str, Param]]:
        """function -> its parameters by name (the facts' own objects, not a tuple of their own each)."""
        out: dict[str, dict[str, Param]] = defaultdict(dict)
        for param in self.facts.params:
            out[param.scope][param.name] = param
        return out

    def forget_tables(self) -> None:
        """Drop the tables made of this file's own flows, parameters and definitions (made again, the
        same, when next read): a forked worker makes only those of the files its questions reach."""
        for name in FILE_TABLES:
            self.__dict__.pop(name, None)
        self._levels = {}


    # ---- names local to a function (or module-level variables)
    def local_level(self, name: str, scope: str) -> str | None:
        """The scope whose flows or parameters bind `name` as seen from `scope`, or None when the name
        is not a variable there (a definition or an import decides it). Class bodies are not visible
        from their methods. (Read off this file's own tables: worked out once per name and scope.)"""
        key = (name, scope)
        if key not in self._levels:
            self._levels[key] = self._local_level(name, scope)
        return self._levels[key]

    def _local_level(self, name: str, scope: str) -> str | None:
        level = scope
        while True:
            is_class = level != scope and self._is_class(level)
            if not is_class:
                if self.assigns(level, name) or self._binds_param(level, name):
                    return level
                if level and f"{level}.{name}" in self.defs:
                    return None  # a nested definition shadows anything further out
            if not level:
                return None
            level = level.rpartition(".")[0]

    def _is_class(self, qualified: str) -> bool:
        sym = self.defs.get(qualified)
        return sym is not None and sym.kind in CLASS_KINDS
