"""Scala's rules: packages spanning files (declared per file), imports of classes, objects and
their members, Predef's functions, members named without `this.`, `super` calls, and
`*Test.scala` / `*Spec.scala` / `*Suite.scala` files, where every call is test code (ScalaTest
and munit tests are blocks, not named methods)."""

from __future__ import annotations

from collections.abc import Callable

from graphctx.index.languages.base import LanguageRules, no_private_keyword
from graphctx.index.languages.packages import DeclaredPackages


class ScalaRules(LanguageRules):
    family = "scala"
    builtins = frozenset({  # Predef and scala.*, imported by default
        "println", "print", "printf", "require", "assert", "assume", "identity", "implicitly", "summon", "???",
        "List", "Seq", "Vector", "Map", "Set", "Option", "Some", "None", "Either", "Left", "Right", "Try",
        "Success", "Failure", "Array", "String", "Int", "Double", "Long", "Boolean", "BigDecimal", "Math", "math",
    })
    super_calls_base = True
    members_in_scope = True
    static_member_imports = True  # import a.b.Obj.member
    needs_package = True
    marked_tests = True
    test_file_patterns = (r"(Test|Tests|Spec|Suite)\.scala$",)
    tested_file_patterns = (r"^(.+?)(?:Test|Tests|Spec|Suite)\.scala$",)
    entry_files = {"Main.scala": 1}
    modules = DeclaredPackages

    def is_public(self, name: str, kind: str, signature: Callable[[], str]) -> bool:
        return no_private_keyword(signature())
