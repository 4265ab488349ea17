"""What a JavaScript or TypeScript import names in the repository: a relative specifier (`./a`,
`./a.js` for a TypeScript source, `./dir` for its index file); a subpath import (`#utils/x`) through
the `imports` of the importer's own package.json; a specifier the nearest tsconfig.json
or jsconfig.json maps (`compilerOptions.paths` such as `"@/*": ["./src/*"]`, and `baseUrl`, through
relative `extends`); and the name of a package of the repository's own: the root's, or a workspace
package's (a folder the root's package.json `workspaces`, pnpm-workspace.yaml or lerna.json
declares), `@acme/utils` and `@acme/utils/strings`. Any other package name is external: a test
fixture's package.json named `react` does not make `react` the repository's."""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from graphctx.index.languages.base import read_text

# What a specifier may leave out, in the order tried: TypeScript sources before JavaScript ones.
JS_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
PATH_CONFIGS = ("tsconfig.json", "jsconfig.json")
# A package's entry in its package.json, in the order tried; a built one (dist/index.js) is looked
# for as the source it was built from (src/index.ts).
ENTRY_FIELDS = ("source", "types", "typings", "module", "main")
EXPORT_CONDITIONS = ("source", "types", "import", "default", "require", "node")
BUILD_FOLDERS = ("dist", "build", "lib", "out", "esm", "cjs")
MAX_EXTENDS = 5
_BUILT_EXTENSION = re.compile(r"\.(d\.ts|[cm]?[jt]sx?)$")
_PNPM_PACKAGES = re.compile(r"^packages:[ \t]*\n((?:[ \t]+[^\n]*\n?|[ \t]*\n)*)", re.M)
_YAML_ITEM = re.compile(r"^[ \t]*-[ \t]*['\"]?([^'\"\n#]+?)['\"]?[ \t]*(?:#.*)?$", re.M)
# In a JSON-with-comments file: a string (kept), a comment or a trailing comma (dropped).
_JSONC = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/|,(?=\s*[}\]])', re.S)


@dataclass
class PathConfig:
    """One tsconfig.json or jsconfig.json: `paths` patterns with their substitutions, made relative
    to the repository, and `base_url` (None when not set)."""

    paths: list[tuple[str, list[str]]] = field(default_factory=list)
    base_url: str | None = None


class JavaScriptPaths:
    """The repository's path configs and workspace packages, read once per module map."""

    def __init__(self, files: Mapping[str, object], root: Path | None):
        self.files = files
        self.root = root
        self.configs: dict[str, PathConfig] = {}  # folder -> its config
        self.packages: dict[str, str] = {}  # package name -> its folder (a name two packages bear: neither)
        self._manifests: dict[str, dict] = {}  # folder -> package.json: the workspace's, read at once
        self._others: dict[str, dict] = {}  # (another package.json, read when a subpath import asks)
        if root is None:
            return
        folders: dict[str, list[str]] = {}
        members = workspace_folders(root)
        read: dict[str, PathConfig] = {}  # (a base config many extend is read once)
        for path in files:
            name = posixpath.basename(path)
            if name in PATH_CONFIGS:
                folder = posixpath.dirname(path)
                if folder not in self.configs or name == "tsconfig.json":
                    self.configs[folder] = _path_config(root, path, read)
            elif name == "package.json" and members(posixpath.dirname(path)):
                folder = posixpath.dirname(path)
                manifest = self._manifests[folder] = _read_json(root, path)
                if isinstance(manifest.get("name"), str) and manifest["name"]:
                    folders.setdefault(manifest["name"], []).append(folder)
        self.packages = {name: found[0] for name, found in folders.items() if len(found) == 1}

    def resolve(self, importer: str, spec: str) -> list[str]:
        """The file a non-relative specifier names in the repository; [] for none (external)."""
        if spec.startswith("#"):  # a subpath import: the `imports` of the importer's own package.json
            return self._imported(importer, spec)
        config = self._nearest_config(importer)
        if config is not None:
            for stem in _mapped(config, spec):
                found = self.file(stem)
                if found:
                    return found
        name = _package_name(spec)
        if name not in self.packages:
            return []
        folder = self.packages[name]
        for stem in package_stems(self._manifests.get(folder, {}), spec[len(name):].strip("/")):
            found = self.file(posixpath.join(folder, stem))
            if found:
                return found
        return []

    def inside(self, importer: str, spec: str) -> bool:
        """Whether a specifier no file answers is still the repository's: a subpath import, one a
        `paths` pattern of the nearest config maps, or a path into one of its packages."""
        config = self._nearest_config(importer)
        mapped = config is not None and bool(_substituted(config, spec))
        return spec.startswith("#") or mapped or _package_name(spec) in self.packages

    def settings(self) -> object:
        """The path maps, the packages with their entries and the workspace's subpath imports, sorted
        (ModuleIndex.settings)."""
        packages = ((name, folder, package_stems(self._manifests.get(folder, {}), "")) for name, folder in self.packages.items())
        imports = ((folder, json.dumps(manifest.get("imports"), sort_keys=True)) for folder, manifest in self._manifests.items())
        return (sorted((folder, config.paths, config.base_url) for folder, config in self.configs.items()), sorted(packages),
                sorted(imports))

    def file(self, stem: str) -> list[str]:
        """The file a path names as an import does (module_files), the first there is."""
        return next(([c] for c in module_files(stem) if c in self.files), [])

    def _imported(self, importer: str, spec: str) -> list[str]:
        folder = posixpath.dirname(importer)
        while posixpath.join(folder, "package.json") not in self.files and folder:
            folder = posixpath.dirname(folder)
        if folder not in self._manifests and folder not in self._others and self.root is not None:
            self._others[folder] = _read_json(self.root, posixpath.join(folder, "package.json"))  # (outside the workspace)
        targets = _matched((self._manifests.get(folder) or self._others.get(folder) or {}).get("imports"), spec)
        return next((found for target in targets if (found := self.file(posixpath.join(folder, target)))), [])

    def _nearest_config(self, importer: str) -> PathConfig | None:
        folder = posixpath.dirname(importer)
        while True:
            if folder in self.configs:
                return self.configs[folder]
            if not folder:
                return None
            folder = posixpath.dirname(folder)


