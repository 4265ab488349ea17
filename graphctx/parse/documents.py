"""Reads a Markdown document into sections: the document itself (level 0, titled by its first
heading or front matter) and every heading (ATX `#` and setext underlined) with its place in the
heading hierarchy, its lines, its first paragraph and the code names its code spans mention
(`Project.index`, `get_context()`). Lines inside code fences are code, never headings or spans.
Pure: one file's text."""

from __future__ import annotations

import posixpath
import re

from graphctx.parse.facts import FileFacts, Section

MARKDOWN = "markdown"
PATH_SEPARATOR = " > "  # between the titles of a section's path: "Install > From source"
DOCUMENT = "document"  # the qualified name of the document itself
MAX_DOC = 300
MAX_NAMES = 64  # code names kept per section: a reference table past this says little about each
_ATX = re.compile(r"^[ ]{0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_SETEXT = re.compile(r"^[ ]{0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")
_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
# A code name: dotted or `::`-joined identifiers, maybe called: `a.b.C`, `Foo::bar`, `run()`.
_CODE_NAME = re.compile(r"^[A-Za-z_][\w]*(?:(?:\.|::|#)[A-Za-z_][\w]*)*(?:\(\))?$")
_FRONT_TITLE = re.compile(r"^title:\s*(.+?)\s*$", re.I)


def is_markdown(path: str) -> bool:
    return posixpath.splitext(path)[1].lower() in (".md", ".markdown", ".mdx")


def document_facts(path: str, text: str, facts: FileFacts) -> FileFacts:
    """The facts of a Markdown file: its file-level facts with the document and its sections."""
    facts.sections = sections(text)
    if facts.sections and not facts.doc:
        facts.doc = facts.sections[0].title
    return facts


def sections(text: str) -> list[Section]:
    """The document (first) and its sections in line order, each ending where the next heading of
    its level or above begins."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    code = code_lines(lines)
    front_end, front_title = _front_matter(lines)
    headings: list[tuple[int, str, int]] = []  # (level, title, 1-based line)
    for i, line in enumerate(lines):
        if i in code or i < front_end:
            continue
        match = _ATX.match(line)
        if match and match.group(2).strip():
            headings.append((len(match.group(1)), match.group(2).strip(), i + 1))
            continue
        underline = _SETEXT.match(line)
        previous = lines[i - 1].strip() if i > front_end else ""
        if underline and previous and i - 1 not in code and "|" not in previous and not _ATX.match(lines[i - 1]) \
                and not (headings and headings[-1][2] == i) and _is_paragraph_start(lines, i - 1, code, front_end):
            headings.append((1 if underline.group(1)[0] == "=" else 2, previous, i))
    total = max(len(lines), 1)  # an empty document still spans its one (empty) line
    title = front_title or (headings[0][1] if headings else "")
    first = headings[0][2] - 1 if headings else len(lines)
    out = [Section(title, DOCUMENT, 0, 1, total, _names(lines, front_end, first, code),
                   _paragraph(lines, front_end, first, code))]
    trail: list[tuple[int, str]] = []
    seen: dict[str, int] = {}
    for n, (level, heading, line) in enumerate(headings):
        while trail and trail[-1][0] >= level:
            trail.pop()
        trail.append((level, heading))
        path = PATH_SEPARATOR.join(t for _, t in trail)
        seen[path] = count = seen.get(path, 0) + 1
        if count > 1:  # the same heading twice under one parent: the second is "Title (2)"
            trail[-1] = (level, f"{heading} ({count})")
            path = PATH_SEPARATOR.join(t for _, t in trail)
        end = next((other_line - 1 for other_level, _, other_line in headings[n + 1:] if other_level <= level), total)
        next_heading = headings[n + 1][2] - 1 if n + 1 < len(headings) else total
        body_start = line if lines[line - 1].lstrip().startswith("#") else line + 1  # a setext title has two lines
        out.append(Section(heading, path, level, line, max(end, line), _names(lines, body_start, next_heading, code),
                           _paragraph(lines, body_start, next_heading, code)))
    return out


def code_lines(lines: list[str]) -> set[int]:
    """Indexes of the lines inside fenced code blocks (fence lines included)."""
    inside: set[int] = set()
    fence: str | None = None
    for i, line in enumerate(lines):
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
            inside.add(i)
        elif fence is not None:
            inside.add(i)
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
    return inside


def _front_matter(lines: list[str]) -> tuple[int, str]:
    """Where YAML front matter ends (0 when there is none) and its title."""
    if not lines or lines[0].strip() != "---":
        return 0, ""
    title = ""
    for i, line in enumerate(lines[1:], 1):
        if line.strip() in ("---", "..."):
            return i + 1, title
        match = _FRONT_TITLE.match(line)
        if match and not title:
            title = match.group(1).strip("\"'")
    return 0, ""


def _is_paragraph_start(lines: list[str], i: int, code: set[int], floor: int) -> bool:
    """A setext title is a one-line paragraph: the line above it is blank (or the start)."""
    return i <= floor or not lines[i - 1].strip() or (i - 1) in code


def _names(lines: list[str], start: int, stop: int, code: set[int]) -> list[str]:
    """The code names in the code spans of lines[start:stop], first mention first."""
    found: dict[str, None] = {}
    for i in range(start, stop):
        if i in code or "`" not in lines[i]:
            continue
        for match in _SPAN.finditer(lines[i]):
            span = match.group(2).strip()
            if _CODE_NAME.match(span):
                found.setdefault(span.removesuffix("()").replace("::", ".").replace("#", "."))
                if len(found) >= MAX_NAMES:
                    return list(found)
    return list(found)


def _paragraph(lines: list[str], start: int, stop: int, code: set[int]) -> str:
    """The first paragraph of prose in lines[start:stop], on one line."""
    words: list[str] = []
    for i in range(start, stop):
        line = lines[i].strip()
        if i in code or not line or line.startswith(("<!--", "|", "#")) or _SETEXT.match(lines[i]):
            if words:
                break
            continue
        words.append(line)
    return " ".join(words)[:MAX_DOC]
