"""Swift's rules: a module is a package target (the folder under `Sources/` or `Tests/`, else the
repository), every file of a module sees the others' declarations, `import Target` brings a
target's declarations in, the standard library is external, members are named without `self.`,
and XCTest's `Tests/` files hold tests."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from graphctx.index.languages.base import Files, LanguageRules, ModuleIndex, no_private_keyword

TARGET_ROOTS = ("Sources", "Tests")


class SwiftModules(ModuleIndex):
    """A module is a target folder, `Sources/Name/` (or `Tests/Name/`); files outside them form one
    module named after nothing."""

    def __init__(self, files: Files, own: Sequence[str], root: Path | None):
        super().__init__(files, own, root)
        self.targets: dict[str, list[str]] = defaultdict(list)
        for path in own:
            self.targets[target_of(path)].append(path)

    def resolve(self, importer: str, spec: str) -> list[str]:
        return sorted(self.targets.get(spec, ())) if spec else []

    def package_files(self, path: str, package: str | None) -> Sequence[str] | None:
        return self.targets.get(target_of(path), ())


def target_of(path: str) -> str:
    """The package target a Swift file belongs to: `Sources/Geometry/x.swift` -> Geometry; "" outside targets."""
    parts = path.split("/")
    for i, part in enumerate(parts[:-2]):
        if part in TARGET_ROOTS:
            return parts[i + 1]
    return ""


class SwiftRules(LanguageRules):
    family = "swift"
    undefined_names = "module"  # `import XCTest` brings in every public name of XCTest
    builtins = frozenset({  # the standard library's free functions and types
        "print", "debugPrint", "min", "max", "abs", "precondition", "preconditionFailure", "assert", "assertionFailure",
        "fatalError", "zip", "stride", "repeatElement", "type", "String", "Int", "Double", "Float", "Bool",
        "Character", "Array", "Dictionary", "Set", "Optional", "Result", "Error", "Never",
    })
    members_in_scope = True  # self. may be left out
    super_calls_base = True
    test_file_patterns = (r"(^|/)Tests/.*\.swift$", r"Tests?\.swift$")
    tested_file_patterns = (r"^(.+?)Tests?\.swift$",)
    entry_files = {"main.swift": 1, "App.swift": 2}
    modules = SwiftModules

    def is_public(self, name: str, kind: str, signature: Callable[[], str]) -> bool:
        return no_private_keyword(signature()) and "fileprivate" not in signature().split("(")[0]
