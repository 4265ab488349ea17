"""Bash's rules: `source FILE` and `. FILE` bring a file's functions into scope (the path as
written, relative to the sourcing file or the repository root, with a leading `$(dirname "$0")`
or `$DIR` dropped), shell builtins are external, and `test_*.sh` and `*_test.sh` files hold
tests."""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from graphctx.index.languages.base import Files, LanguageRules, ModuleIndex

# $(dirname "$0")/, ${BASH_SOURCE%/*}/, $DIR/, "$ROOT"/ ...: where the script lives, or a root it sets
_LEADING_EXPANSION = re.compile(r'^(?:"?\$\([^)]*\)"?|"?\$\{[^}]*\}"?|"?\$\w+"?)/?')


class BashModules(ModuleIndex):
    """A sourced path names a file relative to the sourcing file, else the repository root, else
    the one file of the repository whose path ends with it."""

    def __init__(self, files: Files, own: Sequence[str], root: Path | None):
        super().__init__(files, own, root)
        self.own = set(own)
        self.by_name: dict[str, list[str]] = defaultdict(list)
        for path in own:
            self.by_name[posixpath.basename(path)].append(path)

    def resolve(self, importer: str, spec: str) -> list[str]:
        spec = _LEADING_EXPANSION.sub("", spec.strip().strip("\"'"))
        if not spec or "$" in spec:
            return []  # a path computed at run time
        for folder in (posixpath.dirname(importer), ""):
            path = posixpath.normpath(posixpath.join(folder, spec))
            if path in self.own:
                return [path]
        ending = [p for p in self.by_name.get(posixpath.basename(spec), ()) if p.endswith("/" + spec.lstrip("./"))]
        return ending if len(ending) == 1 else []


class BashRules(LanguageRules):
    family = "bash"
    undefined_names = "external"  # a command no function here defines runs a program from PATH
    builtins = frozenset({  # shell builtins and keywords run as commands
        "echo", "printf", "cd", "pwd", "set", "unset", "export", "local", "declare", "readonly", "typeset", "return",
        "exit", "test", "[", "[[", "read", "shift", "eval", "exec", "trap", "true", "false", "wait", "kill", "command",
        "type", "hash", "getopts", "alias", "unalias", "builtin", "let", "mapfile", "readarray", "pushd", "popd",
        "dirs", "shopt", "umask", "ulimit", "times", "jobs", "fg", "bg", "disown", "caller", "compgen", "complete",
    })
    module_separator = "/"
    test_file_patterns = (r"_test\.(sh|bash)$",)
    tested_file_patterns = (r"^test_(.+)\.(?:sh|bash)$", r"^(.+)_test\.(?:sh|bash)$")
    modules = BashModules
