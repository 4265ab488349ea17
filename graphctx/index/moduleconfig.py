"""The module map of an index, and the files whose content, not only their presence, says what an
import means: tsconfig.json and jsconfig.json path maps (and the configs they extend), package.json
names and entries, the workspace's package folders (package.json, pnpm-workspace.yaml, lerna.json),
pyproject.toml and setup.cfg package folders, go.mod module paths, Cargo.toml crate names. Each run
that builds the map stores a digest of what the module indexes read from them
(ModuleMap.settings_digest); an edit to one of these files that changes the digest changes what any
file's imports may mean, so every file is resolved again."""

from __future__ import annotations

import posixpath
import re
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from graphctx.index import store
from graphctx.index.languages import package_languages
from graphctx.index.modules import ModuleMap
from graphctx.index.store import reads

CONFIG_NAMES = frozenset({"package.json", "pnpm-workspace.yaml", "lerna.json", "pyproject.toml", "setup.cfg", "go.mod",
                          "Cargo.toml"})
PATH_CONFIG = re.compile(r"^[tj]sconfig(\..+)?\.json$")  # tsconfig.json, and the tsconfig.base.json it may extend
WITH_PACKAGE = frozenset(package_languages())  # the languages whose module maps read package declarations
META_KEY = "module_settings"

Files = dict[str, tuple[str, str | None]]


def indexed(conn: sqlite3.Connection, root: Path) -> tuple[Files, ModuleMap]:
    """The index's files as the module map reads them (path -> language, package), and the map."""
    files = {path: (language, package if language in WITH_PACKAGE else None)
             for path, (language, package) in reads.file_packages(conn).items()}
    return files, ModuleMap(files, root)


def touched(paths: Iterable[str]) -> bool:
    """Whether any of these paths (edited, added or deleted) is a file that configures modules."""
    return any((name := posixpath.basename(path)) in CONFIG_NAMES or PATH_CONFIG.match(name) for path in paths)


def moved_by(conn: sqlite3.Connection, root: Path, paths: Iterable[str]) -> tuple[Files, ModuleMap] | None:
    """The index's files and their module map when an edit of these paths (edited, added or deleted)
    changed what imports mean: one of them configures modules, and the map reads it otherwise (moved).
    None when it did not."""
    if not touched(paths):
        return None
    files, modules = indexed(conn, root)
    return (files, modules) if moved(conn, modules) else None


def remember(conn: sqlite3.Connection, modules: ModuleMap) -> None:
    store.set_meta(conn, **{META_KEY: modules.settings_digest()})


def moved(conn: sqlite3.Connection, modules: ModuleMap) -> bool:
    """Whether `modules` reads its configuration otherwise than the map the index was last built
    with (an index that never stored it counts as moved); remembers `modules`' either way."""
    if store.get_meta(conn, META_KEY) == modules.settings_digest():
        return False
    remember(conn, modules)
    return True
