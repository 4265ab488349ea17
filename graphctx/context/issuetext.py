"""What of an issue's text speaks of the code. A tracker's markup does not: an HTML comment (a
template's instructions, which nobody reading the issue sees), the attributes of an HTML tag (a
pasted screenshot is `<img width="528" alt="..." src="https://...png">`), the address of a
Markdown image, and the words of a link's address (hosts, user names, slugs), which match code by
chance. Nor does a listing of installed versions (`xr.show_versions()`, `pip freeze`): it names every
package the project wraps. A link to a file of a repository (`.../blob/<ref>/src/pkg/mod.py#L12`) says
which file, and at a commit which line: it becomes `src/pkg/mod.py:12`, which the seeds read as a path
and a line. Nor does a code fence's info string (```julia, ```shell, ```python: the language the
block is in, and in sympy `julia` and `python` name printers), nor the lines of the repository's
issue templates (templates.py)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from graphctx.context import templates

if TYPE_CHECKING:
    from graphctx.graph.loader import CodeGraph

_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]{0,30}(?:\s[^<>]{0,2000})?/?>")
_IMAGE = re.compile(r"!\[([^\[\]\n]{0,500})\]\([^)\s]{0,2000}\)")
_LINK = re.compile(r"https?://[^\s<>()\[\]`'\"]{1,2000}")
# .../blob/<ref>/<path>[#L<line>[-L<end>]] (GitHub, Gitea, Gitee), .../-/blob/... (GitLab), .../src/<ref>/... (Bitbucket)
_FILE_LINK = re.compile(r"/(?:-/)?(?:blob|blame|src)/(?P<ref>[^/]+)/(?P<path>[^#?]+)(?:#L(?P<line>\d{1,9}))?")
_COMMIT = re.compile(r"[0-9a-f]{40}")
# `numpy: 1.23.4`, `h5py==3.7.0`, `pydap: None`, `python: 3.10.8 (main, ...)`: a name and its version
_VERSION_LINE = re.compile(r"\s*[A-Za-z_][\w.-]{0,60}\s*(?::|==|>=|<=|~=)\s*(?:None|v?\d[\w.+!-]*)(?:\s.*)?")
_FIELD_LINE = re.compile(r"\s*[A-Za-z_][\w.-]{0,60}:\s.{0,200}")  # `OS: Darwin` among them
MIN_LISTING = 6  # version lines: a version or two in prose stay
# An opening fence's info string (a closing fence has none; a fence closed on its own line is left whole)
_FENCE_INFO = re.compile(r"^([ \t]{0,3}(?:`{3,}|~{3,}))[^`\n]+$", re.M)


def read(graph: CodeGraph, text: str) -> str:
    """`text` as ranking reads it in the graph's repository: readable, and without the lines of the
    repository's issue templates, read the same way (once per graph generation)."""
    lines = graph.cache.get("issue-template")
    if lines is None:
        lines = graph.cache["issue-template"] = templates.template_lines(graph.root, readable)
    return templates.without_template(readable(text), lines)


def readable(text: str) -> str:
    """`text` without markup, fences' info strings, link addresses and version listings; links to a repository's files kept as their path
    (and line, when the link names a commit, so that the line is the one the author saw)."""
    if "<" in text or "://" in text:
        text = _TAG.sub(" ", _LINK.sub(_link, _IMAGE.sub(r"\1", _without_comments(text))))
    if "```" in text or "~~~" in text:
        text = _FENCE_INFO.sub(r"\1", text)
    return _without_listings(text)


def _without_comments(text: str) -> str:
    """`text` without its closed HTML comments (found by position, so linear in any text)."""
    parts, at = [], 0
    while (start := text.find("<!--", at)) >= 0 and (end := text.find("-->", start + 4)) >= 0:
        parts.append(text[at:start])
        at = end + 3
    return "".join(parts) + text[at:] if parts else text


def _link(match: re.Match) -> str:
    url = match.group(0).rstrip(".,;:")
    trail = match.group(0)[len(url):]
    found = _FILE_LINK.search(url)
    if found is None:
        return " " + trail
    path = found.group("path").rstrip("/")
    line = found.group("line")
    return f" {path}:{line}{trail}" if line and _COMMIT.fullmatch(found.group("ref")) else f" {path}{trail}"


def _without_listings(text: str) -> str:
    """`text` without its runs of MIN_LISTING or more version lines (other `name: value` lines, blank
    lines and rules among them belong to the run)."""
    lines = text.split("\n")
    kept: list[str] = []
    run: list[str] = []  # the version lines, and the lines among them, since the last other line
    versions = 0
    for line in [*lines, "\0"]:  # (a sentinel ends the last run)
        if _VERSION_LINE.fullmatch(line):
            run.append(line)
            versions += 1
        elif not line.strip() or set(line.strip()) <= set("-=") or _FIELD_LINE.fullmatch(line):
            run.append(line)
        else:
            if versions < MIN_LISTING:
                kept.extend(run)
            run, versions = [], 0
            kept.append(line)
    return "\n".join(kept[:-1])
