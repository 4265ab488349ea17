"""Reads value flow off syntax nodes: which expression's value reaches which variable, attribute,
container element or function result, what a call passes, and a function's parameters. An
expression is kept as a path (see `facts.Flow`): a name followed by `.attr`, `()` (the call's
result) and `[]` (an element); an expression no path describes (a literal, arithmetic) carries no
flow. The node names are the grammar's; `VOCABULARIES` holds one table per language that has one."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from tree_sitter import Node

ELEMENT = "[]"
FORWARDED = "!"  # `!partial|f`: f, when `partial` is a forwarder (functools.partial)
LITERAL = "#"  # `#'a'`, `#1`: a constant that may serve as a key
TYPED = "%"  # `%dict`: a literal of a builtin type (`{}`, `"a b"`), known by its type alone
CALLED = "()"
DEFINITION = "&"  # `&name`: the definition itself, not the variable that may be rebound (a decorated name)
RETURN_TARGET = "return"
LAMBDA = "<lambda@"  # `&<lambda@120>`: the lambda starting at byte 120, named once the file's scopes are known
LAMBDA_AT = re.compile(r"<lambda@(\d+)>")
_NAME = re.compile(r"^[A-Za-z_$][\w$]*$")
_KEY = re.compile(r"""^(?:'[\w.-]{0,40}'|"[\w.-]{0,40}")$""")


def _text(node: Node) -> str:
    return node.text.decode("utf-8", "replace")


@dataclass(frozen=True)
class Vocabulary:
    """A grammar's node types for the expressions and statements that carry values."""

    name: frozenset[str]
    attribute: str  # fields `object` and `attribute`
    call: str  # fields `function` and `arguments`
    subscript: str  # field `value`
    slices: frozenset[str]  # a subscript by one of these is the container itself
    containers: frozenset[str]  # literals whose children are elements
    mappings: frozenset[str]  # literals of `pair` children
    pair: str
    tuples: frozenset[str]  # a target or value that is several at once (`a, b = f, g`)
    splat: frozenset[str]  # `*rest` in a target or argument
    keyword_splat: frozenset[str]
    keyword_argument: str  # fields `name` and `value`
    wrappers: frozenset[str]  # ( x ), await x: the value of their one child
    either: frozenset[str]  # `a or b`, `x if c else y`: the value of any child
    parameters: frozenset[str]  # a plain parameter (its name is the node, or field `name`)
    literals: frozenset[str]  # constants that can be keys (integers, strings)
    # container methods that store their arguments: method -> what goes in (item, second, elements, mapping, keyed)
    adders: dict
    forwarders: frozenset[str]  # last names of calls whose result calls their first argument
    typed: dict = field(default_factory=dict)  # literal node type -> the builtin type it makes ({} is a dict)
    # a node's source text: node.text, or one file's bytes read by span (see `reading`)
    text: Callable[[Node], str] = field(default=_text, compare=False)


PYTHON = Vocabulary(
    name=frozenset({"identifier"}),
    attribute="attribute",
    call="call",
    subscript="subscript",
    slices=frozenset({"slice"}),
    containers=frozenset({"list", "tuple", "set", "expression_list", "list_comprehension", "set_comprehension",
                          "generator_expression"}),
    mappings=frozenset({"dictionary"}),
    pair="pair",
    tuples=frozenset({"pattern_list", "tuple_pattern", "list_pattern", "expression_list", "tuple", "list"}),
    splat=frozenset({"list_splat_pattern", "list_splat"}),
    keyword_splat=frozenset({"dictionary_splat_pattern", "dictionary_splat"}),
    keyword_argument="keyword_argument",
    wrappers=frozenset({"parenthesized_expression", "await", "as_pattern_target"}),
    either=frozenset({"boolean_operator", "conditional_expression"}),
    parameters=frozenset({"identifier", "typed_parameter", "default_parameter", "typed_default_parameter"}),
    literals=frozenset({"integer", "string"}),
    adders={"append": "item", "add": "item", "appendleft": "item", "insert": "second", "extend": "elements",
            "update": "mapping", "setdefault": "keyed"},
    forwarders=frozenset({"partial", "partialmethod"}),
    typed={"dictionary": "dict", "dictionary_comprehension": "dict", "list": "list", "list_comprehension": "list",
           "set": "set", "set_comprehension": "set", "tuple": "tuple", "string": "str", "concatenated_string": "str",
           "integer": "int", "float": "float"},
)
VOCABULARIES = {"python": PYTHON}
_COMPREHENSIONS = frozenset({"list_comprehension", "set_comprehension", "generator_expression"})


