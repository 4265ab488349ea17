"""Finds the HTTP client calls of a file that name a URL path: Python's requests and httpx (and
sessions and clients: `session.post(f"{BASE}/users/{id}")`), JavaScript's fetch and axios (and its
`axios.create` instances), Go's net/http (`http.Get`, `http.NewRequest`, a client's `Get`). Each call
gives its HTTP method when the code says it and its path with the scheme, host and base variable
dropped and every value the code computes as `{}` (`/users/{}`); a module-level string constant
(`BASE = "http://api:8000/v1"`) is read for its path, and a module-level client's base URL
(`httpx.Client(base_url=...)`, `axios.create({baseURL})`) is put before the paths it is called with.
A URL the code does not spell out (`get(url)`) gives nothing. Pure: one file's tree, no disk."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from tree_sitter import Node, Query, QueryCursor

from graphctx.parse import languages
from graphctx.parse.routepaths import HTTP_METHODS, text

VALUE = "{}"  # a path segment the code computes: it matches a route parameter, never a literal segment
_HOLE = "\x00"  # a computed part of a URL while it is built
_VERBS = {m.lower() for m in HTTP_METHODS}
_FAMILIES = {"python": "python", "javascript": "javascript", "typescript": "javascript", "tsx": "javascript",
             "go": "go"}
_MARKERS = {
    "python": re.compile(rb"\b(?:requests|httpx|aiohttp)\b"),
    "javascript": re.compile(rb"\bfetch\(|\baxios\b"),
    "go": re.compile(rb"\"net/http\""),
}
_CALLS = {"python": "call", "javascript": "call_expression", "go": "call_expression"}
_SCHEME_HOST = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]*")
_PERCENT_VERB = re.compile(r"%[-+# 0-9.]*[a-zA-Z]")  # printf verbs (Go's Sprintf, Python's %)
_FORMAT_FIELD = re.compile(r"\{[^{}]*\}")  # str.format fields


@dataclass(frozen=True, slots=True)
class ClientCall:
    method: str | None  # GET, POST, ...; None when the code does not say (a variable)
    path: str  # "/users/{}": scheme, host, base, query and fragment dropped
    line: int


def find(language: str, root: Node, source: bytes) -> list[ClientCall]:
    """The HTTP client calls of a file whose URL path the code spells out, in line order."""
    family = _FAMILIES.get(language)
    if family is None or not _MARKERS[family].search(source):
        return []
    calls = sorted(QueryCursor(_query(language)).captures(root).get("call", ()), key=lambda n: n.start_byte)
    names = _names(family, root)
    reader = _READERS[family]
    found = []
    for call in calls:
        read = reader(call, names)
        if read is None:
            continue
        method, url = read
        path = normalise(url)
        if path is not None:
            found.append(ClientCall(method, path, call.start_point[0] + 1))
    return found


@cache
def _query(language: str) -> Query:
    return Query(languages.load(language)[0], f"({_CALLS[_FAMILIES[language]]}) @call")


def normalise(url: str) -> str | None:
    """A URL template's path: the scheme and host dropped, or a leading base variable; the query and
    fragment dropped; each segment with a computed part as `{}`; no trailing slash. None when what is
    left is no absolute path (a relative URL, or a variable alone)."""
    url = _SCHEME_HOST.sub("", url, count=1)
    if url.startswith(_HOLE):
        url = url.lstrip(_HOLE)
        if url and url[0] not in "/?#":
            return None  # `{host}:8080/x` or `{a}{b}`: not a base followed by a path
    url = re.split(r"[?#]", url, maxsplit=1)[0]
    if not url.startswith("/"):
        return None
    segments = [VALUE if _HOLE in part else part for part in url.split("/")[1:]]
    while segments and segments[-1] == "":
        segments.pop()
    return "/" + "/".join(segments)


# ---- building a URL from an expression: literal text, with computed parts as holes

def _python_url(node: Node | None, constants: dict[str, str]) -> str:
    if node is None:
        return _HOLE
    kind = node.type
    if kind == "string":
        parts = []
        for child in node.children:
            if child.type in ("string_content", "escape_sequence"):
                parts.append(text(child))
            elif child.type == "interpolation":
                inner = child.named_children[0] if child.named_children else None
                parts.append(constants.get(text(inner), _HOLE) if inner is not None and inner.type == "identifier"
                             else _HOLE)
        return "".join(parts)
    if kind == "concatenated_string":
        return "".join(_python_url(child, constants) for child in node.named_children)
    if kind == "binary_operator":
        operator = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if operator is not None and operator.type == "+":
            return _python_url(left, constants) + _python_url(right, constants)
        if operator is not None and operator.type == "%" and left is not None and left.type == "string":
            return _PERCENT_VERB.sub(_HOLE, _python_url(left, constants))
        return _HOLE
    if kind == "call":  # "/users/{}".format(uid)
        function = node.child_by_field_name("function")
        if function is not None and function.type == "attribute" and \
                text(function.child_by_field_name("attribute")) == "format":
            target = function.child_by_field_name("object")
            if target is not None and target.type == "string":
                return _FORMAT_FIELD.sub(_HOLE, _python_url(target, constants))
        return _HOLE
    if kind == "identifier":
        return constants.get(text(node), _HOLE)
    if kind == "parenthesized_expression" and node.named_children:
        return _python_url(node.named_children[0], constants)
    return _HOLE


def _js_url(node: Node | None, constants: dict[str, str]) -> str:
    if node is None:
        return _HOLE
    kind = node.type
    if kind in ("string", "template_string"):
        parts = []
        for child in node.named_children:
            if child.type in ("string_fragment", "escape_sequence"):
                parts.append(text(child))
            elif child.type == "template_substitution":
                inner = child.named_children[0] if child.named_children else None
                parts.append(constants.get(text(inner), _HOLE) if inner is not None and inner.type == "identifier"
                             else _HOLE)
        return "".join(parts)
    if kind == "binary_expression":
        operator = node.child_by_field_name("operator")
        if operator is not None and operator.type == "+":
            return _js_url(node.child_by_field_name("left"), constants) + \
                _js_url(node.child_by_field_name("right"), constants)
        return _HOLE
    if kind == "identifier":
        return constants.get(text(node), _HOLE)
    if kind == "parenthesized_expression" and node.named_children:
        return _js_url(node.named_children[0], constants)
    return _HOLE


def _go_url(node: Node | None, constants: dict[str, str]) -> str:
    if node is None:
        return _HOLE
    kind = node.type
    if kind in ("interpreted_string_literal", "raw_string_literal"):
        return "".join(text(c) for c in node.named_children
                       if c.type in ("interpreted_string_literal_content", "raw_string_literal_content",
                                     "escape_sequence"))
    if kind == "binary_expression":
        operator = node.child_by_field_name("operator")
        if operator is not None and operator.type == "+":
            return _go_url(node.child_by_field_name("left"), constants) + \
                _go_url(node.child_by_field_name("right"), constants)
        return _HOLE
    if kind == "call_expression" and text(node.child_by_field_name("function")) == "fmt.Sprintf":
        args = _arguments(node)
        if args:
            return _PERCENT_VERB.sub(_HOLE, _go_url(args[0], constants).replace("%%", "%"))
        return _HOLE
    if kind == "identifier":
        return constants.get(text(node), _HOLE)
    if kind == "parenthesized_expression" and node.named_children:
        return _go_url(node.named_children[0], constants)
    return _HOLE


def _literal_method(node: Node | None, url_of) -> str | None:
    """The HTTP method an argument names: a string ("POST") or Go's http.MethodPost; None otherwise."""
    if node is None:
        return None
    name = text(node)
    if name.startswith("http.Method"):
        name = name[len("http.Method"):]
    else:
        name = url_of(node, {})
        if _HOLE in name:
            return None
    return name.upper() if name.upper() in HTTP_METHODS else None


