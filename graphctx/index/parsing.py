"""The parsing step of an index run: read each changed file, hash it, check that it is worth
indexing, and extract its facts with tree-sitter (or, with no grammar for it, its file-level
facts), in worker processes when there are enough files to pay for starting them. Workers return
plain records (facts as JSON), never touch the database."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from graphctx.index import store, workers as worker_pool
from graphctx.index.discover import Candidate, Config, is_indexable_content
from graphctx.index.root import Boundary
from graphctx.parse.extract import extract
from graphctx.parse.languages import language_for_path
from graphctx.parse.textfiles import file_language, text_facts

PARALLEL_THRESHOLD = 64  # below this many files to parse, worker start-up costs more than it saves


@dataclass(slots=True)
class ParsedFile:
    """One candidate file after parsing: its stat and hash, and its facts unless unchanged or skipped."""

    path: str
    size: int
    mtime_ns: int
    hash: str
    facts: str | None  # JSON; None when the content was unchanged or unreadable
    warning: str | None
    skip: tuple[str, str] | None = None  # (reason, detail) when the content is not indexed


def parse_all(root: Path, config: Config, candidates: list[Candidate], known_hashes: dict[str, str],
              progress: Callable[[int, int], None] | None, workers: int) -> list[ParsedFile]:
    """Parse the candidates (a file whose hash is in `known_hashes` unchanged is only stat'ed), in
    `workers` processes (0: one per core) when there are enough of them."""
    tasks = [(str(root), c.path, c.size, c.mtime_ns, known_hashes.get(c.path), config) for c in candidates]
    total = len(tasks)
    if progress:
        progress(0, total)
    workers = workers or os.cpu_count() or 1
    if total < PARALLEL_THRESHOLD or workers == 1:
        results = []
        for i, task in enumerate(tasks, 1):
            results.append(_parse_task(task))
            if progress:
                progress(i, total)
        return results
    results = []
    with worker_pool.pool(workers) as pool:
        for i, item in enumerate(pool.map(_parse_task, tasks, chunksize=max(1, min(32, total // (workers * 8)))), 1):
            results.append(item)
            if progress and (i % 16 == 0 or i == total):
                progress(i, total)
    return results


def _parse_task(task: tuple) -> ParsedFile:
    root, path, size, mtime_ns, known_hash, config = task
    try:
        data = Boundary(root).read_bytes(path)  # a link may have left the root since discovery looked
    except OSError as exc:
        return ParsedFile(path, size, mtime_ns, "", None, f"cannot read: {exc.strerror or exc}")
    digest = store.content_hash(data)
    if digest == known_hash:
        return ParsedFile(path, size, mtime_ns, digest, None, None)
    skip = is_indexable_content(data, config)
    if skip:
        return ParsedFile(path, size, mtime_ns, "", None, None, skip)
    warning = None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        warning = f"invalid UTF-8 at byte {exc.start}; undecodable bytes replaced"
    spec = language_for_path(path)
    if spec is None:  # no grammar for it: known at file level, by its name, lines and first heading or comment
        return ParsedFile(path, size, mtime_ns, digest, text_facts(path, file_language(path), data).to_json(), warning)
    try:
        facts = extract(path, spec.name, data)
    except (RecursionError, ValueError, RuntimeError) as exc:  # a pathological file must not stop the run
        return ParsedFile(path, size, mtime_ns, "", None, f"cannot parse: {exc}")
    return ParsedFile(path, size, mtime_ns, digest, facts.to_json(), warning)
