"""Import links between projects: the using project's graph keeps a name imported from outside it as
an external node (`ext:mylib.core.compute`, `ext:@acme.shared.formatPrice`,
`ext:example.com.corelib.pricing.Total`, `ext:com.acme.lib.Pricing.total`: the import path with `/`
as `.`), which names an entity of the used project when it starts with what that project is
imported as: a Python package (its top-level folders and modules), its npm package (package.json
`name`), its Go module (go.mod `module`) or one of its Java or Kotlin packages."""

from __future__ import annotations

import json
import posixpath
import re
from typing import Any

from graphctx.errors import GraphctxError
from graphctx.federation.links import IMPORT_CONFIDENCE, Link
from graphctx.index.languages.jsmodules import module_files, package_stems
from graphctx.index.store import reads

EXTERNAL = "ext:"
SOURCE_ROOTS = ("src", "lib")
_GO_MODULE = re.compile(r"^\s*module\s+(\S+)", re.M)


def outside_uses(project: Any) -> list[tuple[str, str]]:
    """(entity, dotted name) of every use of a name imported from outside the project."""
    rows = reads.edges_outside(project.graph.connection())
    return [(source, target[len(EXTERNAL):]) for source, target, _, resolution, _ in rows if resolution == "external"]


def links(user: Any, used: Any) -> list[Link]:
    """The links from `user`'s entities to the `used` project's entities they import."""
    resolvers = _resolvers(used)
    found: dict[tuple[str, str], Link] = {}
    resolved: dict[str, str | None] = {}
    for source, name in outside_uses(user):
        if name not in resolved:
            resolved[name] = next((hit for resolver in resolvers if (hit := resolver(name))), None)
        target = resolved[name]
        if target and (source, target) not in found:
            found[(source, target)] = Link(source, target, "imports", "import", IMPORT_CONFIDENCE, name)
    return list(found.values())


def _resolvers(project: Any) -> list:
    resolvers = []
    tops = top_names(project)
    if tops:
        resolvers.append(lambda name: resolve_python(project, name, tops))
    npm = _npm_name(project)
    if npm:
        resolvers.append(lambda name: _resolve_js(project, npm, name))
    module = _go_module(project)
    if module:
        resolvers.append(lambda name: _resolve_go(project, module, name))
    packages = _jvm_packages(project)
    if packages:
        resolvers.append(lambda name: _resolve_jvm(project, packages, name))
    return resolvers


# ---- Python: the top-level packages and modules, resolved by module path

def top_names(project: Any) -> set[str]:
    """The names a Python package or module of `project` can be imported by first: its top-level
    folders and files, also under the usual source roots (src/, lib/)."""
    names = set()
    for path in project.graph.files:
        if not path.endswith((".py", ".pyi")):
            continue
        parts = path.split("/")
        if parts[0] in SOURCE_ROOTS and len(parts) > 1:
            parts = parts[1:]
        names.add(parts[0].rsplit(".", 1)[0] if len(parts) == 1 else parts[0])
    return names


def resolve_python(project: Any, dotted: str, tops: set[str]) -> str | None:
    """The entity a module path (`mylib.core.compute`, or a longer path into it) names in `project`."""
    parts = dotted.split(".")
    if parts[0] not in tops:
        return None  # not one of this project's packages: no look-up (and no fuzzy suggestions) needed
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        try:
            entity = project.show(name).entity
        except GraphctxError:
            continue
        if entity.kind != "file" or end == len(parts):
            return entity.id
        return None  # only the module matched: the name is something the module does not define
    return None


# ---- JavaScript and TypeScript: the npm package name, then a module of the package and a name in it

def _npm_name(project: Any) -> dict | None:
    try:
        manifest = json.loads((project.root / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    name = manifest.get("name") if isinstance(manifest, dict) else None
    return manifest if isinstance(name, str) and name else None


def _resolve_js(project: Any, manifest: dict, dotted: str) -> str | None:
    prefix = manifest["name"].replace("/", ".")
    if not dotted.startswith(prefix + "."):
        return None
    rest = dotted[len(prefix) + 1:].split(".")
    for end in range(len(rest) - 1, -1, -1):  # the longest module path first; at least one name after it
        module, name = "/".join(rest[:end]), ".".join(rest[end:])
        for path in _js_files(project, manifest, module):
            if f"{path}::{name}" in project.graph.graph:
                return f"{path}::{name}"
    return None


def _js_files(project: Any, manifest: dict, module: str) -> list[str]:
    """The files of the package a module path ("" for the package itself) can be."""
    files = project.graph.files
    return list(dict.fromkeys(path for stem in package_stems(manifest, module) for path in module_files(stem)
                              if path in files))


# ---- Go: the module path, then the package (a folder) and a name in it

def _go_module(project: Any) -> str | None:
    try:
        found = _GO_MODULE.search((project.root / "go.mod").read_text(encoding="utf-8"))
    except OSError:
        return None
    return found.group(1) if found else None


def _resolve_go(project: Any, module: str, dotted: str) -> str | None:
    prefix = module.replace("/", ".")
    if dotted != prefix and not dotted.startswith(prefix + "."):
        return None
    rest = dotted[len(prefix) + 1:].split(".") if dotted != prefix else []
    for end in range(len(rest) - 1, -1, -1):
        folder, name = "/".join(rest[:end]), ".".join(rest[end:])
        for path in project.graph.files:
            if path.endswith(".go") and not path.endswith("_test.go") and posixpath.dirname(path) == folder \
                    and f"{path}::{name}" in project.graph.graph:
                return f"{path}::{name}"
    return None


# ---- Java and Kotlin: the package declarations, then a class of the package and a member

def _jvm_packages(project: Any) -> dict[str, list[str]]:
    """package -> its files, for the project's Java and Kotlin files."""
    found: dict[str, list[str]] = {}
    for path, (language, package) in reads.file_packages(project.graph.connection()).items():
        if language in ("java", "kotlin") and package:
            found.setdefault(package, []).append(path)
    return found


def _resolve_jvm(project: Any, packages: dict[str, list[str]], dotted: str) -> str | None:
    parts = dotted.split(".")
    for end in range(len(parts) - 1, 0, -1):  # the longest package first
        files = packages.get(".".join(parts[:end]))
        if files is None:
            continue
        name = ".".join(parts[end:])
        for path in files:
            if f"{path}::{name}" in project.graph.graph:
                return f"{path}::{name}"
        return None
    return None
