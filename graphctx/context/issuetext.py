"""What of an issue's text speaks of the code. A tracker's markup does not: the attributes of an HTML
tag (a pasted screenshot is `<img width="528" alt="..." src="https://...png">`), the address of a
Markdown image, and the words of a link's address (hosts, user names, slugs), which match code by
chance. A link to a file of a repository (`.../blob/<ref>/src/pkg/mod.py#L12`) says which file, and
at a commit which line: it becomes `src/pkg/mod.py:12`, which the seeds read as a path and a line."""

from __future__ import annotations

import re

_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]{0,30}(?:\s[^<>]{0,2000})?/?>")
_IMAGE = re.compile(r"!\[([^\[\]\n]{0,500})\]\([^)\s]{0,2000}\)")
_LINK = re.compile(r"https?://[^\s<>()\[\]`'\"]{1,2000}")
# .../blob/<ref>/<path>[#L<line>[-L<end>]] (GitHub, Gitea, Gitee), .../-/blob/... (GitLab), .../src/<ref>/... (Bitbucket)
_FILE_LINK = re.compile(r"/(?:-/)?(?:blob|blame|src)/(?P<ref>[^/]+)/(?P<path>[^#?]+)(?:#L(?P<line>\d{1,9}))?")
_COMMIT = re.compile(r"[0-9a-f]{40}")


def readable(text: str) -> str:
    """`text` without markup and link addresses; links to a repository's files kept as their path
    (and line, when the link names a commit, so that the line is the one the author saw)."""
    if "<" not in text and "://" not in text:
        return text
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(_link, text)
    return _TAG.sub(" ", text)


def _link(match: re.Match) -> str:
    url = match.group(0).rstrip(".,;:")
    trail = match.group(0)[len(url):]
    found = _FILE_LINK.search(url)
    if found is None:
        return " " + trail
    path = found.group("path").rstrip("/")
    line = found.group("line")
    return f" {path}:{line}{trail}" if line and _COMMIT.fullmatch(found.group("ref")) else f" {path}{trail}"
