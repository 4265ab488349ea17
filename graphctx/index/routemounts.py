"""Route paths across files: a router mounted by another file (FastAPI's include_router, Flask's
register_blueprint, Express's app.use, Django's include) serves its routes under that file's prefix,
through every level of mounts, once per place it is mounted. A file's facts keep the paths it gives
its own routes and the mounts it makes (parse/routes.py); the paths are joined here, when the file
with the routes is resolved, against every mount of the repository. Every file with routes or mounts
refers to MOUNTS and every change to a router or a mount changes a key naming it, so an edit to a
mounting file resolves the files with routes again (dependencies.py)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace

from graphctx.index.scope import FileScope
from graphctx.parse.facts import FileFacts, Mount, Route, Router
from graphctx.parse.routepaths import chain, join, mount as mounted_path

# The name every file with routes or mounts refers to: no identifier is spelled so.
MOUNTS = "route-mounts"
MAX_DEPTH = 8  # mounts nested deeper than this are a cycle the seen set missed, or nobody's design


@dataclass(frozen=True, slots=True)
class Served:
    """A route as it is served: its path below every prefix known, and how it came by them."""

    route: Route  # with the full path
    doc: str  # "" for a router nobody mounts; else the mounts it is served through


@dataclass(frozen=True, slots=True)
class _Above:
    prefix: str
    via: tuple[str, ...]  # "main.py:7" for each mount, innermost first
    unknown: str = ""  # the mount whose prefix is no literal, when one is: the path starts below it


class MountTable:
    """Every cross-file mount of the repository, by the router it mounts (file, variable)."""

    def __init__(self, table, paths: Iterable[str]):
        """`paths`: the files with routers or mounts; their facts are read through the table's loader."""
        self.routers: dict[str, dict[str, Router]] = {}
        self.mounts: dict[tuple[str, str], list[tuple[str, Mount]]] = defaultdict(list)
        self.defaults: dict[str, str] = {}  # file -> the router it exports as itself
        mounting: list[FileFacts] = []
        for path in sorted(set(paths)):
            facts = table.load_facts(path)
            if facts is None:
                continue
            self.routers[path] = {r.name: r for r in facts.routers}
            self.defaults.update({path: r.name for r in facts.routers if r.export == "default"})
            if facts.mounts:
                mounting.append(facts)
        for facts in mounting:
            scope = _resolver(facts, table)
            for mount in facts.mounts:
                for target in sorted(set(self._targets(scope, mount))):
                    self.mounts[target].append((facts.path, mount))

    def _targets(self, scope: FileScope, mount: Mount) -> list[tuple[str, str]]:
        """The (file, router variable) a mount names: `users.router` through the import of `users`,
        `usersRouter` through `require('./users')` (the router that module exports), a module's
        urlpatterns (Django's include)."""
        modules = scope.table.modules
        if mount.module:
            files = modules.resolve(scope.path, mount.child)
            return [(f, "urlpatterns" if f.endswith(".py") else self.defaults.get(f, "")) for f in files]
        head, _, name = mount.child.rpartition(".")
        if head:
            value = scope._value(head, "")
            return [(f, name) for f in value.ref] if value is not None and value.kind == "module" else []
        if name in self.routers.get(scope.path, {}):  # the file's own router, under a prefix that is no literal
            return [(scope.path, name)]
        out = []
        for imp in scope.facts.imports:
            if (imp.alias or imp.name) != name:
                continue
            for f in modules.resolve(scope.path, imp.module):
                named = self.routers.get(f, {})
                if imp.name is None or (imp.name not in named and imp.name == imp.alias):
                    out.append((f, self.defaults.get(f, "")))  # require('./users'), import users from './users'
                else:
                    out.append((f, imp.name))
        return out

    def served(self, facts: FileFacts) -> list[Served]:
        """Each route of the file once per path it is served at: its own path when nobody mounts its
        router, else one per mount (a router mounted twice serves two paths). A mount whose prefix is
        no literal keeps the path below it and says so in the doc."""
        out: list[Served] = []
        seen: set[tuple[str, str]] = set()
        for route in facts.routes:
            router = self.routers.get(facts.path, {}).get(route.router) if route.router else None
            above = self._above(facts.path, router, frozenset(), 0) if router is not None else []
            if not above or all(not a.via for a in above):
                found = [Served(route, "")]
            else:
                join_path = mounted_path if route.framework == "express" else join
                found = [Served(replace(route, path=join_path(a.prefix, route.below) if a.prefix else route.below or "/"),
                                _doc(a)) for a in above]
            for served in found:
                key = (served.route.method, served.route.path)
                if key not in seen:
                    seen.add(key)
                    out.append(served)
        return out

    def _above(self, path: str, router: Router, seen: frozenset, depth: int) -> list[_Above]:
        """The full prefixes a router is served under (its own included), one per chain of mounts."""
        mounts = self.mounts.get((path, router.name), [])
        if not mounts or depth >= MAX_DEPTH or (path, router.name) in seen:
            return [_Above(router.prefix, ())]
        out = []
        for origin, mount in mounts:
            own = "" if mount.replaces else router.prefix
            where = f"{origin}:{mount.line}"
            if not mount.known:
                out.append(_Above(own, (where,), where))
                continue
            if not mount.parent:  # under an app made in a function: the top, nobody mounts it
                out.append(_Above(chain(mount.below, own), (where,)))
                continue
            parent = self.routers.get(origin, {}).get(mount.parent)
            if parent is None:
                continue
            for above in self._above(origin, parent, seen | {(path, router.name)}, depth + 1):
                out.append(_Above(chain(above.prefix, mount.below, own), (where, *above.via), above.unknown))
        return out or [_Above(router.prefix, ())]


def _resolver(facts: FileFacts, table) -> FileScope:
    """The file's resolver with its imports bound: the mounted router is named through them. The one
    resolution would make, so that what it reads in other files (their resolvers, kept in the table
    for the run) is what resolution reads there."""
    from graphctx.index.resolve import FileResolver  # (resolve.py reaches this module through textedges.py)

    scope = FileResolver(facts, table)
    scope._imports()
    return scope


def _doc(above: _Above) -> str:
    chain_text = ", then ".join(above.via)
    if above.unknown:
        return (f"mounted by {chain_text}; {above.unknown} gives a prefix that is no literal, so the path "
                f"is the part below it")
    return f"mounted by {chain_text}"


def local(facts: FileFacts) -> list[Served]:
    """The routes with the paths their own file gives them: no mount table at hand."""
    return [Served(route, "") for route in facts.routes]


def refers(facts: FileFacts) -> bool:
    """Whether a file's routes or mounts depend on the mounts of other files (its references carry MOUNTS)."""
    return bool(facts.routers or facts.mounts)


def mount_key(facts: FileFacts) -> str:
    """What other files' route paths read here: routers, mounts and the imports naming the mounted
    routers; an edit to any of them changes the key."""
    heads = {m.child.split(".")[0] for m in facts.mounts if not m.module}
    imports = [i for i in facts.imports if (i.alias or i.name or i.module.split(".")[0]) in heads]
    return repr((facts.routers, facts.mounts, imports))
