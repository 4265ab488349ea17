"""Naming conventions shared by the index: how test files, test functions and the file a test is
named after are recognised, the name a file goes by (its stem, or its folder's for `__init__`,
`index`, `mod`), and the last name of an external id. The id format itself (`path::Qualified.name`,
`ext:name`) is graphctx.layout's, re-exported here for the index's modules."""

from __future__ import annotations

import posixpath
import re

from graphctx.layout import EXTERNAL_PREFIX, entity_id, external_id  # noqa: F401 - the id format lives in layout


_TEST_FILE = re.compile(
    r"(^|/)(tests?|__tests__|spec|testing)/|(^|/)test_[^/]*$|_test\.(py|go)$|\.(test|spec)\.[jt]sx?$"
    r"|(^|/)conftest\.py$|Tests?\.java$"
)


def is_test_file(path: str) -> bool:
    return bool(_TEST_FILE.search(path))


# Families whose tests are marked by an attribute or annotation (#[test], @Test), not by their name:
# in their test files every function counts as test code.
MARKED_TESTS = frozenset({"rust", "java"})


def is_test_name(name: str) -> bool:
    return name.startswith(("test", "Test"))


def tested_stem(path: str) -> str | None:
    """The stem of the file a test file is named after: test_foo.py, foo_test.go, foo.test.ts, FooTest.java -> foo."""
    name = posixpath.basename(path)
    for pattern in (r"^test_(.+)\.py$", r"^(.+)_test\.(?:py|go)$", r"^(.+)\.(?:test|spec)\.[jt]sx?$", r"^(.+?)Tests?\.java$"):
        match = re.match(pattern, name)
        if match:
            return match.group(1)
    return None


def file_stem(path: str) -> str:
    name = posixpath.basename(path)
    stem = name.split(".", 1)[0]
    return posixpath.basename(posixpath.dirname(path)) if stem in ("__init__", "index", "mod") else stem


def external_name(external: str) -> str:
    """The last name of an external id: ext:os.path.join -> join."""
    return external[len(EXTERNAL_PREFIX):].rpartition(".")[2]
