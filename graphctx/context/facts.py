"""A project's facts, for the MCP server's instructions and the onboarding packet: its name and
overview (the README's first paragraph), size and languages, index generation and entry points.
Cheap by design (SQL counts and a few small files, no graph, no ranking code), since a server
builds its instructions from them before it answers `initialize`."""

from __future__ import annotations

import posixpath
import sqlite3
from pathlib import Path

from graphctx.index import store
from graphctx.index.languages import RULES, Manifest, read_manifests
from graphctx.index.root import Boundary
from graphctx.index.store import reads
from graphctx.layout import entity_path
from graphctx.models import ProjectFacts
from graphctx.text import clip_words

MAX_ENTRY_POINTS = 12
MAX_OVERVIEW_CHARS = 600
README_NAMES = ("README.md", "README.rst", "README.txt", "README", "readme.md", "Readme.md")
ENTRY_FILES = {name: rank for r in RULES for name, rank in r.entry_files.items()}  # file name -> rank (0 first)


def project_facts(root: Path, conn: sqlite3.Connection) -> ProjectFacts:
    """The project's name, overview, size and entry points, from the files at `root` and its index (`conn`)."""
    root = Path(root).resolve()
    files, entities, edges, languages = reads.size_counts(conn)
    indexed_at = store.get_meta(conn, "indexed_at")
    meta = read_manifests(root)
    return ProjectFacts(
        root=str(root),
        name=meta.name or root.name,
        overview=_readme_paragraph(root) or meta.description,
        files=files,
        entities=entities,
        edges=edges,
        languages=languages,
        generation=store.generation(conn),
        indexed_at=float(indexed_at) if indexed_at else None,
        entry_points=_entry_points(root, conn, meta),
    )


def _readme_paragraph(root: Path) -> str:
    """The README's first paragraph of prose: headings, badges, images, HTML and rule lines skipped."""
    for name in README_NAMES:
        text = _read(root / name)
        if text:
            break
    else:
        return ""
    paragraphs: list[str] = []
    current: list[str] = []
    in_code = False
    for line in [*text.splitlines(), ""]:
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_code = not in_code
            continue
        if in_code:
            continue
        skip = (not stripped or stripped.startswith(("#", "<", "![", "[![", "..", "|", "---", "===", "***"))
                or set(stripped) <= set("=-~^*#+`"))
        if not skip:
            current.append(stripped)
        elif current:
            paragraphs.append(" ".join(current))
            current = []
    # A paragraph ending in a colon introduces a code block ("Install it:"); prefer the first that says what it is.
    flat = next((p for p in paragraphs if not p.endswith(":")), paragraphs[0] if paragraphs else "")
    return clip_words(flat, MAX_OVERVIEW_CHARS)


def _entry_points(root: Path, conn, meta: Manifest) -> list[str]:
    """Declared scripts first (mapped to their entity when indexed), then __main__ and main files,
    then non-test functions named main; shallow paths before deep ones."""
    files = reads.test_flags(conn)
    found: list[str] = []
    for label, target in meta.scripts.items():
        entity = _script_entity(conn, files, target)
        found.append(f"{label} -> {entity}" if entity else f"{label} -> {target}")
    ranked_files = sorted(
        (ENTRY_FILES[posixpath.basename(p)], p.count("/"), p) for p, test in files.items()
        if posixpath.basename(p) in ENTRY_FILES and not test
    )
    mains = sorted(
        (path.count("/"), entity_id) for entity_id, path in
        reads.named_functions(conn, "main")
        if not files.get(path)
    )
    seen = {f.split(" -> ")[-1] for f in found}
    for item in [p for _, _, p in ranked_files[:MAX_ENTRY_POINTS]] + [e for _, e in mains[:MAX_ENTRY_POINTS]]:
        if item not in seen and (entity_path(item) not in seen or item == entity_path(item)):
            found.append(item)
            seen.add(item)
    return found[:MAX_ENTRY_POINTS]


def _script_entity(conn, files: dict[str, bool], target: str) -> str | None:
    """A declared script's target -> an indexed entity id: `package.module:function` (Python) through
    the language's rules, a file path (package.json bin) as it is."""
    for rules in RULES:
        location = rules.script_location(target)
        if location is None:
            continue
        paths, qualified_name = location
        for path in paths:
            if path in files:
                return reads.entity_at(conn, path, qualified_name) or path
        return None
    path = posixpath.normpath(target.removeprefix("./"))
    return path if path in files else None


def _read(path: Path, limit: int = 200_000) -> str:
    """A file at the top of the repository (a manifest, the README), "" when it is missing,
    unreadable or a symbolic link to a place outside the repository."""
    try:
        return Boundary(path.parent).read_text(path.name, limit)
    except OSError:
        return ""
