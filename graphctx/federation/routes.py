"""HTTP links between projects: a client call of one project (parse/httpcalls.py: `requests.get(
f"{BASE}/users/{id}")`, `fetch('/api/users')`, `http.Get(...)`) joined to the handler of the route
of another project it targets (`route:GET /users/{id}`, handled by `get_user`).

The rule, so that no link is invented: the call's path and the route's path must have the same
segments (no trailing slash either side), each literal segment of the call equal to the route's or
taken by a route parameter (`{id}`, `:id`, `<int:id>`, a Django group), each computed segment of the
call (`{}`) taken by a parameter only, and a catch-all parameter (`{p:path}`, `<path:p>`, `*rest`,
`{p...}`) taking the rest. A call's method must be the route's (a route registered for any method
takes every one; a call whose method the code does not say takes every route). Of the routes that
match, the ones with the most literal segments matched win (`/users/me` is `/users/me`, not
`/users/{id}`), then the ones without a catch-all, then those registered for that very method.
One route left: an `inferred` link; several: an `ambiguous` link to each, its confidence shared. A
call that a route of the calling project itself takes is no link (its tests' client, a page calling
its own server)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from graphctx.federation.links import Link
from graphctx.parse.httpcalls import VALUE, ClientCall

ROUTE_CONFIDENCE = 0.7  # below an import: the path and method say it, nothing proves the two sides meet
ANY = "ANY"
ROUTE_MARK = "::route:"
_PARAMETER = re.compile(r"^(?:\{[^{}]+\}|:\w+\??|<(?:\w+:)?\w+>|\*\w*)$")
_CATCH_ALL = re.compile(r"^(?:\{\w+:path\}|\{\w+\.\.\.\}|<path:\w+>|\*\w*)$")
_REGEX = re.compile(r"[()\[\]\\+^$|]")  # a Django or regex segment: a parameter of unknown shape


@dataclass(frozen=True, slots=True)
class Served:
    """A route of the used project: its entity, method, path segments and handlers."""
    id: str
    method: str
    path: str
    segments: tuple[str, ...]
    handlers: tuple[str, ...]


def served(project: Any) -> list[Served]:
    """Every route the project's graph holds, with the entities that handle it."""
    graph = project.graph
    found = []
    for path, ids in graph.by_path.items():
        for entity in ids:
            if ROUTE_MARK not in entity:
                continue
            method, _, route_path = entity.split(ROUTE_MARK, 1)[1].partition(" ")
            handlers = tuple(target for _, target, kind in graph.graph.out_edges(entity, data="kind") if kind == "handles")
            found.append(Served(entity, method, route_path, segments(route_path), handlers))
    return found


def segments(path: str) -> tuple[str, ...]:
    """A path's segments, without the empty ones a leading, trailing or doubled slash gives."""
    return tuple(part for part in path.split("?")[0].split("/") if part)


def links(calls: list[tuple[str, ClientCall]], user: Any, used: Any) -> list[Link]:
    """The links from the calling entities of `user` to the handlers of the `used` project's routes
    they call; a call one of `user`'s own routes takes (its tests' client, a page calling its own
    server) stays home."""
    routes = table(served(used))
    if not routes or not calls:
        return []
    own = table(served(user))
    found: dict[tuple[str, str, str], Link] = {}
    for caller, call in calls:
        matched = best_routes(call, routes)
        if matched and best_routes(call, own):
            continue
        targets = [(route, handler) for route in matched for handler in (route.handlers or (route.id,))]
        resolution = "inferred" if len(targets) == 1 else "ambiguous"
        for route, handler in targets:
            via = f"{call.method or ANY} {call.path} -> {route.method} {route.path}"
            key = (caller, handler, route.id)
            if key not in found:
                found[key] = Link(caller, handler, "http", resolution, round(ROUTE_CONFIDENCE / len(targets), 4), via,
                                  route.id)
    return list(found.values())


Table = dict[tuple[int, str | None], list[Served]]


def table(routes: list[Served]) -> Table:
    """Routes by their number of segments and first segment (None: a parameter), a route with a
    catch-all under (-1, None): a call is matched against the few routes it can fit only."""
    tabled: Table = {}
    for route in routes:
        if any(_CATCH_ALL.match(part) for part in route.segments):
            key: tuple[int, str | None] = (-1, None)
        else:
            first = route.segments[0] if route.segments else ""
            key = (len(route.segments), None if _PARAMETER.match(first) or _REGEX.search(first) else first)
        tabled.setdefault(key, []).append(route)
    return tabled


def best_routes(call: ClientCall, routes: Table) -> list[Served]:
    """The routes `call` targets by the rule above: the best matches, all of them when tied."""
    wanted = segments(call.path)
    first = wanted[0] if wanted else ""
    literal_first = routes.get((len(wanted), first), []) if first != VALUE else []
    scored = []
    for route in (*literal_first, *routes.get((len(wanted), None), ()), *routes.get((-1, None), ())):
        if call.method is not None and route.method not in (call.method, ANY):
            continue
        fit = match(wanted, route.segments)
        if fit is not None:
            literal, whole = fit
            scored.append(((literal, whole, call.method is not None and route.method == call.method), route))
    if not scored:
        return []
    best = max(score for score, _ in scored)
    return [route for score, route in scored if score == best]


def match(call: tuple[str, ...], route: tuple[str, ...]) -> tuple[int, bool] | None:
    """(literal segments matched, no catch-all needed) when the call's path fits the route's, else None."""
    literal = 0
    for position, part in enumerate(route):
        if _CATCH_ALL.match(part):
            return (literal, False) if len(call) > position else None
        if position >= len(call):
            return None
        given = call[position]
        if _PARAMETER.match(part) or _REGEX.search(part):
            continue
        if given == VALUE or given != part:
            return None
        literal += 1
    return (literal, True) if len(call) == len(route) else None