def workspace_folders(root: Path) -> Callable[[str], bool]:
    """Whether a folder holds a package of the repository's own: the root, or one its workspace
    globs name (`packages/*` one level, `apps/**` any depth; a `!` pattern leaves some out)."""
    manifest = _read_json(root, "package.json")
    declared = manifest.get("workspaces")
    declared = declared.get("packages") if isinstance(declared, dict) else declared
    patterns = [p for p in declared if isinstance(p, str)] if isinstance(declared, list) else []
    lerna = _read_json(root, "lerna.json").get("packages")
    patterns += [p for p in lerna if isinstance(p, str)] if isinstance(lerna, list) else []
    pnpm = _PNPM_PACKAGES.search(read_text(root / "pnpm-workspace.yaml"))
    patterns += _YAML_ITEM.findall(pnpm.group(1)) if pnpm else []
    keep = [_glob(p) for p in patterns if not p.startswith("!")]
    drop = [_glob(p[1:]) for p in patterns if p.startswith("!")]
    return lambda folder: folder == "" or (any(g.fullmatch(folder) for g in keep) and not any(g.fullmatch(folder) for g in drop))


def _glob(pattern: str) -> re.Pattern:
    pattern = pattern.strip().removeprefix("./").strip("/")
    parts = re.split(r"(\*\*/?|\*|\?)", pattern)
    return re.compile("".join({"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}.get(p, re.escape(p)) for p in parts))


def _mapped(config: PathConfig, spec: str) -> list[str]:
    """The repository paths a config maps a specifier to, in the order TypeScript tries them: the
    `paths` pattern's substitutions (_substituted), then `baseUrl`."""
    found = _substituted(config, spec)
    return [*found, posixpath.join(config.base_url, spec)] if config.base_url is not None else found


def _substituted(config: PathConfig, spec: str) -> list[str]:
    """The substitutions, in order, of the `paths` pattern with the longest prefix before its `*`
    that matches the specifier; [] when none does."""
    best, captured, substitutions = -1, "", []
    for pattern, targets in config.paths:
        prefix, star, suffix = pattern.partition("*")
        if not star:
            if spec == pattern and len(pattern) > best:
                best, captured, substitutions = len(pattern), "", targets
        elif spec.startswith(prefix) and spec.endswith(suffix) and len(spec) >= len(prefix) + len(suffix) \
                and len(prefix) > best:
            best, captured, substitutions = len(prefix), spec[len(prefix): len(spec) - len(suffix)], targets
    return [target.replace("*", captured, 1) for target in substitutions]


def module_files(stem: str) -> list[str]:
    """The files a path may name as an import does, in the order tried: itself, with an extension
    left out, its folder's index file; a TypeScript source imported as `.js`."""
    stem = posixpath.normpath(stem)
    ext = posixpath.splitext(stem)[1]
    found = [stem, *(stem + e for e in JS_EXTENSIONS), *(stem + "/index" + e for e in JS_EXTENSIONS)]
    if ext in JS_EXTENSIONS:
        found += [stem[: -len(ext)] + e for e in JS_EXTENSIONS]
    return found


def package_stems(manifest: dict, module: str) -> list[str]:
    """Where a package's module path ("" for the package itself) may be, relative to its folder, in
    the order tried: what its package.json's `exports` map it to (for the package itself, also
    its `source`, `types`, `module` or `main` entry), each also as the source a built file was made
    from (dist/index.js from src/index.ts); then the path itself, under src/ or lib/, or for the
    package itself index and src/index."""
    stems = []
    for entry in _exported(manifest.get("exports"), module) + (_entries(manifest) if not module else []):
        stem = _BUILT_EXTENSION.sub("", posixpath.normpath(entry).removeprefix("./"))
        head, _, rest = stem.partition("/")
        stems += [stem, f"src/{rest}"] if head in BUILD_FOLDERS and rest else [stem]
    fallback = [module, f"src/{module}", f"lib/{module}"] if module else ["index", "src/index"]
    return list(dict.fromkeys([*stems, *fallback]))


def _package_name(spec: str) -> str:
    """The package name a bare specifier starts with: `@scope/name` or `name`."""
    parts = spec.split("/")
    return "/".join(parts[:2]) if spec.startswith("@") and len(parts) > 1 else parts[0]


def _entries(manifest: dict) -> list[str]:
    return [manifest[key] for key in ENTRY_FIELDS if isinstance(manifest.get(key), str)]


def _exported(exports: object, module: str) -> list[str]:
    """The files a package.json `exports` maps a module path to ("" for the package itself): its
    `"./path"` key, or a `"./*"` pattern's, under the conditions tried in order."""
    if not isinstance(exports, dict) or not any(key.startswith(".") for key in exports):
        return _conditions(exports) if not module else []  # (the package itself: one entry, or conditions)
    return _matched(exports, f"./{module}" if module else ".")


def _matched(mapping: object, key: str) -> list[str]:
    """The files an `exports` or `imports` map gives `key` (`./button`, `#utils/x`): its own entry,
    or a `*` pattern's with the `*` filled in, under the conditions tried in order."""
    if not isinstance(mapping, dict):
        return []
    if key in mapping:
        return _conditions(mapping[key])
    for pattern, target in mapping.items():
        prefix, star, suffix = pattern.partition("*")
        if star and key.startswith(prefix) and key.endswith(suffix) and len(key) >= len(prefix) + len(suffix):
            captured = key[len(prefix): len(key) - len(suffix)]
            return [found.replace("*", captured) for found in _conditions(target)]
    return []


def _conditions(value: object) -> list[str]:
    """An export's files under the conditions tried in order (nested conditions included)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [found for key in EXPORT_CONDITIONS if key in value for found in _conditions(value[key])]
    return []


def _path_config(root: Path, path: str, read: dict[str, PathConfig], depth: int = 0) -> PathConfig:
    """A config's `paths` and `baseUrl`, its own over those of the config it extends (a relative
    `extends`: a package's shared config is not read), as repository paths."""
    data = _read_json(root, path, jsonc=True)
    folder = posixpath.dirname(path)
    base = PathConfig()
    extends = data.get("extends")
    for parent in (extends if isinstance(extends, list) else [extends]):
        if isinstance(parent, str) and parent.startswith(".") and depth < MAX_EXTENDS:
            parent_path = posixpath.normpath(posixpath.join(folder, parent))
            if not parent_path.endswith(".json"):
                parent_path += ".json"
            if parent_path not in read:
                read[parent_path] = _path_config(root, parent_path, read, depth + 1)
            inherited = read[parent_path]
            base = PathConfig(inherited.paths or base.paths,
                              inherited.base_url if inherited.base_url is not None else base.base_url)
    options = data.get("compilerOptions")
    options = options if isinstance(options, dict) else {}
    base_url = base.base_url
    if isinstance(options.get("baseUrl"), str):
        base_url = _inside(posixpath.join(folder, options["baseUrl"]))
    paths = options.get("paths")
    if isinstance(paths, dict):
        # (relative to baseUrl when set, else to the config that declares them)
        anchor = base_url if base_url is not None else folder
        return PathConfig([(pattern, [_inside(posixpath.join(anchor, t)) for t in targets if isinstance(t, str)])
                           for pattern, targets in paths.items() if isinstance(targets, list)], base_url)
    return PathConfig(base.paths, base_url)


def _inside(path: str) -> str:
    """A repository path, normalised; the root is ''."""
    path = posixpath.normpath(path)
    return "" if path == "." else path


def _read_json(root: Path, path: str, jsonc: bool = False) -> dict:
    text = read_text(root / path)
    if jsonc:
        text = _JSONC.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
