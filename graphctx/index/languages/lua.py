"""Lua's rules: `require("a.b")` names `a/b.lua` or `a/b/init.lua` under the repository root or
its `lua/`, `src/` or `lib/` folder (else the one file of the repository whose path ends so), the
standard library is external, and `*_spec.lua`, `*_test.lua` and `test_*.lua` files hold tests."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from graphctx.index.languages.base import Files, LanguageRules, ModuleIndex

SEARCH_ROOTS = ("", "lua/", "src/", "lib/")  # package.path's usual entries in a repository


class LuaModules(ModuleIndex):
    """A module name is a dotted path from one of the search roots."""

    def __init__(self, files: Files, own: Sequence[str], root: Path | None):
        super().__init__(files, own, root)
        self.own = set(own)

    def resolve(self, importer: str, spec: str) -> list[str]:
        stem = spec.replace(".", "/")
        for base in SEARCH_ROOTS:
            for path in (f"{base}{stem}.lua", f"{base}{stem}/init.lua"):
                if path in self.own:
                    return [path]
        # a project below the repository root (a monorepo): the one file whose path ends with the name
        ending = [p for p in self.own if p.endswith((f"/{stem}.lua", f"/{stem}/init.lua"))]
        return ending if len(ending) == 1 else []


class LuaRules(LanguageRules):
    family = "lua"
    builtins = frozenset({  # the base library and the standard tables
        "print", "pairs", "ipairs", "type", "tostring", "tonumber", "setmetatable", "getmetatable", "require",
        "error", "assert", "pcall", "xpcall", "select", "next", "rawget", "rawset", "rawequal", "rawlen", "unpack",
        "load", "loadfile", "dofile", "collectgarbage", "table", "string", "math", "os", "io", "coroutine", "debug",
        "utf8", "package",
    })
    test_file_patterns = (r"_spec\.lua$", r"_test\.lua$")
    tested_file_patterns = (r"^(.+)_spec\.lua$", r"^(.+)_test\.lua$", r"^test_(.+)\.lua$")
    package_stems = frozenset({"init"})
    entry_files = {"main.lua": 1, "init.lua": 2}
    modules = LuaModules
