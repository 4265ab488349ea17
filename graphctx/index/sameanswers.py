"""An edit inside a file's functions (its value flow or imports changed, nothing it defined or
inherited gone) and whether other files can tell. Such a file offers other files' value flow what its
flows answer: what a function returns, what a class's attributes and a module's variables hold,
the elements stored into each; a file that consulted it is resolved again only when one of those
answers changed, and then only those that read the answers of a definition that changed (see
store/consulted.py). Most edits change none (a local variable, a condition, a comment that moves every
line, another argument of the same type), and on a large repository resolving every file that
consulted a core module, directly or through others, costs as much as half a cold build.

Both sides are worked out the same way: the file's old facts, then its new ones, each as the only
scope of a fresh view of a symbol table (its own value-flow state and resolvers, so no answer of one
side reaches the other), every question asked in the same order. The old side's table holds the
edited files' definitions as they were, where the run kept the table (tableupdates.view_before); else
it is the new one, and the edits judged this way are those whose old code reads no name whose
definition they changed (EditReach._delta)."""

from __future__ import annotations

from collections.abc import Collection, Iterable

from graphctx.index.dependencies import attribute_of, defined_scopes, flow_scope, returns_of
from graphctx.index.resolve import FileResolver
from graphctx.index.scope import Value
from graphctx.index.store.consulted import ANY_SCOPE, top_scope
from graphctx.index.symbols import SymbolTable
from graphctx.parse.facts import RETURN, FileFacts


FUNCTION_KINDS = (":function", ":lambda")  # (def keys of what no class holds as a member)


def inside_only(before: set[tuple[str, str]], after: set[tuple[str, str]]) -> bool:
    """Whether what a file no longer offers as it did (defined_names keys gone) is only the value
    flow of scopes it still has (an edit inside them), functions and lambdas (with their flows;
    the files reaching them are found by name, by their edges and by what they asked, see
    answers_changed), its functions' return annotations, what the methods of classes it keeps store
    into their attributes and the types they give them (`self.part = Engine()`: answers, compared as
    such), its module variables and constants (gone or not: the module's answers) and its imports,
    and what it offers anew is only value flow, those types, imports and
    definitions but for the special methods of a class it had and declarations (stubs): nothing it
    defined went, no class's bases, properties, implicitly called methods (`__call__`, `__iter__`)
    or a method's overrides (a stub's callers reach them) changed, so the symbol table and its
    class hierarchy answer the same of it either way for every name but
    those it gained (see EditReach._delta), and each version binds its own imports. What came is
    found by name (its delta); a file whose flows read a name another file changed has its readers
    resolved again whatever it answers (EditReach._readers)."""
    gone, came = before - after, after - before
    functions_gone = {key.rsplit(":", 1)[0] for what, key in gone if what == "def" and key.endswith(FUNCTION_KINDS)}
    scopes_after = {flow_scope(key) for what, key in after if what == "flow"} | functions_gone
    defined_before = defined_scopes(before)
    kept = defined_before & defined_scopes(after)

    def answered(key: tuple[str, str]) -> bool:  # (what the answers say: flows, return and attribute types)
        return returns_of(key) is not None or attribute_of(key) in kept

    def special(key: str) -> bool:  # (called without being named: `c()`, `for x in c`, `with c`)
        owner, name = _owner_and_name(key)
        return name.startswith("__") and owner in defined_before

    def stored(key: str) -> bool:  # (what a kept method stored into `self.x`: the class's answers)
        return ">" in flow_scope(key) and flow_scope(key).partition(">")[0] in kept

    def module_level(key: str) -> bool:  # (a module variable's stores, gone or not: the module's answers)
        return flow_scope(key).startswith(":")

    def module_constant(key: str) -> bool:  # (gone: found by name and by the module's answers, as a function)
        return key.endswith(":constant") and "." not in key
    return all(what == "import" or what == "flow" and (flow_scope(key) in scopes_after or stored(key) or module_level(key))
               or answered((what, key))
               or what == "def" and (key.rsplit(":", 1)[0] in functions_gone or module_constant(key))
               for what, key in gone) \
        and all(what in ("flow", "import") or answered((what, key))
                or what == "def" and not special(key) and not key.endswith(":declaration") for what, key in came)


