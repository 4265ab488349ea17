"""Python's rules: the builtins, packages and relative imports, `import a.b` binding the dotted
name, pytest's file names, `__all__` exports and the pyproject.toml manifest with its scripts."""

from __future__ import annotations

import builtins
import io
import pathlib
import posixpath
import re
import tomllib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from itertools import chain
from pathlib import Path

from graphctx.index.languages.base import Files, LanguageRules, Manifest, ModuleIndex, read_text

DUNDER_ALL = re.compile(r"^__all__\s*(?::[^=\n]*)?\+?=\s*[\[(]([^\])]*)[\])]", re.M)
DUNDER_ALL_HEAD = 65536  # bytes of a module read for its __all__ (it is near the top)
SOURCE_FOLDERS = ("", "src/", "lib/")  # where a script's package may live, in that order
LAYOUT_ROOTS = ("src", "lib")  # top-level folders whose contents are imported by their own names


# The methods of the standard library's sockets and futures (asyncio's and concurrent.futures'), which
# I/O code handles everywhere: named here rather than imported, as these modules are slow to import.
RUNTIME_METHODS = frozenset({
    "accept", "bind", "connect", "connect_ex", "detach", "dup", "fileno", "getpeername", "getsockname", "getsockopt",
    "getblocking", "gettimeout", "listen", "makefile", "recv", "recv_into", "recvfrom", "recvfrom_into", "recvmsg",
    "send", "sendall", "sendfile", "sendmsg", "sendto", "setblocking", "setsockopt", "settimeout", "shutdown",
    "add_done_callback", "remove_done_callback", "cancel", "cancelled", "done", "exception", "result", "get_loop",
    "set_result", "set_exception", "set_running_or_notify_cancel",
})


class PythonModules(ModuleIndex):
    """Every Python file under each dotted name it is importable by: from its top-level package's
    parent, and from the repository root."""

    def __init__(self, files: Files, own: Sequence[str], root: Path | None):
        super().__init__(files, own, root)
        self.by_name: dict[str, list[str]] = defaultdict(list)
        package_dirs = {posixpath.dirname(p) for p in own if posixpath.basename(p) == "__init__.py"}
        self.roots = roots = import_roots(root, {p.split("/", 1)[0] for p in own if "/" in p})
        self.package_roots = {path: package_root(path, package_dirs) for path in own}
        for path in own:
            for name in _importable_names(path, package_dirs, roots, self.package_roots[path]):
                if path not in self.by_name[name]:
                    self.by_name[name].append(path)

    def resolve(self, importer: str, spec: str) -> list[str]:
        if not spec.startswith("."):
            return self._nearest(importer, self.by_name.get(spec, []))
        level = len(spec) - len(spec.lstrip("."))
        base = posixpath.dirname(importer)
        for _ in range(level - 1):
            base = posixpath.dirname(base)
        rest = spec[level:].replace(".", "/")
        stem = posixpath.join(base, rest) if rest else base
        return [p for p in (stem + ".py", stem + "/__init__.py", stem + ".pyi") if p in self.files][:1]

    def settings(self) -> object:
        return self.roots

    def inside(self, importer: str, spec: str) -> bool:
        """A relative import, or one under a regular package of the repository (its `__init__.py` is
        here, so Python looks nowhere else for the package's modules)."""
        top = spec.split(".")[0]
        return spec.startswith(".") or any(posixpath.basename(path) == "__init__.py"
                                           for path in self._nearest(importer, self.by_name.get(top, [])))

    def _nearest(self, importer: str, found: list[str]) -> list[str]:
        """Of several files importable by one name (copies of a project side by side, two services
        each with its own `app` package), those whose top-level package sits in the importer's own
        package root: the folder on `sys.path` that the importer itself is imported from, where a
        package it shares the name of, already imported, finds its submodules. All of them where
        none sits there. An importer in no package (a script, a test folder that is no package) is
        run from its project: there, of those in the nearest folder above it that holds any, as
        `shadowed` reads what it names."""
        if len(found) < 2:
            return found
        home = self.package_roots.get(importer)
        # (an importer in no package is its own folder's: that folder first, then each above it)
        for folder in _folders_above(importer) if home == posixpath.dirname(importer) else [home]:
            mine = [path for path in found if self.package_roots.get(path) == folder]
            if mine:
                return mine
        return found

    def alternatives(self, importer: str, files: list[str]) -> list[list[str]]:
        """Files in several package roots are as many modules, which only the way the importer is run
        chooses between (none of them beside it); in one root, a module and its stub are one."""
        by_root: dict[str | None, list[str]] = {}
        for path in files:
            by_root.setdefault(self.project_of(path), []).append(path)
        return list(by_root.values())

    def project_of(self, path: str) -> str | None:
        return self.package_roots.get(path)

    def shadowed(self, user: str, path: str) -> bool:
        """Whether `path`'s module, seen from the file `user`, is another package root's copy of one
        nearer `user`: in `user`'s own package root (imported from there, a name finds it first,
        `_nearest`), else in the nearest folder above `user` that holds a copy (a test folder that
        is no package, a document: what they name is their project's code)."""
        theirs = self.package_roots.get(path)
        if theirs is None:
            return False
        relative = path[len(theirs) + 1:] if theirs else path
        home = self.package_roots.get(user)
        for folder in chain([home] if home is not None else [], _folders_above(user)):
            if self.package_roots.get(f"{folder}/{relative}" if folder else relative) == folder:
                return folder != theirs
        return False


