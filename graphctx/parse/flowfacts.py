"""Turns the value-flow captures of a file's fact query (`@flow.*`, grammars/README.md) into facts:
flows, parameters, call arguments, and the calls that syntax implies (iteration, `with`, `raise C`,
decorators), read through graphctx/parse/flows.py. Pure: one file's nodes, nothing else."""

from __future__ import annotations

from tree_sitter import Node

from graphctx.parse import accessors
from graphctx.parse import flows as flow
from graphctx.parse.facts import Accessor, Call, FileFacts, Flow, Param

# Context managers whose `with m(x) as y` binds y to x (contextlib's, when the name proves to be theirs).
ENTERED_AS_ARGUMENT = frozenset({"closing", "nullcontext"})


def arguments(call: Node, words: flow.Vocabulary | None) -> list[str]:
    """A call's arguments as paths ([] for a language with no flow vocabulary or a nesting too deep)."""
    if not words:
        return []
    try:  # (as _guarded does, without its call: every call site of a file comes here)
        return flow.arguments(call.child_by_field_name("arguments"), words)
    except RecursionError:
        return []


def paths(node: Node | None, words: flow.Vocabulary) -> list[str]:
    try:  # (as _guarded does)
        return flow.paths(node, words)
    except RecursionError:
        return []


def container_adds(facts: FileFacts, call: Call, receiver: Node, node: Node, words: flow.Vocabulary) -> None:
    """`ls.append(f)`, `d.update({...})`: what the call stores in its receiver."""
    container = _guarded(flow.target_name, receiver, words, default=None)
    if container:
        arguments = node.child_by_field_name("arguments")
        for target, source in _guarded(flow.container_adds, container, call.name, arguments, words):
            facts.flows.append(Flow(call.scope, target, source, call.line))


def _guarded(read, *args, default=()):
    """An expression nested deeper than the interpreter's recursion allows carries no flow."""
    try:
        return read(*args)
    except RecursionError:
        return list(default) if isinstance(default, tuple) else default


def add(facts: FileFacts, caps: dict, scope_at, words: flow.Vocabulary, calls: dict, capture: str | None = None) -> None:
    """Flows, parameters and the calls that syntax implies (iteration, `with`, `raise C`, decorators)
    of one `@flow.*` match (`capture`, its one `flow.*` capture, when the pattern is known to have only
    that one); a statement nested too deep for the interpreter gives none."""
    try:
        _add(facts, caps, scope_at, words, calls, capture)
    except RecursionError:
        pass


