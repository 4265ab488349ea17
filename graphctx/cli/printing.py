"""How the CLI shows answers to a person: plain aligned text for each answer model, and a rich
progress bar on a terminal (nothing when output is not a TTY)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from graphctx.models import EntityEdges, IndexStats, SearchAnswer


@contextmanager
def progress_bar(label: str, enabled: bool = True) -> Iterator:
    """A callback(done, total) that drives a progress bar on stderr when it is a terminal."""
    if not (enabled and sys.stderr.isatty()):
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), transient=True, console=_stderr_console()) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def _stderr_console():
    from rich.console import Console

    return Console(stderr=True)


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
    if s.warnings:
        lines.append(f"warnings ({len(s.warnings)})")
        lines += [f"  {path}: {message}" for path, message in s.warnings]
    return "\n".join(lines)


def _table(title: str, counts: dict[str, int]) -> str:
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return f"{title}\n" + "\n".join(f"  {name:<14} {count:>9,}" for name, count in rows)


def search(answer: SearchAnswer) -> str:
    if not answer.hits:
        return f"no entity matches {answer.query!r}"
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
