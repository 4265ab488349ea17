"""JavaScript's rules, which TypeScript and TSX share: the globals, relative module specifiers
(with index files and TypeScript sources imported as `.js`), `private` members, `.test`/`.spec`
file names and the package.json manifest with its `bin` and `main`."""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable
from pathlib import Path

from graphctx.index.languages.base import LanguageRules, Manifest, ModuleIndex, no_private_keyword, read_text

# What a specifier may leave out, in the order tried: TypeScript sources before JavaScript ones.
JS_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")


class JavaScriptModules(ModuleIndex):
    """Relative specifiers name files (`./a`, `./a.js`, `./dir` for its index file); a package name is external."""

    def resolve(self, importer: str, spec: str) -> list[str]:
        if not spec.startswith("."):
            return []  # a package name: external
        stem = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
        bare = stem[: -len(posixpath.splitext(stem)[1])] if posixpath.splitext(stem)[1] in JS_EXTENSIONS else None
        candidates = [stem, *(stem + e for e in JS_EXTENSIONS), *(stem + "/index" + e for e in JS_EXTENSIONS)]
        if bare:  # TypeScript sources imported as "./x.js"
            candidates += [bare + e for e in JS_EXTENSIONS]
        return next(([c] for c in candidates if c in self.files), [])


class JavaScriptRules(LanguageRules):
    family = "javascript"
    builtins = frozenset({
        "console", "Math", "JSON", "Object", "Array", "Promise", "Number", "String", "Boolean", "Date",
        "Symbol", "Reflect", "Map", "Set", "WeakMap", "Intl", "Error", "RegExp", "URL", "Buffer",
        "process", "globalThis", "window", "document", "parseInt", "parseFloat", "setTimeout",
        "clearTimeout", "setInterval", "clearInterval", "fetch", "structuredClone",
        "TypeError", "RangeError", "SyntaxError", "ReferenceError", "EvalError", "URIError", "AggregateError",
        "WeakSet", "WeakRef", "BigInt", "ArrayBuffer", "DataView", "Uint8Array", "TextEncoder", "TextDecoder",
        "AbortController", "queueMicrotask", "encodeURIComponent", "decodeURIComponent", "encodeURI",
        "decodeURI", "isNaN", "isFinite", "require", "module", "exports",
    })
    builtin_methods = frozenset({
        "push", "pop", "shift", "unshift", "slice", "splice", "map", "filter", "reduce", "forEach", "find",
        "findIndex", "some", "every", "includes", "indexOf", "join", "concat", "sort", "reverse", "keys",
        "values", "entries", "get", "set", "has", "delete", "clear", "add", "trim", "split", "replace",
        "toLowerCase", "toUpperCase", "startsWith", "endsWith", "toString", "then", "catch", "finally",
    })
    module_separator = "/"
    super_calls_base = True
    test_file_patterns = (r"\.(test|spec)\.[jt]sx?$",)
    tested_file_patterns = (r"^(.+)\.(?:test|spec)\.[jt]sx?$",)
    package_stems = frozenset({"index"})
    export_files = frozenset({"index.js", "index.mjs", "index.cjs", "index.jsx", "index.ts", "index.tsx"})
    entry_files = {"index.js": 2, "index.ts": 2, "main.js": 2, "main.ts": 2, "server.js": 2, "server.ts": 2,
                   "cli.js": 2, "cli.ts": 2}
    modules = JavaScriptModules

    def is_public(self, name: str, kind: str, signature: Callable[[], str]) -> bool:
        return no_private_keyword(signature())

    def read_manifest(self, root: Path, found: Manifest) -> None:
        """package.json: name, description, `bin` (one path or a table) and `main`."""
        text = read_text(root / "package.json")
        if not text:
            return
        try:
            data = json.loads(text)
        except ValueError:
            return
        if not isinstance(data, dict):
            return
        found.name = found.name or data.get("name")
        found.description = found.description or data.get("description") or ""
        bins = data.get("bin")
        if isinstance(bins, str):
            found.scripts[data.get("name") or "bin"] = bins
        elif isinstance(bins, dict):
            found.scripts.update({k: v for k, v in bins.items() if isinstance(v, str)})
        if isinstance(data.get("main"), str):
            found.scripts.setdefault("main", data["main"])
