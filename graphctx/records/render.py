"""Records as text, for every adapter: the line a write answers with, a record read whole, search hits
(a line each for agents, a table row each for the terminal), a page of them, a long record's outline,
tables and history, a record inside a context answer, and the check report. What a kind shows of its
own fields comes from the kind's model; nothing here branches on kinds."""

from __future__ import annotations

from graphctx.records.answers import (
    AnchoredRecord, CheckReport, Heading, HistoryEntry, KeyConflict, RecallPage, RecordHit, Table, WriteResult,
)
from graphctx.records.models import KIND_MODELS, Record

MAX_ANCHORS_LISTED = 3  # a search hit names this many anchored entities, then counts the rest
MAX_PATCH_CHARS = 2000  # one history entry's patch is cut here
MAX_SNIPPET_CHARS = 160
PAST_LAST_PAGE = "no more records: this cursor is past the last page"


def _state(record: Record | RecordHit) -> str:
    return record.staleness.state if record.staleness else "unknown"


# ---- writes


def write_line(result: WriteResult) -> str:
    """`created knowledge <id> v1 'Title' (anchors fresh)`, and what else the write changed."""
    record = result.record
    line = f"{result.action} {record.kind} {record.id} v{record.version} {record.title!r} (anchors {_state(record)})"
    return line + (f"; also changed {', '.join(result.changed)}" if result.changed else "")


def written(result: WriteResult) -> str:
    """The write line, then why the anchors are not fresh when they are not."""
    staleness = result.record.staleness
    if staleness and staleness.state not in ("fresh", "unbound"):
        return f"{write_line(result)}\n  {staleness.message}"
    return write_line(result)


# ---- one record


def record_head(record: Record) -> str:
    """The record's first line: id, version, what it is, and the state of its anchors."""
    return f"{record.id} v{record.version} {record.label()} (anchors {_state(record)}): {record.title}"


def record_text(record: Record) -> str:
    """A whole record as text: its head, its fields one per line, its anchors' verdicts, then its Markdown."""
    lines = [record_head(record)]
    made = f"by {record.author or 'unknown'}, {record.scope}, created {record.created:%Y-%m-%d %H:%M}Z"
    if record.updated != record.created:
        made += f", updated {record.updated:%Y-%m-%d %H:%M}Z"
    lines.append(made)
    if record.retracted_at is not None:
        why = f": {record.retracted_reason}" if record.retracted_reason else ""
        lines.append(f"RETRACTED {record.retracted_at:%Y-%m-%d}{why}")
    lines += record.detail_lines()
    if record.tags:
        lines.append(f"tags: {', '.join(record.tags)}")
    if record.staleness and record.staleness.anchors:
        lines.append(f"anchors: {record.staleness.message}")
        lines += [f"  {a.entity} [{a.state}]" + (f" {a.message}" if a.state != "fresh" else "")
                  for a in record.staleness.anchors]
    elif record.anchors:
        lines.append("anchors: " + ", ".join(a.entity for a in record.anchors))
    body = record.markdown().strip()
    return "\n".join(lines) + (f"\n\n{body}" if body else "")


def answer_text(item: AnchoredRecord, detail: str) -> str:
    """A record as a context answer shows it at a detail level (full, summary, line): a status line with
    its staleness, then its substance (all of it, or the first two lines)."""
    record = item.record
    head = record.answer_head(_state(record))
    if record.staleness and _state(record) not in ("fresh", "unbound"):
        head += f"\n  {record.staleness.message}"
    if detail == "line":
        return head
    lines = record.answer_body().strip().splitlines()
    return "\n".join([head, *(lines if detail == "full" else lines[:2])])


# ---- search


def hit_line(hit: RecordHit) -> str:
    """A search hit for an agent: its head line, the entities it is on, and the matching words."""
    line = f"{hit.id} v{hit.version} {KIND_MODELS[hit.kind].hit_label(hit)} (anchors {_state(hit)}): {hit.title}"
    if hit.retracted:
        line += " [retracted]"
    if hit.anchors:
        more = len(hit.anchors) - MAX_ANCHORS_LISTED
        line += f"\n  on {', '.join(hit.anchors[:MAX_ANCHORS_LISTED])}" + (f" (+{more})" if more > 0 else "")
    if hit.snippet:
        line += f"\n  {clip(hit.snippet, MAX_SNIPPET_CHARS)}"
    return line


def hit_row(hit: RecordHit) -> str:
    """A search hit as a terminal table row: id, kind, status or type, title."""
    return f"{hit.id}  {hit.kind:<9} {hit.status or hit.type or '':<11} {hit.title}"


def no_match(sort_hint: str) -> str:
    """The answer to a search that found nothing; `sort_hint` says how to browse by date in the adapter."""
    return f"no record matches; try other words, fewer filters, or {sort_hint}"


def page_summary(page: RecallPage) -> str:
    shown = f"{len(page.hits)} of {page.total} records"
    return shown + (f"; more with cursor={page.next_cursor}" if page.next_cursor else "")


def page_text(page: RecallPage, summary: str) -> str:
    """A page of hits for an agent, with the summary line, key conflicts and unreadable records."""
    lines = [hit_line(h) for h in page.hits]
    lines.append(summary if page.hits else no_match("sort=recent"))
    lines += conflict_lines(page.conflicts)
    lines += [f"unreadable record file {p.path}: {p.message}" for p in page.problems]
    return "\n".join(lines)


def conflict_lines(conflicts: list[KeyConflict]) -> list[str]:
    return [f"conflict: {c.message}" for c in conflicts]


# ---- a long record's parts


def outline_text(headings: list[Heading]) -> str:
    return "\n".join(f"{'  ' * (h.level - 1)}{h.title} (line {h.line})" for h in headings) or "no headings"


def tables_text(tables: list[Table]) -> str:
    out = []
    for table in tables:
        rows = [table.header, ["---"] * len(table.header), *table.rows]
        out.append(f"(line {table.line})\n" + "\n".join("| " + " | ".join(row) + " |" for row in rows))
    return "\n\n".join(out) or "no tables"


def history_text(history: list[HistoryEntry]) -> str:
    out = []
    for entry in history:
        patch = entry.patch.strip()
        if len(patch) > MAX_PATCH_CHARS:
            patch = patch[:MAX_PATCH_CHARS] + "\n… (patch cut)"
        out.append(f"{entry.commit[:12]} {entry.date} {entry.author}: {entry.subject}" + (f"\n{patch}" if patch else ""))
    return "\n\n".join(out) or "no history: the record is not committed (or is private)"


# ---- review


def check_text(report: CheckReport) -> str:
    """The check report: a line per record with changed code under it, the key conflicts, and a summary."""
    lines = []
    for item in report.items:
        changes = "; ".join(f"{c.entity}: {c.change}" for c in item.changes)
        lines.append(f"{item.record.id} {item.record.title}: {changes}")
    lines += conflict_lines(report.conflicts)
    summary = f"{len(report.items)} of {report.checked} decisions and conventions have changed code under them"
    if report.conflicts:
        summary += f"; {len(report.conflicts)} key(s) held by several records"
    return "\n".join([*lines, summary])


def clip(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
