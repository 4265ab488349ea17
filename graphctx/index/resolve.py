"""Turns the names in one file's facts into edges (contains, imports, calls, inherits, implements,
references, tests) against the repository's symbol table, each saying how it was resolved and how
sure we are: several candidates stay `ambiguous` with all of them, a name from outside the
repository is `external`, a callee nobody can know is `unresolved`. Scopes are scope.py's part."""

from __future__ import annotations

import posixpath
from functools import cached_property

from graphctx.index import containment, declarations, flowrules, properties, textedges
from graphctx.index.evidence import CandidateEvidence
from graphctx.index.flow import FlowScope
from graphctx.index.flowpaths import NOT_CALLING, argument_for, callee_path, called_arguments
from graphctx.index.naming import EXTERNAL_PREFIX, external_id, external_name, is_test_file, is_test_name, tested_stem
from graphctx.index.scope import AMBIGUOUS, CONFIDENCE, SELF, Edge, Value, outside_target
from graphctx.index.symbols import CLASS_KINDS, Symbol
from graphctx.parse.facts import Call
from graphctx.parse.languages import family

UNKNOWN_RECEIVER = 0.3  # obj.name() with obj untyped: a unique method name is only a hint
MAX_CANDIDATES = 8  # a name defined more often than this is left unresolved
MAX_RECEIVER_CANDIDATES = 4  # the same for obj.name() on an untyped obj, where a common method name says little
CALLBACK = 0.5  # a function handed to code outside the repository: it is there to be called, but maybe not here
MAX_FLOW_CANDIDATES = 16  # values a variable may hold, each one evidenced by a flow (a dispatch table)
RESOLVED = frozenset({"exact", "import", "same-scope", "inferred", "heuristic"})
CALLABLE_KINDS = frozenset({"function", "class", "struct", "enum", "method"})

Target = tuple[str, str, float]  # (target id, resolution, confidence)


