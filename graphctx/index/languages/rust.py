"""Rust's rules: the prelude, module paths (`crate::`, `self::`, `super::`, child modules, the
crate's own name from its tests and binaries, read from Cargo.toml), `#[test]`-marked tests, `pub`
items and the Cargo.toml package name for the project."""

from __future__ import annotations

import posixpath
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path

from graphctx.index.languages.base import Files, LanguageRules, Manifest, ModuleIndex, read_text

CRATE_ROOTS = ("lib.rs", "main.rs")


class RustModules(ModuleIndex):
    """Every Rust file under its module path within its crate: the crate root is the nearest folder
    above it holding a lib.rs or main.rs, and a library crate is also named by its Cargo.toml."""

    def __init__(self, files: Files, own: Sequence[str], root: Path | None):
        super().__init__(files, own, root)
        roots = {posixpath.dirname(p) for p in own if posixpath.basename(p) in CRATE_ROOTS}
        self.by_module: dict[tuple[str, str], str] = {}  # (crate root, "a.b") -> path
        self.module_of: dict[str, tuple[str, str]] = {}
        for path in own:
            crate_root = _crate_root(path, roots)
            module = _module_path(path, crate_root)
            self.by_module[(crate_root, module)] = path
            self.module_of[path] = (crate_root, module)
        self.crates = _library_crates(root, own) if root is not None else {}

    def settings(self) -> object:
        return sorted(self.crates.items())

    def inside(self, importer: str, spec: str) -> bool:
        """A path from this crate (`crate::`, `self::`, `super::`) or one of the repository's crates."""
        head = spec.replace("::", ".").split(".")[0]
        return head in ("crate", "self", "super") or head in self.crates

    def resolve(self, importer: str, spec: str) -> list[str]:
        root, here = self.module_of.get(importer, ("", ""))
        parts = spec.replace("::", ".").split(".")
        base = here.split(".") if here else []
        if parts[0] == "crate":
            parts = parts[1:]
        elif parts[0] in ("self", "super"):
            while parts and parts[0] in ("self", "super"):
                if parts.pop(0) == "super" and base:
                    base.pop()
            parts = base + parts
        elif parts[0] in self.crates:  # the crate's tests and binaries name it
            root, parts = self.crates[parts[0]], parts[1:]
        else:  # `mod a;` / `use a::b`: a child module of this one first (Rust 2018), then from the root
            child = self.by_module.get((root, ".".join(base + parts)))
            if child:
                return [child]
        found = self.by_module.get((root, ".".join(parts)))
        return [found] if found else []


class RustRules(LanguageRules):
    family = "rust"
    builtins = frozenset({  # the standard crates, the prelude and the primitive types
        "std", "core", "alloc", "Vec", "String", "Box", "Option", "Result", "Some", "None", "Ok", "Err",
        "Default", "Iterator", "ToString", "str", "bool", "char", "f32", "f64", "i8", "i16", "i32", "i64",
        "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
    })
    module_separator = "::"
    module_path_heads = frozenset({"crate", "super"})  # `super.m()` is a module path here, not a base call
    marked_tests = True
    package_stems = frozenset({"mod"})
    export_files = frozenset({"lib.rs", "mod.rs"})
    entry_files = {"main.rs": 1}
    modules = RustModules

    def is_public(self, name: str, kind: str, signature: Callable[[], str]) -> bool:
        # A method's visibility is its impl's business (trait methods carry no `pub`).
        return kind == "method" or signature().startswith("pub")

    def read_manifest(self, root: Path, found: Manifest) -> None:
        """Cargo.toml: the package name names the project when no earlier manifest did."""
        text = read_text(root / "Cargo.toml")
        if not text or found.name:
            return
        try:
            package = tomllib.loads(text).get("package", {})
        except tomllib.TOMLDecodeError:
            return
        found.name = package.get("name") if isinstance(package, dict) else None


def _library_crates(root: Path, own: Sequence[str]) -> dict[str, str]:
    """Library crate name -> the folder of its lib.rs, named by the Cargo.toml beside that folder."""
    crates = {}
    for path in own:
        if posixpath.basename(path) != "lib.rs":
            continue
        folder = posixpath.dirname(path)
        try:
            manifest = tomllib.loads((root / posixpath.dirname(folder) / "Cargo.toml").read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        library = manifest.get("lib")
        package = manifest.get("package")
        name = (library.get("name") if isinstance(library, dict) else None) or (
            package.get("name") if isinstance(package, dict) else None)
        if isinstance(name, str):
            crates[name.replace("-", "_")] = folder
    return crates


def _crate_root(path: str, crate_roots: set[str]) -> str:
    directory = posixpath.dirname(path)
    while directory and directory not in crate_roots:
        directory = posixpath.dirname(directory)
    return directory


def _module_path(path: str, root: str) -> str:
    rel = path[len(root) + 1:] if root else path
    parts = rel[:-3].split("/")
    if parts[-1] in ("mod", "lib", "main"):
        parts.pop()
    return ".".join(parts)
