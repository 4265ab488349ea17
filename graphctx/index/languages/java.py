"""Java's rules: java.lang, packages spanning files, class members named without `this.`, static
imports of a class's members, `@Test`-marked tests in `*Test.java` files and `private` members."""

from __future__ import annotations

from collections.abc import Callable

from graphctx.index.languages.base import LanguageRules, no_private_keyword
from graphctx.index.languages.packages import DeclaredPackages


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
    modules = DeclaredPackages  # a package spans its files; `import a.b.C` names C.java

    def is_public(self, name: str, kind: str, signature: Callable[[], str]) -> bool:
        return no_private_keyword(signature())
