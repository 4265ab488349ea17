"""A file's call-site index, for value flow (flow.py's FlowScope): which calls of the file may reach
each function, and so what its parameters receive. A callee may itself be a parameter, so the index
is built again, a bounded number of rounds, until it stops growing."""

from __future__ import annotations

from collections import defaultdict

from graphctx.index.flowpaths import argument_for, callee_path, ordered
from graphctx.index.scope import Value
from graphctx.parse.facts import Call

MAX_SITE_ROUNDS = 3  # call-site index rebuilds: each lets one more level of passed-on functions through


class CallSites:
    """The call-site index of a FlowScope, whose state (`_sites`, `_building`, `_consulted`, the
    memo) it keeps."""

    # ---- parameters: what this file's call sites pass
    def _argument_values(self, function: str, param: str, suffix: str) -> set[Value]:
        slot, sym = self.params[function][param], self.defs.get(function)
        if slot.kind or sym is None:
            return set()
        if sym.id in self.unreached:  # (no call site: the call-site index is not made; for this run only)
            self.table.flow.not_final()
            return set()
        out: set[Value] = set()
        for call, offset in self.call_sites().get(sym.id, ()):
            source = argument_for(call.args, param, slot.index - offset)
            if source:
                out |= self.values(source + suffix, call.scope)
        return out

    def call_sites(self) -> dict[str, list[tuple[Call, int]]]:
        """Function id -> the calls of this file that may reach it, with the number of leading
        parameters the call does not pass (1 for a bound method or a constructor's self). A callee
        may itself be a parameter, so the index is built again until it stops growing."""
        if self._sites is not None:
            return self._sites
        if self._building is not None:  # asked while building: this round's index (rounds repeat until it holds)
            self._consulted = True
            self.table.flow.not_final()  # (what is made of it holds for this round only)
            return self._building
        sites: dict[str, list[tuple[Call, int]]] = {}
        for _ in range(MAX_SITE_ROUNDS):
            self._building, self._consulted = sites, False
            found = self._index_sites()
            if found == sites or not self._consulted:  # (no answer of this round read the index it was building)
                sites = found
                break
            sites = found
            self._memo.clear()
            self.table.flow.new_epoch()
        self._building = None
        self._sites = sites
        return sites

    def _index_sites(self) -> dict[str, list[tuple[Call, int]]]:
        sites: dict[str, list[tuple[Call, int]]] = defaultdict(list)
        for call in self.facts.calls:
            if not call.args:
                continue
            path = callee_path(call)
            for value in ordered(self.values(path, call.scope)) if path else ():
                if value.kind == "function":
                    sites[value.ref].append((call, 1 if value.bound else 0))
                elif value.kind == "class":
                    init = self.table.find_member(value.ref, "__init__")
                    if init is not None:
                        sites[init[0].id].append((call, 1))
        return dict(sites)
