"""PHP's rules: namespaces spanning files (declared per file; `use A\\B\\C` imports the class C of
the namespace A\\B), the standard functions, members named through `$this->`, PHPUnit's
`*Test.php` files and `private` members."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from graphctx.index.languages.base import Files, LanguageRules, ModuleIndex, no_private_keyword


class PhpModules(ModuleIndex):
    """A namespace's files, by their namespace declaration."""

    def __init__(self, files: Files, own: Sequence[str], root: Path | None):
        super().__init__(files, own, root)
        self.namespaces: dict[str, list[str]] = defaultdict(list)
        for path in own:
            namespace = files[path][1]
            if namespace:
                self.namespaces[namespace.lstrip("\\")].append(path)

    def resolve(self, importer: str, spec: str) -> list[str]:
        return sorted(self.namespaces.get(spec.lstrip("\\"), ()))

    def package_files(self, path: str, package: str | None) -> Sequence[str] | None:
        return self.namespaces.get(package.lstrip("\\"), ()) if package else None


class PhpRules(LanguageRules):
    family = "php"
    builtins = frozenset({  # the functions and classes of PHP's core most code calls
        "strlen", "count", "sprintf", "printf", "implode", "explode", "array_map", "array_filter", "array_sum",
        "array_keys", "array_values", "array_merge", "in_array", "is_array", "is_string", "is_int", "isset", "empty",
        "round", "floor", "ceil", "abs", "max", "min", "intval", "floatval", "strval", "json_encode", "json_decode",
        "str_replace", "substr", "strtolower", "strtoupper", "trim", "var_dump", "print_r", "number_format",
        "Exception", "InvalidArgumentException", "RuntimeException", "DateTime", "DateTimeImmutable", "ArrayObject",
    })
    module_separator = "\\"
    needs_package = True
    test_file_patterns = (r"Test\.php$",)
    tested_file_patterns = (r"^(.+?)Test\.php$",)
    entry_files = {"index.php": 1}
    modules = PhpModules

    def is_public(self, name: str, kind: str, signature: Callable[[], str]) -> bool:
        return no_private_keyword(signature())
