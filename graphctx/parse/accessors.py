"""Python's properties and attribute uses off syntax nodes: which definitions are a property's
getter, setter or deleter (`@property`, `@functools.cached_property`, `@x.setter`, `x = property(f, g)`)
and where code reads, assigns or deletes an attribute (`obj.x`, `obj.x = v`, `del obj.x`), so the
resolver can turn a use of a property into a call of its accessor. Pure: one file's nodes."""

from __future__ import annotations

from tree_sitter import Node

from graphctx.parse import flows
from graphctx.parse.facts import AttributeUse

# Decorators whose function is a property's getter (a name or the last part of a dotted one).
GETTER_DECORATORS = frozenset({"property", "cached_property", "abstractproperty"})
# `@x.setter def x`: the role, and the suffix that keeps the accessor apart from the getter `x`.
ACCESSOR_DECORATORS = {"getter": "get", "setter": "set", "deleter": "del"}
# `x = property(fget, fset, fdel)`: position and keyword of each accessor.
PROPERTY_ARGUMENTS = (("fget", "get"), ("fset", "set"), ("fdel", "del"))
TARGET_LISTS = frozenset({"pattern_list", "tuple_pattern", "list_pattern"})
NOT_USES = frozenset({"call", "decorator", "type", "keyword_argument"})


def decorated_role(definition: Node, name: str) -> tuple[str, str, str] | None:
    """(role, qualified-name suffix, decorator) of a decorated function that is a property accessor:
    ("get", "", "@property") for `@property`, ("set", ".setter", "@name.setter") for `@name.setter`;
    None for any other function."""
    wrapper = definition.parent
    if wrapper is None or wrapper.type != "decorated_definition":
        return None
    for decorator in wrapper.named_children:
        if decorator.type != "decorator" or not decorator.named_children:
            continue
        expression = decorator.named_children[0]
        if expression.type == "identifier" and _text(expression) in GETTER_DECORATORS:
            return "get", "", _text(decorator)
        if expression.type != "attribute":
            continue
        owner, attribute = expression.child_by_field_name("object"), expression.child_by_field_name("attribute")
        last = _text(attribute) if attribute is not None else ""
        if last in GETTER_DECORATORS:  # functools.cached_property, abc.abstractproperty
            return "get", "", _text(decorator)
        if last in ACCESSOR_DECORATORS and owner is not None and owner.type == "identifier" and _text(owner) == name:
            return ACCESSOR_DECORATORS[last], "." + last, _text(decorator)
    return None


def property_call(call: Node, words) -> list[tuple[str, str]]:
    """(role, accessor path) of `property(fget, fset, fdel)` (also `cached_property(f)`), each argument
    read with the file's flow vocabulary `words`; [] for any other call."""
    text = words.text
    function = call.child_by_field_name("function")
    name = text(function).rpartition(".")[2] if function is not None and function.type in ("identifier", "attribute") else ""
    if name not in GETTER_DECORATORS:
        return []
    arguments = call.child_by_field_name("arguments")
    out = []
    position = 0
    for child in arguments.named_children if arguments is not None else ():
        if child.type == "comment":
            continue
        if child.type == "keyword_argument":
            keyword, value = child.child_by_field_name("name"), child.child_by_field_name("value")
            role = dict(PROPERTY_ARGUMENTS).get(text(keyword)) if keyword is not None else None
        else:
            value = child
            role = PROPERTY_ARGUMENTS[position][1] if position < len(PROPERTY_ARGUMENTS) else None
            position += 1
        found = flows.paths(value, words) if role is not None and value is not None else []
        if len(found) == 1:
            out.append((role, found[0]))
    return out


def use_roles(attribute: Node) -> tuple[str, ...]:
    """What the code does with an attribute node: ("get",) for a read, ("set",) for an assignment to
    it, ("get", "set") for `x.a += 1`, ("del",) for `del x.a`; () when it is no use of a value (the
    callee of a call, a decorator, a type annotation, a keyword's name)."""
    parent = attribute.parent
    if parent is None or parent.type in NOT_USES:
        return ()
    kind = parent.type
    if kind == "expression_list" and parent.parent is not None and parent.parent.type == "delete_statement":
        return ("del",)
    if kind == "delete_statement":
        return ("del",)
    if kind in TARGET_LISTS:
        return ("set",)
    if kind in ("assignment", "augmented_assignment"):
        left = parent.child_by_field_name("left")
        if left is not None and left.start_byte == attribute.start_byte and left.end_byte == attribute.end_byte:
            return ("get", "set") if kind == "augmented_assignment" else ("set",)
    return ("get",)


def add_use(node: Node, scope_of, words, uses: dict) -> None:
    """`obj.x` read, assigned or deleted, kept in `uses` once per scope, path and role (the resolver
    runs a property's accessor for it when obj's class is known); `scope_of(node)` names its scope."""
    roles = use_roles(node)  # first: most attributes are the callee of a call, no use
    if not roles:
        return
    attribute = node.child_by_field_name("attribute")
    if attribute is None or words.text(attribute).startswith("__"):  # (a dunder is the protocol, not a property)
        return
    try:
        found = flows.paths(node, words)
    except RecursionError:  # an expression nested deeper than the interpreter allows carries no flow
        return
    scope = scope_of(node)
    line = node.start_point[0] + 1
    for path in found:
        for role in roles:
            uses.setdefault((scope, path, role), AttributeUse(scope, path, role, line))


def module_attribute(path: str, modules: set[str]) -> bool:
    """`os.sep` after `import os`: an attribute of a module is no property (one of `os.x.y` may be)."""
    head, dot, rest = path.partition(".")
    return bool(dot) and head in modules and "." not in rest


def _text(node: Node) -> str:
    return node.text.decode("utf-8", "replace")