def _folders_above(path: str) -> Iterable[str]:
    """The folders that hold `path`, nearest first, the repository's root ("") last."""
    folder = posixpath.dirname(path)
    while folder:
        yield folder
        folder = posixpath.dirname(folder)
    yield ""


class PythonRules(LanguageRules):
    family = "python"
    builtins = frozenset(dir(builtins))
    builtin_methods = frozenset(
        name for kind in (dict, list, str, bytes, set, tuple, int, float, io.IOBase, io.TextIOBase, io.BufferedIOBase,
                          pathlib.Path)
        for name in dir(kind) if not name.startswith("__")) | RUNTIME_METHODS
    builtin_callbacks = {"sorted": ("key",), "min": ("key",), "max": ("key",), "open": ("opener",),
                         "map": None, "filter": None, "iter": None}
    super_calls_base = True
    declaration_stubs = True
    imports_by_stem = True
    test_file_patterns = (r"_test\.py$", r"(^|/)conftest\.py$")
    tested_file_patterns = (r"^test_(.+)\.py$", r"^(.+)_test\.py$")
    package_stems = frozenset({"__init__"})
    package_markers = frozenset({"__init__.py"})
    export_files = frozenset({"__init__.py"})
    entry_files = {"__main__.py": 0, "main.py": 1, "cli.py": 1, "manage.py": 1, "app.py": 2, "server.py": 2,
                   "wsgi.py": 2, "asgi.py": 2}
    modules = PythonModules

    def module_bindings(self, module: str, alias: str | None) -> tuple[tuple[str, str], ...]:
        # `import a.b` binds `a` to the package a (a.b is then its attribute, and `a.b.f()` names the
        # module a.b); `import a.b as c` binds c to a.b.
        if alias:
            return ((alias, module),)
        head = module.split(".")[0]
        return ((head, head), (module, module)) if head != module else ((module, module),)

    def submodule_spec(self, attribute: str) -> str | None:
        return "." + attribute  # `pkg.sub` after `import pkg`: the module sub of pkg's package

    def declared_exports(self, path: Path) -> set[str] | None:
        try:
            with open(path, "rb") as fh:
                head = fh.read(DUNDER_ALL_HEAD).decode("utf-8", errors="replace")
        except OSError:
            return None
        lists = DUNDER_ALL.findall(head)
        if not lists:
            return None
        return {name for listed in lists for name in re.findall(r"""['"]([A-Za-z_]\w*)['"]""", listed)}

    def read_manifest(self, root: Path, found: Manifest) -> None:
        """pyproject.toml: [project] (or [tool.poetry]) name, description, scripts and gui-scripts."""
        text = read_text(root / "pyproject.toml")
        if not text:
            return
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            data = {}
        project = data.get("project", {}) if isinstance(data.get("project"), dict) else {}
        poetry = data.get("tool", {}).get("poetry", {}) if isinstance(data.get("tool"), dict) else {}
        found.name = found.name or project.get("name") or poetry.get("name")
        found.description = found.description or project.get("description") or poetry.get("description") or ""
        for table in (project.get("scripts"), project.get("gui-scripts"), poetry.get("scripts")):
            if isinstance(table, dict):
                found.scripts.update({k: v for k, v in table.items() if isinstance(v, str)})

    def script_location(self, target: str) -> tuple[tuple[str, ...], str] | None:
        if ":" not in target or "/" in target:
            return None
        module, _, attr = target.partition(":")
        stem = module.strip().replace(".", "/")
        paths = tuple(path for prefix in SOURCE_FOLDERS for path in (f"{prefix}{stem}.py", f"{prefix}{stem}/__init__.py"))
        return paths, attr.strip().split("[")[0].strip()


