"""A decision's Markdown: its Context, Decision and Consequences sections joined under '##' headings
for its file, and split back apart when the file is read (a hand-written ADR in free form is all
decision). Headings inside code fences are code, never section breaks."""

from __future__ import annotations

import re

from graphctx.records.vocabulary import clean_text

SECTIONS = ("context", "decision", "consequences")
_HEADING = re.compile(r"^##[ \t]+(context|decision|consequences)[ \t]*#*[ \t]*$", re.IGNORECASE)
_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")


def join(context: str, decision: str, consequences: str) -> str:
    """The three sections as one Markdown document, the way the decision's file shows them."""
    parts = []
    for name, text in zip(SECTIONS, (context, decision, consequences), strict=True):
        parts.append(f"## {name.capitalize()}\n\n{text}".rstrip())
    return "\n\n".join(parts)


def split(body: str) -> tuple[str, str, str]:
    """(context, decision, consequences) from the '## Context', '## Decision', '## Consequences'
    sections; a body without them is all decision (an ADR written by hand in free form)."""
    lines = clean_text(body).split("\n")
    marks: dict[str, int] = {}
    last = -1
    fence = None
    for number, line in enumerate(lines):
        fence = _fence_state(line, fence)
        if fence is not None:
            continue
        match = _HEADING.match(line)
        if match:
            name = match.group(1).lower()
            # Sections are taken in order, first occurrence each, so a later heading-like line
            # inside a section's text stays text.
            if SECTIONS.index(name) > last:
                marks[name], last = number, SECTIONS.index(name)
    if not marks:
        return "", clean_text(body), ""
    bounds = sorted((line_no, name) for name, line_no in marks.items())
    parts = {name: "" for name in SECTIONS}
    for i, (line_no, name) in enumerate(bounds):
        stop = bounds[i + 1][0] if i + 1 < len(bounds) else len(lines)
        parts[name] = clean_text("\n".join(lines[line_no + 1:stop]))
    preamble = clean_text("\n".join(lines[:bounds[0][0]]))
    if preamble:  # free text above the first section belongs with the context
        parts["context"] = clean_text(f"{preamble}\n\n{parts['context']}")
    return parts["context"], parts["decision"], parts["consequences"]


def _fence_state(line: str, fence: str | None) -> str | None:
    """The open code fence after `line` (None outside one): headings inside fences are code."""
    match = _FENCE.match(line)
    if not match:
        return fence
    marker = match.group(1)
    if fence is None:
        return marker
    return None if marker[0] == fence[0] and len(marker) >= len(fence) else fence
