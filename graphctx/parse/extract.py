"""Turns the bytes of one file into FileFacts: parse with tree-sitter, run the language's fact
query once, and read definitions, calls, imports, bases, type uses and bindings off its matches
by capture name (the conventions are in grammars/README.md). Pure: no disk, no other files."""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_right
from dataclasses import dataclass

from tree_sitter import Node, Query, QueryCursor

from graphctx.parse import accessors, comments, flowfacts, lambdas, languages, members, patterns, routes, stubs
from graphctx.parse import flows as flow
from graphctx.parse.facts import RETURN, Accessor, Base, Binding, Call, Definition, FileFacts, Import, Stub, TypeRef

CLASS_LIKE = frozenset({"class", "struct", "interface", "trait", "enum", "impl"})
# Wrappers whose span belongs to the definition inside them (decorators, `export`).
WRAPPERS = frozenset({"decorated_definition", "export_statement"})
# Go declarations that may group several specs: they belong to a spec only when it is alone in them.
GROUPS = frozenset({"type_declaration", "const_declaration", "var_declaration"})
_DOTTED = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")
_SPACE = re.compile(rb"\s+")
_IMPORT_STATEMENT = re.compile(r"^import\s+((?:[\w`]+\s*\.\s*)*[\w`]+)")
_WHITESPACE = b" \t\n\r\f\v"  # dropped before hashing a body: re-indenting or re-wrapping is no change
_ERRORS = {}  # language name -> compiled query for ERROR and MISSING nodes
MAX_SIGNATURE = 300
MAX_DOC = 2000


@dataclass(slots=True)
class _Scope:
    start: int
    end: int
    kind: str
    name: str
    qualified_name: str
    parent: _Scope | None


