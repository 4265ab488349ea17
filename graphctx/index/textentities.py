"""The entity rows of what a file holds besides code: the HTTP routes it registers (`route:GET
/users`, made when the file is resolved: a prefix may come from another file) and, for a Markdown
file, the document and its sections. Their ids follow the one format
(`path::route:GET /users`, `docs/setup.md::document`, `docs/setup.md::Install > From source`);
none of them is a symbol code can name (generation.is_symbol)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from graphctx.index.naming import entity_id
from graphctx.index.routemounts import Served
from graphctx.parse.documents import DOCUMENT, PATH_SEPARATOR
from graphctx.parse.facts import FileFacts, Route, Section

ROUTE_PREFIX = "route:"


def route_name(route: Route) -> str:
    return f"{route.method} {route.path}"


def route_id(path: str, route: Route) -> str:
    return entity_id(path, ROUTE_PREFIX + route_name(route))


def section_id(path: str, section: Section) -> str:
    return entity_id(path, section.qualified_name)


def parent_section(section: Section) -> str:
    """The qualified name of the section (or the document) a section sits in."""
    if section.level == 0:
        return ""
    owner = section.qualified_name.rpartition(PATH_SEPARATOR)[0]
    return owner or DOCUMENT


def route_rows(facts: FileFacts, served: list[Served]) -> list[tuple]:
    """Entity rows (as parsing.entity_rows makes them) of the file's routes as they are served, their
    paths joined with the prefixes of the files that mount them (routemounts.py): written when the
    file is resolved, not when it is parsed. A route registered twice keeps its first registration."""
    out, seen = [], set()
    for route, doc in ((s.route, s.doc) for s in served):
        id_ = route_id(facts.path, route)
        if id_ in seen:
            continue
        seen.add(id_)
        handler = route.defined or route.handler or "an inline function"
        signature = f"{route_name(route)} -> {handler} ({route.framework})"
        out.append((id_, "route", route_name(route), ROUTE_PREFIX + route_name(route), facts.language, facts.path,
                    route.line, route.end_line, signature, doc, _hash(signature), _hash(signature + doc), facts.path))
    return out


def rows(facts: FileFacts, text: str) -> Iterator[tuple]:
    """Entity rows (as parsing.entity_rows makes them) of a Markdown file's document and sections. A
    section's body hash is its lines' (whitespace dropped, as code bodies are hashed)."""
    path = facts.path
    lines = text.split("\n") if facts.sections else []
    for section in facts.sections:
        kind = "document" if section.level == 0 else "section"
        owner = parent_section(section)
        signature = ("#" * section.level + " " + section.title).strip() if section.level else section.title
        yield (section_id(path, section), kind, section.title or path.rpartition("/")[2], section.qualified_name,
               facts.language, path, section.start_line, section.end_line, signature, section.doc,
               _hash(signature), _hash("".join(lines[section.start_line - 1:section.end_line])),
               entity_id(path, owner) if owner else path)


def _hash(text: str) -> str:
    return hashlib.blake2b("".join(text.split()).encode("utf-8", "replace"), digest_size=8).hexdigest()
