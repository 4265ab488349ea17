"""Kotlin's rules: packages spanning files (declared per file), imports of classes and top-level
functions, the standard library's functions, members named without `this.`, `super` calls,
`@Test`-marked tests in `*Test.kt` files and `private` members."""

from __future__ import annotations

from collections.abc import Callable

from graphctx.index.languages.base import LanguageRules, no_private_keyword
from graphctx.index.languages.packages import DeclaredPackages


class KotlinRules(LanguageRules):
    family = "kotlin"
    builtins = frozenset({  # kotlin.* and kotlin.collections.*, imported by default
        "println", "print", "listOf", "mutableListOf", "mapOf", "mutableMapOf", "setOf", "mutableSetOf", "arrayOf",
        "emptyList", "emptyMap", "emptySet", "require", "requireNotNull", "check", "checkNotNull", "error", "TODO",
        "lazy", "run", "let", "also", "apply", "with", "repeat", "maxOf", "minOf", "Pair", "Triple", "String", "Int",
        "Long", "Double", "Float", "Boolean", "Char", "Any", "Unit", "Array", "List", "Map", "Set", "Math",
        "IllegalArgumentException", "IllegalStateException", "RuntimeException", "Exception",
    })
    super_calls_base = True
    members_in_scope = True
    static_member_imports = True  # import a.b.Obj.member
    needs_package = True
    marked_tests = True
    test_file_patterns = (r"Tests?\.kt$",)
    tested_file_patterns = (r"^(.+?)Tests?\.kt$",)
    entry_files = {"Main.kt": 1, "Application.kt": 2}
    modules = DeclaredPackages

    def is_public(self, name: str, kind: str, signature: Callable[[], str]) -> bool:
        return no_private_keyword(signature())