def extract(path: str, language: str, source: bytes) -> FileFacts:
    """Parse `source` (the content of `path`) as `language` and return its facts."""
    tree = languages.parser(language).parse(source)
    root = tree.root_node
    query = languages.load(language)[1]
    facts = FileFacts(path, language, lines=source.count(b"\n") + 1)
    if root.has_error:
        facts.error_count = _count_errors(language, root)

    matches = QueryCursor(query).matches(root)
    plans = patterns.of(language)
    text = flow.source_text(source)  # (node.text costs three times as much)
    scopes = _build_scopes(matches, plans, facts, text, source)
    starts = [s.start for s in scopes]

    def scope_at(node: Node) -> _Scope | None:
        i = bisect_right(starts, node.start_byte) - 1
        scope = scopes[i] if i >= 0 else None
        while scope is not None and scope.end < node.end_byte:
            scope = scope.parent
        return scope

    def scope_name(node: Node) -> str:
        scope = scope_at(node)
        return scope.qualified_name if scope is not None else ""

    def receiver_of(node: Node) -> str:
        return _receiver(node, text)

    seen_refs: set[tuple[str, str]] = set()
    uses: dict = {}  # attribute uses, one per scope, path and role: the first line
    calls: dict = {}  # by the called name's position (or the implying node's): one call each
    words = flow.vocabulary(language)
    if words is not None:
        words = flow.reading(words, text)
    for pattern, caps in matches:
        plan = plans[pattern]
        reader = plan.reader if plan.reader is not None else patterns.decide(caps, words is not None)
        if reader == patterns.CALL:
            call_node = caps["call"][0]
            if "call.callee" in caps:  # d[k](), make()(): no name, only a path
                node = caps["call.callee"][0]
                found = flowfacts.paths(node, words) if words else []
                calls[("callee", node.start_byte, node.end_byte)] = Call(scope_name(node), "", None, node.start_point[0] + 1,
                                              callee=found[0] if len(found) == 1 else "",
                                              args=flowfacts.arguments(call_node, words))
                continue
            name = caps["call.name"][0]
            receiver = caps.get("call.receiver")
            if receiver or name.start_byte not in calls:  # a pattern that sees the receiver wins
                call = Call(scope_name(name), text(name), _receiver(receiver[0], text) if receiver else None,
                            name.start_point[0] + 1, args=flowfacts.arguments(call_node, words))
                if call.receiver == "?" and words:
                    found = flowfacts.paths(call_node.child_by_field_name("function"), words)
                    call.callee = found[0] if len(found) == 1 else ""
                if receiver and words and name.start_byte not in calls:  # ls.append(f): f is in ls
                    flowfacts.container_adds(facts, call, receiver[0], call_node, words)
                roles = members.written(call_node)
                if roles:  # Ruby's `obj.x = v` calls the writer `x=` (`obj.x += 1` the reader too)
                    calls[("writer", name.start_byte)] = Call(call.scope, call.name + "=", call.receiver, call.line)
                    if "get" not in roles:
                        calls.pop(name.start_byte, None)
                        continue
                calls[name.start_byte] = call
        elif reader == patterns.ATTRIBUTE:
            if words is not None:
                accessors.add_use(caps["attribute.use"][0], scope_name, words, uses)
            else:  # a language without value flow: the member as a dotted name
                members.add_use(caps["attribute.use"][0], receiver_of, scope_name, uses)
        elif reader == patterns.FLOW:
            flowfacts.add(facts, caps, scope_at, words, calls, plan.flow_capture)
        elif reader == patterns.IMPORT:
            _add_import(facts, caps, text)
        elif reader == patterns.BASES:
            kind = "inherits" if "inherits" in caps else "implements"
            for node in caps[kind]:
                facts.bases.append(Base(scope_name(node), _type_name(node, text), kind, node.start_point[0] + 1))
        elif reader == patterns.TYPE:
            node = caps["reference.type"][0]
            key = (scope_name(node), _type_name(node, text))
            if key not in seen_refs:
                seen_refs.add(key)
                facts.type_refs.append(TypeRef(key[0], key[1], node.start_point[0] + 1))
        elif reader == patterns.BINDING:
            binding = _binding(caps, scope_at(caps["binding"][0]), text)
            if binding is not None:
                facts.bindings.append(binding)
        elif reader == patterns.PACKAGE:
            facts.package = text(caps["package"][0])
        elif reader == patterns.MODULE_DOC:
            facts.doc = comments.docstring(caps["module.doc"][0], text)[:MAX_DOC]
    found = routes.find(language, root, source)
    facts.routes, facts.routers, facts.mounts = found.routes, found.routers, found.mounts
    facts.calls = [c for c in calls.values() if (c.line, c.name) not in found.registrations]  # app.get() is no Cache.get()
    modules = {i.alias or i.module.split(".")[0] for i in facts.imports if i.name is None and not i.wildcard}
    facts.attributes = [u for u in uses.values() if not accessors.module_attribute(u.path, modules)]
    if any(s.kind == "lambda" for s in scopes):
        lambdas.name_in_paths(facts, {s.start: s.qualified_name for s in scopes if s.kind == "lambda"})
    if not facts.doc:
        opening = comments.opening_comment(root)[:MAX_DOC]
        if not any(d.doc == opening for d in facts.definitions):  # else it documents its definition
            facts.doc = opening
    return facts


