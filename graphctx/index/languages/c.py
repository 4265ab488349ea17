"""C's and C++'s rules: `#include` brings a header's names into scope, and with them the names of
the source file that implements it (`vec.h` -> `vec.c`), since a prototype is not an entity; the
C library and `std::` are external; `static` functions are private; class members are named
without `this->`; `test_*.c` / `*_test.cpp` files hold tests."""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from graphctx.index.languages.base import Files, LanguageRules, ModuleIndex

HEADER_EXTENSIONS = (".h", ".hh", ".hpp", ".hxx", ".ipp")
SOURCE_EXTENSIONS = (".c", ".cc", ".cpp", ".cxx", ".c++")


class CModules(ModuleIndex):
    """An include names a file relative to the including file, else the one file of the repository
    whose path ends with it (an include folder on the compiler's path); a header stands for itself
    and the source files beside it with its stem."""

    def __init__(self, files: Files, own: Sequence[str], root: Path | None):
        super().__init__(files, own, root)
        self.own = set(own)
        self.by_name: dict[str, list[str]] = defaultdict(list)
        self.by_stem: dict[str, list[str]] = defaultdict(list)
        for path in own:
            self.by_name[posixpath.basename(path)].append(path)
            stem, ext = posixpath.splitext(path)
            if ext in SOURCE_EXTENSIONS:
                self.by_stem[posixpath.basename(stem)].append(path)

    def resolve(self, importer: str, spec: str) -> list[str]:
        near = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
        if near in self.own:
            headers = [near]
        else:
            headers = [p for p in self.by_name.get(posixpath.basename(spec), ()) if p == spec or p.endswith("/" + spec)]
        return sorted({path for header in headers for path in (header, *self._implementations(header))})

    def _implementations(self, header: str) -> list[str]:
        stem, ext = posixpath.splitext(header)
        if ext not in HEADER_EXTENSIONS:
            return []
        beside = [stem + e for e in SOURCE_EXTENSIONS if stem + e in self.own]
        if beside:
            return beside
        # include/geo/vec.h implemented by src/vec.c: the only source file of that stem
        same_stem = self.by_stem.get(posixpath.basename(stem), [])
        return same_stem if len(same_stem) == 1 else []


class CRules(LanguageRules):
    family = "c"
    builtins = frozenset({  # the C library most code calls, and C++'s std namespace
        "printf", "fprintf", "sprintf", "snprintf", "vprintf", "vfprintf", "vsnprintf", "puts", "fputs", "putchar",
        "fputc", "getchar", "fgets", "fgetc", "scanf", "sscanf", "fscanf", "fopen", "fclose", "fread", "fwrite",
        "fflush", "fseek", "ftell", "perror", "malloc", "calloc", "realloc", "free", "memcpy", "memmove", "memset",
        "memcmp", "strlen", "strcmp", "strncmp", "strcpy", "strncpy", "strcat", "strncat", "strchr", "strrchr",
        "strstr", "strdup", "strtok", "strtol", "strtoul", "strtod", "atoi", "atol", "atof", "abs", "labs", "exit",
        "abort", "atexit", "getenv", "qsort", "bsearch", "rand", "srand", "time", "clock", "assert", "sqrt", "pow",
        "fabs", "floor", "ceil", "round", "sin", "cos", "tan", "atan2", "exp", "log", "log10", "fmin", "fmax",
        "isalpha", "isdigit", "isspace", "isalnum", "isupper", "islower", "toupper", "tolower", "errno", "std",
    })
    module_separator = "/"
    members_in_scope = True  # C++: a class's fields and methods are named without this->
    test_file_patterns = (r"_test\.(c|cc|cpp|cxx)$",)
    tested_file_patterns = (r"^test_(.+)\.(?:c|cc|cpp|cxx)$", r"^(.+)_test\.(?:c|cc|cpp|cxx)$")
    entry_files = {"main.c": 1, "main.cpp": 1, "main.cc": 1}
    modules = CModules

    def is_public(self, name: str, kind: str, signature: Callable[[], str]) -> bool:
        return not signature().lstrip().startswith("static ")
