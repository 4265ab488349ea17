"""Naming conventions shared by the index: entity ids (`path::Qualified.name`), ids of names
outside the repository (`ext:name`), and how test files, test functions and the file a test is
named after are recognised."""

from __future__ import annotations

import posixpath
import re

EXTERNAL_PREFIX = "ext:"


def entity_id(path: str, qualified_name: str) -> str:
    return f"{path}::{qualified_name}" if qualified_name else path


def external_id(name: str) -> str:
    return EXTERNAL_PREFIX + name


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