def _build_scopes(matches, plans, facts: FileFacts, text, source: bytes) -> list[_Scope]:
    """Definitions and impl blocks as nested scopes, sorted by start; appends the definitions to facts."""
    raw = []
    for pattern, caps in matches:
        if not plans[pattern].defines:
            continue
        for capture, nodes in caps.items():
            if capture.startswith("definition."):
                raw.append((nodes[0], capture[11:], caps))
            elif capture == "scope.impl":
                raw.append((nodes[0], "impl", caps))
    raw = _merge_accessors(raw)
    raw.sort(key=lambda item: (item[0].start_byte, -item[0].end_byte))

    scopes: list[_Scope] = []
    stack: list[_Scope] = []
    lambdas_in: dict[str, int] = {}  # enclosing definition -> its lambdas so far
    for node, kind, caps in raw:
        while stack and stack[-1].end < node.end_byte:
            stack.pop()
        parent = stack[-1] if stack else None
        if kind == "impl":
            name = _type_name(caps["impl.type"][0], text)
            scope = _Scope(node.start_byte, node.end_byte, "impl", name, _join(_qname(parent), name), parent)
            if "impl.trait" in caps:
                facts.bases.append(Base(name, _type_name(caps["impl.trait"][0], text), "implements", node.start_point[0] + 1))
        elif kind == "lambda":  # `outer.<lambda1>`, `outer.<lambda2>` (see parse/lambdas.py)
            owner = parent
            while owner is not None and owner.kind == "constant":  # a constant's value is code of its scope
                owner = owner.parent
            outer = _qname(owner)
            count = lambdas_in[outer] = lambdas_in.get(outer, 0) + 1
            name = lambdas.local_name(count)
            qualified = _join(outer, name)
            scope = _Scope(node.start_byte, node.end_byte, kind, name, qualified, parent)
            definition = _definition(node, kind, name, qualified, caps, text, source)
            definition.doc = ""
            facts.definitions.append(definition)
        else:
            name = text(caps["name"][0])
            owner = _qname(parent)
            if "receiver" in caps:  # Go: func (r *T) M() is a method of T
                owner = _type_name(caps["receiver"][0], text)
            if kind == "function" and (parent is not None and parent.kind in CLASS_LIKE or "receiver" in caps):
                kind = "method"
            qualified = _join(owner, name)
            accessor = members.accessor(node, kind, name, caps, facts.language)
            if accessor is not None:  # a property's setter and deleter are entities beside its getter: `C.x.setter`
                qualified += accessor[1]
                if kind == "method":  # (a static property's is read off its class: `static-get`)
                    role = ("static-" if members.is_static(caps) else "") + accessor[0]
                    facts.accessors.append(Accessor(owner, accessor[3], role, flow.DEFINITION + qualified, node.start_point[0] + 1))
            scope = _Scope(node.start_byte, node.end_byte, kind, name, qualified, parent)
            definition = _definition(node, kind, name, qualified, caps, text, source)
            if accessor is not None:  # the signature says what it is: `@property def area(self)`, `int Area { get }`
                definition.signature = (f"{accessor[2]} {definition.signature}" if accessor[2] else
                                        members.signature(caps, accessor[0], definition.signature))[:MAX_SIGNATURE]
                definition.sig_hash = _hash(definition.signature.encode())
            facts.definitions.append(definition)
            if kind == "method" and facts.language == "python" and stubs.is_stub(node):  # its overrides run
                facts.stubs.append(Stub(qualified, node.start_point[0] + 1))
            if "returns" in caps:  # what a call evidently yields: a binding of the function itself
                facts.bindings.append(Binding(qualified, RETURN, _type_name(caps["returns"][0], text), node.start_point[0] + 1))
        scopes.append(scope)
        stack.append(scope)
    return scopes


def _merge_accessors(raw: list) -> list:
    """One entry per definition node: a JavaScript `get x()` matches both the method pattern and the
    accessor one, and the accessor's captures win."""
    if not any("accessor.get" in caps or "accessor.set" in caps for _, _, caps in raw):
        return raw
    chosen: dict[tuple[int, int, str], tuple] = {}
    for item in raw:
        key = (item[0].start_byte, item[0].end_byte, item[1])
        if key not in chosen or members.role(item[2]) is not None:
            chosen[key] = item
    return list(chosen.values())


def _definition(node: Node, kind: str, name: str, qualified: str, caps: dict, text, source: bytes) -> Definition:
    outer = _outer(node)
    body = caps.get("body")
    start = node.start_byte
    if body:
        head = source[start:min(body[0].start_byte, node.end_byte)]  # (node.text up to its body)
    else:
        head = source[start:node.end_byte].split(b"\n", 1)[0]
    signature = _SPACE.sub(b" ", head).strip().rstrip(b"{:").rstrip().decode("utf-8", "replace")[:MAX_SIGNATURE]
    doc_nodes = caps.get("doc")
    doc = comments.docstring(doc_nodes[0], text) if doc_nodes else comments.leading_comment(outer)
    return Definition(
        kind=kind,
        name=name,
        qualified_name=qualified,
        start_line=outer.start_point[0] + 1,
        end_line=outer.end_point[0] + 1,
        signature=signature,
        doc=doc[:MAX_DOC],
        sig_hash=_hash(signature.encode()),
        body_hash=_hash(source[outer.start_byte:outer.end_byte].translate(None, _WHITESPACE)),
    )


