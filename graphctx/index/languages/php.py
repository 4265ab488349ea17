"""PHP's rules: namespaces spanning files (declared per file; `use A\\B\\C` imports the class C of
the namespace A\\B), the standard functions, members named through `$this->`, PHPUnit's
`*Test.php` files and `private` members."""

from __future__ import annotations

from collections.abc import Callable

from graphctx.index.languages.base import LanguageRules, no_private_keyword
from graphctx.index.languages.packages import DeclaredPackages


class PhpModules(DeclaredPackages):
    """A namespace's files, by their namespace declaration (`App\\Shapes`)."""

    separator = "\\"


class PhpRules(LanguageRules):
    family = "php"
    super_calls_base = True  # parent::m() (parse reads that `parent` as super; a variable is `$parent`)
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
