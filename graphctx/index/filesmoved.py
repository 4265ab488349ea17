"""The names whose meaning changes when files come or go: each file's module names, those of every
module below a package marker that came or went, and what the other package roots' copies of a
Python module define. A copy nearer a file hides the others from what it resolves by name alone
(its untyped calls, its test file's name, a document's code spans: `shadowed` in
languages/python.py), so a copy appearing or leaving changes which of those names' definitions
the files around it may mean."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable

from graphctx.index.languages import RULES
from graphctx.index.languages.python import package_root
from graphctx.index.naming import module_names

PACKAGE_MARKERS = frozenset().union(*(rules.package_markers for rules in RULES))
PYTHON_MARKER = "__init__.py"


def names_moved(came_or_went: list[str], every_path: Callable[[], list[str]],
                defined_names: Callable[[str], set[str]]) -> set[str]:
    """The names files coming or going (`came_or_went`) may change the meaning of. `every_path()`:
    the index's files and those of the run; `defined_names(path)`: what a file defines, as names."""
    names: set[str] = set()
    for path in came_or_went:
        names |= module_names(path)
    packages = {posixpath.dirname(p) + "/" for p in came_or_went if posixpath.basename(p) in PACKAGE_MARKERS} - {"/"}
    python = [p for p in came_or_went if p.endswith((".py", ".pyi"))]
    if not packages and not python:
        return names
    paths = every_path()
    below = [path for path in paths if path.startswith(tuple(packages))] if packages else []
    for path in below:
        names |= module_names(path)
    for copy in _copies([*python, *(p for p in below if p.endswith((".py", ".pyi")))], paths, packages):
        names |= defined_names(copy)
    return names


def _copies(modules: list[str], paths: Iterable[str], packages: set[str]) -> set[str]:
    """The files that may be other package roots' copies of `modules`: those ending in a module's
    path below its package root. Roots are taken as if no package marker in `packages` existed (the
    nearest root a module had before the edit or has after it), so the copies of either are found."""
    by_name: dict[str, list[str]] = {}
    for path in paths:
        by_name.setdefault(posixpath.basename(path), []).append(path)
    gone = {p.rstrip("/") for p in packages}
    package_dirs = {posixpath.dirname(p) for p in by_name.get(PYTHON_MARKER, ())} - gone
    found: set[str] = set()
    for module in modules:
        root = package_root(module, package_dirs)
        relative = module[len(root) + 1:] if root else module
        found.update(p for p in by_name.get(posixpath.basename(module), ())
                     if p != module and (p == relative or p.endswith("/" + relative)))
    return found - set(modules)