def vocabulary(language: str) -> Vocabulary | None:
    return VOCABULARIES.get(language)


def reading(words: Vocabulary, text: Callable[[Node], str]) -> Vocabulary:
    """`words` reading node text with `text` (one file's: see `source_text`)."""
    return replace(words, text=text)


def source_text(source: bytes) -> Callable[[Node], str]:
    """What `node.text.decode("utf-8", "replace")` gives for a node of a tree parsed from `source`, at a
    third of its cost (node.text makes a memoryview and a slice object per call): the node's span of
    the source, and of an ASCII source (most code) a slice of the text decoded once."""
    if source.isascii():
        decoded = source.decode("ascii")
        return lambda node: decoded[node.start_byte:node.end_byte]
    return lambda node: source[node.start_byte:node.end_byte].decode("utf-8", "replace")


def paths(node: Node | None, words: Vocabulary) -> list[str]:
    """The paths an expression's value may come from (several for `a or b`); [] when none describes it."""
    if node is None:
        return []
    kind = node.type
    if kind in words.name:
        return [words.text(node)]
    # (attributes and calls next: after names, the expressions most often met)
    if kind == words.attribute:
        attribute, owner = node.child_by_field_name("attribute"), node.child_by_field_name("object")
        bases = _typed(owner.type, words) if owner is not None and owner.type in words.typed else paths(owner, words)
        return [f"{p}.{words.text(attribute)}" for p in bases] if attribute else []
    if kind == words.call:
        callees = paths(node.child_by_field_name("function"), words)
        out = [p + CALLED for p in callees]
        for callee in callees:  # partial(f, ...): f, if the callee proves to be the forwarding one
            if callee.rpartition(".")[2] in words.forwarders:
                args = arguments(node.child_by_field_name("arguments"), words)
                if args and args[0] and "=" not in args[0] and not args[0].startswith("*"):
                    out.append(f"{FORWARDED}{callee}|{args[0]}")
        return out
    if kind in words.literals:  # a key-like constant: what a subscript by this variable reads
        found = key(node, words)
        return [LITERAL + found] if found else _typed(kind, words)
    if kind in words.wrappers or kind in words.either:
        children = node.named_children
        if kind == "conditional_expression":  # x if cond else y: not the condition
            children = children[::2]
        return [p for child in children for p in paths(child, words)]
    if kind == "lambda":  # the function it defines
        return [f"{DEFINITION}{LAMBDA}{node.start_byte}>"]
    if kind == "assignment":  # a = b = value: the value of the inner assignment
        return paths(node.child_by_field_name("right"), words)
    if kind == "named_expression":  # (x := value) is the value
        return paths(node.child_by_field_name("value"), words)
    if kind == words.subscript:
        index = node.child_by_field_name("subscript")
        inner = paths(node.child_by_field_name("value"), words)
        if index is not None and index.type in words.slices:  # [2:]: the same elements, 2 places earlier
            start = words.text(index).split(":", 1)[0].strip()
            shift = start if start.isdigit() else ("0" if not start else "")
            return [f"{p}[:{shift}]" for p in inner]
        return [p + element(key(index, words)) for p in inner]
    return _typed(kind, words)


def _typed(kind: str, words: Vocabulary) -> list[str]:
    """A literal as its builtin type (`%dict` for `{...}`): its methods are the type's."""
    found = words.typed.get(kind)
    return [TYPED + found] if found else []


def element_paths(node: Node, words: Vocabulary) -> list[str] | None:
    """The paths of the elements of a container literal (a dict's values), or None when `node` is none."""
    if node.type in words.mappings:
        return [p for pair in node.named_children if pair.type == words.pair
                for p in paths(pair.child_by_field_name("value"), words)]
    if node.type in _COMPREHENSIONS:
        body = node.named_children[0] if node.named_children else None
        return paths(body, words)
    if node.type in words.containers:
        return [p for child in node.named_children for p in paths(_unsplat(child, words), words)]
    return None