def changes_unnamed(before: set[tuple[str, str]], after: set[tuple[str, str]]) -> bool:
    """Whether an edit (defined_names keys before and after) changes what other files resolve
    through without naming it: a class's bases or properties, a special method (called as `c()`,
    `for x in c`, `with c`) or a declaration's overrides. A file whose flows read a name the edit
    changed may then resolve otherwise with the same answers, so it is not judged by them."""
    return any(what in ("base", "accessor") or what == "def" and (key.endswith(":declaration")
               or _owner_and_name(key)[1].startswith("__")) for what, key in before ^ after)


def _owner_and_name(key: str) -> tuple[str, str]:
    """A definition key's owner and own name: `Class.method:kind` -> (`Class`, `method`)."""
    owner, _, name = key.rsplit(":", 1)[0].rpartition(".")
    return owner, name


def answers_changed(tables: tuple[SymbolTable, SymbolTable], before: FileFacts, after: FileFacts,
                    asked: Collection[str] = (ANY_SCOPE,)) -> set[str]:
    """The top-level definitions ("" the module) in which the file answers a question other files'
    value flow can ask of it otherwise than it did (none: it answers as before): the stores visible
    outside a function (a class's attributes, a module's variables), the parameters of its functions
    and which of them each calls (a caller elsewhere hands a function on to it), and the answers to
    every question of either version (see _questions), for the scopes both versions have: a scope
    only the new one has no file asked of before (those naming it are resolved again by name). A
    question's answer works out the answers it reads in the file, so a change reaches every
    definition whose answers it changes. A function or lambda gone counts as changed in its
    top-level definition. Only the definitions other files `asked` about count (ANY_SCOPE: all;
    store/consulted.py): no other file read the answers of the rest. `tables`: the symbol table
    before the run and the one it made (tableupdates.view_before), each version asked in its own."""
    old, new = _alone(tables[0], before), _alone(tables[1], after)
    wanted = _wanted(asked)
    return set(filter(wanted, _answered_otherwise(old, new, _both(before, after), wanted, _shape_changed(old, new))))


class Reread:
    """What the files reading an edited file's changed answers, or a name an edit changed, answer in
    turn. Two views, each shared by every file compared: one of the table before the run with the
    edited files as they were (their old facts: `before`), one of the new generation's table with
    them as they are. A file whose answers to what other files asked of it are the same in both
    reaches no further: the files that asked it read what they did. Each file is asked the same
    questions in the same order in both views."""

    def __init__(self, tables: tuple[SymbolTable, SymbolTable], before: dict[str, FileFacts]):
        self.old, self.new, self.before = tables[0].view(), tables[1].view(), before
        load = self.old.load_facts  # (what a module re-exports is read off its facts: the old ones)
        self.old.load_facts = lambda path: before[path] if path in before else load(path)
        for facts in before.values():
            _scope(self.old, facts)

    def changed(self, after: FileFacts, asked: set[str]) -> set[str]:
        """The top-level definitions among those `asked` of (ANY_SCOPE: all) whose answers differ
        between the views, for the definitions both versions of the file have (a file not edited
        has one)."""
        before = self.before.get(after.path, after)
        old, new = _scope(self.old, before), _scope(self.new, after)
        wanted = _wanted(asked)
        shape = set(filter(wanted, _shape_changed(old, new))) if before is not after else set()
        return _answered_otherwise(old, new, _both(before, after), wanted, shape)


    def binds_otherwise(self, after: FileFacts, names: Collection[str]) -> bool:
        """Whether the file's module binds one of `names` otherwise in the two views: what another
        file finds importing it from there, or reading it off the module."""
        before = self.before.get(after.path, after)
        old, new = _scope(self.old, before), _scope(self.new, after)
        return any(old._module_member((after.path,), name) != new._module_member((after.path,), name)
                   for name in sorted(names))


def qualified_names(facts: FileFacts) -> set[str]:
    return {d.qualified_name for d in facts.definitions}


