"""Go's rules: the predeclared functions, packages as folders named through go.mod's module path,
methods joining their receiver's type anywhere in the package, exported (capitalised) names,
`_test.go` files and go.mod's module name for the project."""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from graphctx.index.languages.base import Files, LanguageRules, Manifest, ModuleIndex, read_text


class GoModules(ModuleIndex):
    """A package is a folder; an import path names one through the go.mod module it lies in (the
    longest module path that prefixes it), or by its folder's path when no go.mod is found."""

    def __init__(self, files: Files, own: Sequence[str], root: Path | None):
        super().__init__(files, own, root)
        self.folders: dict[str, list[str]] = defaultdict(list)
        for path in own:
            self.folders[posixpath.dirname(path)].append(path)
        found = _module_paths(root, self.folders) if root is not None else {}
        # the most specific module first: a nested module owns the packages below it
        self.modules = sorted(found.items(), key=lambda item: (-len(item[1]), item[0]))

    def settings(self) -> object:
        return self.modules

    def resolve(self, importer: str, spec: str) -> list[str]:
        for mod_dir, mod_path in self.modules:
            if spec == mod_path or spec.startswith(mod_path + "/"):
                sub = spec[len(mod_path) + 1:]
                return _package(self.folders.get(posixpath.join(mod_dir, sub).strip("/") if sub else mod_dir, ()))
        if self.modules:
            return []  # a module is declared and this path is not in it: external
        matches = [d for d in self.folders if d and (spec == d or spec.endswith("/" + d))]
        return _package(self.folders[max(matches, key=len)]) if matches else []

    def inside(self, importer: str, spec: str) -> bool:
        """A path under one of the repository's go.mod modules: a package of its own, missing."""
        return any(spec == mod_path or spec.startswith(mod_path + "/") for _, mod_path in self.modules)

    def package_files(self, path: str, package: str | None) -> Sequence[str] | None:
        return self.folders.get(posixpath.dirname(path), ())


class GoRules(LanguageRules):
    family = "go"
    builtins = frozenset({
        "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max", "min",
        "new", "panic", "print", "println", "real", "recover",
    })
    module_separator = "/"
    methods_join_package_types = True
    test_file_patterns = (r"_test\.go$",)
    tested_file_patterns = (r"^(.+)_test\.go$",)
    entry_files = {"main.go": 1}
    modules = GoModules

    def is_public(self, name: str, kind: str, signature: Callable[[], str]) -> bool:
        return name[:1].isupper()

    def read_manifest(self, root: Path, found: Manifest) -> None:
        """go.mod: the module path names the project when no other manifest did."""
        text = read_text(root / "go.mod")
        if text and not found.name:
            match = re.search(r"^module\s+(\S+)", text, re.M)
            found.name = match.group(1) if match else None


def _module_paths(root: Path, folders: Iterable[str]) -> dict[str, str]:
    """go.mod folder -> module path, for the folders at and above the repository's Go files."""
    candidates = set()
    for folder in folders:
        while True:
            candidates.add(folder)
            if not folder:
                break
            folder = posixpath.dirname(folder)
    modules = {}
    for folder in candidates:
        try:
            text = (root / folder / "go.mod").read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            words = line.split()
            if line.startswith("module ") and len(words) > 1:
                modules[folder] = words[1].strip('"')
                break
    return modules


def _package(paths: Iterable[str]) -> list[str]:
    """The files an importer of a Go package sees: its _test.go files are not part of it."""
    return sorted(p for p in paths if not p.endswith("_test.go"))
