"""Navigation inside one long record's Markdown: the outline of its headings, one section by its
heading, and the tables (GitHub style) in it, so an agent can read a part of a record instead of
paying for all of it. Lines inside code fences are code, never headings or tables."""

from __future__ import annotations

import re

from graphctx.errors import quote
from graphctx.parse.documents import code_lines
from graphctx.records.errors import InvalidRecord, RecordNotFound
from graphctx.records.answers import Heading, Table

_ATX = re.compile(r"^[ ]{0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_SETEXT = re.compile(r"^[ ]{0,3}(=+|-+)[ \t]*$")
_TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def outline(markdown: str) -> list[Heading]:
    """Every heading (ATX '#' and Setext underlined) with its level, 1-based line and path."""
    lines = markdown.split("\n")
    code = code_lines(lines)
    found: list[tuple[int, str, int]] = []
    for i, line in enumerate(lines):
        if i in code:
            continue
        match = _ATX.match(line)
        if match:
            found.append((len(match.group(1)), match.group(2).strip(), i + 1))
            continue
        setext = _SETEXT.match(line)
        previous = lines[i - 1].strip() if i else ""
        # An underline makes the previous paragraph line a heading; '---' alone is a rule, and a
        # line with pipes is a table row, not a title.
        if setext and previous and i - 1 not in code and "|" not in previous and not _ATX.match(lines[i - 1]) \
                and not (found and found[-1][2] == i):
            found.append((1 if setext.group(1)[0] == "=" else 2, previous, i))
    headings: list[Heading] = []
    trail: list[tuple[int, str]] = []
    for level, title, line in sorted(found, key=lambda item: item[2]):
        while trail and trail[-1][0] >= level:
            trail.pop()
        trail.append((level, title))
        headings.append(Heading(level=level, title=title, line=line, path=" > ".join(t for _, t in trail)))
    return headings


def _normal(text: str) -> str:
    """A heading or path compared without case, extra spaces or leading '#' marks."""
    return ">".join(" ".join(part.split()).lower().lstrip("# ") for part in text.split(">"))


def find_heading(markdown: str, heading: str, record_id: str) -> Heading:
    """The one heading named by its title, its path ('Setup > Database'), or '#<line>'."""
    headings = outline(markdown)
    wanted = heading.strip()
    if not wanted:
        raise InvalidRecord("heading is empty: give a heading's title, its path ('A > B') or '#<line>'")
    if wanted.startswith("#") and wanted[1:].isdigit():
        matches = [h for h in headings if h.line == int(wanted[1:])]
    else:
        key = _normal(wanted)
        matches = [h for h in headings if _normal(h.path) == key]
        if not matches:
            matches = [h for h in headings if _normal(h.title) == key or _normal(h.path).endswith(">" + key)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        shown = [h.path for h in headings][:20]
        hint = "its headings are listed below" if shown else "it has no headings; read it whole with get"
        raise RecordNotFound(f"record {record_id} has no heading {quote(heading)}; {hint}", shown)
    raise InvalidRecord(
        f"{len(matches)} headings of record {record_id} match {quote(heading)}; pass a path or '#<line>'",
        [f"#{h.line} {h.path}" for h in matches],
    )


def section(markdown: str, heading: Heading) -> str:
    """The heading's line and the text under it, up to the next heading of its level or above."""
    lines = markdown.split("\n")
    start = heading.line - 1
    stop = len(lines)
    for other in outline(markdown):
        if other.line > heading.line and other.level <= heading.level:
            stop = other.line - 1
            break
    return "\n".join(lines[start:stop]).rstrip()


def tables(markdown: str, first_line: int = 1) -> list[Table]:
    """The pipe tables in `markdown`: a header row, a rule row ('|---|:--:|'), then data rows.
    Line numbers count from `first_line` (the line the text starts at in the record)."""
    lines = markdown.split("\n")
    code = code_lines(lines)
    found: list[Table] = []
    i = 0
    while i + 1 < len(lines):
        if i not in code and "|" in lines[i] and "|" in lines[i + 1] and _TABLE_RULE.match(lines[i + 1]) \
                and i + 1 not in code:
            header = _cells(lines[i])
            rows = []
            j = i + 2
            while j < len(lines) and j not in code and "|" in lines[j] and lines[j].strip():
                rows.append(_cells(lines[j]))
                j += 1
            found.append(Table(line=first_line + i, header=header, rows=rows))
            i = j
        else:
            i += 1
    return found


def _cells(line: str) -> list[str]:
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    return [cell.strip().replace("\\|", "|") for cell in _CELL_SPLIT.split(text)]
