"""Naming conventions shared by the index: how test files, test functions and the file a test is
named after are recognised (the folder conventions here, each language's file names in its rules),
and the last name of an external id. The id format itself (`path::Qualified.name`, `ext:name`) is
graphctx.layout's, re-exported here for the index's modules."""

from __future__ import annotations

import posixpath
import re

from graphctx.index.languages import RULES, rules_for
from graphctx.layout import EXTERNAL_PREFIX, entity_id, external_id  # noqa: F401 - the id format lives in layout
from graphctx.parse.languages import grammar_language


# Test folders and `test_*` files hold tests in any language; the languages add their own file names.
_TEST_FILE = re.compile("|".join((
    r"(^|/)(tests?|__tests__|spec|testing)/|(^|/)test_[^/]*$",
    *(pattern for rules in RULES for pattern in rules.test_file_patterns),
)))
_TESTED_FILE = tuple(re.compile(pattern) for rules in RULES for pattern in rules.tested_file_patterns)
_PACKAGE_STEMS = frozenset().union(*(rules.package_stems for rules in RULES))


def is_test_file(path: str) -> bool:
    return bool(_TEST_FILE.search(path))


def is_test_name(name: str) -> bool:
    return name.startswith(("test", "Test"))


def tested_stem(path: str) -> str | None:
    """The stem of the file a test file is named after: test_foo.py, foo_test.go, foo.test.ts, FooTest.java -> foo."""
    name = posixpath.basename(path)
    for pattern in _TESTED_FILE:
        match = pattern.match(name)
        if match:
            return match.group(1)
    return None


def file_stem(path: str) -> str:
    """The name a file is known by as a module: its name's stem, or its folder's name for its
    language's package file (Python's `__init__.py`, Rust's `mod.rs`; a Python `mod.py` is `mod`)."""
    name = posixpath.basename(path)
    stem = name.split(".", 1)[0]
    language = grammar_language(path)
    stems = rules_for(language.name).package_stems if language is not None else _PACKAGE_STEMS
    return posixpath.basename(posixpath.dirname(path)) if stem in stems else stem


def external_name(external: str) -> str:
    """The last name of an external id: ext:os.path.join -> join."""
    return external[len(EXTERNAL_PREFIX):].rpartition(".")[2]


def module_names(path: str) -> set[str]:
    """Names under which other files can refer to a file as a module or a tested file."""
    stem = path.rsplit(".", 1)[0]
    names = {p for p in stem.replace("\\", "/").replace(".", "/").split("/") if p}
    names.add(file_stem(path))
    tested = tested_stem(path)
    if tested:
        names.add(tested)
    return names