def _arguments(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    return [a for a in args.named_children if a.type != "comment"] if args is not None else []


# ---- which calls are HTTP client calls, per language

def _python_receiver(name: str, names: FileNames) -> bool:
    last = name.rpartition(".")[2].lower()
    return last in ("requests", "httpx") or "session" in last or "client" in last or name in (names.clients or {})


def _python_call(call: Node, names: FileNames) -> tuple[str | None, str] | None:
    constants = names.strings
    function = call.child_by_field_name("function")
    if function is None or function.type != "attribute":
        return None
    verb = text(function.child_by_field_name("attribute"))
    receiver = text(function.child_by_field_name("object"))
    if not _python_receiver(receiver, names):
        return None
    base = (names.clients or {}).get(receiver, "")
    args = [a for a in _arguments(call) if a.type not in ("keyword_argument", "list_splat", "dictionary_splat")]
    keywords = {text(a.child_by_field_name("name")): a.child_by_field_name("value")
                for a in _arguments(call) if a.type == "keyword_argument"}
    if verb in _VERBS:
        url = args[0] if args else keywords.get("url")
        return (verb.upper(), base + _python_url(url, constants)) if url is not None else None
    if verb == "request":  # requests.request("GET", url), client.request(method, url)
        method = args[0] if args else keywords.get("method")
        url = args[1] if len(args) > 1 else keywords.get("url")
        return (_literal_method(method, _python_url), base + _python_url(url, constants)) if url is not None else None
    return None


def _js_call(call: Node, names: FileNames) -> tuple[str | None, str] | None:
    constants, axios = names.strings, names.axios or {}
    function = _js_unwrap(call.child_by_field_name("function"))
    args = [_js_unwrap(a) for a in _arguments(call)]
    if function is None or not args:
        return None
    name = text(function)
    if name in ("fetch", "window.fetch", "globalThis.fetch"):
        options = args[1] if len(args) > 1 else None
        if options is None:
            return "GET", _js_url(args[0], constants)
        if options.type != "object":
            return None, _js_url(args[0], constants)
        method = _js_property(options, "method")
        return (_literal_method(method, _js_url) if method is not None else "GET"), _js_url(args[0], constants)
    receiver, _, verb = name.rpartition(".")
    if name in axios or (receiver in axios and verb == "request"):  # axios(url) or axios({url, method})
        base = axios[name] if name in axios else axios[receiver]
        if args[0].type == "object":
            method = _js_property(args[0], "method")
            url = _js_property(args[0], "url")
            return (_literal_method(method, _js_url) if method is not None else "GET",
                    base + _js_url(url, constants)) if url is not None else None
        return "GET", base + _js_url(args[0], constants)
    if receiver in axios and verb in _VERBS:
        return verb.upper(), axios[receiver] + _js_url(args[0], constants)
    return None


def _js_unwrap(node: Node | None) -> Node | None:
    """The expression inside TypeScript's `x as T`, `x satisfies T` and `x!`; and the callee TypeScript's
    grammar puts inside `await` for `await axios.get<User>(...)`."""
    while node is not None and node.type in ("as_expression", "satisfies_expression", "non_null_expression",
                                             "await_expression") and node.named_children:
        node = node.named_children[0]
    return node


def _js_property(obj: Node, key: str) -> Node | None:
    for pair in obj.named_children:
        if pair.type == "pair" and text(pair.child_by_field_name("key")).strip("'\"") == key:
            return pair.child_by_field_name("value")
        if pair.type == "shorthand_property_identifier" and text(pair) == key:
            return pair
    return None


def _go_call(call: Node, names: FileNames) -> tuple[str | None, str] | None:
    constants = names.strings
    function = call.child_by_field_name("function")
    if function is None or function.type != "selector_expression":
        return None
    receiver = text(function.child_by_field_name("operand"))
    verb = text(function.child_by_field_name("field"))
    args = _arguments(call)
    if verb in ("NewRequest", "NewRequestWithContext") and receiver == "http":
        skip = 1 if verb == "NewRequestWithContext" else 0
        if len(args) < skip + 2:
            return None
        return _literal_method(args[skip], _go_url), _go_url(args[skip + 1], constants)
    if not args or not (receiver == "http" or "client" in receiver.rpartition(".")[2].lower()):
        return None
    if verb in ("Get", "Head") and len(args) == 1:
        return verb.upper(), _go_url(args[0], constants)
    if verb in ("Post", "PostForm"):
        return "POST", _go_url(args[0], constants)
    return None


_READERS = {"python": _python_call, "javascript": _js_call, "go": _go_call}


# ---- a file's string constants, and its clients with their base URL (axios instances, httpx clients)

@dataclass(frozen=True, slots=True)
class FileNames:
    strings: dict[str, str]  # module-level names bound to a plain string (`BASE = "http://api/v1"`)
    axios: dict[str, str] | None = None  # axios and its `axios.create()` instances -> their baseURL
    clients: dict[str, str] | None = None  # Python: module-level `httpx.Client(base_url=...)` and the like -> base


_PY_CLIENTS = ("Client", "AsyncClient", "Session", "ClientSession")  # httpx, requests and aiohttp clients


def _names(family: str, root: Node) -> FileNames:
    return _NAMERS[family](root)


def _python_names(root: Node) -> FileNames:
    found: dict[str, str] = {}
    clients: dict[str, str] = {}
    for statement in root.named_children:
        assign = statement.named_children[0] if statement.type == "expression_statement" and \
            statement.named_children else None
        if assign is None or assign.type != "assignment":
            continue
        left, right = assign.child_by_field_name("left"), assign.child_by_field_name("right")
        if right is not None and right.type == "call" and left is not None and left.type == "identifier" and \
                text(right.child_by_field_name("function")).rpartition(".")[2] in _PY_CLIENTS:
            base = next((a.child_by_field_name("value") for a in _arguments(right) if a.type == "keyword_argument"
                         and text(a.child_by_field_name("name")) == "base_url"), None)
            clients[text(left)] = _python_url(base, found) if base is not None else ""
        else:
            _keep(found, left, right, _python_url)
    return FileNames(found, clients=clients)


def _js_names(root: Node) -> FileNames:
    found: dict[str, str] = {}
    axios = {"axios": ""}
    for statement in root.named_children:
        if statement.type == "export_statement":
            statement = statement.child_by_field_name("declaration") or statement
        if statement.type not in ("lexical_declaration", "variable_declaration"):
            continue
        for declarator in statement.named_children:
            if declarator.type != "variable_declarator":
                continue
            name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
            if value is not None and value.type == "call_expression" and \
                    text(value.child_by_field_name("function")) == "axios.create" and name is not None:
                options = _arguments(value)[0] if _arguments(value) else None
                base = _js_property(options, "baseURL") if options is not None and options.type == "object" else None
                axios[text(name)] = _js_url(base, found) if base is not None else ""
            else:
                _keep(found, name, value, _js_url)
    return FileNames(found, axios)


def _go_names(root: Node) -> FileNames:
    found: dict[str, str] = {}
    for declaration in root.named_children:
        if declaration.type not in ("const_declaration", "var_declaration"):
            continue
        for spec in declaration.named_children:
            names, values = spec.child_by_field_name("name"), spec.child_by_field_name("value")
            if values is not None and values.type == "expression_list" and len(values.named_children) == 1:
                _keep(found, names, values.named_children[0], _go_url)
    return FileNames(found)


_NAMERS = {"python": _python_names, "javascript": _js_names, "go": _go_names}


def _keep(found: dict[str, str], name: Node | None, value: Node | None, url_of) -> None:
    if name is None or value is None or name.type != "identifier" or "string" not in value.type:
        return
    literal = url_of(value, {})
    if _HOLE not in literal:
        found[text(name)] = literal
