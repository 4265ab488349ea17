"""The full-text rows of entities: what the contentless full-text index is given for each, and
what removing one takes. Such an index keeps no copy of its text, and a row is removed with the very
text it was indexed with; the words, signature and doc are the entity row's own, and the bodies are
stored once per file, compressed, since the file they were cut from may have changed since."""

from __future__ import annotations

import json
import re
import zlib

from graphctx.models import CLASS_KINDS, TEXT_KINDS
from graphctx.text import camel_pieces, words

COMPRESSION = 6  # zlib level: bodies come out 18 % smaller than at level 1, for about 1 % of a cold build
_CAMEL = re.compile(r"\b[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*\b")
# (words, signature, doc, body): one per entity row, in the same order
TextRow = tuple[str, str, str, str]
# (id, kind, name, qualified_name, language, path, start_line, end_line, signature, doc, sig_hash, body_hash, parent)
EntityRow = tuple


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
            if (kind in CLASS_KINDS or kind in TEXT_KINDS) and entity in members:  # a section's own text
                skip = {line for a, b in members[entity] for line in range(a, b + 1)}
                own = [line for line in own if line not in skip]
            body = "\n".join(lines[i - 1] for i in own if 0 < i <= len(lines))
            camel = " ".join(p for name in dict.fromkeys(_CAMEL.findall(body)) for p in camel_pieces(name))
            if camel:
                body = f"{body}\n{camel}"
        out.append(fts_row(row, body))
    return out


def fts_row(entity: EntityRow, body: str) -> TextRow:
    """An entity's full-text row from its entity row and body: what it is indexed and removed with."""
    return (words(entity[3], entity[5]), entity[8], entity[9], body)


def pack_bodies(entities: list[EntityRow], texts: list[TextRow]) -> bytes:
    """The non-empty bodies by entity id, compressed."""
    bodies = {row[0]: text[3] for row, text in zip(entities, texts) if text[3]}
    return zlib.compress(json.dumps(bodies, separators=(",", ":")).encode("utf-8"), COMPRESSION)


def unpack_bodies(data: bytes) -> dict[str, str]:
    return json.loads(zlib.decompress(data).decode("utf-8")) if data else {}

