"""The language rules registry: what the index, the context engine and the onboarding packet know
about each language family beyond its grammar (builtins, module naming and import resolution,
test-file names, manifests, visibility), one rules object per family. `parse.languages` says how a
file is parsed and which family it belongs to; `rules_for` says what its names mean. The rest of
the code asks these objects and never branches on a language's name."""

from __future__ import annotations

from pathlib import Path

from graphctx.index.languages.base import LanguageRules, Manifest, ModuleIndex
from graphctx.index.languages.bash import BashRules
from graphctx.index.languages.c import CRules
from graphctx.index.languages.csharp import CSharpRules
from graphctx.index.languages.go import GoRules
from graphctx.index.languages.java import JavaRules
from graphctx.index.languages.javascript import JavaScriptRules
from graphctx.index.languages.kotlin import KotlinRules
from graphctx.index.languages.lua import LuaRules
from graphctx.index.languages.php import PhpRules
from graphctx.index.languages.python import PythonRules
from graphctx.index.languages.ruby import RubyRules
from graphctx.index.languages.rust import RustRules
from graphctx.index.languages.scala import ScalaRules
from graphctx.index.languages.swift import SwiftRules
from graphctx.parse.languages import LANGUAGES, family

# One per family. Manifests are read in this order, so the first project name found is Python's,
# then package.json's, Cargo.toml's and go.mod's.
RULES: tuple[LanguageRules, ...] = (
    PythonRules(), JavaScriptRules(), RustRules(), GoRules(), JavaRules(), CRules(), CSharpRules(), RubyRules(), PhpRules(), KotlinRules(), SwiftRules(), ScalaRules(), BashRules(), LuaRules(),
)
DEFAULT_RULES = LanguageRules()  # a language without rules: nothing beyond the language-neutral defaults
_BY_FAMILY = {rules.family: rules for rules in RULES}


def rules_for(language: str) -> LanguageRules:
    """The rules of a language (a family's name works too), or the neutral defaults."""
    return _BY_FAMILY.get(family(language), DEFAULT_RULES)


def read_manifests(root: Path) -> Manifest:
    """The project's name, description and declared scripts, from every family's manifest at the root."""
    found = Manifest()
    for rules in RULES:
        rules.read_manifest(root, found)
    return found


def package_languages() -> tuple[str, ...]:
    """The languages whose module index needs each file's package declaration (Java)."""
    return tuple(spec.name for spec in LANGUAGES if rules_for(spec.name).needs_package)


__all__ = ["DEFAULT_RULES", "RULES", "LanguageRules", "Manifest", "ModuleIndex", "package_languages",
           "read_manifests", "rules_for"]
