"""Maps a diff onto the index: each changed line goes to the innermost entity whose span holds it
(a line outside every definition goes to the file), on the new side through the index's line
spans and on the old side through a parse of the base revision's file. Entities the base lacked
are added; old entities the index no longer holds are removed, with what still refers to them."""

from __future__ import annotations

import posixpath
import re
import sqlite3
from dataclasses import dataclass, field

from graphctx.context import diff as gitdiff
from graphctx.graph.loader import CodeGraph
from graphctx.index.store import reads
from graphctx.index.naming import EXTERNAL_PREFIX, entity_id, file_stem
from graphctx.index.root import Boundary
from graphctx.layout import INDEX_DIR
from graphctx.parse.extract import extract
from graphctx.parse.languages import language_for_path

OWN_FOLDER = INDEX_DIR + "/"  # graphctx's own files (the index, records) are not code
REFERRING_KINDS = ("calls", "references", "inherits", "implements", "imports")


@dataclass
class OldEntity:
    """An entity as the base revision had it."""

    id: str
    kind: str
    name: str
    qualified_name: str
    path: str
    start_line: int
    end_line: int
    signature: str = ""


@dataclass
class ChangeSet:
    base: str
    label: str
    changed: list[str] = field(default_factory=list)  # in the index and in the base, lines changed
    added: list[str] = field(default_factory=list)  # in the index, not in the base
    removed: list[OldEntity] = field(default_factory=list)  # in the base, no longer in the index
    unindexed: list[str] = field(default_factory=list)  # changed files the index does not hold
    files: int = 0  # changed files in all


def from_git(g: CodeGraph, rev: str | None) -> ChangeSet:
    """What changed between `rev` (see diff.read) and the working tree, in entities of the index `g`."""
    found = gitdiff.read(g.root, rev)
    parseable = [f.path for f in found.files if f.status != "added" and language_for_path(f.path)]
    return map_diff(g, found, gitdiff.old_sources(g.root, found.base, parseable))


def map_diff(g: CodeGraph, found: gitdiff.Diff, sources: dict[str, bytes]) -> ChangeSet:
    """The entities a diff touches; `sources` holds the base revision's content of its files."""
    out = ChangeSet(found.base, found.label)
    touched: dict[str, None] = {}  # ordered sets
    added: dict[str, None] = {}
    removed: dict[str, OldEntity] = {}
    for change in sorted(found.files, key=lambda f: f.path):
        if change.path.startswith(OWN_FOLDER):
            continue
        out.files += 1
        old = _old_entities(change.path, sources.get(change.path))
        if change.status != "deleted":
            if change.path not in g.files:
                out.unindexed.append(change.path)
                continue
            spans = [(e["start_line"], e["end_line"], n) for n in g.by_path[change.path]
                     if (e := g.graph.nodes[n])["kind"] != "file"]
            lines = _non_blank_lines(Boundary(g.root), change.path) if change.untracked else change.added
            for entity in _innermost(spans, change.path, lines):
                is_new = change.status == "added" or (old is not None and entity not in old)
                (added if is_new else touched)[entity] = None
        if old is not None:
            if change.status == "deleted" and change.path not in g:
                removed[change.path] = old[change.path]
            spans = [(e.start_line, e.end_line, e.id) for e in old.values() if e.kind != "file"]
            for entity in _innermost(spans, change.path, change.removed):
                if entity in g:
                    touched[entity] = None
                else:
                    removed[entity] = old[entity]
        elif change.status == "deleted" and change.path not in sources:
            out.unindexed.append(change.path)
    out.changed = [e for e in touched if e not in added]
    out.added = list(added)
    out.removed = list(removed.values())
    return out


