"""The shape of a language family's rules, with the defaults a family that declares nothing gets:
no builtins, no imports resolved to files, `.` between module names, classes reached only through
`self`, every entity public. Each family's module overrides what its language does differently."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

# path -> (language, package declaration or None): every file the index holds
Files = Mapping[str, tuple[str, str | None]]
MANIFEST_READ_LIMIT = 200_000  # characters of a manifest read; manifests are small


@dataclass
class Manifest:
    """What the project's manifests declare, gathered reader after reader: the first name and
    description found win, later readers add scripts."""

    name: str | None = None
    description: str = ""
    scripts: dict[str, str] = field(default_factory=dict)  # label -> `module:function` or a file path


class ModuleIndex:
    """One family's modules: the names its files are imported by, and the files an import names.
    This default knows no modules, so every import of the family is external."""

    def __init__(self, files: Files, own: Sequence[str], root: Path | None):
        """`files`: every indexed file; `own`: this family's paths, in `files` order; `root`: the
        repository folder, for the build manifests that name modules (None: read none)."""
        self.files = files

    def resolve(self, importer: str, spec: str) -> list[str]:
        """The repository files that `spec`, imported from `importer`, names; [] when it is external."""
        return []

    def inside(self, importer: str, spec: str) -> bool:
        """Whether an import that names no file (`resolve` found none) still names the repository's
        own code: a module missing from it (generated, excluded, deleted) is unresolved, not external."""
        return False

    def settings(self) -> object:
        """What the index read from the files that configure modules (manifests, path maps), in a
        form that compares equal when an edit left what imports mean as it was."""
        return None

    def alternatives(self, importer: str, files: list[str]) -> list[list[str]]:
        """The files an import named (`resolve`), as the modules it may mean: by default all of them
        one module's parts (a Go package's files, a module and its stub)."""
        return [files]

    def shadowed(self, user: str, path: str) -> bool:
        """Whether the file `user` (of any language), naming `path`'s module, means another copy of
        it nearer itself. By default no file shadows another."""
        return False

    def project_of(self, path: str) -> str | None:
        """The folder of the project `path` belongs to, whose modules its imports reach first (a
        Python package root); None where the family does not say."""
        return None

    def package_files(self, path: str, package: str | None) -> Sequence[str] | None:
        """The files sharing `path`'s package, whose top-level names `path` sees without an import;
        None when packages do not span files in this family."""
        return None


class LanguageRules:
    """What the index and the onboarding packet need to know about a language family beyond its
    grammar. Class attributes are the family's facts; methods are its conventions."""

    family: ClassVar[str] = ""  # the name parse.languages.family() gives its languages
    # Names every file sees without an import: calls through them are external, and a repository
    # method sharing a member's name (console.log, Math.max) is not a candidate.
    builtins: ClassVar[frozenset[str]] = frozenset()
    # Methods of the builtin containers and strings: an untyped `x.get()` is more likely one of these
    # than a repository method of that name.
    builtin_methods: ClassVar[frozenset[str]] = frozenset()
    # The arguments each builtin may call, by keyword (None: any of them); a builtin not listed calls
    # none of what it is handed (a function passed to `isinstance` is read, not called). None where
    # the family's builtins are not known so well: a function handed to one may be called by it.
    builtin_callbacks: ClassVar[Mapping[str, tuple[str, ...] | None] | None] = None
    module_separator: ClassVar[str] = "."  # between a module and a submodule in an import
    # Heads of a receiver expression that make it a module path (Rust `crate::a::T`, `super::T`).
    module_path_heads: ClassVar[frozenset[str]] = frozenset()
    super_calls_base: ClassVar[bool] = False  # `super.m()` calls a base's method
    # A method whose body only declares it (`...`, `raise NotImplementedError`: parse/stubs.py) stands
    # for its overrides (index/declarations.py).
    declaration_stubs: ClassVar[bool] = False
    # A file is imported by its module's last name (its stem, or its folder's for a package's file),
    # and a name it imports is seen elsewhere only through an import naming that module or a module
    # passing the name on (index/dependencies.py import_dependents); elsewhere every file naming an
    # imported name is taken to see it.
    imports_by_stem: ClassVar[bool] = False
    # What a name nothing in the repository defines, imports or builds in stands for: "unresolved"
    # (nothing says), "external" where the language runs it from outside (a shell command from PATH),
    # or "module" where an import brings in every public name of a module (Swift's `import XCTest`):
    # external in a file that imports a module from outside the repository.
    undefined_names: ClassVar[str] = "unresolved"
    members_in_scope: ClassVar[bool] = False  # a class's methods and fields are named without `this.`
    static_member_imports: ClassVar[bool] = False  # `import static a.b.C.m` imports a member of class C
    # Methods declared away from their type (Go receivers) join a type of that name in their package only.
    methods_join_package_types: ClassVar[bool] = False
    needs_package: ClassVar[bool] = False  # the module index reads each file's package declaration
    # Tests are marked by an attribute or annotation (#[test], @Test), not by their name: in test
    # files every function counts as test code.
    marked_tests: ClassVar[bool] = False
    test_file_patterns: ClassVar[tuple[str, ...]] = ()  # regexes searched in a path: a test file
    tested_file_patterns: ClassVar[tuple[str, ...]] = ()  # regexes on a test file's name; group 1: the tested stem
    package_stems: ClassVar[frozenset[str]] = frozenset()  # a file with this stem stands for its folder
    package_markers: ClassVar[frozenset[str]] = frozenset()  # a file whose arrival renames the modules below it
    export_files: ClassVar[frozenset[str]] = frozenset()  # a package's face: what it imports, the package exports
    entry_files: ClassVar[Mapping[str, int]] = {}  # file name -> rank as an entry point (0 first)
    modules: ClassVar[type[ModuleIndex]] = ModuleIndex

    def module_bindings(self, module: str, alias: str | None) -> tuple[tuple[str, str], ...]:
        """(local name, module it names) for a whole-module import: its alias, else the module's
        last name, bound to the module."""
        if alias:
            return ((alias, module),)
        last = re.split(r"[/.:]+", module.rstrip("/"))[-1]
        return ((last.split(".")[0] or module, module),)

    def submodule_spec(self, attribute: str) -> str | None:
        """The import that names a module's submodule read as an attribute (`pkg.sub`), if the family has one."""
        return None

    def is_public(self, name: str, kind: str, signature: Callable[[], str]) -> bool:
        """Whether an entity is part of the code's public face by the language's own convention
        (the `_name` convention is checked for every language before this). `signature` is read
        only when the convention needs it."""
        return True

    def declared_exports(self, path: Path) -> set[str] | None:
        """The names a module file declares it exports (Python's `__all__`); None when it declares none."""
        return None

    def read_manifest(self, root: Path, found: Manifest) -> None:
        """Add what this family's project manifest at the repository root declares to `found`."""

    def script_location(self, target: str) -> tuple[tuple[str, ...], str] | None:
        """A declared script written `module:function`: the files that may hold the module, and the
        function's qualified name; None when the target is not in this family's notation."""
        return None


def no_private_keyword(signature: str) -> bool:
    """Whether a declaration's head (before its parameters) lacks the `private` modifier."""
    return not re.search(r"\bprivate\b", signature.split("(")[0])


def read_text(path: Path, limit: int = MANIFEST_READ_LIMIT) -> str:
    """A small project file's text ("" when it cannot be read)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read(limit)
    except OSError:
        return ""