def assignments(target: Node, value: Node | None, words: Vocabulary) -> list[tuple[str, str]]:
    """(target, source path) pairs of `target = value`: element by element for tuples of the same
    shape, and every element of the value for a starred target or an unpacked container."""
    if value is None:
        return []
    kind = target.type
    if kind in words.wrappers:
        inner = target.named_children
        return assignments(inner[0], value, words) if inner else []
    if kind in words.tuples:
        items = list(target.named_children)
        values = _items(value, words)
        stars = [i for i, item in enumerate(items) if item.type in words.splat]
        if values is not None and len(stars) <= 1 and len(values) >= len(items) - len(stars):
            if not stars and len(values) == len(items):
                return [pair for item, part in zip(items, values) for pair in assignments(item, part, words)]
            if stars:  # a, *rest, z = f, g, h, k: rest holds what the others leave
                star, after = stars[0], len(items) - stars[0] - 1
                out = [pair for item, part in zip(items[:star], values) for pair in assignments(item, part, words)]
                out += [pair for item, part in zip(items[star + 1:], values[len(values) - after:])
                        for pair in assignments(item, part, words)]
                inner = _unsplat(items[star], words)
                name = target_name(inner, words) if inner is not None else None
                middle = values[star:len(values) - after]
                return out + ([(name + ELEMENT, p) for part in middle for p in paths(part, words)] if name else [])
        sources = values_of(value, words, element=True)
        out = []
        for item in items:
            if item.type in words.splat:  # a, *rest = ...: rest holds elements
                inner = _unsplat(item, words)
                name = target_name(inner, words) if inner is not None else None
                out += [(name + ELEMENT, s) for s in sources] if name else []
            else:
                out += _to_target(item, sources, words)
        return out
    if kind in words.splat:
        inner = _unsplat(target, words)
        name = target_name(inner, words) if inner is not None else None
        return [(name + ELEMENT, s) for s in values_of(value, words, element=True)] if name else []
    name = target_name(target, words)
    if name is None:
        return []
    return [(name, s) for s in paths(value, words)] + container_flows(name, value, words)


def container_flows(name: str, value: Node, words: Vocabulary) -> list[tuple[str, str]]:
    """What a container literal assigned to `name` puts in its elements: `name['k']` for a literal
    key or a list position, `name[]` for any other; nested literals one level deeper."""
    if value.type in words.wrappers and value.named_children:
        return container_flows(name, value.named_children[0], words)
    if value.type in words.mappings:
        items = [(key(pair.child_by_field_name("key"), words), pair.child_by_field_name("value"))
                 for pair in value.named_children if pair.type == words.pair]
    elif value.type in _COMPREHENSIONS:
        items = [("", value.named_children[0])] if value.named_children else []
    elif value.type in words.containers:
        children = [child for child in value.named_children if child.type != "comment"]
        positional = value.type in ("list", "tuple", "expression_list") and not any(c.type in words.splat for c in children)
        items = [(str(i) if positional else "", _unsplat(child, words)) for i, child in enumerate(children)]
    else:
        return []
    out = []
    for index, item in items:
        if item is None:
            continue
        target = name + element(index)
        out += [(target, s) for s in paths(item, words)]
        out += container_flows(target, item, words)
    return out


def container_adds(container: str, method: str, arguments_node: Node | None, words: Vocabulary) -> list[tuple[str, str]]:
    """(target, source) pairs of `container.method(...)` for a method that stores its arguments
    (`ls.append(f)`, `d.update({'a': f})`); [] for any other."""
    how = words.adders.get(method)
    args = [c for c in arguments_node.named_children if c.type != "comment"] if arguments_node is not None else []
    if how is None or not args or any(a.type == words.keyword_argument for a in args):
        return []
    if how == "item":
        return [(container + ELEMENT, p) for p in paths(args[0], words)]
    if how == "second" and len(args) > 1:
        return [(container + ELEMENT, p) for p in paths(args[1], words)]
    if how == "elements":
        return [(container + ELEMENT, p) for p in values_of(args[0], words, element=True)]
    if how == "mapping":
        found = container_flows(container, args[0], words)
        return found or [(container + ELEMENT, p) for p in values_of(args[0], words, element=True)]
    if how == "keyed" and len(args) > 1:
        return [(container + element(key(args[0], words)), p) for p in paths(args[1], words)]
    return []