def _add(facts: FileFacts, caps: dict, scope_at, words: flow.Vocabulary, calls: dict, capture: str | None) -> None:
    if capture is None:
        (capture, nodes), = ((k, v) for k, v in caps.items() if k.startswith("flow."))
    else:
        nodes = caps[capture]
    node = nodes[0]
    owner = scope_at(node)
    while owner is not None and owner.kind == "constant":  # a constant's value is code of its scope
        owner = owner.parent
    scope = _qname(owner)
    line = node.start_point[0] + 1

    def add(target: str, sources: list[str], where: str = scope) -> None:
        facts.flows.extend(Flow(where, target, source, line) for source in sources)

    def implicit(name: str, callee: str) -> None:
        calls.setdefault(("implicit", node.start_byte, name), Call(scope, name, "?", line, callee=callee, implicit=True))

    if capture == "flow.assign":
        left = node.child_by_field_name("left") or node.child_by_field_name("name")  # (x := v) binds as x = v
        right = node.child_by_field_name("right") or node.child_by_field_name("value")
        for target, source in flow.assignments(left, right, words):
            add(target, [source])
        if owner is not None and owner.kind == "class" and left is not None and left.type == "identifier" \
                and right is not None and right.type == words.call:  # x = property(getx, setx) in a class body
            for role, path in accessors.property_call(right, words):
                facts.accessors.append(Accessor(scope, words.text(left), role, path, line))
    elif capture == "flow.lambda":  # its body is what it returns
        body = node.child_by_field_name("body")
        if body is not None:
            add(flow.RETURN_TARGET, flow.paths(body, words))
            facts.flows.extend(Flow(scope, t, s, line) for t, s in flow.container_flows(flow.RETURN_TARGET, body, words))
    elif capture in ("flow.return", "flow.yield"):
        value = node.named_children[0] if node.named_children else None
        target = flow.RETURN_TARGET if capture == "flow.return" else flow.RETURN_TARGET + flow.ELEMENT
        if value is not None:
            add(target, flow.paths(value, words))
            facts.flows.extend(Flow(scope, t, s, line) for t, s in flow.container_flows(target, value, words))
    elif capture == "flow.for":
        right, left = node.child_by_field_name("right"), node.child_by_field_name("left")
        if right is None or left is None:
            return
        sources = flow.values_of(right, words, element=True)
        for path in flow.paths(right, words):
            sources.append(f"{path}.__iter__().__next__()")
            if node.type == "for_statement":
                implicit("__iter__", f"{path}.__iter__")
                implicit("__next__", f"{path}.__iter__().__next__")
        name = flow.target_name(left, words)
        if name is not None:
            add(name, sources)
        else:  # for k, v in pairs: each name holds elements of the elements
            for item in left.named_children:
                inner = flow.target_name(item, words)
                if inner is not None:
                    add(inner, [s + flow.ELEMENT for s in sources])
    elif capture == "flow.with":
        value = node.child_by_field_name("value")
        alias = None
        if value is not None and value.type == "as_pattern":
            alias = value.child_by_field_name("alias")
            value = value.named_children[0] if value.named_children else None
        name = flow.target_name(alias, words) if alias is not None else None
        for path in flow.paths(value, words):
            implicit("__enter__", f"{path}.__enter__")
            implicit("__exit__", f"{path}.__exit__")
            if name is not None:
                add(name, [f"{path}.__enter__()"])
        if name is not None and value is not None and value.type == words.call:  # closing(x), nullcontext(x): x
            function = value.child_by_field_name("function")
            callee = flow.paths(function, words) if function is not None else []
            args = flow.arguments(value.child_by_field_name("arguments"), words)
            last = callee[0].rpartition(".")[2] if len(callee) == 1 else ""
            if last in ENTERED_AS_ARGUMENT and args and args[0] and "=" not in args[0] and not args[0].startswith("*"):
                add(name, [f"{flow.FORWARDED}{callee[0]}|{args[0]}"])
                if last == "closing":  # whose exit closes x
                    implicit("close", f"{flow.FORWARDED}{callee[0]}|{args[0]}.close")
    elif capture == "flow.raise":
        value = node.named_children[0] if node.named_children else None
        if value is not None and value.type != words.call:  # raise C: C is instantiated
            for path in flow.paths(value, words):
                head, _, last = path.rpartition(".")
                if flow.is_name(last):
                    calls.setdefault(value.start_byte, Call(scope, last, head or None, line, implicit=True))
    elif capture == "flow.decorator":
        _decorated(facts, node, scope, line, words, calls)
    elif capture == "flow.params":
        for index, (name, kind, default) in enumerate(flow.parameters(node, words)):
            facts.params.append(Param(scope, name, index, kind))
            if default is not None:
                add(name, flow.paths(default, words))


def _decorated(facts: FileFacts, decorator: Node, scope: str, line: int, words: flow.Vocabulary,
               calls: dict) -> None:
    """`@d1 @d2 def f`: d2 is called with f, d1 with d2's result, and the name f holds d1's result."""
    wrapper = decorator.parent
    decorators = [c for c in wrapper.named_children if c.type == "decorator"] if wrapper is not None else []
    definition = wrapper.child_by_field_name("definition") if wrapper is not None else None
    name_node = definition.child_by_field_name("name") if definition is not None else None
    if not decorators or decorators[0] != decorator or name_node is None:
        return  # handled once, at the first decorator
    name = words.text(name_node)
    argument = "&" + _join(scope, name)
    result = ""
    for node in reversed(decorators):
        expression = node.named_children[0] if node.named_children else None
        found = flow.paths(expression, words) if expression is not None else []
        if len(found) != 1:
            return
        path = found[0]
        head, _, last = path.rpartition(".")
        if path.endswith(flow.CALLED) or not flow.is_name(last):
            call = Call(scope, "", None, node.start_point[0] + 1, callee=path, args=[argument], implicit=True)
        else:  # (implicit: a decorator from outside the repository, @property, is declaration more than call)
            call = Call(scope, last, head or None, node.start_point[0] + 1, args=[argument], implicit=True)
        calls.setdefault(("decorator", node.start_byte), call)
        argument = result = path + flow.CALLED
    facts.flows.append(Flow(scope, name, "@" + result, line))


def _join(owner: str, name: str) -> str:
    return f"{owner}.{name}" if owner else name


def _qname(scope) -> str:
    return scope.qualified_name if scope is not None else ""
