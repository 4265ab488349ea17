"""What graphctx knows of a text file it has no grammar for (configuration, documentation, build
files, scripts in other languages): its language guessed from its name or extension, its size and
lines, and its first heading or comment as its doc, so that search and file context know it
exists. Which files are binary by their extension is decided here too. Pure: no disk."""

from __future__ import annotations

import posixpath
import re

from graphctx.parse.facts import FileFacts
from graphctx.parse.languages import LANGUAGES

TEXT = "text"  # the language of a text file nothing more is known of
DOC_HEAD_BYTES = 16384  # where a file's first heading or comment is looked for
MAX_DOC = 300

# By whole file name (lower case): build and configuration files with no telling extension.
BY_NAME: dict[str, str] = {
    "dockerfile": "dockerfile", "containerfile": "dockerfile", "makefile": "makefile", "gnumakefile": "makefile",
    "cmakelists.txt": "cmake", "rakefile": "ruby", "gemfile": "ruby", "podfile": "ruby", "vagrantfile": "ruby",
    "jenkinsfile": "groovy", "procfile": "procfile", "justfile": "just", "license": TEXT, "copying": TEXT,
    "notice": TEXT, "authors": TEXT, "codeowners": TEXT, ".gitignore": "gitignore", ".dockerignore": "gitignore",
    ".gitattributes": "gitattributes", ".editorconfig": "ini", ".env": "dotenv", "build": "starlark",
    "workspace": "starlark",
}
# By extension: markup, data, configuration, and programming languages with no grammar here.
BY_EXTENSION: dict[str, str] = {
    ".md": "markdown", ".markdown": "markdown", ".mdx": "markdown", ".rst": "restructuredtext", ".adoc": "asciidoc",
    ".txt": TEXT, ".text": TEXT, ".org": "org",
    ".json": "json", ".jsonc": "json", ".json5": "json", ".jsonl": "json", ".ndjson": "json", ".geojson": "json",
    ".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".ini": "ini", ".cfg": "ini", ".conf": "ini",
    ".properties": "properties", ".env": "dotenv", ".xml": "xml", ".xsd": "xml", ".xsl": "xml", ".plist": "xml",
    ".csproj": "xml", ".fsproj": "xml", ".vbproj": "xml", ".props": "xml", ".targets": "xml", ".svg": "svg",
    ".html": "html", ".htm": "html", ".xhtml": "html", ".css": "css", ".scss": "scss", ".sass": "sass",
    ".less": "less", ".csv": "csv", ".tsv": "csv", ".sql": "sql", ".graphql": "graphql", ".gql": "graphql",
    ".proto": "protobuf", ".thrift": "thrift", ".avsc": "json", ".tf": "terraform", ".tfvars": "terraform",
    ".hcl": "hcl", ".nix": "nix", ".cmake": "cmake", ".mk": "makefile", ".mak": "makefile", ".gradle": "groovy",
    ".dockerfile": "dockerfile", ".bzl": "starlark", ".bazel": "starlark", ".j2": "jinja", ".jinja": "jinja",
    ".jinja2": "jinja", ".tmpl": "template", ".tpl": "template", ".hbs": "handlebars", ".mustache": "mustache",
    ".ejs": "ejs", ".erb": "erb", ".haml": "haml", ".pug": "pug", ".liquid": "liquid", ".tex": "latex",
    ".bib": "bibtex", ".diff": "diff", ".patch": "diff", ".po": "gettext", ".pot": "gettext", ".lock": "lockfile",
    ".m": "objective-c", ".mm": "objective-c", ".groovy": "groovy", ".clj": "clojure", ".cljs": "clojure",
    ".pl": "perl", ".pm": "perl", ".r": "r", ".jl": "julia", ".dart": "dart", ".ex": "elixir", ".exs": "elixir",
    ".erl": "erlang", ".hrl": "erlang", ".hs": "haskell", ".ml": "ocaml", ".mli": "ocaml", ".fs": "f#",
    ".fsx": "f#", ".zig": "zig", ".nim": "nim", ".vue": "vue", ".svelte": "svelte", ".astro": "astro",
    ".zsh": "shell", ".fish": "shell", ".ksh": "shell", ".bats": "shell", ".ps1": "powershell", ".psm1": "powershell",
    ".bat": "batch", ".cmd": "batch", ".f90": "fortran", ".f": "fortran", ".pas": "pascal", ".sol": "solidity",
    ".v": "verilog", ".sv": "verilog", ".vhd": "vhdl", ".asm": "assembly", ".s": "assembly", ".cu": "cuda",
    ".glsl": "glsl", ".hlsl": "hlsl", ".wgsl": "wgsl", ".elm": "elm", ".purs": "purescript", ".cr": "crystal",
    ".d": "d", ".vb": "visual-basic", ".cob": "cobol", ".lisp": "lisp", ".el": "emacs-lisp", ".scm": "scheme",
    ".rkt": "racket", ".tcl": "tcl", ".awk": "awk", ".sed": "sed", ".vim": "vim", ".ipynb": "jupyter",
}
# Formats that are binary whatever their content says first: skipped by name, never read.
BINARY_EXTENSIONS = frozenset({
    ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".icns", ".webp", ".tif", ".tiff", ".psd", ".heic", ".avif",
    ".pdf", ".zip", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".tar", ".jar", ".war", ".aar", ".apk",
    ".class", ".so", ".dylib", ".dll", ".exe", ".o", ".a", ".lib", ".obj", ".pyc", ".pyo", ".pyd", ".whl", ".egg",
    ".woff", ".woff2", ".ttf", ".otf", ".eot", ".mp3", ".mp4", ".m4a", ".wav", ".ogg", ".flac", ".mov", ".avi",
    ".mkv", ".webm", ".db", ".sqlite", ".sqlite3", ".npy", ".npz", ".pkl", ".pickle", ".parquet", ".h5", ".hdf5",
    ".onnx", ".pt", ".pth", ".ckpt", ".safetensors", ".wasm", ".bin", ".dat", ".dmg", ".iso", ".keystore",
})
_DEEP_BY_EXTENSION = {ext: spec.name for spec in LANGUAGES for ext in spec.extensions}
# A heading: Markdown `# Title`, reStructuredText or setext underlines, an HTML <title> or <h1>
_ATX = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_SETEXT = re.compile(r"^\s*(=+|-+|~+|\^+|\*+)\s*$")
_HTML_TITLE = re.compile(r"<(?:title|h1)[^>]*>\s*([^<]+?)\s*</", re.I)
# A comment line: #, //, --, ;, %, or a block comment's opening line (/* ... , <!-- ... , {- ... )
_LINE_COMMENT = re.compile(r"^\s*(?:#(?!!)|//+|--|;+|%|REM\s|::)\s?(.*)$", re.I)
_BLOCK_COMMENT = re.compile(r"^\s*(?:/\*+|<!--|\{-|\(\*)\s?(.*?)\s*(?:\*+/|-->|-\}|\*\))?\s*$")
_DIRECTIVE = re.compile(r"^(?:[\w-]+=\S*|-\*-.*-\*-|vim?:.*)$")  # syntax=docker/dockerfile:1, -*- coding -*-
PROSE = frozenset({"markdown", "restructuredtext", "asciidoc", "org", TEXT})  # documents, read by their headings


