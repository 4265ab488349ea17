"""The module index of languages whose files declare the package or namespace they belong to (Java,
C#, PHP, Kotlin, Scala): a package spans every file declaring it, and an import names a package, or a
class or top-level name inside one."""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from graphctx.index.languages.base import Files, ModuleIndex


class DeclaredPackages(ModuleIndex):
    """A package's files, by their package declaration. An import of `a.b.C` that is no package
    names the files of package `a.b` (a class or a top-level function of it), preferring `C.ext`."""

    separator: ClassVar[str] = "."

    def __init__(self, files: Files, own: Sequence[str], root: Path | None):
        super().__init__(files, own, root)
        self.packages: dict[str, list[str]] = defaultdict(list)
        for path in own:
            package = files[path][1]
            if package:
                self.packages[self._key(package)].append(path)

    def resolve(self, importer: str, spec: str) -> list[str]:
        spec = self._key(spec)
        if spec in self.packages:
            return sorted(self.packages[spec])
        package, _, name = spec.rpartition(self.separator)
        files = self.packages.get(package, ())
        named = [p for p in files if posixpath.splitext(posixpath.basename(p))[0] == name]
        return sorted(named)

    def package_files(self, path: str, package: str | None) -> Sequence[str] | None:
        return self.packages.get(self._key(package), ()) if package else None

    def _key(self, package: str) -> str:
        return package.strip().strip(self.separator)
