"""JavaScript's rules, which TypeScript and TSX share: the globals, relative module specifiers
(with index files and TypeScript sources imported as `.js`), `private` members, `.test`/`.spec`
file names and the package.json manifest with its `bin` and `main`."""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable, Sequence
from pathlib import Path

from graphctx.index.languages.base import Files, LanguageRules, Manifest, ModuleIndex, no_private_keyword, read_text
from graphctx.index.languages.jsmodules import JavaScriptPaths

class JavaScriptModules(ModuleIndex):
    """Relative specifiers name files, and so do the paths a tsconfig.json or jsconfig.json maps and
    the repository's own packages (jsmodules.py); any other package name is external."""

    def __init__(self, files: Files, own: Sequence[str], root: Path | None):
        super().__init__(files, own, root)
        self.paths = JavaScriptPaths(files, root)

    def settings(self) -> object:
        return self.paths.settings()

    def inside(self, importer: str, spec: str) -> bool:
        return spec.startswith(".") or self.paths.inside(importer, spec)  # (a relative path: ours, or nothing)

    def resolve(self, importer: str, spec: str) -> list[str]:
        if spec.startswith("."):
            return self.paths.file(posixpath.join(posixpath.dirname(importer), spec))
        return self.paths.resolve(importer, spec)


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
        # the web platform's and Node's globals (a fetch handler's `new Response()`, `localStorage`)
        "Response", "Request", "Headers", "FormData", "Blob", "File", "FileReader", "URLSearchParams", "crypto",
        "navigator", "location", "history", "localStorage", "sessionStorage", "alert", "confirm", "prompt",
        "performance", "requestAnimationFrame", "cancelAnimationFrame", "requestIdleCallback", "Event",
        "CustomEvent", "EventTarget", "MutationObserver", "IntersectionObserver", "ResizeObserver", "WebSocket",
        "Worker", "atob", "btoa", "Image", "matchMedia", "getComputedStyle", "ReadableStream", "WritableStream",
        "TransformStream", "BroadcastChannel", "MessageChannel", "AbortSignal", "__dirname", "__filename",
        "global", "setImmediate", "clearImmediate",
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