def import_roots(root: Path | None, top_folders: set[str]) -> tuple[str, ...]:
    """The folders a project's modules are imported from, by its layout: the packaging manifests'
    package folders (pyproject.toml's setuptools `where` and `package-dir`, setup.cfg's), and a
    top-level `src/` or `lib/`, even one that holds an `__init__.py` of its own."""
    found = [folder for folder in LAYOUT_ROOTS if folder in top_folders]
    if root is not None:
        found += _manifest_roots(root)
    return tuple(dict.fromkeys(f.strip("/").removeprefix("./") for f in found if f.strip("/. ")))


def _manifest_roots(root: Path) -> list[str]:
    out: list[str] = []
    text = read_text(root / "pyproject.toml")
    try:
        data = tomllib.loads(text) if text else {}
    except tomllib.TOMLDecodeError:
        data = {}
    setuptools = data.get("tool", {}).get("setuptools", {}) if isinstance(data.get("tool"), dict) else {}
    if isinstance(setuptools, dict):
        find = setuptools.get("packages", {})
        find = find.get("find", {}) if isinstance(find, dict) else {}
        where = find.get("where", []) if isinstance(find, dict) else []
        out += [w for w in (where if isinstance(where, list) else [where]) if isinstance(w, str)]
        package_dir = setuptools.get("package-dir", {})
        if isinstance(package_dir, dict) and isinstance(package_dir.get(""), str):
            out.append(package_dir[""])
    config = read_text(root / "setup.cfg")
    for match in re.finditer(r"^\s*(?:package_dir\s*=\s*\n?\s*=|where\s*=)\s*([\w./-]+)\s*$", config, re.M):
        out.append(match.group(1))
    return out


def package_root(path: str, package_dirs: set[str]) -> str:
    """The folder a file's top-level package sits in (its own folder when that is no package)."""
    root = posixpath.dirname(path)
    while root and root in package_dirs:
        root = posixpath.dirname(root)
    return root


def _importable_names(path: str, package_dirs: set[str], roots: Sequence[str], root: str) -> Iterable[str]:
    """The dotted names a Python file is importable by: from its package root (`root`: the parent of
    its top-level package), from each import root it is under, and from the repository root."""
    stem = path[: -len(posixpath.splitext(path)[1])]
    if posixpath.basename(stem) == "__init__":
        stem = posixpath.dirname(stem)
    full = stem.replace("/", ".")
    names = {full} if full else set()
    for folder in roots:
        if stem.startswith(folder + "/"):
            names.add(stem[len(folder) + 1:].replace("/", "."))
    if root and stem.startswith(root + "/"):
        names.add(stem[len(root) + 1:].replace("/", "."))
    return names
