"""Finds the HTTP routes a file registers with a web framework (Flask, FastAPI, Django and Express
here; Go's net/http, chi and gin in routes_go.py, Spring in routes_spring.py) and who handles each,
with the prefixes the same file gives them (a blueprint's url_prefix, an APIRouter's prefix and
include_router's, a router mounted by app.use). A prefix given in another file is not known here:
each route names the module-level router it hangs on, and the file's mounts of other files'
routers are kept, for the index to join (index/routemounts.py). Routes are inferred from naming
conventions, never proven: the resolver labels their edges so. Pure: one file's tree, no disk."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from tree_sitter import Node, Query, QueryCursor

from graphctx.parse import languages, routes_go, routes_spring
from graphctx.parse.facts import Mount, Route, Router
from graphctx.parse.routepaths import ANY, Found, Prefixes, chain, join, member_call, mount, qualified, scope, string, text

# A cheap look at the bytes first: a file that mentions no framework is not walked at all.
_MARKERS = {
    "python": re.compile(rb"\.(?:route|get|post|put|delete|patch|head|options|api_route|include_router|register_blueprint)\("
                         rb"|urlpatterns"),
    "javascript": re.compile(rb"\.(?:get|post|put|delete|patch|all|options|head)\(\s*['\"`]/|\.use\("),
    "go": re.compile(rb"\.(?:HandleFunc|Handle|GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS|Any|Get|Post|Put|Delete|Patch|Head|Options)\(\s*\""),
    "java": re.compile(rb"Mapping\b"),
}
_FAMILIES = {"python": "python", "javascript": "javascript", "typescript": "javascript", "tsx": "javascript",
             "go": "go", "java": "java"}
_QUERIES = {
    "python": "(call) @call (assignment) @assign",
    "javascript": "(call_expression) @call (variable_declarator) @assign",
    "go": "(call_expression) @call (short_var_declaration) @assign",
    "java": "(method_declaration) @method",
}
_PY_VERBS = {"get", "post", "put", "delete", "patch", "head", "options"}
_JS_VERBS = {"get", "post", "put", "delete", "patch", "all", "options", "head"}
_JS_APP_NAMES = re.compile(r"^(?:app|server|api|router|[a-z]\w*Router|[a-z]\w*Routes)$")


def find(language: str, root: Node, source: bytes) -> Found:
    """The routes a file registers, its module-level routers and the routers of other files it
    mounts, and the (line, name) of each registering call: those are not calls of a repository
    function (`app.get` is no `Cache.get`)."""
    family = _FAMILIES.get(language)
    if family is None or not _MARKERS[family].search(source):
        return Found()
    captures = QueryCursor(_query(language)).captures(root)
    nodes = {name: sorted(found, key=lambda n: n.start_byte) for name, found in captures.items()}
    if family == "python":  # a receiver the file does not construct (a fixture's app): the file's imports tell
        return _python(nodes, "fastapi" if b"fastapi" in source else "flask")
    if family == "javascript":  # what the module exports is read off its top-level statements
        return _express(nodes, root)
    return _FINDERS[family](nodes)


@cache
def _query(language: str) -> Query:
    return Query(languages.load(language)[0], _QUERIES[_FAMILIES[language]])


# ---- Python: Flask, FastAPI, Django

def _python(nodes: dict[str, list[Node]], usual: str) -> Found:
    prefixes = Prefixes()
    frameworks: dict[str, str] = {}
    found = Found()
    for assign in nodes.get("assign", ()):
        left, right = assign.child_by_field_name("left"), assign.child_by_field_name("right")
        if left is None or right is None or left.type != "identifier" or right.type != "call":
            continue
        ctor = text(right.child_by_field_name("function")).rpartition(".")[2]
        args = right.child_by_field_name("arguments")
        if ctor in ("Blueprint", "Flask", "APIRouter", "FastAPI"):
            flask = ctor in ("Blueprint", "Flask")
            prefixes.define(scope(assign, _PY_SCOPES), text(left), _keyword_string(args, "url_prefix" if flask else "prefix"))
            frameworks[text(left)] = "flask" if flask else "fastapi"
    calls = nodes.get("call", ())
    outside: list[tuple[Node, Node, str, bool]] = []  # mounts of a router this file does not make
    for call in calls:  # app.register_blueprint(bp, url_prefix=...), app.include_router(router, prefix=...)
        function = call.child_by_field_name("function")
        if function is None or function.type != "attribute":
            continue
        verb = text(function.child_by_field_name("attribute"))
        args = call.child_by_field_name("arguments")
        if verb in ("register_blueprint", "include_router") and args is not None and args.named_children:
            flask = verb == "register_blueprint"
            child, parent, keyword = args.named_children[0], text(function.child_by_field_name("object")), \
                "url_prefix" if flask else "prefix"
            where = scope(call, _PY_SCOPES)
            value = _keyword(args, keyword)
            if prefixes.knows(where, text(child)) and (value is None or string(value) is not None):
                prefixes.mount(where, text(child), parent, _keyword_string(args, keyword), replaces=flask)
            elif child.type in ("identifier", "attribute"):  # (or this file's, under a prefix that is no literal)
                outside.append((call, child, parent, flask))
    django = any(text(a.child_by_field_name("left")) == "urlpatterns" for a in nodes.get("assign", ()))
    for call in calls:
        function = call.child_by_field_name("function")
        args = call.child_by_field_name("arguments")
        if function is None or args is None or args.type != "argument_list":
            continue
        if function.type == "attribute" and call.parent is not None and call.parent.type == "decorator":
            receiver = text(function.child_by_field_name("object"))
            verb = text(function.child_by_field_name("attribute"))
            path = string(args.named_children[0]) if args.named_children else None
            if path is None or verb not in _PY_VERBS | {"route", "api_route", "websocket"}:
                continue
            definition = _decorated(call.parent)
            if definition is None:
                continue
            if verb in ("route", "api_route"):
                methods = _keyword_strings(args, "methods") or ["GET"]
            else:
                methods = ["WS" if verb == "websocket" else verb.upper()]
            framework = frameworks.get(receiver) or ("flask" if verb == "route" else usual)
            where = scope(call, _PY_SCOPES)
            router, below = prefixes.top(where, receiver)
            found.registrations.add((function.start_point[0] + 1, verb))
            for method in methods:
                found.routes.append(Route(method.upper(), join(prefixes.of(where, receiver), path), "", where,
                                          call.start_point[0] + 1, call.end_point[0] + 1, framework,
                                          defined=qualified(definition, _PY_SCOPES), router=router,
                                          below=join(below, path) if below else path))
        elif django and function.type in ("identifier", "attribute") and \
                text(function).rpartition(".")[2] in ("path", "re_path", "url") and len(args.named_children) >= 2:
            path, view = string(args.named_children[0]), args.named_children[1]
            if path is None:
                continue
            if text(function).rpartition(".")[2] != "path":
                path = path.lstrip("^").rstrip("$")
            path = chain(_included_under(call), path)  # path("api/", include([path("users/", ...)]))
            if view.type == "call" and text(view.child_by_field_name("function")).rpartition(".")[2] == "include":
                included = _included_module(view)
                if included:  # path("api/", include("shop.urls")): that module's urlpatterns, under this path
                    found.mounts.append(Mount(included, True, "urlpatterns", path, True, False,
                                              call.start_point[0] + 1))
                continue
            if view.type == "call":  # UserList.as_view(): the class handles it
                view = view.child_by_field_name("function").child_by_field_name("object") or view
            handler = text(view) if view.type in ("identifier", "attribute") else ""
            where = scope(call, _PY_SCOPES)
            found.routes.append(Route(ANY, join("", path), handler, where, call.start_point[0] + 1,
                                      call.end_point[0] + 1, "django", router="" if where else "urlpatterns",
                                      below=join("", path)))
    for call, child, parent, flask in outside:  # a router of another file, under this file's routers
        args = call.child_by_field_name("arguments")
        value = _keyword(args, "url_prefix" if flask else "prefix")
        literal = string(value) if value is not None else ""
        router, below = prefixes.top(scope(call, _PY_SCOPES), parent)  # "": an app made in a function
        found.mounts.append(Mount(text(child), False, router, chain(below, literal or ""), literal is not None,
                                  flask and bool(literal), call.start_point[0] + 1))
    found.routers = [Router(name, prefixes.own_prefix(name)) for name in
                     sorted({r.router for r in found.routes if r.router} | {m.parent for m in found.mounts if m.parent})]
    return found


def _included_under(call: Node) -> str:
    """The paths of the path() calls whose include([...]) list holds this one, outermost first."""
    prefix = ""
    node = call.parent
    while node is not None:
        if node.type == "call" and text(node.child_by_field_name("function")).rpartition(".")[2] == "include":
            outer = node.parent.parent if node.parent is not None and node.parent.type == "argument_list" else None
            args = outer.child_by_field_name("arguments") if outer is not None and outer.type == "call" else None
            first = string(args.named_children[0]) if args is not None and args.named_children else None
            if first is not None:
                name = text(outer.child_by_field_name("function")).rpartition(".")[2]
                prefix = chain(first if name == "path" else first.lstrip("^").rstrip("$"), prefix)
        node = node.parent
    return prefix


def _included_module(include: Node) -> str:
    """The module Django's include() names: include("shop.urls"), include(("shop.urls", "shop"))."""
    args = include.child_by_field_name("arguments")
    first = args.named_children[0] if args is not None and args.named_children else None
    if first is not None and first.type == "tuple" and first.named_children:
        first = first.named_children[0]
    return string(first) or ""


