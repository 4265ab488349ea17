"""Finds the HTTP routes a Java file declares with Spring's mapping annotations (parse/routes.py
dispatches): @GetMapping and friends, @RequestMapping(method=) on a method, under the class's
@RequestMapping. Pure: one file's tree."""

from __future__ import annotations

from tree_sitter import Node

from graphctx.parse.facts import Route
from graphctx.parse.routepaths import ANY, Found, join, qualified, scope, string, text

_SPRING = {"GetMapping": "GET", "PostMapping": "POST", "PutMapping": "PUT", "DeleteMapping": "DELETE",
           "PatchMapping": "PATCH", "RequestMapping": ANY}


def find(nodes: dict[str, list[Node]]) -> Found:
    routes: list[Route] = []
    for method in nodes.get("method", ()):
        mapping = _mapping(method)
        if mapping is None:
            continue
        verbs, paths = mapping
        owner = method.parent.parent if method.parent is not None else None
        prefix = ""
        if owner is not None and owner.type in ("class_declaration", "interface_declaration"):
            class_mapping = _mapping(owner)
            prefix = class_mapping[1][0] if class_mapping else ""
        handler = qualified(method, _JAVA_SCOPES)
        for verb in verbs:
            for path in paths:
                routes.append(Route(verb, join(prefix, path), "", scope(method, _JAVA_SCOPES), method.start_point[0] + 1,
                                    method.start_point[0] + 1, "spring", defined=handler))
    return Found(routes)


_JAVA_SCOPES = {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "method_declaration"}


def _mapping(declaration: Node) -> tuple[list[str], list[str]] | None:
    """The HTTP methods and paths a Spring mapping annotation on a declaration gives."""
    modifiers = next((c for c in declaration.children if c.type == "modifiers"), None)
    for annotation in modifiers.named_children if modifiers is not None else ():
        if annotation.type not in ("annotation", "marker_annotation"):
            continue
        kind = _SPRING.get(text(annotation.child_by_field_name("name")).rpartition(".")[2])
        if kind is None:
            continue
        args = annotation.child_by_field_name("arguments")
        paths, verbs = [], []
        for arg in args.named_children if args is not None else ():
            if arg.type == "element_value_pair":
                key, value = text(arg.child_by_field_name("key")), arg.child_by_field_name("value")
                if key in ("value", "path"):
                    paths += _java_strings(value)
                elif key == "method":
                    verbs += [text(v).rpartition(".")[2] for v in _java_values(value)]
            else:
                paths += _java_strings(arg)
        return (verbs or [kind]), (paths or [""])
    return None


def _java_values(node: Node | None) -> list[Node]:
    if node is None:
        return []
    return list(node.named_children) if node.type == "element_value_array_initializer" else [node]


def _java_strings(node: Node | None) -> list[str]:
    return [s for s in (string(v) for v in _java_values(node)) if s is not None]
