"""C#'s rules: namespaces spanning files (declared per file, imported whole by `using`), the
System types, class members named without `this.`, `[Fact]`/`[Test]`-marked tests in `*Tests.cs`
files and `private` members."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from graphctx.index.languages.base import Files, LanguageRules, ModuleIndex, no_private_keyword


class CSharpModules(ModuleIndex):
    """A namespace's files, by their namespace declaration; `using A.B;` names the namespace A.B."""

    def __init__(self, files: Files, own: Sequence[str], root: Path | None):
        super().__init__(files, own, root)
        self.namespaces: dict[str, list[str]] = defaultdict(list)
        for path in own:
            namespace = files[path][1]
            if namespace:
                self.namespaces[namespace].append(path)

    def resolve(self, importer: str, spec: str) -> list[str]:
        return sorted(self.namespaces.get(spec, ()))

    def package_files(self, path: str, package: str | None) -> Sequence[str] | None:
        return self.namespaces.get(package, ()) if package else None


class CSharpRules(LanguageRules):
    family = "csharp"
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
