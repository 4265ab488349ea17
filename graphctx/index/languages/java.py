"""Java's rules: java.lang, packages spanning files, class members named without `this.`, static
imports of a class's members, `@Test`-marked tests in `*Test.java` files and `private` members."""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from graphctx.index.languages.base import Files, LanguageRules, ModuleIndex, no_private_keyword


class JavaModules(ModuleIndex):
    """A package's files, by their package declaration; an import names a package or one class file."""

    def __init__(self, files: Files, own: Sequence[str], root: Path | None):
        super().__init__(files, own, root)
        self.packages: dict[str, list[str]] = defaultdict(list)
        for path in own:
            package = files[path][1]
            if package:
                self.packages[package].append(path)

    def resolve(self, importer: str, spec: str) -> list[str]:
        """A package's files, or the file of a class (`import static a.b.C.m` names the class a.b.C)."""
        if spec in self.packages:
            return sorted(self.packages[spec])
        package, _, cls = spec.rpartition(".")
        return sorted(p for p in self.packages.get(package, ()) if posixpath.basename(p) == cls + ".java")

    def package_files(self, path: str, package: str | None) -> Sequence[str] | None:
        return self.packages.get(package, ()) if package else None


class JavaRules(LanguageRules):
    family = "java"
    builtins = frozenset({  # java.lang
        "System", "Math", "String", "StringBuilder", "Integer", "Long", "Double", "Float", "Short", "Byte",
        "Boolean", "Character", "Object", "Thread", "Runtime", "Class", "Enum", "Record", "Iterable",
        "Comparable", "Runnable", "Exception", "RuntimeException", "Error", "IllegalArgumentException",
        "IllegalStateException", "NullPointerException", "UnsupportedOperationException",
    })
    super_calls_base = True
    members_in_scope = True
    static_member_imports = True
    needs_package = True
    marked_tests = True
    test_file_patterns = (r"Tests?\.java$",)
    tested_file_patterns = (r"^(.+?)Tests?\.java$",)
    entry_files = {"Main.java": 2, "Application.java": 2}
    modules = JavaModules

    def is_public(self, name: str, kind: str, signature: Callable[[], str]) -> bool:
        return no_private_keyword(signature())
