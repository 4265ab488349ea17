"""The shared reading of route registrations (parse/routes.py): string literals, path joining,
the router variables of a file with their prefixes and mounts, a member call's parts, and the
qualified name extract gives the definition a registration sits in. Pure: tree nodes only."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from tree_sitter import Node

from graphctx.parse.facts import Mount, Route, Router

HTTP_METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS")
ANY = "ANY"  # a registration that names no method (Django's path(), http.HandleFunc without one)
_STRING = re.compile(r"""^[rRbBuUfF]*(["'`])(.*)\1$""", re.S)


@dataclass(slots=True)
class Found:
    """What a route finder reads in one file: its routes, the (line, name) of each registering call
    (no call of a repository function), its module-level routers and its mounts of other files' routers."""

    routes: list[Route] = field(default_factory=list)
    registrations: set[tuple[int, str]] = field(default_factory=set)
    routers: list[Router] = field(default_factory=list)
    mounts: list[Mount] = field(default_factory=list)


class Prefixes:
    """A file's router variables, each in the definition it is assigned in (a name reused in another
    function is another router): the prefix its constructor gives (`Blueprint(url_prefix=)`,
    `APIRouter(prefix=)`, `r.Group("/v1")`) and the router it is mounted on, with the mount's prefix.
    Flask's register_blueprint(url_prefix=) replaces the blueprint's own; the others add to it."""

    def __init__(self) -> None:
        self.own: dict[tuple[str, str], str] = {}
        self.mounts: dict[tuple[str, str], tuple[tuple[str, str], str, bool]] = {}

    def define(self, scope: str, name: str, prefix: str) -> None:
        self.own[(scope, name)] = prefix

    def knows(self, scope: str, name: str) -> bool:
        """Whether the file makes this router (else it comes from another file)."""
        return (scope, name) in self.own or ("", name) in self.own

    def mount(self, scope: str, name: str, parent: str, prefix: str, replaces: bool = False) -> None:
        self.mounts.setdefault(self._key(scope, name), (self._key(scope, parent), prefix, replaces))  # the first counts

    def of(self, scope: str, name: str) -> str:
        return self._full(self._key(scope, name), frozenset())

    def top(self, scope: str, name: str) -> tuple[str, str]:
        """The router a variable ends up under through this file's mounts and the prefix from that
        router's own prefix down to the variable. Only a module-level router can be mounted by
        another file: for any other ("" is returned) the prefix includes the router's own."""
        key, below, seen = self._key(scope, name), "", set()
        while key in self.mounts and key not in seen:
            seen.add(key)
            parent, prefix, replaces = self.mounts[key]
            below = chain(prefix if replaces and prefix else chain(prefix, self.own.get(key, "")), below)
            key = parent
        return (key[1], below) if not key[0] else ("", chain(self.own.get(key, ""), below))

    def own_prefix(self, name: str) -> str:
        """The prefix a module-level router's constructor gives it."""
        return self.own.get(("", name), "")

    def _key(self, scope: str, name: str) -> tuple[str, str]:
        """A variable of `scope` when that definition assigns or mounts it, else the module's."""
        return (scope, name) if (scope, name) in self.own or (scope, name) in self.mounts else ("", name)

    def _full(self, key: tuple[str, str], seen: frozenset) -> str:
        own = self.own.get(key, "")
        if key not in self.mounts or key in seen:
            return own
        parent, prefix, replaces = self.mounts[key]
        return join(self._full(parent, seen | {key}), prefix if replaces and prefix else join(prefix, own))


def member_call(call: Node) -> tuple[str, str, list[Node]]:
    function = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    if function is None or args is None or function.type not in ("member_expression", "selector_expression"):
        return "", "", []
    obj = function.child_by_field_name("object") or function.child_by_field_name("operand")
    prop = function.child_by_field_name("property") or function.child_by_field_name("field")
    return text(obj), text(prop), [a for a in args.named_children if a.type != "comment"]


def string(node: Node | None) -> str | None:
    """The value of a plain string literal (no interpolation), or None for anything else."""
    if node is None or node.type not in ("string", "string_literal", "interpreted_string_literal",
                                         "raw_string_literal", "template_string"):
        return None
    if any(c.type in ("interpolation", "template_substitution") for c in node.children):
        return None
    match = _STRING.match(text(node))
    return match.group(2) if match else None


def join(prefix: str, path: str) -> str:
    """A route path with its prefix: one slash between them, a leading slash, a trailing one kept."""
    if not prefix:
        return path if path.startswith("/") else "/" + path
    if not path:
        return prefix if prefix.startswith("/") else "/" + prefix
    joined = prefix.rstrip("/") + "/" + path.lstrip("/")
    return joined if joined.startswith("/") else "/" + joined


def chain(*prefixes: str) -> str:
    """Prefixes joined one below the other, leaving out the empty ones: "" when all are."""
    out = ""
    for prefix in prefixes:
        out = join(out, prefix) if out and prefix else out or prefix
    return out


def mount(prefix: str, path: str) -> str:
    """A path under a mounted router (Express, chi): its "/" is the mount point itself."""
    return join(prefix, "" if prefix and path == "/" else path)


def scope(node: Node, kinds: Iterable[str]) -> str:
    parent = node.parent
    while parent is not None and parent.type not in kinds:
        parent = parent.parent
    return qualified(parent, kinds) if parent is not None else ""


def qualified(node: Node, kinds: Iterable[str]) -> str:
    """The qualified name extract gives a definition: the names of the definitions around it, dotted."""
    names = []
    while node is not None:
        if node.type in kinds:
            name = node.child_by_field_name("name")
            if name is not None:
                names.append(text(name))
            receiver = node.child_by_field_name("receiver") if node.type == "method_declaration" else None
            if receiver is not None and receiver.type == "parameter_list":  # Go: func (s *Server) m() is Server.m
                names.append(re.sub(r"^.*?\*?\s*(\w+)(?:\[.*)?$", r"\1", text(receiver)[1:-1].strip()))
                break
        node = node.parent
    return ".".join(reversed(names))


def text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""