def key(node: Node | None, words: Vocabulary) -> str:
    """A subscript's literal key as a path writes it (`'a'`, `1`), "" when it is not a plain literal."""
    if node is None:
        return ""
    text = words.text(node)
    if node.type == "integer" and text.isdigit():
        return str(int(text))
    if node.type == "identifier":  # a variable: its constant values, when it has only those
        return "$" + text
    if node.type == "string" and _KEY.match(text):
        return "'" + text[1:-1] + "'"
    return ""


def element(key: str = "") -> str:
    return f"[{key}]"


def values_of(value: Node, words: Vocabulary, element: bool = False) -> list[str]:
    """The value's paths, or with `element` what its elements hold (a literal's items, else `path[]`)."""
    if not element:
        return paths(value, words)
    elements = element_paths(value, words)
    if elements is not None:
        return elements
    return [p + ELEMENT for p in paths(value, words)]


def target_name(node: Node, words: Vocabulary) -> str | None:
    """A target as a path: `x`, `self.x`, `d[]` for `d[k]`; None for what a path cannot name."""
    found = paths(node, words)
    if len(found) != 1 or found[0].endswith(CALLED) or CALLED in found[0]:
        return None
    return found[0]


def arguments(node: Node | None, words: Vocabulary) -> list[str]:
    """A call's arguments as paths: positional ones in order ("" for one no path describes, `*p` for
    an unpacked one), then `name=path` for keywords; `**p` for an unpacked mapping."""
    out: list[str] = []
    for child in node.named_children if node is not None else ():
        if child.type == words.keyword_argument:
            name, value = child.child_by_field_name("name"), child.child_by_field_name("value")
            found = paths(value, words)
            if name is not None and found:
                out.append(f"{words.text(name)}={found[0]}")
        elif child.type in words.keyword_splat:
            continue
        elif child.type in words.splat:
            found = paths(_unsplat(child, words), words)
            out.append("*" + found[0] if found else "")
        elif child.type == "comment":
            continue
        else:
            found = paths(child, words)
            out.append(found[0] if len(found) == 1 else "")
    while out and out[-1] == "":
        out.pop()
    return out


def parameters(node: Node, words: Vocabulary) -> list[tuple[str, str, Node | None]]:
    """(name, kind, default) per parameter: kind "" plain, "*" for *args, "**" for **kwargs."""
    out = []
    for child in node.named_children:
        if child.type in words.splat:
            inner = _unsplat(child, words)
            if inner is not None and inner.type in words.name:
                out.append((words.text(inner), "*", None))
        elif child.type in words.keyword_splat:
            inner = child.named_children[0] if child.named_children else None
            if inner is not None and inner.type in words.name:
                out.append((words.text(inner), "**", None))
        elif child.type in words.parameters:
            name = child if child.type in words.name else child.child_by_field_name("name")
            if name is None and child.named_children:  # typed_parameter: its first child is the name
                name = child.named_children[0]
            if name is not None and name.type in words.name:
                out.append((words.text(name), "", child.child_by_field_name("value")))
    return out


def _to_target(item: Node, sources: list[str], words: Vocabulary) -> list[tuple[str, str]]:
    """Every source into one target; a nested tuple target takes their elements."""
    if item.type in words.tuples:
        return [pair for inner in item.named_children for pair in _to_target(inner, [s + ELEMENT for s in sources], words)]
    name = target_name(item, words)
    return [(name, s) for s in sources] if name else []


def _items(node: Node, words: Vocabulary) -> list[Node] | None:
    if node.type in words.wrappers and node.named_children:
        return _items(node.named_children[0], words)
    if node.type in words.tuples:
        return list(node.named_children)
    return None


def _unsplat(node: Node, words: Vocabulary) -> Node | None:
    if node.type in words.splat:
        return node.named_children[0] if node.named_children else None
    return node


def is_name(text: str) -> bool:
    return bool(_NAME.match(text))
