"""C#'s rules: namespaces spanning files (declared per file, imported whole by `using`), the
System types, class members named without `this.`, `[Fact]`/`[Test]`-marked tests in `*Tests.cs`
files and `private` members."""

from __future__ import annotations

from collections.abc import Callable

from graphctx.index.languages.base import LanguageRules, no_private_keyword
from graphctx.index.languages.packages import DeclaredPackages


class CSharpModules(DeclaredPackages):
    """A namespace's files, by their namespace declaration; `using A.B;` names the namespace A.B."""


class CSharpRules(LanguageRules):
    family = "csharp"
    super_calls_base = True  # base.M() (parse reads `base` as super)
    builtins = frozenset({  # System, always in reach
        "System", "Console", "Math", "String", "Object", "Int32", "Int64", "Double", "Boolean", "Char", "Decimal", "DateTime",
        "TimeSpan", "Guid", "Array", "Convert", "Enum", "Exception", "ArgumentException", "ArgumentNullException",
        "InvalidOperationException", "NotImplementedException", "NotSupportedException", "Environment", "GC",
        "Task", "Tuple", "Nullable", "Activator", "Type", "nameof", "string", "object", "int", "double",
    })
    members_in_scope = True
    needs_package = True
    marked_tests = True
    test_file_patterns = (r"Tests?\.cs$",)
    tested_file_patterns = (r"^(.+?)Tests?\.cs$",)
    entry_files = {"Program.cs": 1}
    modules = CSharpModules

    def is_public(self, name: str, kind: str, signature: Callable[[], str]) -> bool:
        return no_private_keyword(signature())
