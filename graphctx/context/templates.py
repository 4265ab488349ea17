"""The lines a repository's issue templates put in every issue: headings ("Describe the bug", "To
Reproduce", "Environment info") and the prompts a reporter leaves in place ("A clear and concise
description of what the bug is."). Their words are the template's, not the issue's, yet they match
code ("environment", "project", "description", "build"), so ranking reads an issue without them.
GitHub keeps templates in .github/, docs/ or the root, as ISSUE_TEMPLATE.md or an ISSUE_TEMPLATE/
folder of Markdown templates and YAML issue forms (whose field labels become the issue's headings)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

MAX_FILES = 50
MAX_BYTES = 64_000  # a template is a page; a larger file is not one
_FENCE = re.compile(r"^\s*(```|~~~)")
_LABEL = re.compile(r"^\s*label:\s*(.+?)\s*$")  # an issue form's field, rendered as a heading
_MARKS = re.compile(r"[#*_>`:\[\]|-]+")
NO_RESPONSE = "_No response_"  # what an issue form writes for a field left empty


def template_lines(root: Path, read: Callable[[str], str] = str) -> frozenset[str]:
    """The plain form (see plain) of each line of the repository's issue templates, outside code, each
    template read by `read` first: as the issue is read (`<summary>Output of <tt>xr.show_versions()</tt>`
    is then the line an older issue wrote as `#### Output of ``xr.show_versions()```)."""
    lines: set[str] = set()
    for path in _template_files(root):
        try:
            if path.stat().st_size > MAX_BYTES:
                continue
            text = read(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
        if path.suffix.lower() in (".yml", ".yaml"):
            labels = [m.group(1).strip("'\"") for m in map(_LABEL.match, text.splitlines()) if m]
            lines.update(plain(label) for label in labels)
            if labels:
                lines.add(plain(NO_RESPONSE))
        else:
            lines.update(plain(line) for line in _outside_code(text.splitlines()))
    lines.discard("")
    return frozenset(lines)


def without_template(text: str, lines: frozenset[str]) -> str:
    """`text` without the lines that are, in plain form, lines of the templates."""
    if not lines:
        return text
    return "\n".join(line for line in text.split("\n") if plain(line) not in lines)


def plain(line: str) -> str:
    """A line without Markdown's marks (headings, emphasis, list and quote marks), in lower case."""
    return " ".join(_MARKS.sub(" ", line).lower().split())


def _template_files(root: Path) -> list[Path]:
    found: list[Path] = []
    for folder in (root / ".github", root / "docs", root):
        try:
            entries = list(folder.iterdir())
        except OSError:
            continue
        for entry in sorted(entries):
            name = entry.name.lower()
            if name == "issue_template.md" and entry.is_file():
                found.append(entry)
            elif name == "issue_template" and entry.is_dir():
                found += sorted(p for p in entry.iterdir()
                                if p.suffix.lower() in (".md", ".yml", ".yaml") and p.name.lower() != "config.yml")
    return found[:MAX_FILES]


def _outside_code(lines: list[str]):
    inside = False
    for line in lines:
        if _FENCE.match(line):
            inside = not inside
        elif not inside:
            yield line
