"""Finds the HTTP routes a Go file registers (parse/routes.py dispatches): net/http's HandleFunc and
Handle (Go 1.22 patterns name the method), gin's r.GET and groups, chi's r.Get and nested r.Route.
Pure: one file's tree."""

from __future__ import annotations

from tree_sitter import Node

from graphctx.parse.facts import Route
from graphctx.parse.routepaths import ANY, HTTP_METHODS, Found, Prefixes, join, member_call, mount, scope, string, text

_GO_VERBS = {m: m for m in HTTP_METHODS} | {m.capitalize(): m for m in HTTP_METHODS} | {"Any": ANY}


def find(nodes: dict[str, list[Node]]) -> Found:
    prefixes = Prefixes()  # v1 := r.Group("/v1"): v1 is mounted on r with its own prefix
    for declaration in nodes.get("assign", ()):
        left, right = declaration.child_by_field_name("left"), declaration.child_by_field_name("right")
        if left is None or right is None or len(left.named_children) != 1 or len(right.named_children) != 1:
            continue
        value = right.named_children[0]
        if value.type == "call_expression":
            receiver, verb, args = member_call(value)
            if verb in ("Group", "Route") and args and string(args[0]) is not None:
                where, name = scope(declaration, _GO_SCOPES), text(left.named_children[0])
                prefixes.define(where, name, string(args[0]))
                prefixes.mount(where, name, receiver, "")

    routes: list[Route] = []
    registrations: set[tuple[int, str]] = set()
    for call in nodes.get("call", ()):
        receiver, verb, args = member_call(call)
        if verb not in _GO_VERBS and verb not in ("HandleFunc", "Handle") or len(args) < 2:
            continue
        pattern = string(args[0])
        if pattern is None:
            continue
        method = _GO_VERBS.get(verb, ANY)
        if verb in ("HandleFunc", "Handle") and " " in pattern:  # Go 1.22: "GET /users/{id}"
            method, _, pattern = pattern.partition(" ")
            pattern = pattern.strip()
        if not pattern.startswith("/"):
            continue
        last = args[-1]
        handler = text(last) if last.type in ("identifier", "selector_expression") else ""
        full = mount(join(_enclosing_routes(call), prefixes.of(scope(call, _GO_SCOPES), receiver)), pattern)
        registrations.add((call.start_point[0] + 1, verb))
        routes.append(Route(method, full, handler, scope(call, _GO_SCOPES), call.start_point[0] + 1,
                            call.end_point[0] + 1, "go"))
    return Found(routes, registrations)


_GO_SCOPES = {"function_declaration", "method_declaration"}


def _enclosing_routes(call: Node) -> str:
    """chi's r.Route("/api", func(r chi.Router) {...}): the prefixes of the Route calls around a call."""
    prefix = ""
    node = call.parent
    while node is not None:
        if node.type == "func_literal" and node.parent is not None and node.parent.type == "argument_list":
            outer = node.parent.parent
            _, verb, args = member_call(outer) if outer is not None and outer.type == "call_expression" else ("", "", [])
            if verb == "Route" and args and string(args[0]) is not None:
                prefix = join(string(args[0]), prefix)
        node = node.parent
    return prefix
