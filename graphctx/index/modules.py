"""Maps an import as written to the repository files it names, per language family: Python
packages and relative imports, JS/TS relative specifiers, Go import paths (through go.mod),
Java packages and Rust paths (`crate::`, `super::`, child modules, the crate's own name from tests
and binaries). An empty answer means the import is external."""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Iterable

from graphctx.parse.languages import family

JS_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")


class ModuleMap:
    """Every source file under the module names its language gives it."""

    def __init__(self, files: dict[str, tuple[str, str | None]], go_modules: dict[str, str] | None = None,
                 rust_crates: dict[str, str] | None = None):
        """`files`: path -> (language, package); `go_modules`: go.mod folder -> module path;
        `rust_crates`: library crate name -> the folder of its lib.rs."""
        self.files = files
        self.go_modules = go_modules or {}
        self.rust_crates = rust_crates or {}
        self.python: dict[str, list[str]] = defaultdict(list)
        self.go_dirs: dict[str, list[str]] = defaultdict(list)
        self.java_packages: dict[str, list[str]] = defaultdict(list)
        self.rust: dict[tuple[str, str], str] = {}  # (crate root, "a.b") -> path
        self.rust_module_of: dict[str, tuple[str, str]] = {}
        self.python_module_of: dict[str, str] = {}
        py_paths = [p for p, (lang, _) in files.items() if lang == "python"]
        package_dirs = {posixpath.dirname(p) for p in py_paths if posixpath.basename(p) == "__init__.py"}
        crate_roots = {
            posixpath.dirname(p) for p, (lang, _) in files.items()
            if lang == "rust" and posixpath.basename(p) in ("lib.rs", "main.rs")
        }
        for path, (language, package) in files.items():
            fam = family(language)
            if fam == "python":
                names = _python_names(path, package_dirs)
                for name in names:
                    self.python[name].append(path)
                self.python_module_of[path] = min(names, key=len, default="")
            elif fam == "go":
                self.go_dirs[posixpath.dirname(path)].append(path)
            elif fam == "java" and package:
                self.java_packages[package].append(path)
            elif fam == "rust":
                root = _crate_root(path, crate_roots)
                module = _rust_module(path, root)
                self.rust[(root, module)] = path
                self.rust_module_of[path] = (root, module)

    def resolve(self, importer: str, module: str) -> list[str]:
        """Files that `module`, imported from the file `importer`, names; [] when outside the repository."""
        fam = family(self.files[importer][0]) if importer in self.files else "python"
        if fam == "python":
            return self._python(importer, module)
        if fam == "javascript":
            return self._javascript(importer, module)
        if fam == "go":
            return self._go(module)
        if fam == "java":
            return self._java(module)
        if fam == "rust":
            return self._rust(importer, module)
        return []

    def _python(self, importer: str, module: str) -> list[str]:
        if not module.startswith("."):
            return self.python.get(module, [])
        level = len(module) - len(module.lstrip("."))
        base = posixpath.dirname(importer)
        for _ in range(level - 1):
            base = posixpath.dirname(base)
        rest = module[level:].replace(".", "/")
        stem = posixpath.join(base, rest) if rest else base
        return [p for p in (stem + ".py", stem + "/__init__.py", stem + ".pyi") if p in self.files][:1]

    def _javascript(self, importer: str, spec: str) -> list[str]:
        if not spec.startswith("."):
            return []  # a package name: external
        stem = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
        bare = stem[: -len(posixpath.splitext(stem)[1])] if posixpath.splitext(stem)[1] in JS_EXTENSIONS else None
        candidates = [stem, *(stem + e for e in JS_EXTENSIONS), *(stem + "/index" + e for e in JS_EXTENSIONS)]
        if bare:  # TypeScript sources imported as "./x.js"
            candidates += [bare + e for e in JS_EXTENSIONS]
        return next(([c] for c in candidates if c in self.files), [])

    def _java(self, name: str) -> list[str]:
        """A package's files, or the file of a class (`import static a.b.C.m` names the class a.b.C)."""
        if name in self.java_packages:
            return sorted(self.java_packages[name])
        package, _, cls = name.rpartition(".")
        return sorted(p for p in self.java_packages.get(package, ()) if posixpath.basename(p) == cls + ".java")

    def _go(self, import_path: str) -> list[str]:
        for mod_dir, mod_path in self.go_modules.items():
            if import_path == mod_path or import_path.startswith(mod_path + "/"):
                sub = import_path[len(mod_path) + 1:]
                return _go_package(self.go_dirs.get(posixpath.join(mod_dir, sub).strip("/") if sub else mod_dir, ()))
        if self.go_modules:
            return []  # a module is declared and this path is not in it: external
        matches = [d for d in self.go_dirs if d and (import_path == d or import_path.endswith("/" + d))]
        return _go_package(self.go_dirs[max(matches, key=len)]) if matches else []

    def _rust(self, importer: str, path: str) -> list[str]:
        root, here = self.rust_module_of.get(importer, ("", ""))
        parts = path.replace("::", ".").split(".")
        base = here.split(".") if here else []
        if parts[0] == "crate":
            parts = parts[1:]
        elif parts[0] in ("self", "super"):
            while parts and parts[0] in ("self", "super"):
                if parts.pop(0) == "super" and base:
                    base.pop()
            parts = base + parts
        elif parts[0] in self.rust_crates:  # the crate's tests and binaries name it
            root, parts = self.rust_crates[parts[0]], parts[1:]
        else:  # `mod a;` / `use a::b`: a child module of this one first (Rust 2018), then from the root
            child = self.rust.get((root, ".".join(base + parts)))
            if child:
                return [child]
        found = self.rust.get((root, ".".join(parts)))
        return [found] if found else []

    def module_name(self, path: str) -> str:
        """The dotted name a file is known by to its language ("" when it has none)."""
        if path in self.python_module_of:
            return self.python_module_of[path]
        return self.rust_module_of.get(path, ("", ""))[1]


def _python_names(path: str, package_dirs: set[str]) -> Iterable[str]:
    """The dotted names a Python file is importable by: from its top-level package's parent, and from the repository root."""
    stem = path[: -len(posixpath.splitext(path)[1])]
    if posixpath.basename(stem) == "__init__":
        stem = posixpath.dirname(stem)
    full = stem.replace("/", ".")
    names = {full} if full else set()
    directory = posixpath.dirname(path)
    root = directory
    while root and root in package_dirs:
        root = posixpath.dirname(root)
    if root and stem.startswith(root + "/"):
        names.add(stem[len(root) + 1:].replace("/", "."))
    return names


def _go_package(paths: Iterable[str]) -> list[str]:
    """The files an importer of a Go package sees: its _test.go files are not part of it."""
    return sorted(p for p in paths if not p.endswith("_test.go"))


def _crate_root(path: str, crate_roots: set[str]) -> str:
    directory = posixpath.dirname(path)
    while directory and directory not in crate_roots:
        directory = posixpath.dirname(directory)
    return directory


def _rust_module(path: str, root: str) -> str:
    rel = path[len(root) + 1:] if root else path
    stem = rel[:-3]
    parts = stem.split("/")
    if parts[-1] in ("mod", "lib", "main"):
        parts.pop()
    return ".".join(parts)