def file_language(path: str) -> str:
    """The language of a file judged by its name, then its extension; `text` when neither tells."""
    name = posixpath.basename(path).lower()
    if name in BY_NAME:
        return BY_NAME[name]
    stem, ext = posixpath.splitext(name)
    if ext in _DEEP_BY_EXTENSION:  # a language whose grammar is not installed here
        return _DEEP_BY_EXTENSION[ext]
    if ext in BY_EXTENSION:
        return BY_EXTENSION[ext]
    if stem in BY_NAME and ext in (".in", ".template", ".example", ".sample", ".dist"):  # Makefile.in
        return BY_NAME[stem]
    return TEXT


def is_binary_name(path: str) -> bool:
    """Whether a file's extension names a binary format (image, archive, font, compiled code, data)."""
    return posixpath.splitext(path)[1].lower() in BINARY_EXTENSIONS


def text_facts(path: str, language: str, data: bytes) -> FileFacts:
    """A file known at file level: its lines and its first heading or comment, and nothing inside."""
    head = data[:DOC_HEAD_BYTES].decode("utf-8", "replace")
    return FileFacts(path, language, lines=data.count(b"\n") + 1, doc=first_heading(head, language)[:MAX_DOC])


def first_heading(text: str, language: str) -> str:
    """The first heading of a document, else its first comment, else (for prose) its first line."""
    lines = text.splitlines()
    if language in PROSE or language in ("html", "svg", "xml"):
        heading = _heading(lines)
        if heading:
            return heading
        title = _HTML_TITLE.search(text)
        if title:
            return title.group(1)
    comment = _comment(lines)
    if comment or language not in PROSE:
        return comment
    return next((line.strip() for line in lines if line.strip()), "")


def _heading(lines: list[str]) -> str:
    in_front_matter = bool(lines) and lines[0].strip() == "---"
    for i, line in enumerate(lines):
        if in_front_matter:  # YAML front matter: its title, else skip it
            if i and line.strip() == "---":
                in_front_matter = False
            elif line.lower().startswith("title:"):
                return line.split(":", 1)[1].strip().strip("\"'")
            continue
        atx = _ATX.match(line)
        if atx:
            return atx.group(1)
        if i + 1 < len(lines) and line.strip() and _SETEXT.match(lines[i + 1]) and not _SETEXT.match(line):
            return line.strip()
    return ""


def _comment(lines: list[str]) -> str:
    """The text of the first comment in the file's opening lines (a shebang is no comment)."""
    for line in lines[:40]:
        if not line.strip() or line.startswith("#!"):
            continue
        for pattern in (_BLOCK_COMMENT, _LINE_COMMENT):
            match = pattern.match(line)
            raw = match.group(1).strip() if match else ""
            text = raw.strip(" -=*#/")
            if text and not _DIRECTIVE.match(raw):
                return text
        if not (_LINE_COMMENT.match(line) or _BLOCK_COMMENT.match(line)):
            return ""  # code or data came first: the file opens with no comment
    return ""
