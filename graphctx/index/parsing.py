"""The parser processes of an index run, and what one hands the main process for a file: everything
the run writes for it, computed where the file was read, so that the main process only writes rows
and no file is read twice (a file with no grammar is known at file level: its name, lines and first
heading or comment). That is the stat and content hash, the facts (compact JSON, compressed),
the entity rows, the full-text rows (names split into words, signature, doc, and each entity's own
source lines cut from the same bytes; see fulltext.py), the vectors of its functions, methods and
classes, and the names its resolution depends on."""

from __future__ import annotations

import json
import posixpath
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from graphctx.index import textentities
from graphctx.index import workers as worker_pool
from graphctx.index.dependencies import defined_names, reference_names
from graphctx.index.discover import Candidate, Config, is_indexable_content
from graphctx.index.flowsummary import bound_names
from graphctx.index.fulltext import EntityRow, TextRow, pack_bodies, text_rows
from graphctx.index.naming import entity_id
from graphctx.index.root import Boundary
from graphctx.index.store import content_hash
from graphctx.parse.documents import document_facts, is_markdown
from graphctx.parse.extract import extract
from graphctx.parse.facts import STRUCTURE_LISTS, FileFacts
from graphctx.parse.languages import language_for_path
from graphctx.parse.textfiles import file_language, text_facts

COMPRESSION = 6  # zlib level: facts come out 18 % smaller than at level 1, for about 1 % of a cold build


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
    defines: frozenset[tuple[str, str]] = frozenset()  # what it offers other files (none read in a full build)
    vectors: tuple[str, bytes, bytes] | None = None  # (model digest, ids digest, vectors): semantic/vectors.py
    attribute_types: str = "[]"


    @classmethod
    def of(cls, path: str, size: int, mtime_ns: int, digest: str, facts: FileFacts, text: str,
           warning: str | None = None, structure_only: bool = False, embed: bool = True) -> ParsedFile:
        """Everything the main process writes for a parsed file, from its facts and its text; with
        `structure_only`, the facts it holds are those (a full build's main process holds every file's).
        `embed`: its vectors by the shipped embedding (false where another model is configured: the
        main process embeds with that one once the files are written)."""
        entities = [*entity_rows(facts), *textentities.rows(facts, text)]
        texts = text_rows(entities, text)
        from graphctx.semantic import model as embedding, vectors  # numpy: off the path of a run with nothing to parse

        packed = pack_facts(facts)
        return cls(path, size, mtime_ns, digest, warning, None,
                   facts.structure(packed, bound_names(facts)) if structure_only else facts,
                   packed, entities, texts, pack_bodies(entities, texts), sorted(reference_names(facts)),
                   # (what a file offers is compared with what it offered before: a full build has no before)
                   frozenset() if structure_only else frozenset(defined_names(facts)),
                   vectors.file_row(embedding.shipped(), entities, texts) if embed else None,
                   attribute_types(facts))


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


def attribute_types(facts: FileFacts) -> str:
    """What `self.x` attributes hold, as JSON rows: the bindings (`self.x = Widget()`, `self.x: Widget`)
    and the value flows into them (`self.x = make()`, `self.x = self.handle`), what
    _through_attributes follows across files."""
    rows = [[b.scope, b.variable, b.type_name, b.line] for b in facts.bindings if b.variable.startswith("self.")]
    rows += [[f.scope, f.target, f.source, f.line] for f in facts.flows if f.target.startswith("self.")]
    return json.dumps(rows, separators=(",", ":"))


def pack_facts(facts: FileFacts) -> bytes:
    return zlib.compress(facts.to_json().encode("utf-8"), COMPRESSION)


def unpack_facts(data: bytes) -> FileFacts:
    return FileFacts.from_json(zlib.decompress(data).decode("utf-8"))

# ---- the parser processes

PARALLEL_THRESHOLD = 64  # below this many files to parse, worker start-up costs more than it saves


def parse_all(root: Path, config: Config, candidates: list[Candidate], known_hashes: dict[str, str],
              progress: Callable[[int, int], None] | None, workers: int, *,
              structure_only: bool = False) -> Iterator[ParsedFile]:
    """Every candidate as a ParsedFile, in candidate order, as soon as it is ready: the caller writes
    each while the workers parse the next ones, and holds no more of them than it keeps (with
    `structure_only`, their facts are FileFacts.structure(): the rest comes packed)."""
    tasks = [(str(root), c.path, c.size, c.mtime_ns, known_hashes.get(c.path), config, structure_only)
             for c in candidates]
    total = len(tasks)
    if progress:
        progress(0, total)
    if total < PARALLEL_THRESHOLD or workers <= 1:
        for i, task in enumerate(tasks, 1):
            yield parse_file(task)
            if progress:
                progress(i, total)
        return
    with worker_pool.pool(workers) as pool:
        for i, item in enumerate(pool.map(parse_file, tasks, chunksize=max(1, min(16, total // (workers * 8)))), 1):
            yield item
            if progress and (i % 16 == 0 or i == total):
                progress(i, total)


def parse_file(task: tuple) -> ParsedFile:
    """Read one file once (through the repository boundary: a link may have left the root since
    discovery looked) and make everything the main process writes for it."""
    root, path, size, mtime_ns, known_hash, config, structure_only = task
    try:
        data = Boundary(root).read_bytes(path)
    except OSError as exc:
        return ParsedFile(path, size, mtime_ns, "", f"cannot read: {exc.strerror or exc}")
    digest = content_hash(data)
    if digest == known_hash:
        return ParsedFile(path, size, mtime_ns, digest)
    skip = is_indexable_content(data, config)
    if skip:
        return ParsedFile(path, size, mtime_ns, "", None, skip)
    warning = None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        warning = f"invalid UTF-8 at byte {exc.start}; undecodable bytes replaced"
        text = data.decode("utf-8", errors="replace")
    try:
        facts = _facts(path, text, data)
        # before pickling: the main process holds every file's facts for the run (of structure-only
        # facts, only the lists it holds: the others travel packed)
        facts.share_strings(STRUCTURE_LISTS if structure_only else ())
    except (RecursionError, ValueError, RuntimeError) as exc:  # a pathological file must not stop the run
        return ParsedFile(path, size, mtime_ns, "", f"cannot parse: {exc}")
    except Exception as exc:  # nor may a bug of ours on one file: the rest of the repository still indexes
        return ParsedFile(path, size, mtime_ns, "", f"cannot parse ({type(exc).__name__}: {exc}); this is a "
                                                    "graphctx bug, please report it with this file")
    return ParsedFile.of(path, size, mtime_ns, digest, facts, text, warning, structure_only, not config.embedding_model)


def _facts(path: str, text: str, data: bytes) -> FileFacts:
    spec = language_for_path(path)
    if spec is not None:
        return extract(path, spec.name, data)
    facts = text_facts(path, file_language(path), data)  # no grammar: known by its name, lines and first heading
    return document_facts(path, text, facts) if is_markdown(path) else facts