def referrers(g: CodeGraph, conn: sqlite3.Connection, gone: OldEntity) -> list[str]:
    """Entities that still refer to a removed entity's name, so will likely break. By name, so a
    guess: edges to an external or unresolved name that matches it (`helper`, `?.helper` on an
    unknown receiver, `util.helper` through its module, `Repo.save` through its class); for a
    top-level name, also files that name it and its module (an import of a name that is gone
    leaves no edge) and resolve that name to nothing else."""
    modules = {file_stem(gone.path), posixpath.basename(posixpath.dirname(gone.path))} - {""}
    name = file_stem(gone.path) if gone.kind == "file" else gone.name  # a module is used by its stem
    owner_class = "" if gone.kind == "file" else gone.qualified_name.rpartition(".")[0]
    found: set[str] = set()
    rows = reads.edges_to_names(conn, REFERRING_KINDS, EXTERNAL_PREFIX + name, f"{EXTERNAL_PREFIX}%.{name}")
    for source, target in rows:
        owner, _, last = target[len(EXTERNAL_PREFIX):].rpartition(".")
        if last != name or source not in g:
            continue
        through_class = bool(owner_class) and (owner == owner_class or owner.endswith("." + owner_class))
        if owner in ("", "?") or owner.rpartition(".")[2] in modules or through_class:
            found.add(source)
    if gone.kind != "file" and gone.path in g:
        found.update(_calls_into_module(g, conn, gone))
    if not owner_class:
        found.update(_naming_files(g, conn, name, gone.path, modules, {g.graph.nodes[s]["path"] for s in found}))
    return sorted(found)


def _calls_into_module(g: CodeGraph, conn: sqlite3.Connection, gone: OldEntity) -> list[str]:
    """A name imported from a module that no longer defines it resolves to the module itself: uses
    of the module on a line that names the removed entity."""
    word = re.compile(rf"\b{re.escape(gone.name)}\b")
    lines: dict[str, list[str]] = {}
    out = []
    for source, line in reads.edges_into(conn, gone.path, ("calls", "references", "inherits", "implements")):
        if source not in g:
            continue
        path = g.graph.nodes[source]["path"]
        if path not in lines:
            try:
                lines[path] = Boundary(g.root).read_text(path).splitlines()
            except OSError:
                lines[path] = []
        if 0 < line <= len(lines[path]) and word.search(lines[path][line - 1]):
            out.append(source)
    return out


def _naming_files(g: CodeGraph, conn: sqlite3.Connection, name: str, home: str, modules: set[str],
                  known: set[str]) -> list[str]:
    named = reads.paths_naming(conn, name)
    with_module = reads.paths_referring_to(conn, modules)
    out = []
    for path in named & (with_module | {home}):
        if path in known or path not in g:
            continue
        own = g.by_path.get(path, ())
        resolves = any(g.graph.nodes[n]["name"] == name for n in own) or any(
            g.graph.nodes[target]["name"] == name for n in own for _, target in g.graph.out_edges(n))
        if not resolves:
            out.append(path)
    return out


def _old_entities(path: str, source: bytes | None) -> dict[str, OldEntity] | None:
    """The base revision's entities of a file, by id (the file's own included); None when unknown."""
    spec = language_for_path(path)
    if source is None or spec is None:
        return None
    facts = extract(path, spec.name, source)
    entities = {path: OldEntity(path, "file", posixpath.basename(path), path, path, 1, facts.lines)}
    for d in facts.definitions:  # a redefinition keeps the first one's id, as the index does
        key = entity_id(path, d.qualified_name)
        entities.setdefault(key, OldEntity(key, d.kind, d.name, d.qualified_name, path, d.start_line, d.end_line,
                                           d.signature))
    return entities


def _non_blank_lines(boundary: Boundary, path: str) -> list[int]:
    try:
        text = boundary.read_text(path)
    except OSError:
        return []
    return [n for n, line in enumerate(text.splitlines(), 1) if line.strip()]


def _innermost(spans: list[tuple[int, int, str]], file_id: str, lines: list[int]) -> list[str]:
    """The innermost span holding each line (the file when none does), in line order, once each.
    Spans nest, so painting them outermost first leaves each line with its innermost owner."""
    if not lines:
        return []
    top = max(lines)
    owner = [file_id] * (top + 1)
    for start, end, entity in sorted(spans, key=lambda s: (s[0] - s[1], s[0], s[2])):
        for n in range(max(start, 1), min(end, top) + 1):
            owner[n] = entity
    return list(dict.fromkeys(owner[n] for n in sorted(lines)))
