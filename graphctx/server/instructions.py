"""The server's instructions, built at start-up from the index: what the project is, its languages
and size, its entry points, and which tool to reach for when. Hosts cut long instructions (about
2 KB), so the text is capped and the least important lines go first."""

from __future__ import annotations

from graphctx.models import ProjectFacts
from graphctx.text import clip_words

MAX_BYTES = 2000


def build_instructions(facts: ProjectFacts) -> str:
    lines = [
        f"graphctx serves code context for the repository {facts.name} ({facts.root}): {facts.files:,} files "
        f"({facts.languages_text()}), {facts.entities:,} entities, {facts.edges:,} edges, index generation "
        f"{facts.generation}. The index follows file changes while the server runs.",
        "Call session_init first in a new session. Then get_context(entity=...) for an entity's code with its "
        "callers, callees, types and tests, ranked and packed to token_budget; mode=intent with target= (an issue, "
        "a task, a stack trace) for context shaped for a purpose; mode=path for the call chain between two entities. "
        "search(query) finds ids when you do not know a name; get_file_context(file) outlines a file; "
        "get_impact(symbol, files or diff) lists what a change can break. Prefer these to reading whole files.",
        "Knowledge and decisions about the code: recall(query) searches them; remember and decide keep what you "
        "learn, anchored to entity ids, so it comes with that code in get_context and is flagged when the code "
        "changes; a stale record is checked, then verified or revised (with the version you read).",
        "Entity ids look like path/to/file.py::Class.method; a bare or qualified name works when it is unique, "
        "and an error lists the candidates when it is not.",
        "Working with other agents: tasks (claim one before working on it), runs (start, end), agents (peers, "
        "board), skills (the team's how-tos: get, use, rate, propose), session_init(scope=resume) to pick up where "
        "you left off, session_end to save your state.",
    ]
    if facts.overview:
        lines.insert(1, f"About: {clip_words(facts.overview, 400)}")
    if facts.entry_points:
        lines.append("Entry points: " + "; ".join(facts.entry_points[:8]))
    text = "\n".join(lines)
    while len(text.encode()) > MAX_BYTES and len(lines) > 1:
        lines.pop(1 if lines[1].startswith("About:") else -1)
        text = "\n".join(lines)
    return text.encode()[:MAX_BYTES].decode(errors="ignore")


