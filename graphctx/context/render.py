"""Renders answers: `compact`, dense text made for a model (a header line, then each entity as a
one-line heading, with its body hash `h:...` for known_hash, and its code), and `json`, the answer
model itself. The packer measures these exact strings, so what is counted is what is sent."""

from __future__ import annotations

from graphctx.models import ContextAnswer, PacketItem

SHOWN_HASH_DIGITS = 8  # of the index's 16: a third of the tokens, plenty to tell versions apart

MAX_OMITTED_LISTED = 20


def render(answer: ContextAnswer, fmt: str) -> str:
    if fmt == "json":
        return answer.model_dump_json()
    parts = [header(answer)]
    parts += [f"note: {note}" for note in answer.notes]
    parts += [item_text(item, "compact") for item in answer.items]
    if answer.omitted_count:
        listed = ", ".join(f"{o.id} {o.score:.2f}" for o in answer.omitted)
        more = answer.omitted_count - len(answer.omitted)
        parts.append(f"omitted {answer.omitted_count}: {listed}" + (f" (+{more} more)" if more > 0 else ""))
    return "\n".join(parts)


def header(answer: ContextAnswer) -> str:
    subject = answer.root or answer.query
    state = "truncated" if answer.truncated else "complete"
    return (
        f"# graphctx {answer.mode}: {subject} | gen {answer.generation} | {answer.tokens_used}/{answer.token_budget} tokens"
        f" | {len(answer.items)} of {answer.total_candidates} entities | {state}"
    )


def item_text(item: PacketItem, fmt: str) -> str:
    if fmt == "json":
        return item.model_dump_json()
    head = heading(item)
    return f"{head}\n{item.text}" if item.text else head


def heading(item: PacketItem) -> str:
    """An item's first line in the compact format (its text follows on the next lines)."""
    if item.relation == "record":
        return f"## record {item.id} {item.kind} s{item.score:.2f}"
    lines = f"L{item.start_line}-{item.end_line}" if item.end_line > item.start_line else f"L{item.start_line}"
    how = "" if item.relation in ("root", "seed") or item.resolution == "exact" else f" [{item.resolution} {item.confidence:.2f}]"
    stale = " (file changed since indexing)" if item.stale else ""
    digest = f" h:{item.body_hash[:SHOWN_HASH_DIGITS]}" if item.body_hash else ""
    return f"## {item.relation} {item.id} {item.kind} {lines} d{item.distance} s{item.score:.2f}{digest}{how}{stale}"
