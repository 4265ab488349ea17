"""Ruby's rules: `require` and `require_relative` load a file (relative to the requiring file,
then the load path `lib/`, then the repository root, then the one `lib/` folder below that holds
it), Kernel and the core classes are external, methods are called without `self.`, and
`*_test.rb` / `*_spec.rb` files hold tests."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from pathlib import Path

from graphctx.index.languages.base import Files, LanguageRules, ModuleIndex

LOAD_PATH = ("lib", "")  # where `require "x/y"` looks, after the requiring file's own folder


class RubyModules(ModuleIndex):
    """A required name is a file: `x/y` is `x/y.rb` beside the requiring file or on the load path;
    a gem is external."""

    def __init__(self, files: Files, own: Sequence[str], root: Path | None):
        super().__init__(files, own, root)
        self.own = set(own)

    def resolve(self, importer: str, spec: str) -> list[str]:
        name = spec if spec.endswith(".rb") else spec + ".rb"
        for folder in (posixpath.dirname(importer), *LOAD_PATH):
            path = posixpath.normpath(posixpath.join(folder, name))
            if path in self.own:
                return [path]
        # a project below the repository root (a monorepo): its lib/ is on its own load path
        ending = [p for p in self.own if p.endswith("/lib/" + name)]
        return ending if len(ending) == 1 else []


class RubyRules(LanguageRules):
    family = "ruby"
    builtins = frozenset({  # Kernel's methods and the core and standard library classes
        "puts", "print", "p", "pp", "raise", "format", "sprintf", "printf", "loop", "lambda", "proc", "rand", "sleep",
        "gets", "catch", "throw", "block_given?", "freeze", "binding", "caller", "exit", "abort", "at_exit", "warn",
        "Integer", "Float", "String", "Array", "Hash", "Rational", "Complex", "Math", "File", "Dir", "IO", "Time",
        "Kernel", "Struct", "Comparable", "Enumerable", "Set", "JSON", "YAML", "Logger", "Object", "Class", "Module",
        "StandardError", "ArgumentError", "RuntimeError", "TypeError", "KeyError", "NotImplementedError", "Process",
    })
    members_in_scope = True  # a class's methods are called without self.
    test_file_patterns = (r"_test\.rb$", r"_spec\.rb$")
    tested_file_patterns = (r"^(.+)_test\.rb$", r"^(.+)_spec\.rb$", r"^test_(.+)\.rb$")
    entry_files = {"main.rb": 1, "app.rb": 2, "config.ru": 2}
    modules = RubyModules
