"""How the CLI shows answers to a person: plain aligned text for each answer model, what an index
run skipped or warned about, whether an answer found anything (exit status 1 when not), and a rich
progress bar by phase on a terminal (nothing when output is not a TTY)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from graphctx.errors import quote
from graphctx.models import CHANGE_RELATIONS, NO_PARSER, TIER_PREFIX

if TYPE_CHECKING:  # the index layer loads tree-sitter, the answer models pydantic: only the commands that use them do
    from graphctx.models import ContextAnswer, EntityEdges, IndexStats, SearchAnswer
    from graphctx.project import IndexResult

MAX_WARNINGS_SHOWN = 20
# "skipped 3 oversized files", "skipped 1 file outside the repository"; other reasons read as they are
ADJECTIVES = {"too large": "oversized", "outside the repository": ""}
AFTER_NOUN = {"outside the repository": " outside the repository"}


@contextmanager
def progress_bar(enabled: bool = True) -> Iterator:
    """A callback(phase, done, total) that drives a progress bar on stderr when it is a terminal: the
    phase names the bar, and a phase that cannot count (total 0) shows a pulsing bar."""
    if not (enabled and sys.stderr.isatty()):
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress("[progress.description]{task.description:<11}", BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), transient=True, console=_stderr_console()) as bar:
        task = [bar.add_task("starting", total=None), "starting"]

        def update(phase: str, done: int, total: int) -> None:
            if phase != task[1]:  # a task per phase: rich cannot turn a counted bar back into a pulsing one
                bar.remove_task(task[0])
                task[:] = [bar.add_task(phase, total=total or None), phase]
            bar.update(task[0], completed=done, total=total or None)

        yield update


def _stderr_console():
    from rich.console import Console

    return Console(stderr=True)


def index_notices(result: IndexResult) -> list[str]:
    """What an index run tells a person on stderr: one line per per-file skip reason (never a line per
    file), then its warnings, the first few in full."""
    lines = [f"skipped {_files(n, ADJECTIVES.get(reason, reason))}{AFTER_NOUN.get(reason, '')}"
             " (graphctx stats lists them)"
             for reason, n in result.per_file_skips.items()]
    lines += [f"warning: {path}: {message}" for path, message in result.warnings[:MAX_WARNINGS_SHOWN]]
    if len(result.warnings) > MAX_WARNINGS_SHOWN:
        lines.append(f"warning: ... and {len(result.warnings) - MAX_WARNINGS_SHOWN} more (graphctx stats lists them all)")
    return lines


def _files(n: int, adjective: str) -> str:
    return f"{n:,} {adjective + ' ' if adjective else ''}file{'' if n == 1 else 's'}"


def found(answer: ContextAnswer) -> bool:
    """False for an answer that found nothing: free text that matched nothing, no call chain between
    two entities, nothing that depends on what an impact request named."""
    if answer.mode.startswith("intent/"):
        return bool(answer.items or answer.omitted_count)
    if answer.mode == "path":
        return not any(item.relation in ("from", "to") for item in answer.items)
    if answer.mode == "impact":  # dependents found, or (for --diff) changed code to list
        return answer.omitted_count > 0 or any(item.relation.startswith(TIER_PREFIX) or item.relation in CHANGE_RELATIONS
                                               for item in answer.items)
    return True


def stats(s: IndexStats) -> str:
    age = f"{s.age_seconds:.0f} s ago" if s.age_seconds is not None else "never"
    lines = [
        f"repository  {s.root}",
        f"index       generation {s.generation}, built {age}",
        f"files       {s.files:,}   entities {s.entities:,}   edges {s.edges:,}",
        f"calls       {s.calls_resolved_share:.1%} of call sites resolved (external calls excluded)",
        f"parse       {s.parse_errors} error node(s) in {s.files_with_errors} file(s)",
        _table("languages", s.languages),
        _table("entities", s.entity_kinds),
        _table("edges", s.edge_kinds),
        _table("call edges by resolution", s.resolutions),
    ]
    if s.skipped_languages:
        lines.append("skipped, no parser: " + ", ".join(f"{lang} {n:,}" for lang, n in s.skipped_languages.items()))
    others = {reason: n for reason, n in s.skipped.items() if reason != NO_PARSER}
    if others:
        lines.append("skipped: " + ", ".join(f"{reason} {n:,}" for reason, n in others.items()))
    if s.skipped_files:
        lines.append(f"skipped files ({len(s.skipped_files)})")
        lines += [f"  {path}: {reason}" + (f" ({detail})" if detail else "") for path, reason, detail in s.skipped_files]
    if s.warnings:
        lines.append(f"warnings ({len(s.warnings)})")
        lines += [f"  {path}: {message}" for path, message in s.warnings]
    return "\n".join(lines)


def _table(title: str, counts: dict[str, int]) -> str:
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return f"{title}\n" + "\n".join(f"  {name:<14} {count:>9,}" for name, count in rows)


def search(answer: SearchAnswer) -> str:
    if not answer.hits:
        return f"no entity matches {quote(answer.query)}"
    return "\n".join(
        f"{hit.score:5.2f} {hit.match:<9} {hit.kind:<9} {hit.id}  ({hit.path}:{hit.start_line})" for hit in answer.hits
    )


def entity_edges(answer: EntityEdges) -> str:
    e = answer.entity
    lines = [f"{e.id}", f"  {e.kind} in {e.path}:{e.start_line}-{e.end_line} ({e.language})"]
    if e.signature:
        lines.append(f"  {e.signature}")
    if e.doc:
        lines.append("  " + e.doc.splitlines()[0])
    for title, edges, other in (("outgoing", answer.outgoing, "target"), ("incoming", answer.incoming, "source")):
        lines.append(f"{title} ({len(edges)})")
        lines += [
            f"  {edge.kind:<10} {getattr(edge, other)}  [{edge.resolution} {edge.confidence:.2f}]"
            + (f" line {edge.line}" if edge.line else "")
            for edge in edges
        ]
    return "\n".join(lines)
