"""The per-file facts that parsing produces: definitions, calls, imports, bases, type uses,
variable bindings, value flows and parameters, as plain slotted dataclasses that cross process boundaries cheaply and
serialise to compact JSON for the store. Nothing here knows about other files."""

from __future__ import annotations

import json
import sys
import weakref
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any


@dataclass(slots=True)
class Definition:
    kind: str  # class, struct, interface, trait, enum, function, method, constant
    name: str
    qualified_name: str  # dotted within the file: "Class.method", "outer.inner"
    start_line: int  # 1-based, inclusive; includes decorators and export wrappers
    end_line: int
    # What the definition says, which resolution never reads: its entity row holds it (index/parsing.py),
    # so packed facts leave it out (see PACKED_FIELDS) and read it back empty; equality ignores it.
    signature: str = field(default="", compare=False)
    doc: str = field(default="", compare=False)
    sig_hash: str = field(default="", compare=False)
    body_hash: str = field(default="", compare=False)


@dataclass(slots=True)
class Call:
    scope: str  # qualified name of the innermost enclosing definition, "" at module level
    name: str  # the called name: "join" in os.path.join(...); "" when the callee has none (`d[k]()`)
    receiver: str | None  # dotted text before the name ("os.path", "self", "self.repo"), or None
    line: int
    callee: str = ""  # the callee as a flow path when a dotted name cannot say it: "d[]", "make()", "super().m"
    args: list[str] = field(default_factory=list)  # flow paths: positional, then `name=path`; "" unknown, `*p` unpacked
    implicit: bool = False  # a call the syntax implies (`for` calls __iter__, `with` __enter__): kept only
    # when it reaches repository code


@dataclass(slots=True)
class Import:
    module: str  # as written: "os.path", "..pkg", "./util", "crate::a::b", "java.util"
    name: str | None  # the imported symbol, or None when the module itself is imported
    alias: str | None  # the local name it is bound to, when renamed
    line: int
    wildcard: bool = False


@dataclass(slots=True)
class Base:
    scope: str  # qualified name of the class (or type) that inherits or implements
    name: str  # the base as written, possibly dotted: "models.Model"
    kind: str  # "inherits" or "implements"
    line: int


@dataclass(slots=True)
class TypeRef:
    scope: str
    name: str
    line: int


@dataclass(slots=True)
class Flow:
    """The value of `source` may reach `target`. Both are paths: a name, then `.attr`, `()` (the result
    of a call) and `[]` (an element of a container) in any order: `d[]` is what the dict d holds,
    `make()` what make returns. Targets are variables, `self.attr` (on the class, read in `scope`),
    `name[]...` for container elements and `return` (`return[]` for what a generator yields). A
    source `&name` is the definition itself; `@path` is a decorator's result (the definition when the
    decorator's result is unknown)."""

    scope: str  # where the source is read: the function (method) or "" for module level
    target: str
    source: str
    line: int


@dataclass(slots=True)
class Param:
    scope: str  # the function's qualified name
    name: str
    index: int
    kind: str = ""  # "" plain, "*" for *args, "**" for **kwargs


@dataclass(slots=True)
class Route:
    """An HTTP route a web framework registers (parse/routes.py): what it serves and who handles it."""

    method: str  # GET, POST, ... or ANY when the registration names none (Django, http.HandleFunc)
    path: str  # with the prefixes this file gives it (a blueprint's url_prefix, a router group)
    handler: str  # the handler as written, dotted ("views.user_list"); "" for an inline function
    scope: str  # the registration's enclosing definition, "" at module level
    line: int
    end_line: int
    framework: str  # flask, fastapi, django, express, go, spring
    defined: str = ""  # the handler's qualified name when the registration decorates it
    router: str = ""  # the module-level router it hangs on, which another file may mount ("router", "urlpatterns")
    below: str = ""  # its path below that router's own prefix (what a mount elsewhere is joined with)


@dataclass(slots=True)
class Router:
    """A module-level router variable (parse/routes.py) that routes or mounts hang on: another file
    may mount it under a prefix (FastAPI's include_router, Express's app.use, Django's include)."""

    name: str  # "router", "bp", "app", "urlpatterns"
    prefix: str  # its own prefix (`APIRouter(prefix=)`, `Blueprint(url_prefix=)`), "" when none
    export: str = ""  # "default" when the module exports it as itself (`module.exports = router`)