def _both(before: FileFacts, after: FileFacts) -> set[str]:
    """The definitions both versions of a file have, and its module ("")."""
    return qualified_names(before) & qualified_names(after) | {""}


def _wanted(asked: Collection[str]):
    """Whether other files asked about a top-level definition (`asked`; ANY_SCOPE: about every one)."""
    return (lambda top: True) if ANY_SCOPE in asked else set(asked).__contains__


def _answered_otherwise(old: FileResolver, new: FileResolver, both: set[str], wanted, changed: set[str]) -> set[str]:
    """`changed` and the top-level definitions `wanted` in which a question of either version of the
    file, in a definition `both` have, is answered otherwise: every question in the same order on
    both sides, none more once its definition is known to have changed."""
    for question in sorted(q for q in _questions(old) | _questions(new) if q[0] in both):
        top = top_scope(question[0])
        if top not in changed and wanted(top) and _answer(old, *question) != _answer(new, *question):
            changed.add(top)
    return changed


def _shape_changed(old: FileResolver, new: FileResolver) -> set[str]:
    """The top-level definitions in which an edited file's shape differs for the definitions both
    versions have: the stores visible outside a function, the parameters of its functions and which
    of them each calls; and those holding a definition gone (a function, a lambda)."""
    both = _both(old.facts, new.facts)
    kept = lambda items: {item for item in items if item[0] in both}  # noqa: E731
    changed = {top_scope(item[0]) for items in ((_visible(old), _visible(new)), (_signatures(old), _signatures(new)),
                                                (old._plain_calls, new._plain_calls))
               for item in kept(items[0]) ^ kept(items[1])}
    return changed | {top_scope(name) for name in qualified_names(old.facts) - both}


def _scope(view: SymbolTable, facts: FileFacts) -> FileResolver:
    """The file's scope in `view`, made and its imports bound when first asked."""
    scope = view.resolvers.get(facts.path)
    if scope is None:
        scope = view.resolvers[facts.path] = FileResolver(facts, view)
        scope._imports()
    return scope


def _alone(table: SymbolTable, facts: FileFacts) -> FileResolver:
    """The file's scope, the only one of a view of `table` (SymbolTable.view)."""
    return _scope(table.view(), facts)


def _visible(scope: FileResolver) -> set[tuple[str, str]]:
    """The stores other files see whether or not they hold anything: those of classes (their
    attributes: a lineage's walk stops at the class that stores one) and of the module."""
    keys: Iterable[tuple[str, str]] = [*scope.flow_sources, *scope.bindings]
    return {(level, target) for level, target in keys if not level or scope._is_class(level)}


def _answer(scope: FileResolver, level: str, target: str, suffix: str) -> set:
    """What the file answers a question: what flows there, and for what a function returns, what its
    return annotation names too (as a caller elsewhere reads it: FileScope.returns)."""
    out = set(scope._target_values(level, target, suffix))
    declared = scope.bindings.get((level, RETURN)) if target == RETURN and not suffix else None
    value = scope._value(declared, level, variables=False) if declared is not None else None
    if value is not None and value.kind in ("class", "external"):
        out.add(Value("instance", value.ref, "inferred") if value.kind == "class" else value)
    return out


def _signatures(scope: FileResolver) -> set[tuple[str, str, int, str]]:
    return {(level, name, p.index, p.kind) for level, params in scope.params.items() for name, p in params.items()}


def _questions(scope: FileResolver) -> set[tuple[str, str, str]]:
    """(scope, target, suffix): what other files ask of the file: what each function returns, what
    each class and the module store (their attributes and variables), and each of those's elements
    by the subscripts stored into it. A function's local variables and parameters are read only
    through these (its returns, the attributes it sets), so an edit of them that changes none of
    these answers changes nothing another file can see."""
    def asked(level: str, target: str) -> bool:
        return target.split("[", 1)[0] == RETURN or not level or scope._is_class(level)
    out = {(level, target, "") for level, target in [*scope.flow_sources, *scope.bindings] if asked(level, target)}
    out |= {(level, base, suffix) for (level, base), stored in scope.subscripts.items() if asked(level, base)
            for suffix in stored}
    return out
