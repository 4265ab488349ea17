"""The flow-path notation (see `facts.Flow`) as the resolver reads it: a call's callee as a path,
the argument a call passes for a parameter, slices and subscript keys, and the value a definition
itself is. The bounds on what a path may hold. Plain functions of plain data."""

from __future__ import annotations

import re
from functools import lru_cache

from graphctx.index.scope import Value
from graphctx.models import CLASS_KINDS
from graphctx.parse.facts import Call

SLICED = re.compile(r"\[:(\d*)\](?:\[([^\[\]]*)\])?")  # a slice `[:start]`, maybe subscripted after
SUBSCRIPTS = re.compile(r"(?:\[[^\[\]]*\])+$")  # the trailing `[k]`/`[]` of a path
KEYS = re.compile(r"\[([^\[\]]*)\]")
MAX_EXTERNAL_PARTS = 4  # dotted parts of an external value's name: deeper (`x = x.ring` in a loop) is no news
MAX_KEY_CHOICES = 16  # subscript suffixes tried for one read through variable keys
MAX_VALUES = 64  # values one path may hold; past it (a parameter that every caller feeds) it may hold anything
Values = frozenset  # of Value
UNKNOWN = Value("unknown", "", "unresolved")  # could be anything: absorbs whatever it is joined with
TOO_MANY = frozenset({UNKNOWN})
# External functions that keep the function they are handed instead of calling it (no callback edge).
NOT_CALLING = frozenset({"partial", "partialmethod", "wraps", "property", "cached_property"})


def callee_path(call: Call) -> str:
    """The callee of a call as a flow path ("" when not even a path says it)."""
    if call.callee:
        return call.callee
    if call.receiver is None:
        return call.name
    if call.receiver == "?":
        return ""
    return f"{call.receiver}.{call.name}" if call.name else ""


def called_arguments(args: list[str], callees: list[str], rules) -> list[str]:
    """The paths of the arguments that external `callees` (their names) may call: every one handed to a
    library's function or to `map`, `sorted`'s key alone, none of `isinstance`'s or `len`'s (the
    language's `builtin_callbacks`)."""
    known = rules.builtin_callbacks
    if known is None or any(name not in rules.builtins or known.get(name, ()) is None for name in callees):
        paths = [arg.partition("=")[2] if "=" in arg else arg for arg in args]
        return [path for path in paths if path and not path.startswith("*")]
    called = [argument_for(args, keyword, -1) for name in callees for keyword in known.get(name, ())]
    return [path for path in dict.fromkeys(called) if path]


def argument_for(args: list[str], param: str, position: int) -> str:
    """The path a call passes for parameter `param` at `position` ("" when it passes none we can name)."""
    positional = []
    for arg in args:
        name, eq, value = arg.partition("=")
        if eq and name == param:
            return value
        if not eq:
            if arg.startswith("*"):
                break  # an unpacked sequence: later positions are unknown
            positional.append(arg)
    return positional[position] if 0 <= position < len(positional) else ""


def unslice(path: str) -> str:
    """`ls[:1][0]` -> `ls[1]`; a slice by an unknown start, or one not subscripted, -> any element or the list."""
    def shift(match: re.Match) -> str:
        start, index = match.group(1), match.group(2)
        if index is None:
            return ""
        if start and index.isdigit():
            return f"[{int(start) + int(index)}]"
        return "[]"
    return SLICED.sub(shift, path)


def key_choices(suffix: str, held) -> list[str]:
    """A subscript suffix with its variable keys (`[$k]`) replaced by the constants the variable
    holds (`held(k)`, its values): one suffix per combination, or any key (`[]`) where a variable
    holds something else."""
    if "$" not in suffix:  # (most suffixes: no variable key, so the one choice is the suffix itself)
        return [suffix]
    choices = [""]
    for found in KEYS.findall(suffix):
        options = [found]
        if found.startswith("$"):
            values = held(found[1:])
            literal = sorted(v.ref for v in values if v.kind == "literal")
            options = literal if literal and len(literal) == len(values) else [""]
        choices = [c + f"[{o}]" for c in choices for o in options][:MAX_KEY_CHOICES]
    return choices


@lru_cache(maxsize=1 << 14)  # (a pure answer on two short strings, asked for each store at every read of an element)
def same_element(stored: str, asked: str) -> bool:
    """Whether a store into subscripts `stored` may be what a read of `asked` finds: as deep, and at
    each level the same literal key or a key not known on either side."""
    stored_keys, asked_keys = KEYS.findall(stored), KEYS.findall(asked)
    return len(stored_keys) == len(asked_keys) and all(
        not s or not a or s == a or s.startswith("$") or a.startswith("$") for s, a in zip(stored_keys, asked_keys))


def order(value: Value) -> tuple:
    return (value.kind, str(value.ref), value.bound)


def definition_value(sym) -> Value:
    kind = "class" if sym.kind in CLASS_KINDS else "function" if sym.kind in ("function", "method", "lambda") else "constant"
    return Value(kind, sym.id, "exact")


def ordered(values: Values) -> list[Value]:
    """Values in a fixed order. Which questions are asked first decides which become a cycle's head
    and what a budget cuts: a set's own order (string hashes, different in every process) would
    make the same tree give different edges."""
    return sorted(values, key=order) if len(values) > 1 else list(values)


def extends(external: str, attr: str) -> bool:
    """Whether `external.attr` is still a name worth deriving. A long chain, or one naming an
    attribute twice (`ring.ring`, `canonical.expr.canonical`), is what a loop feeding a variable
    back into itself spells out: no library defines it, so it is left unresolved."""
    parts = external.split(".")
    return len(parts) < MAX_EXTERNAL_PARTS and attr not in parts[1:]