@dataclass(slots=True)
class Mount:
    """A router of another file mounted under one of this file's routers (parse/routes.py):
    `app.include_router(users.router, prefix="/api")`, `app.use('/api', usersRouter)`,
    `app.register_blueprint(users.bp, url_prefix="/u")`, `path("api/", include("shop.urls"))`."""

    child: str  # the router as written ("users.router", "usersRouter"), or a module ("shop.urls", "./users")
    module: bool  # the child names a module (its urlpatterns, its default export), not a variable
    parent: str  # the module-level router it ends up under, through this file's own mounts
    below: str  # the prefix from that router's own prefix down to the child ("/api")
    known: bool  # False when the prefix is no literal (`prefix=settings.API`): what is above the child is unknown
    replaces: bool  # Flask's url_prefix replaces the blueprint's own prefix; the others add to it
    line: int


# The variable of a function's binding to its declared result type (a keyword: never a real variable).
RETURN = "return"


@dataclass(slots=True)
class Binding:
    scope: str  # the function (or class, for "self.x") where the variable lives
    variable: str  # "repo", "self.repo" for attributes, RETURN for a function's declared result type
    type_name: str  # the evident type: a constructor call or an annotation
    line: int


@dataclass(slots=True)
class Accessor:
    """A property of a class (Python's `@property`, `@cached_property`, `@x.setter`, `x = property(f, g)`):
    reading, assigning or deleting `obj.name` on an instance runs `method`."""

    owner: str  # the class's qualified name
    name: str  # the attribute: "x"
    role: str  # "get", "set" or "del"
    method: str  # the accessor's qualified name ("C.x", "C.x.setter"), or a name the class body binds ("getx")
    line: int


@dataclass(slots=True)
class AttributeUse:
    """`obj.name` read, assigned or deleted (not called): a property's accessor runs when obj's class has one."""

    scope: str
    path: str  # the attribute as a flow path: "self.x", "make().x"
    role: str  # "get", "set" or "del"
    line: int


@dataclass(slots=True)
class Stub:
    """A function whose body only declares it (`...`, `raise NotImplementedError`): its overrides are the code."""

    scope: str  # the function's qualified name
    line: int


@dataclass(slots=True)
class Section:
    """A heading of a Markdown document (parse/documents.py) with the code names its text spans."""

    title: str
    qualified_name: str  # the heading path: "Install/From source"
    level: int  # 1 for `#`; 0 for the document itself
    start_line: int
    end_line: int  # the line before the next heading of the same or a higher level
    names: list[str] = field(default_factory=list)  # code spans that look like code names: "Project.index"
    doc: str = ""  # the section's first paragraph


