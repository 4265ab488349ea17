"""Properties with accessors beyond Python's (parse/accessors.py): JavaScript and TypeScript `get x()` /
`set x(v)`, C# accessor bodies, Kotlin getters and setters, Swift computed properties, Scala's
parameterless `def x` and `def x_=(v)`. What role an accessor plays, how its signature reads, and
where code reads or assigns a member without calling it (`obj.x`, `obj.x = v`, `obj.x += 1`), so
the resolver can turn such a use into a call of the accessor. Language-neutral by node kinds; pure:
one file's nodes."""

from __future__ import annotations

import re

from tree_sitter import Node

from graphctx.parse import accessors
from graphctx.parse.facts import AttributeUse

ROLES = (("accessor.get", "get"), ("accessor.set", "set"))
# Nodes whose first named child is the callee: a member there is called, not read.
CALLERS = frozenset({"call_expression", "invocation_expression", "new_expression"})
ASSIGNMENTS = frozenset({"assignment_expression", "assignment", "augmented_assignment_expression"})
STEPS = frozenset({"update_expression", "postfix_unary_expression", "prefix_unary_expression",
                   "postfix_expression", "prefix_expression"})
# Where a property declaration's accessors start: its signature is the text before them.
ACCESSOR_PARTS = frozenset({"accessor_list", "arrow_expression_clause", "getter", "setter", "computed_property"})
_SPACE = re.compile(r"\s+")


def role(caps: dict) -> str | None:
    """"get" or "set" for a definition the query marks as a property's accessor, else None."""
    for capture, name in ROLES:
        if capture in caps:
            return name
    return None


def accessor(definition: Node, kind: str, name: str, caps: dict, language: str) -> tuple[str, str, str, str] | None:
    """(role, qualified-name suffix, decorator, property) of a property accessor: Python's decorated
    ones, the others' marked by the query (a getter is `C.x`, a setter `C.x.setter`; Scala's setter
    `def x_=(v)` keeps its name); None for any other definition."""
    if language == "python":
        found = accessors.decorated_role(definition, name) if kind == "method" else None
        return (*found, name) if found is not None else None
    found = role(caps)
    if found == "set" and name.endswith("_="):
        return found, "", "", name[:-2]
    return (found, "" if found == "get" else ".setter", "", name) if found is not None else None


def is_static(caps: dict) -> bool:
    """A static property (`static get x()`, `static int X { get ... }`) is read off its class, never
    off an instance: it is a method, not an accessor of instances."""
    for capture in ("accessor.property", "definition.function"):
        for node in caps.get(capture, ())[:1]:
            for child in node.children:
                if child.type == "static" or child.type in ("modifier", "modifiers") and b"static" in child.text.split():
                    return True
    return False


def signature(caps: dict, accessor_role: str, own: str) -> str:
    """An accessor's signature: the property's declaration and the role (`public int Area { set }`,
    `var side: Int { get }`); a JavaScript accessor's own head already says it (`get area()`)."""
    prop = caps.get("accessor.property")
    if not prop:
        return own
    node = prop[0]
    cut = min((c.start_byte for c in node.children if c.type in ACCESSOR_PARTS), default=node.end_byte)
    head = node.text[: cut - node.start_byte].decode("utf-8", "replace")
    return f"{_SPACE.sub(' ', head).strip()} {{ {accessor_role} }}"


def use_roles(node: Node) -> tuple[str, ...]:
    """What code does with a member node: ("get",) for a read, ("set",) for `obj.x = v`, ("get", "set")
    for `obj.x += 1` and `obj.x++`; () when it is the callee of a call (or of `new`) or deleted."""
    parent = node.parent
    if parent is None:
        return ()
    if parent.type in CALLERS:
        first = parent.named_children[0] if parent.named_children else None
        if first is not None and first.start_byte == node.start_byte and first.end_byte == node.end_byte:
            return ()
    target = node
    if parent.type == "directly_assignable_expression":  # Swift wraps an assignment's target
        target, parent = parent, parent.parent
        if parent is None:
            return ()
    if parent.type in ASSIGNMENTS:
        left = parent.named_children[0] if parent.named_children else None
        if left is not None and left.start_byte == target.start_byte and left.end_byte == target.end_byte:
            return ("set",) if _operator(parent, left) == "=" else ("get", "set")
    if parent.type in STEPS and any(c.type in ("++", "--") for c in parent.children):
        return ("get", "set")
    if parent.type == "unary_expression" and any(c.type == "delete" for c in parent.children):
        return ()  # (no accessor runs for `delete obj.x`)
    return ("get",)


def add_use(node: Node, path_of, scope_of, uses: dict) -> None:
    """`obj.x` read or assigned, kept in `uses` once per scope, path and role; `path_of(node)` is the
    member as a dotted name in the shared form (`self.x` for `this.x`), "?" when it is not one, and
    `scope_of(node)` names its scope."""
    roles = use_roles(node)  # first: most members are the callee of a call, no use
    if not roles:
        return
    path = path_of(node)
    if path == "?" or "." not in path:
        return
    scope = scope_of(node)
    line = node.start_point[0] + 1
    for found in roles:
        uses.setdefault((scope, path, found), AttributeUse(scope, path, found, line))


def written(call: Node) -> tuple[str, ...]:
    """Ruby's `obj.x = v` parses as a call on an assignment's left: ("set",) there, ("get", "set") for
    `obj.x += 1`, () for any other call."""
    parent = call.parent
    if call.type != "call" or parent is None or parent.type not in ("assignment", "operator_assignment"):
        return ()
    left = parent.child_by_field_name("left")
    if left is None or left.start_byte != call.start_byte or left.end_byte != call.end_byte:
        return ()
    return ("set",) if parent.type == "assignment" else ("get", "set")


def _operator(assignment: Node, left: Node) -> str:
    for child in assignment.children:
        if child.start_byte >= left.end_byte and not child.is_named:
            return child.type
    return "="