def _outer(node: Node) -> Node:
    """The node whose span, text and leading comment are the definition's."""
    parent = node.parent
    if parent is None:
        return node
    if parent.type in WRAPPERS:
        return parent
    if parent.type in GROUPS and sum(c.type not in comments.COMMENTS for c in parent.named_children) == 1:
        return parent
    return node


def _add_import(facts: FileFacts, caps: dict, text) -> None:
    line = caps["import"][0].start_point[0] + 1
    module = _import_path(_strip_quotes(text(caps["import.module"][0]))) if "import.module" in caps else ""
    alias = text(caps["import.alias"][0]) if "import.alias" in caps else None
    if "import.path" in caps:  # a.b.C: the member C of module a.b (Kotlin, Scala, Swift)
        module, _, name = _import_path(text(caps["import.path"][0])).rpartition(".")
        facts.imports.append(Import(module, name, alias, line))
    elif "import.wildcard" in caps:
        facts.imports.append(Import(module, None, None, line, wildcard=True))
    elif "import.name" in caps:
        for node in caps["import.name"]:
            facts.imports.append(Import(module, text(node), alias, line))
    else:
        facts.imports.append(Import(module, None, alias, line))


def _import_path(text: str) -> str:
    """A module path as written; a whole import statement captured where the grammar has no node
    for its path (Scala's `import a.b.{C, D}`) gives the dotted path it starts with (`a.b`)."""
    statement = _IMPORT_STATEMENT.match(text)
    return re.sub(r"\s+|\._$", "", statement.group(1)) if statement else text


def _binding(caps: dict, scope: _Scope | None, text) -> Binding | None:
    if "binding.field" in caps:  # a declared field or parameter property: an attribute
        var = "self." + text(caps["binding.field"][0])
    else:
        var = _self_name(text(caps["binding.var"][0]))
    if var.startswith("self."):  # attributes belong to the class, not the method
        while scope is not None and scope.kind not in CLASS_LIKE:
            scope = scope.parent
    type_name = _type_name(caps["binding.type"][0], text)
    if not type_name:  # a slice or tuple type names no class
        return None
    return Binding(_qname(scope), var, type_name, caps["binding"][0].start_point[0] + 1)


def _count_errors(language: str, root: Node) -> int:
    query = _ERRORS.get(language)
    if query is None:
        query = _ERRORS[language] = Query(languages.load(language)[0], "(ERROR) @e (MISSING) @e")
    return len(QueryCursor(query).captures(root).get("e", ()))


def _receiver(node: Node, text) -> str:
    if node.type == "base" or node.type == "relative_scope" and node.text == b"parent":
        return "super"  # C#'s base.M() and PHP's parent::m() are super.m() elsewhere
    written = _self_name(re.sub(r"\s+", "", text(node)).replace("::", "."))
    written = "self" if written == "this" else written
    written = "super" if written == "super()" else written  # Python's super().m() is super.m() elsewhere
    return written if _DOTTED.match(written) else "?"


def _self_name(text: str) -> str:
    """An expression in the dotted form every language shares: `this.x`, Ruby's `@x`, PHP's
    `$this->x` and C++'s `this->x` become `self.x`; PHP's `$a->b` becomes `a.b`."""
    if "->" in text:
        text = ".".join(part.lstrip("$") for part in text.split("->"))
    if text.startswith("@"):
        text = "self." + text.lstrip("@")
    return "self." + text[5:] if text.startswith("this.") else text


def _type_name(node: Node, text) -> str:
    """A type as a plain dotted name: generics, pointers and references stripped."""
    written = re.split(r"[<\[(]", text(node).replace("::", "."), maxsplit=1)[0]
    return re.sub(r"[\s*&]|\bmut\b|\bdyn\b", "", written)


def _strip_quotes(text: str) -> str:
    if len(text) >= 2 and (text[0] in "\"'`" and text[-1] == text[0] or text[0] + text[-1] == "<>"):  # C's <stdio.h>
        return text[1:-1]
    return text


def _qname(scope: _Scope | None) -> str:
    return scope.qualified_name if scope is not None else ""


def _join(owner: str, name: str) -> str:
    return f"{owner}.{name}" if owner else name


def _hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=8).hexdigest()