class FileResolver(CandidateEvidence, FlowScope):
    """Resolves one file's facts against the symbol table."""

    _contained = False  # whether its contains edges are made (resolve_contains)

    # ---- entry points: structure first (for every file), then uses, once the class hierarchy is known
    def resolve_structure(self, contains: bool = True) -> list[tuple[str, str]]:
        """Contains (else left to the uses pass), imports, inherits and implements edges; returns the
        (class, base) pairs found."""
        if contains:
            self.resolve_contains()
        self._imports()
        pairs = []
        for base in self.facts.bases:
            source = self._scope_id(base.scope)
            for target, resolution, confidence in self._resolve_type(base.name, base.scope):
                self._add(source, target, base.kind, resolution, confidence, base.line)
                pairs.append((source, target))
        return pairs

    def resolve_uses(self) -> list[Edge]:
        """Calls, references and tests; returns every edge of the file, sorted. Counts call sites
        (not edges: an ambiguous call has several) in `calls` and `calls_resolved`, externals excluded."""
        self.resolve_contains()
        self._untyped = {}  # (evidence.py: answers kept while this file resolves)
        try:
            for call in self.facts.calls:
                self.resolve_call_site(call)
        finally:
            del self._untyped
        properties.property_edges(self)
        for ref in self.facts.type_refs:
            targets = self._resolve_type(ref.name, ref.scope)
            if len(targets) == 1 and targets[0][1] in RESOLVED:
                target, resolution, confidence = targets[0]
                self._add(self._scope_id(ref.scope), target, "references", resolution, confidence, ref.line)
        textedges.route_edges(self)
        textedges.document_edges(self)
        if is_test_file(self.path):
            self._tests()
        return sorted(self.edges.values())

    def resolve_call_site(self, call: Call) -> None:
        """One call's edges (and those of the functions it hands over), counted in `calls`."""
        source = self._scope_id(call.scope)
        targets = self._resolve_site(call)
        if call.implicit:  # a protocol method or a raised class: only what the repository defines
            targets = [t for t in targets if t[0] in self.table.by_id]
            if not targets:
                return
        if targets[0][1] != "external":
            self.calls += 1
            self.calls_resolved += targets[0][1] in RESOLVED
        for target, resolution, confidence in targets:
            self._add(source, target, "calls", resolution, confidence, call.line)
        if call.args:
            self._higher_order(call, targets)
            if all(t[1] == "external" and external_name(t[0]) not in NOT_CALLING and not flowrules.builtin_store(t[0])
                   for t in targets):
                self._callbacks(source, call, targets)

    # ---- structure
    def resolve_contains(self) -> None:
        """The contains edges of the file's definitions, once: no other file reads them."""
        if not self._contained:
            self._contained = True
            containment.contains_edges(self)

    # ---- names
    def _resolve_site(self, call: Call) -> list[Target]:
        """A call's targets: through value flow when the callee is a local variable, a parameter or a
        path (`d[k]()`, `make()()`), else by its names, value flow filling in an unknown receiver."""
        self._site = call
        path = callee_path(call)
        head = path.split(".", 1)[0].split("(", 1)[0].split("[", 1)[0]
        if call.implicit and call.callee:  # a protocol method: only where the receiver's value is known
            return [t for t in self._flow_targets(path, call.scope) if t[0] in self.table.by_id]
        if call.callee or (head and head not in SELF and self.local_level(head, call.scope) is not None):
            targets = self._flow_targets(path, call.scope)
            defined = self._lexical(call.name, call.scope) if call.receiver is None and call.name else None
            if defined is not None and [t[0] for t in targets] == [defined.id]:  # a decorated name still the definition
                return [(defined.id, "exact", 1.0)]
            if targets:
                return targets
            if call.name and path != call.name:  # a method of a local whose value is unknown: its name is a hint
                return self._unknown_receiver(call.name)
            return [(external_id(_call_text(call)), "unresolved", 0.0)]
        return self._resolve_call(call.name, call.receiver, call.scope)

    def _flow_targets(self, path: str, scope: str) -> list[Target]:
        """A callee path's targets: the repository functions and classes it may hold, `inferred` with the
        confidence shared, and its external names, `external`, unless a loop spelled out too many."""
        if not path:
            return []
        repository, external = set(), set()
        for value in self.values(path, scope):
            if value.kind in ("function", "class"):
                repository.add(value.ref)
            elif value.kind == "instance":
                call = self.table.find_member(value.ref, "__call__")
                if call is not None:
                    repository.add(call[0].id)
            elif value.kind == "external":
                external.add((value.ref, value.resolution))
        if len(repository) > MAX_FLOW_CANDIDATES:
            return []
        external = external if len(external) <= MAX_FLOW_CANDIDATES else set()  # else names a loop spelled out
        share = CONFIDENCE["inferred"] / max(1, len(repository))
        return [(r, "inferred", share) for r in sorted(repository)] + [(external_id(n), r, CONFIDENCE[r]) for n, r in sorted(external)]

    def _higher_order(self, call: Call, targets: list[Target]) -> None:
        """A function of another file called with a function for a parameter it calls: that call
        happens in the callee, and this file is where the argument is known."""
        for target, _, _ in targets:
            sym = self.table.by_id.get(target)
            if sym is None or sym.path == self.path or sym.kind not in ("function", "method", "class"):
                continue
            if sym.kind == "class":
                found = self.table.find_member(sym.id, "__init__")
                if found is None:
                    continue
                sym, offset = found[0], 1
            else:
                offset = 1 if sym.kind == "method" and call.receiver not in (None, "?") and self._bound(call) else 0
            home = self._home(sym.path, sym.qualified_name)
            if home is None:
                continue
            for param, slot in home.params.get(sym.qualified_name, {}).items():
                source = "" if slot.kind else argument_for(call.args, param, slot.index - offset)
                if not source or not home.calls_parameter(sym.qualified_name, param):
                    continue
                for callee, resolution, confidence in self._flow_targets(source, call.scope):
                    if callee in self.table.by_id:
                        self._add(sym.id, callee, "calls", resolution, confidence, call.line)

    def _callbacks(self, source: str, call: Call, targets: list[Target]) -> None:
        """A repository function handed to code outside the repository (`map(f, xs)`, `sorted(key=f)`,
        `Thread(target=f)`, a callback registry) is called by it: an edge from where it is handed over."""
        for path in called_arguments(call.args, [t[0][len(EXTERNAL_PREFIX):] for t in targets], self.rules):
            for value in self.values(path, call.scope):
                sym = self.table.by_id.get(value.ref) if value.kind == "function" else None
                if sym is not None and sym.kind in ("function", "method", "lambda"):
                    self._add(source, value.ref, "calls", "inferred", CALLBACK, call.line)

    def _bound(self, call: Call) -> bool:
        receiver = self.values(call.receiver, call.scope) if call.receiver else frozenset()
        return any(v.kind == "instance" for v in receiver) or call.receiver in SELF

    def calls_parameter(self, function: str, param: str) -> bool:
        """Whether `function` calls its parameter `param` directly."""
        return (function, param) in self._plain_calls

    @cached_property
    def _plain_calls(self) -> frozenset[tuple[str, str]]:
        """(function, parameter) of every call of a parameter by its plain name: asked once per argument
        of every call into this file, so gathered once instead of scanning the file's calls each time
        (and only those: a worker holds it for thousands of files)."""
        params = self.params
        return frozenset((c.scope, c.name) for c in self.facts.calls
                         if c.receiver is None and c.name in params.get(c.scope, ()))

    def _resolve_call(self, name: str, receiver: str | None, scope: str) -> list[Target]:
        if receiver is None:
            return self._resolve_name(name, scope, CALLABLE_KINDS)
        if receiver in SELF or (receiver == "super" and self.rules.super_calls_base):
            cls = self._enclosing_class(scope)
            if cls is not None:
                start = self.table.bases.get(cls.id, []) if receiver == "super" else [cls.id]
                for class_id in start:
                    found = self.table.find_member(class_id, name)
                    if found is not None:
                        sym, depth = found
                        below = self._as_overrides(declarations.stub_overrides(self, cls.id, sym)) if receiver != "super" else []
                        return below or [(sym.id, "exact", 1.0 if depth == 0 and receiver != "super" else 0.9)]
                found = self._from_flow()
                if not found and receiver != "super" and self.table.external_base(cls.id) is None:
                    found = self._overrides_below(cls.id, name)  # (an external base likely defines it)
                return found or self._inherited_external(cls.id, name)
        elif receiver != "?":
            value = self._value(receiver, scope)
            if value is not None:
                return self._member(value, name)
            if self._typed_outside(receiver, scope):  # `List<Shape> lines; lines.Add(x)`: no repository method
                return self._from_flow() or [(external_id(f"{receiver}.{name}"), "unresolved", 0.0)]
        return self._unknown_receiver(name)

    def _member(self, value: Value, name: str) -> list[Target]:
        if value.kind == "external":
            return [outside_target(f"{value.ref}.{name}", value)]
        if value.kind == "module":
            member = self._module_member(value.ref, name)
            if member is not None and member.kind == "external":  # a name the module re-exports from outside
                return [outside_target(member.ref, member)]
            if member is not None and member.kind != "module":
                return [(member.ref, "import", CONFIDENCE["import"])]
            return self._from_flow() or self._unknown_receiver(name)
        if value.kind in ("class", "instance"):
            found = self.table.find_member(value.ref, name)
            below = self._as_overrides(declarations.stub_overrides(self, value.ref, found[0])) \
                if found is not None and value.kind == "instance" else []
            if below:  # a stub of the declared type: what its subclasses implement
                return below
            if found is not None:
                resolution = "inferred" if value.kind == "instance" else value.resolution
                return [(found[0].id, resolution, CONFIDENCE[resolution])]
            return self._from_flow() or self._inherited_external(value.ref, name)
        return self._unknown_receiver(name)

    def _overrides_below(self, class_id: str, name: str) -> list[Target]:
        """`self.m()` in a class that neither defines nor inherits m (a template method): what its
        subclasses define as m or assign to `self.m` (declarations.py)."""
        return self._as_overrides(declarations.overrides(self, class_id, name))

    def _as_overrides(self, found: set[str]) -> list[Target]:
        """The overrides a call reaches below a class, `inferred` when one, `ambiguous` when several."""
        if len(found) == 1:
            return [(next(iter(found)), "inferred", CONFIDENCE["inferred"])]
        if not found or len(found) > MAX_CANDIDATES:
            return []
        return [(target, "ambiguous", AMBIGUOUS / len(found)) for target in sorted(found)]

    def _inherited_external(self, class_id: str, name: str) -> list[Target]:
        """A member a known class lacks: inherited from its external base when it has one
        (self.assertEqual in a TestCase, this.emit in an EventEmitter), else any method of that name."""
        base = self.table.external_base(class_id)
        if base is not None:
            return [(f"{base}.{name}", "external", 1.0)]
        return self._unknown_receiver(name)

    def _from_flow(self) -> list[Target]:
        """The call being resolved, through value flow: an attribute assigned a function, a receiver
        that a call returned. [] when flow knows nothing more."""
        call = getattr(self, "_site", None)
        if call is None or not self.reads_flows:  # a language whose flows are not read
            return []
        return self._flow_targets(callee_path(call), call.scope)

    def _unknown_receiver(self, name: str) -> list[Target]:
        found = self._from_flow()
        if found:
            return found
        call = getattr(self, "_site", None)
        candidates = self._untyped_candidates(name, call.receiver if call is not None else None)
        if not candidates:  # an attribute of an object we know nothing of: not resolved, not external
            return [(external_id(_call_text(call) if call is not None else "?." + name), "unresolved", 0.0)]
        return self._candidates(candidates, name, UNKNOWN_RECEIVER, MAX_RECEIVER_CANDIDATES)

    def _resolve_type(self, name: str, scope: str) -> list[Target]:
        if "." in name:
            head, _, last = name.rpartition(".")
            value = self._value(head, scope)
            if value is None:
                return [(external_id(name), "unresolved", 0.0)]
            if value.kind == "external":
                return [outside_target(name, value)]
            if value.kind == "module":
                member = self._module_member(value.ref, last)
                if member is not None and member.kind == "external":
                    return [outside_target(member.ref, member)]
                if member is not None and member.kind != "module":
                    return [(member.ref, "import", CONFIDENCE["import"])]
                return [(external_id(name), "unresolved", 0.0)]
            return self._member(value, last)
        found = self._resolve_name(name, scope, CLASS_KINDS)  # a module is no base: the name stays unknown
        return [t if "::" in t[0] or t[0].startswith(EXTERNAL_PREFIX) else (external_id(name), "unresolved", 0.0) for t in found]

    def _resolve_name(self, name: str, scope: str, kinds: frozenset[str]) -> list[Target]:
        """A bare name: a local variable or parameter, enclosing scopes, then imports, then the
        package, then the repository."""
        if self.local_level(name, scope) is not None:  # a parameter shadows a module-level name
            return self._flow_targets(name, scope) or [(external_id(name), "unresolved", 0.0)]
        sym = self._lexical(name, scope)
        if sym is not None:
            return [(sym.id, "exact", 1.0)]
        value = self.locals.get(name)
        if value is not None:
            choices = self.alternatives.get(name, [value])
            if len(choices) > 1:  # conditional imports: each one a candidate
                targets = sorted({t for choice in choices for t in self._imported_target(choice, name)})
                return [(target, "ambiguous", AMBIGUOUS / len(targets)) for target, _, _ in targets]
            return self._imported_target(value, name)
        sym = self._same_package(name)
        if sym is not None:
            return [(sym.id, "same-scope", CONFIDENCE["same-scope"])]
        if self.rules.members_in_scope:  # a member named without `this.`
            cls = self._enclosing_class(scope)
            found = self.table.find_member(cls.id, name) if cls else None
            if found is not None:
                return [(found[0].id, "exact", 0.9)]
        if name in self.rules.builtins:
            return [(external_id(name), "external", 1.0)]
        candidates = [s for s in self.table.top_by_name.get(name, ()) if s.family == self.family and s.kind in kinds]
        if not candidates:  # neither defined, imported nor built in: the language's rule says what it is
            return [self._undefined(name)]
        return self._candidates(self._nearest(candidates), name, CONFIDENCE["heuristic"])

    def _nearest(self, candidates: list[Symbol]) -> list[Symbol]:
        """Of the definitions a bare name may mean, those closest to this file in the folder tree
        (the longest shared folder prefix): a name is more often used beside where it is defined."""
        def shared(sym: Symbol) -> int:
            depth = 0
            for mine, theirs in zip(self.path.split("/")[:-1], sym.path.split("/")[:-1]):
                if mine != theirs:
                    break
                depth += 1
            return depth
        best = max(map(shared, candidates), default=0)
        return [s for s in candidates if shared(s) == best]

    def _imported_target(self, value: Value, name: str) -> list[Target]:
        if value.kind == "external":
            return [outside_target(value.ref, value)]
        if value.kind == "module":
            sym = self.table.top_level(value.ref, name)  # a default export named like its binding
            return [(sym.id, "import", CONFIDENCE["import"])] if sym else [(value.ref[0], "import", 0.6)]
        return [(value.ref, value.resolution, CONFIDENCE[value.resolution])]

    def _candidates(self, candidates: list[Symbol], name: str, confidence: float, limit: int = MAX_CANDIDATES) -> list[Target]:
        if len(candidates) == 1:
            return [(candidates[0].id, "heuristic", confidence)]
        if len(candidates) > limit:
            return [(external_id(name), "unresolved", 0.0)]
        share = min(confidence, AMBIGUOUS) / len(candidates)
        return [(s.id, "ambiguous", share) for s in candidates]

    # ---- tests
    def _tests(self) -> None:
        """A test function -> what it calls in non-test code; a test file -> the files it imports or is named after."""
        test_edges = []
        for source, target, kind, resolution, confidence, line in self.edges.values():
            if kind == "calls" and resolution in RESOLVED and target in self.table.by_id:
                sym = self.table.by_id[source] if source in self.table.by_id else None
                if sym is not None and (is_test_name(sym.name) or self.rules.marked_tests) and not is_test_file(self.table.by_id[target].path):
                    test_edges.append((source, target, resolution, confidence * 0.9, line))
            elif kind == "imports" and source == self.path and resolution == "import":
                target_path = self.table.by_id[target].path if target in self.table.by_id else target
                if not is_test_file(target_path):
                    test_edges.append((self.path, target_path, "import", 0.9, line))
        for source, target, resolution, confidence, line in test_edges:
            self._add(source, target, "tests", resolution, confidence, line)
        stem = tested_stem(self.path)
        if stem:
            files = self.table.modules.files
            matches = [
                p for p in self.table.files_by_stem.get(stem, ())
                if p != self.path and family(files[p][0]) == self.family and not is_test_file(p)
                and not self.table.modules.shadowed(self.path, p)  # (another project's copy of its module)
            ]
            for p in self._prefer_near(matches):
                self._add(self.path, p, "tests", "heuristic", 0.6 if len(matches) == 1 else AMBIGUOUS / len(matches), 0)

    def _prefer_near(self, paths: list[str]) -> list[str]:
        if len(paths) <= 1:
            return paths
        imported = [p for p in paths if (self.path, p, "imports") in self.edges]
        if imported:
            return imported
        here = posixpath.dirname(self.path)
        same_dir = [p for p in paths if posixpath.dirname(p) == here]
        return same_dir or (paths if len(paths) <= MAX_CANDIDATES else [])


def _call_text(call: Call) -> str:
    """What a call names, as written (a path for `d[k]()`): kept on an unresolved edge."""
    return call.callee or (f"{call.receiver}.{call.name}" if call.receiver else call.name)