@dataclass(slots=True, weakref_slot=True)
class FileFacts:
    path: str  # repository-relative, forward slashes
    language: str
    lines: int = 0
    error_count: int = 0  # ERROR and MISSING nodes in the tree
    package: str | None = None  # Go package clause, Java package declaration
    doc: str = ""  # the module docstring or the file's leading comment
    definitions: list[Definition] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    bases: list[Base] = field(default_factory=list)
    type_refs: list[TypeRef] = field(default_factory=list)
    bindings: list[Binding] = field(default_factory=list)
    flows: list[Flow] = field(default_factory=list)
    params: list[Param] = field(default_factory=list)
    routes: list[Route] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    routers: list[Router] = field(default_factory=list)
    mounts: list[Mount] = field(default_factory=list)
    accessors: list[Accessor] = field(default_factory=list)
    attributes: list[AttributeUse] = field(default_factory=list)
    stubs: list[Stub] = field(default_factory=list)
    complete: bool = field(default=True, compare=False, repr=False)  # False for structure-only facts
    # what structure-only facts left out: their packed bytes, or what reads them (`read()`) from elsewhere
    rest: Any = field(default=None, compare=False, repr=False)
    # structure-only facts: which names the file binds where, as its structure pass asks it without
    # reading the flows (index/flowsummary.py)
    bound: Any = field(default=None, compare=False, repr=False)

    def to_json(self) -> str:
        return json.dumps(
            [
                self.path,
                self.language,
                self.lines,
                self.error_count,
                self.package,
                self.doc,
                *(list(map(_ROW[_LIST_TYPES[name]], getattr(self, name))) for name in FACT_LISTS),
            ],
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> FileFacts:
        path, language, lines, errors, package, doc, *lists = json.loads(text)
        facts = cls(path, language, lines, errors, package, doc)
        facts._set_lists(FACT_LISTS, lists)
        return facts

    def _set_lists(self, names: Iterable[str], lists: list[list]) -> None:
        """Make the items of the lists `names` from their JSON rows (`lists`, in FACT_LISTS order), their
        equal strings one object (see share_strings)."""
        for name in names:
            position = _POSITION[name]
            rows = lists[position] if position < len(lists) else []  # (facts stored before a list existed have none)
            item_type = _LIST_TYPES[name]
            setattr(self, name, [item_type(*row) for row in rows])
        self.share_strings(names)

    def structure(self, packed: bytes, bound: Any = None) -> FileFacts:
        """These facts holding only what every file's structure pass reads (imports, bases...), with
        the rest kept as `packed` (zlib-compressed `to_json`): what a full build's main process holds
        of every file. A list left out is read from `packed` when first used, with the others of its
        kind (LEFT_OUT): value flow's, the typed bindings, or all the rest. `bound`: what answers the
        structure pass's questions of value flow without them (index/flowsummary.py)."""
        light = FileFacts(self.path, self.language, self.lines, self.error_count, self.package, self.doc,
                          complete=False, rest=packed, bound=bound)
        for name in FACT_LISTS:
            setattr(light, name, getattr(self, name) if name in STRUCTURE_LISTS else NotLoaded(light, name))
        return light

    def load_rest(self, names: Iterable[str] | None = None) -> None:
        """Read the lists left out of structure-only facts (see `structure`): those of `names`, else
        every one."""
        if self.complete:
            return
        missing = [name for name in FACT_LISTS
                   if isinstance(getattr(self, name), NotLoaded) and (names is None or name in names)]
        if missing:
            packed = self.rest if isinstance(self.rest, bytes) else self.rest.read()
            self._set_lists(missing, json.loads(zlib.decompress(packed).decode("utf-8"))[6:])  # (only those)
        self.complete = not any(isinstance(getattr(self, name), NotLoaded) for name in FACT_LISTS)
        if self.complete and isinstance(self.rest, bytes):  # (a reader stays: see unload_rest)
            self.rest = None

    def unload_rest(self) -> None:
        """Let go of the lists `load_rest` read, when they can be read again (their bytes are kept
        elsewhere, see `rest`): structure-only facts again."""
        if self.rest is None:
            return
        for name in FACT_LISTS:
            if name not in STRUCTURE_LISTS and not isinstance(getattr(self, name), NotLoaded):
                setattr(self, name, NotLoaded(self, name))
        self.complete = False

    def share_strings(self, names: Iterable[str] = (), shared: dict | None = None) -> None:
        """Make equal strings one object: a scope's name is repeated in every call, flow and parameter
        of it, and a file's facts held for a whole run take about a third less memory (and pickle
        to a process smaller) when each distinct string is stored once. Within the lists `names`
        (default every list). With `shared`, a table kept across files (a full build's main process
        holds every file's structure for the run): its strings, and its line numbers too (an
        unpickled number above 256 is an object of its own), are stored once for all of them.
        Without it, Python's interned strings: those of every file read (a worker reads many) are
        shared too, and one that no file uses any longer goes (that table keeps none alive)."""
        across = shared is not None
        share = shared.setdefault if across else lambda value, _: sys.intern(value)
        names = set(names)
        for name in [name for name in FACT_LISTS if name in names] if names else FACT_LISTS:
            items = getattr(self, name)
            if not items:
                continue
            text_fields, list_fields = _STRING_FIELDS[type(items[0])]
            if across:
                text_fields = text_fields + _INT_FIELDS[type(items[0])]
            for item in items:
                for field_name in text_fields:
                    value = getattr(item, field_name)
                    if value:
                        setattr(item, field_name, share(value, value))
                for field_name in list_fields:
                    values = getattr(item, field_name)
                    if values:
                        setattr(item, field_name, [share(v, v) for v in values])


_LIST_TYPES = {
    "definitions": Definition,
    "calls": Call,
    "imports": Import,
    "bases": Base,
    "type_refs": TypeRef,
    "bindings": Binding,
    "flows": Flow,
    "params": Param,
    "routes": Route,
    "sections": Section,
    "routers": Router,
    "mounts": Mount,
    "accessors": Accessor,
    "attributes": AttributeUse,
    "stubs": Stub,
}
FACT_LISTS = tuple(_LIST_TYPES)
_POSITION = {name: i for i, name in enumerate(FACT_LISTS)}
_FIELD_NAMES = {t: tuple(f.name for f in fields(t)) for t in _LIST_TYPES.values()}
# Per item type: its string fields and its list-of-strings fields (annotations are strings here).
_STRING_FIELDS = {t: (tuple(f.name for f in fields(t) if f.type in ("str", "str | None")),
                      tuple(f.name for f in fields(t) if f.type == "list[str]")) for t in _LIST_TYPES.values()}
_INT_FIELDS = {t: tuple(f.name for f in fields(t) if f.type == "int") for t in _LIST_TYPES.values()}
# What structure-only facts hold: what the structure pass reads (a property's accessors; the methods
# that only declare themselves), and the routes the main process writes.
STRUCTURE_LISTS = frozenset({"imports", "bases", "accessors", "stubs", "routes", "sections", "routers", "mounts"})
# Value flow's lists, read on their own when first used: most of what a file's structure would hold
# (flows alone about two thirds on sympy), which the structure pass reads only where a base or an
# imported name is a variable (index/flowsummary.py answers whether it is), and a resolution worker
# only for the files its questions reach. The typed bindings likewise, apart: the structure pass reads
# them where a base is written `module.Base` (is `module` a typed variable?).
FLOW_LISTS = frozenset({"flows", "params"})
BINDING_LISTS = frozenset({"bindings"})
OTHER_LISTS = frozenset(FACT_LISTS) - STRUCTURE_LISTS - FLOW_LISTS - BINDING_LISTS
# The lists left out of structure-only facts, by what is read together when one of them is first used.
LEFT_OUT = {name: kind for kind in (FLOW_LISTS, BINDING_LISTS, OTHER_LISTS) for name in kind}


class NotLoaded(tuple):
    """A list that structure-only facts (FileFacts.structure) left out: read whole, with the other
    lists left out, when first used; its owner then holds the real lists. It holds its owner weakly:
    the owner holds it, and a strong reference back made every parser's facts a cycle once sent
    (about 250 objects a file on sympy, left to the cycle collector)."""

    def __new__(cls, owner: FileFacts, name: str) -> NotLoaded:
        out = super().__new__(cls)
        out._owner, out.name = weakref.ref(owner), name
        return out

    @property
    def owner(self) -> FileFacts:
        owner = self._owner()
        if owner is None:  # (read through its owner, as every reader does, it cannot outlive it)
            raise ReferenceError(f"the facts that left out {self.name} are gone")
        return owner

    def __reduce__(self):
        return NotLoaded, (self.owner, self.name)

    def _loaded(self) -> list:
        self.owner.load_rest(LEFT_OUT[self.name])
        return getattr(self.owner, self.name)

    def __iter__(self):
        return iter(self._loaded())

    def __len__(self) -> int:
        return len(self._loaded())

    def __bool__(self) -> bool:
        return bool(self._loaded())

    def __getitem__(self, index):
        return self._loaded()[index]

    def __contains__(self, item) -> bool:
        return item in self._loaded()


# An item as its JSON row: its fields in order, read in one call (a tuple dumps as a list); a definition
# without what its entity row already holds (its text and hashes: a third of the stored facts' bytes).
PACKED_FIELDS = {**_FIELD_NAMES, Definition: tuple(f.name for f in fields(Definition) if f.compare)}
_ROW = {t: attrgetter(*names) for t, names in PACKED_FIELDS.items()}
