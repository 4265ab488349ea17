"""The words of a refused tool call, shared by the SDK-built server (strict.py) and the answers
given before the SDK has loaded (early.py), so both refuse alike: an unknown argument, a string its
kind refuses (graphctx.inputs), a value the tool's schema refuses, each said in one plain sentence
that names the problem and the fix (did-you-mean for names), quoting what the caller sent by a short
prefix only. Imports nothing of the MCP SDK."""

from __future__ import annotations

import difflib
import json
import logging
from collections.abc import Iterator
from typing import Any

from pydantic import ValidationError

from graphctx import inputs
from graphctx.errors import bounded, quote

log = logging.getLogger("graphctx.server")

MAX_SHOWN_VALUE = 60  # characters of a refused value quoted back
MAX_PROBLEMS = 3  # refused values reported in one answer
BOUNDS = frozenset({"greater_than_equal", "less_than_equal"})  # the only bounds the tools declare (ge, le)
MAX_URI = inputs.MAX_NAME + 64  # a resource URI: a scheme and kind, then an id or a path

# What each string argument is, by its name at any depth (an entry's `category` is a label too):
# names, paths, ids and choices are one printable line; record labels short ones; anything else is
# free text, which may hold any character but NUL.
STRING_KINDS: dict[str, tuple[inputs.Kind, int | None]] = {
    **dict.fromkeys(("entity", "file", "files", "from_entity", "to_entity", "symbol", "known_hash", "diff", "id",
                     "heading", "cursor", "agent_id", "author", "anchors", "entities", "supersedes", "refs", "mode",
                     "intent", "detail_level", "format", "kind", "view", "type", "status", "scope", "sort",
                     "action", "task_id", "run_id", "agent", "name", "depends_on", "files_touched", "ticket", "outcome",
                     "branch", "head", "pr", "capabilities", "model", "issue", "current_task"),
                    ("name", None)),
    **dict.fromkeys(("category", "key", "tags"), ("label", None)),
    "query": ("text", inputs.MAX_QUERY),
    "title": ("text", inputs.MAX_TITLE),
}


def refused_string(arguments: dict[str, Any]) -> str | None:
    """The first string argument (at any depth) that its kind refuses, said in one sentence; or None."""
    for label, value, (kind, limit) in _strings(arguments, "", ("text", None)):
        refused = inputs.problem(value, label, kind, limit)
        if refused:
            return refused
    return None


def _strings(value: Any, label: str, kind: tuple[inputs.Kind, int | None]) -> Iterator[tuple[str, str, tuple]]:
    if isinstance(value, str):
        yield label or "argument", value, kind
    elif isinstance(value, dict):
        for key, item in value.items():
            name = str(key)
            shown = name if len(name) <= MAX_SHOWN_VALUE else name[: MAX_SHOWN_VALUE - 1] + "…"
            yield from _strings(item, f"{label}.{shown}" if label else shown, STRING_KINDS.get(name, ("text", None)))
    elif isinstance(value, list):
        for number, item in enumerate(value):
            yield from _strings(item, f"{label}[{number}]", kind)


def internal_error(tool: str, exc: BaseException) -> str:
    """A bug in a tool: logged in full (stderr), answered in short."""
    log.error("graphctx: internal error in %s", tool, exc_info=exc)
    return bounded(f"internal error in {tool}: {exc}")


def unknown_resource(uri: str, known: list[str]) -> str:
    return f"unknown resource {quote(uri)}; the resources are: {', '.join(known)}"


def unknown_tool(name: str, tools: list[str]) -> str:
    return f"unknown tool {quote(name)}{_did_you_mean(name, tools)}; the tools are: {', '.join(tools)}"


def unknown_arguments(tool: str, unknown: list[str], accepted: list[str]) -> str:
    named = ", ".join(f"{quote(key)}{_did_you_mean(key, accepted)}" for key in unknown[:MAX_PROBLEMS])
    if len(unknown) > MAX_PROBLEMS:
        named += f" and {len(unknown) - MAX_PROBLEMS} more"
    noun = "argument" if len(unknown) == 1 else "arguments"
    return f"{tool} has no {noun} {named}; it takes: {', '.join(accepted)}"


def invalid_values(error: ValidationError, schema: dict) -> str:
    """One sentence for each refused value (the first problem of each), joined."""
    sentences: dict[str, str] = {}
    for problem in error.errors(include_url=False):
        label, field = _locate(schema, problem["loc"])
        if problem["type"] == "extra_forbidden":  # the refused key is not in the schema: name it apart
            label = f"{label}.{problem['loc'][-1]}"
        if label not in sentences:
            sentences[label] = _sentence(problem, label, field)
    shown = list(sentences.values())[:MAX_PROBLEMS]
    return "; ".join(shown)


