"""Three-way merge of the team's memory files, finer than lines: a record or SKILL.md merges its front
matter field by field and its Markdown body section by section (a section is a heading and what
follows it, up to the next heading); a task, proposal or agent JSON file merges key by key. Each unit
takes the side that changed it; both changing it alike is no conflict; lists merge as sets (what
either side added stays, what either removed goes); `version` moves past both sides and `updated`
takes the later. A unit both sides changed differently is a conflict: the strategy `ours` or
`theirs` picks a side, none leaves it marked for an agent to resolve. The git merge driver and
`sync show` use this."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

import yaml

Strategy = Literal["ours", "theirs"] | None
_HEADING = re.compile(r"^[ ]{0,3}#{1,6}[ \t]+\S")
_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")
_MISSING = object()


@dataclass
class Merged:
    text: str
    conflicts: list[str] = field(default_factory=list)  # the units both sides changed differently
    sections: list[str] = field(default_factory=list)  # every unit, with how it merged (for sync show)


def merge_file(path: str, base: str, ours: str, theirs: str, strategy: Strategy = None) -> Merged | None:
    """The merge of one file by its kind, or None when it is not one this merges (the caller falls back
    to a line merge)."""
    if path.endswith(".md") and ours.startswith("---\n") and theirs.startswith("---\n"):
        return _merge_markdown(base, ours, theirs, strategy)
    if path.endswith(".json"):
        try:
            b, o, t = (json.loads(x) if x.strip() else {} for x in (base, ours, theirs))
        except ValueError:
            return None
        if isinstance(b, dict) and isinstance(o, dict) and isinstance(t, dict):
            merged = Merged("")
            result = _merge_fields(b, o, t, strategy, merged, "")
            merged.text = json.dumps(result, indent=2, ensure_ascii=False) + "\n"
            return merged
    return None


# ---- Markdown with front matter


def _split_front(text: str) -> tuple[dict, str]:
    end = text.find("\n---\n", 3)
    if end < 0:
        return {}, text
    data = yaml.safe_load(text[4:end + 1]) or {}
    return (data if isinstance(data, dict) else {}), text[end + 5:]


def _merge_markdown(base: str, ours: str, theirs: str, strategy: Strategy) -> Merged:
    (bf, bb), (of, ob), (tf, tb) = (_split_front(x) if x.startswith("---\n") else ({}, x) for x in (base, ours, theirs))
    merged = Merged("")
    front = _merge_fields(_plain(bf), _plain(of), _plain(tf), strategy, merged, "field ")
    body = _merge_sections(bb, ob, tb, strategy, merged)
    if front == _plain(of):  # unchanged from ours: keep its text as written
        dumped = ours[4:ours.find("\n---\n", 3) + 1]
    elif front == _plain(tf):
        dumped = theirs[4:theirs.find("\n---\n", 3) + 1]
    else:
        dumped = yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=100, default_flow_style=False)
    merged.text = f"---\n{dumped}---\n{body}"
    return merged


def _plain(data: dict) -> dict:
    """Front matter values as they compare: times as their text."""
    return {k: (_time(v) if hasattr(v, "isoformat") else v) for k, v in data.items()}


def _time(value: Any) -> str:
    text = value.isoformat(timespec="milliseconds") if hasattr(value, "hour") else value.isoformat()
    return text.replace("+00:00", "Z")


def sections(markdown: str) -> list[tuple[str, str]]:
    """(key, text) of each section: the text before the first heading (key ''), then each heading with
    what follows it; a key is the heading line, numbered when it repeats. Code fences hold no headings."""
    out: list[tuple[str, list[str]]] = [("", [])]
    seen: dict[str, int] = {}
    fence = None
    for line in markdown.split("\n"):
        match = _FENCE.match(line)
        if match and fence is None:
            fence = match.group(1)[0]
        elif match and fence == match.group(1)[0]:
            fence = None
        if fence is None and not match and _HEADING.match(line):
            title = " ".join(line.strip().split())
            seen[title] = seen.get(title, 0) + 1
            out.append((title if seen[title] == 1 else f"{title} ({seen[title]})", [line]))
        else:
            out[-1][1].append(line)
    return [(key, "\n".join(lines)) for key, lines in out]


def _merge_sections(base: str, ours: str, theirs: str, strategy: Strategy, merged: Merged) -> str:
    b, o, t = dict(sections(base)), sections(ours), sections(theirs)
    o_map, t_map = dict(o), dict(t)
    order = [k for k, _ in o]
    for n, (key, _) in enumerate(t):  # a section only theirs has goes after the one before it in theirs
        if key not in o_map:
            before = next((t[m][0] for m in range(n - 1, -1, -1) if t[m][0] in order), None)
            order.insert(order.index(before) + 1 if before is not None else len(order), key)
    out = []
    for key in order:
        name = f"section {key!r}" if key else "the text before the first heading"
        value = _three_way(b.get(key, _MISSING), o_map.get(key, _MISSING), t_map.get(key, _MISSING), strategy,
                           merged, name, marker=True)
        if value is not _MISSING:
            out.append(value)
    return "\n".join(out)


# ---- fields


def _merge_fields(b: dict, o: dict, t: dict, strategy: Strategy, merged: Merged, prefix: str) -> dict:
    out: dict[str, Any] = {}
    for key in [*o, *(k for k in t if k not in o)]:
        bv, ov, tv = b.get(key, _MISSING), o.get(key, _MISSING), t.get(key, _MISSING)
        if key == "version" and isinstance(ov, int) and isinstance(tv, int) and ov != bv and tv != bv:
            out[key] = max(ov, tv) + 1  # both sides wrote: the merge is a newer version than either
            merged.sections.append(f"{prefix}{key}: both changed, now {out[key]}")
            continue
        if key in ("updated", "updated_at") and isinstance(ov, str) and isinstance(tv, str) and ov != tv:
            out[key] = max(ov, tv)
            continue
        if isinstance(ov, list) and isinstance(tv, list) and (bv is _MISSING or isinstance(bv, list)):
            out[key] = _merge_list([] if bv is _MISSING else bv, ov, tv)
            merged.sections.append(f"{prefix}{key}: merged as a set")
            continue
        value = _three_way(bv, ov, tv, strategy, merged, f"{prefix}{key}", marker=False)
        if value is not _MISSING:
            out[key] = value
    return out


def _merge_list(b: list, o: list, t: list) -> list:
    """What either side added stays, what either side removed goes, in ours' order then theirs'."""
    def key(item: Any) -> str:
        return json.dumps(item, sort_keys=True, default=str)

    removed = {key(x) for x in b} - ({key(x) for x in o} & {key(x) for x in t})
    out, seen = [], set()
    for item in [*o, *t]:
        k = key(item)
        if k not in seen and k not in removed:
            seen.add(k)
            out.append(item)
    return out


def _three_way(b: Any, o: Any, t: Any, strategy: Strategy, merged: Merged, name: str, *, marker: bool) -> Any:
    if o == t:
        merged.sections.append(f"{name}: {'same on both sides' if o == b else 'changed alike'}")
        return o
    if o == b:
        merged.sections.append(f"{name}: theirs changed it")
        return t
    if t == b:
        merged.sections.append(f"{name}: ours changed it")
        return o
    merged.conflicts.append(name)
    merged.sections.append(f"{name}: CONFLICT, both changed it" + (f" (took {strategy})" if strategy else ""))
    if strategy == "ours":
        return o
    if strategy == "theirs":
        return t
    if not marker:  # a field keeps ours until resolved; the conflict is reported
        return o
    ours_text = "" if o is _MISSING else o
    theirs_text = "" if t is _MISSING else t
    return f"<<<<<<< ours\n{ours_text}\n=======\n{theirs_text}\n>>>>>>> theirs"
