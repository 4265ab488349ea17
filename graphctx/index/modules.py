"""Maps an import as written to the repository files it names. Each language family's module index
(from its rules in graphctx/index/languages/) knows how its files are named and what its imports
mean; this map holds one per family present and asks the importer's. An empty answer means the
import is external."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from graphctx.index.languages import ModuleIndex, rules_for
from graphctx.index.languages.base import Files
from graphctx.parse.languages import family


class ModuleMap:
    """Every source file under the module names its language gives it."""

    def __init__(self, files: Files, root: Path | str | None = None):
        """`files`: path -> (language, package declaration); `root`: the repository folder, whose
        build manifests (go.mod, Cargo.toml) name modules; None reads none."""
        self.files = files
        own: dict[str, list[str]] = defaultdict(list)
        for path, (language, _) in files.items():
            own[family(language)].append(path)
        root = Path(root) if root is not None else None
        self._indexes: dict[str, ModuleIndex] = {
            fam: rules_for(fam).modules(files, paths, root) for fam, paths in own.items()
        }

    def _index_of(self, path: str) -> ModuleIndex | None:
        entry = self.files.get(path)
        return self._indexes.get(family(entry[0])) if entry is not None else None

    def resolve(self, importer: str, module: str) -> list[str]:
        """Files that `module`, imported from the file `importer`, names; [] when outside the repository."""
        index = self._index_of(importer)
        return index.resolve(importer, module) if index is not None else []

    def inside(self, importer: str, spec: str) -> bool:
        """Whether an import from `importer` that names no file still names the repository's own code."""
        index = self._index_of(importer)
        return index.inside(importer, spec) if index is not None else False

    def settings_digest(self) -> str:
        """A digest of what the module indexes read from the files that configure modules: an edit
        that changes it changes what imports anywhere may mean."""
        settings = sorted((fam, repr(index.settings())) for fam, index in self._indexes.items())
        return hashlib.sha256(repr(settings).encode("utf-8")).hexdigest()[:16]

    def alternatives(self, importer: str, files: list[str]) -> list[list[str]]:
        """The files an import from `importer` named, as the modules it may mean: one list, or
        several that nothing in the repository chooses between; none for no files."""
        if not files:
            return []
        index = self._index_of(importer)
        return index.alternatives(importer, files) if index is not None else [files]

    def shadowed(self, user: str, path: str) -> bool:
        """Whether `path`'s module is, seen from the file `user`, another project's copy of one
        nearer `user` (copies side by side, services each with its own `app` package)."""
        index = self._index_of(path)
        return index is not None and index.shadowed(user, path)

    def project_of(self, path: str) -> str | None:
        """The folder of the project `path` belongs to (a Python package root), or None."""
        index = self._index_of(path)
        return index.project_of(path) if index is not None else None

    def package_files(self, path: str, package: str | None) -> Sequence[str] | None:
        """The files of `path`'s package (Go folder, Java package), `path` included; None where
        packages do not span files."""
        index = self._index_of(path)
        return index.package_files(path, package) if index is not None else None