# ---- wording

def _sentence(problem: dict, label: str, field: dict) -> str:
    """One refused value in plain words: what it must be, and what was given."""
    kind, ctx, value = problem["type"], problem.get("ctx") or {}, problem.get("input")
    got = f"; got {_show(value)}"
    if kind == "missing":
        about = field.get("description")
        return f"{label} is required" + (f": {about}" if about else "")
    if kind == "extra_forbidden":
        parent, _, key = label.rpartition(".")
        accepted = list(field.get("properties", {}))
        return f"{parent} has no field {quote(key)}{_did_you_mean(key, accepted)}; it takes: {', '.join(accepted)}"
    if kind in BOUNDS or kind.startswith(("int_", "float_")):
        return f"{label} must be {_number(kind, ctx, field)}{got}"
    if kind.startswith("bool_"):
        return f"{label} must be true or false{got}"
    if kind.startswith("string_") and kind != "string_type":
        return f"{label} {problem['msg'].replace('String should', 'must').lower()}{got}"
    if kind == "string_type":
        return f"{label} must be a string{got}"
    if kind in ("literal_error", "enum"):
        choices = field.get("enum") or []
        hint = _did_you_mean(value, [str(c) for c in choices]) if isinstance(value, str) else ""
        return f"{label} must be {ctx.get('expected', ' or '.join(map(repr, choices)))}{got}{hint}"
    if kind in ("list_type", "tuple_type", "set_type"):
        return f"{label} must be a list{_of(field)}{got}"
    if kind in ("too_short", "too_long"):
        bound, word = (ctx.get("min_length"), "at least") if kind == "too_short" else (ctx.get("max_length"), "at most")
        return f"{label} must have {word} {bound} item{'s' if bound != 1 else ''}; got {ctx.get('actual_length')}"
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        fields = list(field.get("properties", {}))
        return f"{label} must be an object" + (f" with fields among: {', '.join(fields)}" if fields else "") + got
    return f"{label}: {problem['msg'].rstrip('.')}{got}"


def _number(kind: str, ctx: dict, field: dict) -> str:
    """What a number must be: "between 100 and 100000", "at least 1", "a whole number between 0 and 6"."""
    low, high = field.get("minimum", ctx.get("ge")), field.get("maximum", ctx.get("le"))
    if low is not None and high is not None:
        bounds = f"between {_num(low)} and {_num(high)}"
    elif low is not None:
        bounds = f"at least {_num(low)}"
    elif high is not None:
        bounds = f"at most {_num(high)}"
    else:
        bounds = ""
    if kind in BOUNDS:  # the type was right, the size was not
        return bounds
    noun = "a whole number" if kind.startswith("int_") or field.get("type") == "integer" else "a number"
    if not bounds:
        return noun
    return f"{noun} {bounds}" if bounds.startswith("between") else f"{noun} of {bounds}"


def _of(field: dict) -> str:
    item_type = (field.get("items") or {}).get("type")
    return {"string": " of strings", "integer": " of whole numbers", "number": " of numbers"}.get(item_type, "")


def _did_you_mean(word: Any, choices: list[str]) -> str:
    if len(str(word)) > MAX_SHOWN_VALUE:  # no name is that long, and matching it would cost time on the event loop
        return ""
    close = difflib.get_close_matches(str(word), choices, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _show(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= MAX_SHOWN_VALUE else text[: MAX_SHOWN_VALUE - 1] + "…"


def _num(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


# ---- the schema of the refused value

def _locate(root: dict, loc: tuple) -> tuple[str, dict]:
    """The dotted label of a refused value ("entries[0].confidence") and its schema. Parts of the
    error location the schema does not know (pydantic's union branch tags) are left out."""
    label, node = "", _resolve(root, root)
    for part in loc:
        if isinstance(part, int) and "items" in node:
            label, node = f"{label}[{part}]", _resolve(root, node["items"])
        elif isinstance(part, str) and part in node.get("properties", {}):
            label, node = f"{label}.{part}" if label else part, _resolve(root, node["properties"][part])
        elif isinstance(part, str) and not node.get("properties") and not label:
            label = part
    return label or "arguments", node


def _resolve(root: dict, node: dict) -> dict:
    """Follow a $ref and, for an optional value, take the branch that is not null (keeping the
    description the wrapper carries)."""
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        node = {**root.get("$defs", {}).get(name, {}), **{k: v for k, v in node.items() if k != "$ref"}}
    branches = [b for b in node.get("anyOf", ()) if b.get("type") != "null"]
    if len(branches) == 1:
        inner = _resolve(root, branches[0])
        return {**{k: v for k, v in node.items() if k != "anyOf"}, **inner}
    return node
