"""Why a file was not indexed: the skip reasons, which default exclude patterns mean which reason,
and the skips of the last index run, stored beside the index and read back for `graphctx stats`,
the index summary and a request that names a skipped file. Nothing is skipped in silence."""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import pathspec

from graphctx.index.store import reads
from graphctx.models import NO_PARSER  # a language whose grammar wheel is not installed on this platform
from graphctx.parse.languages import parsed_language_names, wheel_name

BINARY = "binary"
BINARY_FORMAT = "binary format"  # an image, archive, font or compiled file, by its extension: never read
MINIFIED = "minified"
GENERATED = "generated"
TOO_LARGE = "too large"
VENDORED = "vendored"
BUILD_OUTPUT = "build output"
EXCLUDED = "excluded"
OUTSIDE = "outside the repository"  # a symbolic link whose target is not under the root
BAD_NAME = "name not UTF-8"  # the index stores paths as text; such a name is shown with U+FFFD in place
# Reasons judged file by file, from content, size or link target: each may surprise, so they are listed
# by path (graphctx stats) and summed up at index time. The others are whole folders or languages: counted.
PER_FILE = (BINARY, MINIFIED, GENERATED, TOO_LARGE, OUTSIDE, BAD_NAME)
BY_CONTENT = (BINARY, MINIFIED, GENERATED)  # judged from a file's bytes: the same bytes, the same verdict

INTERNAL_PATTERNS = (".git/", ".graphctx/")  # never source: not counted
PATTERN_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (VENDORED, ("node_modules/", "vendor/", "third_party/", ".venv/", "venv/", "env/", "site-packages/")),
    (BUILD_OUTPUT, ("dist/", "build/", "target/", "out/", "__pycache__/", ".tox/", ".nox/", ".mypy_cache/")),
    (MINIFIED, ("*.min.js", "*.min.mjs", "*.bundle.js")),
    (GENERATED, ("*_pb2.py", "*.pb.go", "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "Cargo.lock",
                  "poetry.lock", "Pipfile.lock", "uv.lock", "composer.lock", "Gemfile.lock", "go.sum")),
)
DEFAULT_EXCLUDE = (*INTERNAL_PATTERNS, *(p for _, patterns in PATTERN_GROUPS for p in patterns))
HOW_TO_INCLUDE = {
    VENDORED: "it is under a vendored folder; change [index] exclude in .graphctx/config.toml to index it",
    BUILD_OUTPUT: "it is under a build or cache folder; change [index] exclude in .graphctx/config.toml to index it",
    EXCLUDED: "it matches [index] exclude or extra_exclude in .graphctx/config.toml",
    OUTSIDE: "it is a symbolic link to a file outside the repository, and graphctx serves only the repository's code",
    BINARY_FORMAT: "its extension names a binary format (image, archive, font, compiled code); graphctx reads text only",
    BAD_NAME: "its name is not valid UTF-8; rename it to index it",
}


@dataclass(frozen=True, slots=True)
class Skip:
    path: str
    reason: str
    detail: str  # the language for `no parser` and exclusions; what was found for per-file reasons


class ExcludeReasons:
    """Names the reason an excluded path is skipped: the first pattern group it matches, among the
    groups the configured `exclude` still holds; anything else was excluded by the configuration."""

    def __init__(self, exclude: Iterable[str]):
        exclude = tuple(exclude)
        self._internal = pathspec.GitIgnoreSpec.from_lines([p for p in INTERNAL_PATTERNS if p in exclude])
        self._groups = [
            (reason, pathspec.GitIgnoreSpec.from_lines([p for p in patterns if p in exclude]))
            for reason, patterns in PATTERN_GROUPS
        ]

    def reason(self, rel: str) -> str | None:
        """The skip reason of an excluded path, or None for graphctx's own and git's folders."""
        if self._internal.match_file(rel):
            return None
        return next((reason for reason, spec in self._groups if spec.match_file(rel)), EXCLUDED)


def tally(skips: Iterable[Skip]) -> tuple[dict[str, int], dict[str, int]]:
    """(files per reason, files per language with no parser), largest first."""
    skips = list(skips)
    reasons = Counter(s.reason for s in skips)
    languages = Counter(s.detail for s in skips if s.reason == NO_PARSER)
    return _ordered(reasons), _ordered(languages)


def describe(reasons: dict[str, int], languages: dict[str, int]) -> str:
    """One phrase for a summary line: '32 files (no parser: c 12, ruby 3; minified 14; vendored 3)'."""
    parts = []
    if languages:
        parts.append(f"{NO_PARSER}: " + ", ".join(f"{lang} {n:,}" for lang, n in languages.items()))
    parts += [f"{reason} {n:,}" for reason, n in reasons.items() if reason != NO_PARSER]
    total = sum(reasons.values())
    return f"{total:,} file{'s' if total != 1 else ''} ({'; '.join(parts)})"


def _ordered(counts: Counter) -> dict[str, int]:
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


# ---- stored with the index

def stored(conn: sqlite3.Connection) -> list[Skip]:
    return [Skip(*row) for row in reads.skipped(conn)]


def explain(conn: sqlite3.Connection, path: str) -> str | None:
    """Why `path` (repository-relative, or a suffix of one) is not in the index, when graphctx knows:
    a skip of the last run (a language whose grammar is not installed here among them). None when
    it knows nothing of it."""
    suffix = path.lstrip("./")
    rows = reads.skipped_matching(conn, suffix)
    skip = Skip(*rows[0]) if len(rows) == 1 else None
    if skip is None:
        return None
    if skip.reason == NO_PARSER:
        names = parsed_language_names()
        return (f"{skip.path} is in {skip.detail}, whose grammar ({wheel_name(skip.detail)}) is not installed on this "
                f"platform; graphctx parses {', '.join(names[:-1])} and {names[-1]} here")
    why = HOW_TO_INCLUDE.get(skip.reason, skip.detail)
    return f"{skip.path} was not indexed: {skip.reason} ({why})"
