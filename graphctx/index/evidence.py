"""Which of the methods a call on an object of unknown type may reach are candidates, and which of
them the evidence keeps: a method of a class local to another function or of another test file is
none; a receiver named like the class beats the class being near (this file, this class's
hierarchy); a name every builtin container, string, file, socket or future has needs the first; a
declaration gives way to its overrides. A mixin of the file resolver (resolve.py)."""

from __future__ import annotations

from functools import lru_cache

from graphctx.index import declarations
from graphctx.index.naming import is_test_file
from graphctx.index.symbols import Symbol


class CandidateEvidence:
    """The evidence rules over a file resolver's table, edges and call site."""

    def _overridden_dropped(self, candidates: list[Symbol]) -> list[Symbol]:
        """Candidates less the declarations (a body that is `...` or only raises NotImplementedError)
        that another candidate overrides: an object is never of a class that does not implement it."""
        if len(candidates) < 2:
            return candidates
        owners = {s.id: self.table.owner_of(s) for s in candidates}
        out = []
        for sym in candidates:
            owner = owners[sym.id]
            if owner is not None and declarations.declared(self, sym):
                below = set(self.table.subclass_ids(owner.id))
                if any(o is not None and o.id in below for o in owners.values()):
                    continue
            out.append(sym)
        return out

    def _reachable(self, method: Symbol) -> bool:
        """Whether an object of unknown type here can be an instance of the method's class: not when
        the class is local to a function this code is not in (flow would have typed an instance it
        returned), nor when it lives in another test file this file does not import (test modules
        are no one's library)."""
        if method.path != self.path and _test_file(method.path) and (self.path, method.path, "imports") not in self.edges:
            return False
        outer = self._local_to(method)
        if outer is None:
            return True
        scope = self._site.scope if getattr(self, "_site", None) is not None else ""
        return method.path == self.path and (scope == outer or scope.startswith(outer + "."))

    def _local_to(self, method: Symbol) -> str | None:
        """The function a method's class is local to, or None; kept per file resolver, as the same
        candidates come back for every call of a name."""
        known = vars(self).setdefault("_local_classes", {})
        if method.id not in known:
            defs = self.table.file_defs.get(method.path, {})
            parts = method.qualified_name.split(".")[:-2]  # the enclosing scopes of the method's class
            outers = (defs.get(".".join(parts[:depth])) for depth in range(len(parts), 0, -1))
            known[method.id] = next((o.qualified_name for o in outers
                                     if o is not None and o.kind in ("function", "method", "lambda")), None)
        return known[method.id]

    def _best_evidence(self, candidates: list[Symbol], receiver: str | None, name: str) -> list[Symbol]:
        """The methods an untyped `obj.name()` may call, kept by the strongest evidence any of them has:
        the receiver is named like the method's class (`session.send` -> Session), then the class is
        in this file or this class's hierarchy. A method name every builtin container, string, file,
        socket or future has (`get`, `items`, `read`, `done`) needs the first; other names keep every candidate (when few),
        those of imported modules first."""
        if not candidates or receiver == "super" or name.startswith("__"):  # (protocol methods: any class has them)
            return []
        owners = {s.id: self.table.owner_of(s) for s in candidates}
        spoken = _words(receiver.rpartition(".")[2]) if receiver and receiver not in ("?", "super") else ""
        named = [s for s in candidates if spoken and owners[s.id] is not None and _names_class(spoken, owners[s.id].name)]
        if named:
            return named
        if name in self.rules.builtin_methods:
            return []
        site = getattr(self, "_site", None)
        cls = self._enclosing_class(site.scope) if site is not None else None
        related = set(self.table.lineage_ids(cls.id)) | set(self.table.subclass_ids(cls.id)) if cls is not None else set()
        near = [s for s in candidates if s.path == self.path or (owners[s.id] is not None and owners[s.id].id in related)]
        # The calling method alone is no evidence: one calling its own name on another object hands the
        # work on more often than it recurses (`var.quantile()` in `Dataset.quantile` is `Variable.quantile`'s).
        only_the_caller = site is not None and [(s.path, s.qualified_name) for s in near] == [(self.path, site.scope)]
        if near and not only_the_caller:
            return near
        # (an imported module's method is listed first, never alone: what a call returns is often elsewhere)
        return sorted(candidates, key=lambda s: (self.path, s.path, "imports") not in self.edges)


@lru_cache(maxsize=4096)
def _test_file(path: str) -> bool:
    return is_test_file(path)


def _words(name: str) -> str:
    return name.lower().replace("_", "")


def _names_class(spoken: str, class_name: str) -> bool:
    """Whether a variable's name says it holds that class: `session` for Session, `adapter` for HTTPAdapter."""
    cls = _words(class_name)
    return len(spoken) >= 3 and (cls == spoken or cls.endswith(spoken) or spoken.endswith(cls))
