"""Reading one of the repository's Markdown documents in parts, as `recall` reads a long record: its
outline (the headings, with the ids of their section entities), one section by its heading, or its
tables (all, or one section's). The document is read from disk through the repository boundary and
cut by the same parser the index used (parse/documents.py), so a section's lines are its entity's."""

from __future__ import annotations

import difflib

from graphctx.context.engine import _repo_path  # the one rule for a path a caller gives
from graphctx.errors import Ambiguous, InvalidRequest, NotFound, quote
from graphctx.graph.loader import GraphCache
from graphctx.index.root import Boundary
from graphctx.index.textentities import section_id
from graphctx.models import DocumentAnswer, DocumentHeading, DocumentTable
from graphctx.parse.documents import PATH_SEPARATOR, is_markdown, sections
from graphctx.records.markdown import tables as markdown_tables

VIEWS = ("outline", "section", "tables")


def read_document(graphs: GraphCache, file: str, *, view: str = "outline", heading: str | None = None,
                  format: str = "compact") -> tuple[DocumentAnswer, str]:
    """A document's outline, one section (`heading`: its title, its path "A > B" or "#<line>") or its
    tables (in `heading`'s section when given)."""
    if view not in VIEWS:
        raise InvalidRequest(f"unknown view {quote(view)}: use one of {', '.join(VIEWS)}")
    if view == "section" and not heading:
        raise InvalidRequest("the section view needs a heading: its title, its path ('A > B') or '#<line>'")
    g = graphs.get()
    path = _repo_path(g, file)
    if not is_markdown(path):
        raise InvalidRequest(f"{quote(path)} is not a Markdown document; read it with `graphctx file {path}`")
    text = Boundary(g.root).read_bytes(path).decode("utf-8", "replace")
    found = sections(text)
    headings = [DocumentHeading(level=s.level, title=s.title, line=s.start_line, end_line=s.end_line,
                                path=s.qualified_name, id=section_id(path, s)) for s in found[1:]]
    answer = DocumentAnswer(path=path, title=found[0].title, view=view, headings=headings, generation=g.generation)
    if heading:
        chosen = find_heading(headings, heading, path)
        answer.section = chosen
        lines = text.split("\n")
        answer.text = "\n".join(lines[chosen.line - 1:chosen.end_line]).rstrip()
        if view == "tables":
            answer.tables = _tables(answer.text, chosen.line)
    elif view == "tables":
        answer.tables = _tables(text, 1)
    return answer, (answer.model_dump_json(indent=2) if format == "json" else render(answer))


def find_heading(headings: list[DocumentHeading], wanted: str, path: str) -> DocumentHeading:
    """The one heading named by its title, its path or '#<line>'; did-you-mean when none is."""
    wanted = wanted.strip()
    if wanted.startswith("#") and wanted[1:].isdigit():
        matches = [h for h in headings if h.line == int(wanted[1:])]
    else:
        key = _normal(wanted)
        matches = [h for h in headings if _normal(h.path) == key] or \
            [h for h in headings if _normal(h.title) == key or _normal(h.path).endswith(">" + key)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise Ambiguous(f"{len(matches)} headings of {path} match {quote(wanted)}; pass a path ('A > B') or '#<line>'",
                        [f"#{h.line} {h.path}" for h in matches])
    close = difflib.get_close_matches(wanted, [h.title for h in headings] + [h.path for h in headings], n=5, cutoff=0.5)
    hint = "did you mean one of these?" if close else (
        "see its headings with `graphctx doc " + path + " --outline`" if headings else "it has no headings")
    raise NotFound(f"{path} has no heading {quote(wanted)}; {hint}", close)


def render(answer: DocumentAnswer) -> str:
    head = f"# graphctx doc: {answer.path}" + (f" ({answer.title})" if answer.title else "")
    if answer.view == "outline":
        body = "\n".join(f"{'  ' * (h.level - 1)}{h.title} (lines {h.line}-{h.end_line})" for h in answer.headings)
        return f"{head}\n{body or 'no headings'}"
    if answer.view == "section":
        return f"{head}\n## {answer.section.path} (lines {answer.section.line}-{answer.section.end_line})\n{answer.text}"
    where = f"\n## {answer.section.path}" if answer.section else ""
    tables = []
    for table in answer.tables:
        rows = [table.header, ["---"] * len(table.header), *table.rows]
        tables.append(f"(line {table.line})\n" + "\n".join("| " + " | ".join(row) + " |" for row in rows))
    return f"{head}{where}\n" + ("\n\n".join(tables) or "no tables")


def _tables(text: str, first_line: int) -> list[DocumentTable]:
    return [DocumentTable(line=t.line, header=t.header, rows=t.rows) for t in markdown_tables(text, first_line)]


def _normal(text: str) -> str:
    return ">".join(" ".join(part.split()).lower().lstrip("# ") for part in text.split(PATH_SEPARATOR.strip()))