_PY_SCOPES = {"function_definition", "class_definition"}


def _decorated(decorator: Node) -> Node | None:
    parent = decorator.parent
    return parent.child_by_field_name("definition") if parent is not None and parent.type == "decorated_definition" else None


def _keyword_string(args: Node | None, keyword: str) -> str:
    value = _keyword(args, keyword)
    return (string(value) or "") if value is not None else ""


def _keyword_strings(args: Node | None, keyword: str) -> list[str]:
    value = _keyword(args, keyword)
    if value is None:
        return []
    items = value.named_children if value.type in ("list", "tuple", "set") else [value]
    return [s for s in (string(item) for item in items) if s]


def _keyword(args: Node | None, keyword: str) -> Node | None:
    for arg in args.named_children if args is not None else ():
        if arg.type == "keyword_argument" and text(arg.child_by_field_name("name")) == keyword:
            return arg.child_by_field_name("value")
    return None


# ---- JavaScript and TypeScript: Express

def _express(nodes: dict[str, list[Node]], root: Node) -> Found:
    apps: set[str] = set()  # variables holding express() or a Router()
    others: set[str] = set()  # variables this file binds to anything else (`api = axios.create()`)
    module_level: set[str] = set()
    for declarator in nodes.get("assign", ()):
        name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
        if name is None or value is None:
            continue
        if value.type == "new_expression":
            value = value.child_by_field_name("constructor")
        elif value.type == "call_expression":
            value = value.child_by_field_name("function")
        if value is not None and text(value).rpartition(".")[2] in ("express", "Router"):
            apps.add(text(name))
            if not scope(declarator, _JS_SCOPES):
                module_level.add(text(name))
        else:
            others.add(text(name))

    def serves(receiver: str) -> bool:
        """An app or router by what this file binds it to, else by its name (one made in another file)."""
        return receiver in apps or (receiver not in others and bool(_JS_APP_NAMES.match(receiver)))
    prefixes = Prefixes()
    found = Found()
    calls = nodes.get("call", ())
    outside: list[tuple[Node, str, Node | None, Node]] = []  # a router this file does not make, mounted here
    for call in calls:  # app.use('/api', router)
        receiver, verb, args = member_call(call)
        if verb != "use" or not args or not serves(receiver):
            continue
        prefix, child = (args[0] if len(args) >= 2 else None), args[-1]
        if child.type == "identifier" and text(child) in apps and (prefix is None or string(prefix) is not None):
            prefixes.mount(scope(call, _JS_SCOPES), text(child), receiver, string(prefix) or "")
        elif child.type == "identifier" or _required(child):  # (or this file's, under a prefix that is no literal)
            outside.append((call, receiver, prefix, child))
    for call in calls:
        receiver, verb, args = member_call(call)
        if verb not in _JS_VERBS or len(args) < 2 or not serves(receiver):
            continue
        path = string(args[0])
        if path is None or not path.startswith("/"):
            continue
        last = args[-1]
        handler = text(last) if last.type in ("identifier", "member_expression") else ""
        handler = handler[5:] if handler.startswith("this.") else handler
        found.registrations.add((call.start_point[0] + 1, verb))
        method = ANY if verb == "all" else verb.upper()
        where = scope(call, _JS_SCOPES)
        router, below = prefixes.top(where, receiver)
        found.routes.append(Route(method, mount(prefixes.of(where, receiver), path), handler, where,
                                  call.start_point[0] + 1, call.end_point[0] + 1, "express",
                                  router=router if router in module_level else "", below=mount(below, path)))
    for call, receiver, prefix, child in outside:
        router, below = prefixes.top(scope(call, _JS_SCOPES), receiver)
        router = router if router in module_level else ""  # an app no other file can mount
        literal = string(prefix) if prefix is not None else ""
        module = _required(child)
        found.mounts.append(Mount(module or text(child), bool(module), router, chain(below, literal or ""),
                                  literal is not None, False, call.start_point[0] + 1))
    exported = _js_default_export(root)
    found.routers = [Router(name, "", "default" if name == exported else "") for name in
                     sorted({r.router for r in found.routes if r.router} | {m.parent for m in found.mounts if m.parent})]
    return found


def _required(node: Node) -> str:
    """The module of `require('./users')`, else ""."""
    if node.type != "call_expression" or text(node.child_by_field_name("function")) != "require":
        return ""
    args = node.child_by_field_name("arguments")
    return (string(args.named_children[0]) or "") if args is not None and args.named_children else ""


def _js_default_export(root: Node) -> str:
    """The variable a module exports as itself: `module.exports = router`, `export default router`."""
    for statement in root.named_children:
        if statement.type == "export_statement" and any(c.type == "default" for c in statement.children):
            value = statement.child_by_field_name("value") or statement.named_children[-1]
            if value is not None and value.type == "identifier":
                return text(value)
        if statement.type == "expression_statement" and statement.named_children:
            assignment = statement.named_children[0]
            if assignment.type == "assignment_expression" and text(assignment.child_by_field_name("left")) == "module.exports":
                value = assignment.child_by_field_name("right")
                if value is not None and value.type == "identifier":
                    return text(value)
    return ""


_JS_SCOPES = {"function_declaration", "method_definition", "class_declaration", "generator_function_declaration"}


_FINDERS: dict[str, Callable[[dict[str, list[Node]]], Found]] = {"go": routes_go.find, "java": routes_spring.find}
