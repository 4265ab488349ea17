"""The language registry: which file extensions belong to which language, the grammar wheel
that parses them, the query file in grammars/ that extracts facts from them, and the family whose
rules (graphctx/index/languages/) say what the facts' names mean. Adding a language is one entry
here, a grammar wheel, a `grammars/<name>.scm` and a rules object (see grammars/README.md). Every
other text file is known at file level (parse/textfiles.py)."""

from __future__ import annotations

import importlib
from importlib import resources
from dataclasses import dataclass
from functools import cache
from tree_sitter import Language, Parser, Query


@dataclass(frozen=True, slots=True)
class LanguageSpec:
    name: str  # also the query file's stem
    module: str  # the grammar wheel's module
    entry: str  # the function in that module that returns the language pointer
    extensions: tuple[str, ...]
    family: str = ""  # the rules it resolves names with, when another language's ("": its own)


LANGUAGES: tuple[LanguageSpec, ...] = (
    LanguageSpec("python", "tree_sitter_python", "language", (".py", ".pyi")),
    LanguageSpec("javascript", "tree_sitter_javascript", "language", (".js", ".jsx", ".mjs", ".cjs")),
    # TypeScript and TSX share JavaScript's module rules.
    LanguageSpec("typescript", "tree_sitter_typescript", "language_typescript", (".ts", ".mts", ".cts"), "javascript"),
    LanguageSpec("tsx", "tree_sitter_typescript", "language_tsx", (".tsx",), "javascript"),
    LanguageSpec("go", "tree_sitter_go", "language", (".go",)),
    LanguageSpec("rust", "tree_sitter_rust", "language", (".rs",)),
    LanguageSpec("java", "tree_sitter_java", "language", (".java",)),
    LanguageSpec("c", "tree_sitter_c", "language", (".c", ".h")),
    # C++ shares C's include rules; a .h header is read as C.
    LanguageSpec("cpp", "tree_sitter_cpp", "language", (".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".ipp"), "c"),
    LanguageSpec("csharp", "tree_sitter_c_sharp", "language", (".cs",)),
    LanguageSpec("ruby", "tree_sitter_ruby", "language", (".rb", ".rake", ".gemspec")),
    LanguageSpec("php", "tree_sitter_php", "language_php", (".php",)),
    LanguageSpec("kotlin", "tree_sitter_kotlin", "language", (".kt", ".kts")),
    LanguageSpec("swift", "tree_sitter_swift", "language", (".swift",)),
    LanguageSpec("scala", "tree_sitter_scala", "language", (".scala", ".sc")),
    LanguageSpec("bash", "tree_sitter_bash", "language", (".sh", ".bash")),
    LanguageSpec("lua", "tree_sitter_lua", "language", (".lua",)),
)

_BY_EXTENSION = {ext: spec for spec in LANGUAGES for ext in spec.extensions}
_FAMILY = {spec.name: spec.family or spec.name for spec in LANGUAGES}


def language_for_path(path: str) -> LanguageSpec | None:
    """The language of a file, judged by its extension, when graphctx parses it here (its grammar
    wheel is installed); None for a file known at file level only (parse/textfiles.py)."""
    spec = grammar_language(path)
    return spec if spec is not None and available(spec.name) else None


def grammar_language(path: str) -> LanguageSpec | None:
    """The registered language of a file's extension, whether or not its grammar is installed."""
    dot = path.rfind(".")
    return _BY_EXTENSION.get(path[dot:].lower()) if dot >= 0 else None


@cache
def available(name: str) -> bool:
    """Whether the grammar wheel of a registered language can be imported on this machine (a
    platform without a wheel for it skips the language, whose files are then known at file level)."""
    spec = next(s for s in LANGUAGES if s.name == name)
    try:
        return callable(getattr(importlib.import_module(spec.module), spec.entry, None))
    except ImportError:
        return False


def wheel_name(name: str) -> str:
    """The package that provides a language's grammar: tree_sitter_c_sharp -> tree-sitter-c-sharp."""
    return next(s for s in LANGUAGES if s.name == name).module.replace("_", "-")


def parsed_language_names() -> list[str]:
    """The languages graphctx parses here, for messages (TSX is TypeScript's)."""
    return list(dict.fromkeys("typescript" if s.name == "tsx" else s.name for s in LANGUAGES if available(s.name)))


def family(language: str) -> str:
    """The rules family of a language (typescript and tsx resolve like javascript); an unknown
    language is its own family."""
    return _FAMILY.get(language, language)


def source_extensions() -> tuple[str, ...]:
    """Every file extension graphctx parses (".py", ".tsx", ...), in registry order."""
    return tuple(_BY_EXTENSION)


@cache
def load(name: str) -> tuple[Language, Query]:
    """The tree-sitter language and compiled fact query of a registered language (cached per process)."""
    spec = next(s for s in LANGUAGES if s.name == name)
    language = Language(getattr(importlib.import_module(spec.module), spec.entry)())
    query_file = resources.files("graphctx.grammars") / f"{_query_stem(name)}.scm"
    return language, Query(language, query_file.read_text(encoding="utf-8"))


def _query_stem(name: str) -> str:
    # TSX uses the TypeScript query plus JSX; the TypeScript grammar is a superset of JavaScript's.
    return "typescript" if name == "tsx" else name


@cache
def parser(name: str) -> Parser:
    return Parser(load(name)[0])
