"""Which of the methods a call on an object of unknown type may reach are candidates, and which of
them the evidence keeps: a method of a class local to another function, of another test file or of
another project's copy of a module this file's project holds is none; a receiver named like the
class beats the class being near (this file, this class's hierarchy); a name every builtin
container, string, file, socket or future has needs the first; a declaration gives way to its
overrides. A mixin of the file resolver (resolve.py)."""

from __future__ import annotations

from functools import lru_cache

from graphctx.index import declarations
from graphctx.index.naming import is_test_file
from graphctx.index.symbols import Symbol


class CandidateEvidence:
    """The evidence rules over a file resolver's table, edges and call site."""

    def _untyped_candidates(self, name: str, receiver: str | None) -> list[Symbol]:
        """The methods an untyped `receiver.name()` here may call, by the rules below. While the file's
        uses resolve (`_untyped` is set), each answer is kept by what it rests on: the name, the
        receiver's last word, the enclosing class, and the calling function where a candidate is in
        this file or of a class local to a function; the same names come back at every call, and on
        a large repository a common one has hundreds of candidates."""
        memo: dict | None = vars(self).get("_untyped")  # name -> (whether the calling function matters, methods); key -> answer
        site = getattr(self, "_site", None)
        scope = site.scope if site is not None else None
        key = None
        if memo is None:
            methods = self._methods_here(name)
        else:
            if name not in memo:
                methods = self._methods_here(name)
                memo[name] = (any(s.path == self.path or self._local_to(s) is not None for s in methods), methods)
            scoped, methods = memo[name]
            cls = self._enclosing_class(scope) if scope is not None else None
            key = (name, receiver == "super", _spoken(receiver), cls.id if cls is not None else None,
                   scope if scoped else None)
            if key in memo:
                return memo[key]
        candidates = [s for s in methods if self._reachable(s)]
        found = self._overridden_dropped(self._best_evidence(candidates, receiver, name))
        if key is not None:
            memo[key] = found
        return found

    def _methods_here(self, name: str) -> list[Symbol]:
        """The methods of that name code in this file may reach at all: of its language family, and
        unless this file imports their module, not of another test file (test modules are no one's
        library) nor of another project's copy of a module its own project holds (copies side by
        side, services each with an `app` package)."""
        return [s for s in self.table.methods_by_name.get(name, ()) if s.family == self.family
                and (s.path == self.path or (self.path, s.path, "imports") in self.edges
                     or not (_test_file(s.path) or self.table.modules.shadowed(self.path, s.path)))]

    def _overridden_dropped(self, candidates: list[Symbol]) -> list[Symbol]:
        """Candidates less the declarations (a body that is `...` or only raises NotImplementedError)
        that another candidate overrides: an object is never of a class that does not implement it."""
        if len(candidates) < 2:
            return candidates
        owners = list(map(self._owner, candidates))
        owner_ids = {owner.id for owner in owners if owner is not None}
        dropped = {sym.id for sym, owner in zip(candidates, owners)
                   if owner is not None and declarations.declared(self, sym)
                   and not owner_ids.isdisjoint(self.table.subclass_ids(owner.id))}
        return [sym for sym in candidates if sym.id not in dropped] if dropped else candidates

    def _owner(self, method: Symbol) -> Symbol | None:
        """The class of a candidate method, kept by the table: the same candidates come back at every
        call of a name, in every file."""
        owners = self.table.owners
        if method.id not in owners:
            owners[method.id] = self.table.owner_of(method)
        return owners[method.id]

    def _reachable(self, method: Symbol) -> bool:
        """Whether an object of unknown type here can be an instance of the method's class: not when
        the class is local to a function this code is not in (flow would have typed an instance it
        returned)."""
        outer = self._local_to(method)
        if outer is None:
            return True
        scope = self._site.scope if getattr(self, "_site", None) is not None else ""
        return method.path == self.path and (scope == outer or scope.startswith(outer + "."))

    def _local_to(self, method: Symbol) -> str | None:
        """The function a method's class is local to, or None; kept by the table, like `_owner`."""
        known = self.table.local_classes
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
        owners = {s.id: self._owner(s) for s in candidates}
        spoken = _spoken(receiver)
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


def _spoken(receiver: str | None) -> str:
    """What a receiver's name says of its class: its last part, lowercased, without underscores."""
    return _words(receiver.rpartition(".")[2]) if receiver and receiver not in ("?", "super") else ""


def _words(name: str) -> str:
    return name.lower().replace("_", "")


def _names_class(spoken: str, class_name: str) -> bool:
    """Whether a variable's name says it holds that class: `session` for Session, `adapter` for HTTPAdapter."""
    cls = _words(class_name)
    return len(spoken) >= 3 and (cls == spoken or cls.endswith(spoken) or spoken.endswith(cls))
