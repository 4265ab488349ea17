"""One file as a parser process hands it to the main process: everything an index run writes for
the file, computed where the file was read, so that the main process only writes rows and no file
is read twice. That is the stat and content hash, the facts (compact JSON, compressed), the entity
rows, the full-text rows (names split into words, signature, doc, and each entity's own source
lines cut from the same bytes) and the names the file's resolution depends on.

The full-text index keeps no copy of its text (a contentless FTS5 table): the bodies are stored once,
compressed beside the file's row, because removing a row from such an index takes the very text it
was indexed with, and the file they came from may have changed since (the words, signature and doc
are the entity row's own)."""

from __future__ import annotations

import json
import posixpath
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from graphctx.index.dependencies import defined_names, reference_names
from graphctx.index.naming import entity_id
from graphctx.models import CLASS_KINDS
from graphctx.parse.facts import FileFacts
from graphctx.text import camel_pieces, words

COMPRESSION = 1  # zlib level: facts and texts compress about 5 times at once; higher levels gain little
_CAMEL = re.compile(r"\b[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*\b")

# (id, kind, name, qualified_name, language, path, start_line, end_line, signature, doc, sig_hash, body_hash, parent)
EntityRow = tuple
# (words, signature, doc, body): one per entity row, in the same order
TextRow = tuple[str, str, str, str]


@dataclass(slots=True)
class ParsedFile:
    path: str
    size: int
    mtime_ns: int
    hash: str  # "" when the file could not be read or is not indexed
    warning: str | None = None
    skip: tuple[str, str] | None = None  # (reason, detail) when the content is not indexed
    facts: FileFacts | None = None  # None when the content was unchanged, unreadable or skipped
    packed_facts: bytes = b""
    entities: list[EntityRow] = field(default_factory=list)
    texts: list[TextRow] = field(default_factory=list)
    packed_bodies: bytes = b""
    references: list[str] = field(default_factory=list)
    defines: frozenset[tuple[str, str]] = frozenset()

    @classmethod
    def of(cls, path: str, size: int, mtime_ns: int, digest: str, facts: FileFacts, text: str,
           warning: str | None = None) -> ParsedFile:
        """Everything the main process writes for a parsed file, from its facts and its text."""
        entities = list(entity_rows(facts))
        texts = text_rows(entities, text)
        return cls(path, size, mtime_ns, digest, warning, None, facts, pack_facts(facts), entities, texts,
                   pack_bodies(entities, texts), sorted(reference_names(facts)), frozenset(defined_names(facts)))


def entity_rows(facts: FileFacts) -> Iterator[EntityRow]:
    """The file itself, then its definitions; a redefinition (if/else branches) keeps the first."""
    path = facts.path
    yield (path, "file", posixpath.basename(path), path, facts.language, path, 1, facts.lines, "", facts.doc, "", "", None)
    qualified_names = {d.qualified_name for d in facts.definitions}
    seen: set[str] = set()
    for d in facts.definitions:
        if d.qualified_name in seen:
            continue
        seen.add(d.qualified_name)
        owner = d.qualified_name.rpartition(".")[0]
        parent = entity_id(path, owner) if owner in qualified_names else path
        yield (entity_id(path, d.qualified_name), d.kind, d.name, d.qualified_name, facts.language, path,
               d.start_line, d.end_line, d.signature, d.doc, d.sig_hash, d.body_hash, parent)


def text_rows(entities: list[EntityRow], text: str) -> list[TextRow]:
    """The full-text row of each entity: its words (qualified name and path split), signature, doc and
    body, so free text (an issue, a task) matches the words used inside a function and not only its
    name and doc. A class's body is its own lines (header, doc, attributes), not its members' bodies;
    the tokenizer splits snake_case, and CamelCase names are added split into their words. A file's
    body is left empty: its entities carry its text."""
    lines = text.splitlines()
    members: dict[str, list[tuple[int, int]]] = {}
    for row in entities:
        if row[12]:
            members.setdefault(row[12], []).append((row[6], row[7]))
    out = []
    for row in entities:
        entity, kind, start, end = row[0], row[1], row[6], row[7]
        body = ""
        if kind != "file":
            own = range(start, end + 1)
            if kind in CLASS_KINDS and entity in members:
                skip = {line for a, b in members[entity] for line in range(a, b + 1)}
                own = [line for line in own if line not in skip]
            body = "\n".join(lines[i - 1] for i in own if 0 < i <= len(lines))
            camel = " ".join(p for name in dict.fromkeys(_CAMEL.findall(body)) for p in camel_pieces(name))
            if camel:
                body = f"{body}\n{camel}"
        out.append(fts_row(row, body))
    return out


def pack_facts(facts: FileFacts) -> bytes:
    return zlib.compress(facts.to_json().encode("utf-8"), COMPRESSION)


def unpack_facts(data: bytes) -> FileFacts:
    return FileFacts.from_json(zlib.decompress(data).decode("utf-8"))


def fts_row(entity: EntityRow, body: str) -> TextRow:
    """An entity's full-text row from its entity row and body: what it is indexed and removed with."""
    return (words(entity[3], entity[5]), entity[8], entity[9], body)


def pack_bodies(entities: list[EntityRow], texts: list[TextRow]) -> bytes:
    """The non-empty bodies by entity id, compressed."""
    bodies = {row[0]: text[3] for row, text in zip(entities, texts) if text[3]}
    return zlib.compress(json.dumps(bodies, separators=(",", ":")).encode("utf-8"), COMPRESSION)


def unpack_bodies(data: bytes) -> dict[str, str]:
    return json.loads(zlib.decompress(data).decode("utf-8")) if data else {}
