"""The MCP fuzzer's inputs: call number i of seed s is always the same tool name and arguments,
whichever process makes it (so a fuzzing session can restart after a hang or a crash and go on).
Tool names are real, near misses or junk; arguments mix valid values (from each tool's schema and
the project's names) with junk: NUL bytes, control characters, odd Unicode, paths out of the
repository, query syntax, strings up to a megabyte, wrong types, nested junk, extreme numbers."""

from __future__ import annotations

import random
import string
from typing import Any

Schema = dict[str, Any]
CONTROL = "".join(map(chr, range(1, 32))) + "\x7f"
ODD_STRINGS = (
    "", " ", "\n\n", "\x00", "a\x00b", "\x00" * 64, "\ud7ff\ue000\uffff", "ünïcødé", "名前", "💥" * 8,
    "\u202eevil", "\ufeffbom", "e\u0301", "../../../etc/passwd", "/etc/passwd", "app/../../outside.py", "..", ".",
    "~/.ssh/id_rsa",
    "C:\\Windows\\system32", "file:///etc/passwd", "\\\\server\\share", "%s%s%n", "{0}{1}", "${HOME}", "$(id)", "`id`",
    "'; DROP TABLE entities; --", '"', "'", "\\", "NEAR(a b)", '"unterminated', "a OR", "*", "AND", "-x", "col:val",
    "^x", "(((", "[", "]]", "::", "a::b::c", "#", "-", "--help", "null", "true", "0", "-1", "1e309", "NaN",
)
NUMBERS = (0, -1, 1, 99, 100, 100_000, 100_001, -(2**31), 2**31, -(2**63), 2**63, 2**64, 10**30, -(10**30))
FLOATS = (0.5, -0.0, 1e308, -1e308, 5e-324, 3.14159, 4000.0)
HUGE = (1_000, 10_000, 100_000, 1_000_000)
# The SDK's client cannot send JSON nested deeper than about 250 levels (pydantic-core's serializer):
# deeper values would fail in the client, not in the server.
MAX_NESTING = 200


class Fuzz:
    """Call factory for one seed; `max_string` caps the longest string it makes, `max_nesting` the
    deepest nesting of lists and objects."""

    def __init__(self, seed: int, tools: dict[str, Schema], vocabulary: list[str], max_string: int = 1_000_000,
                 max_nesting: int = MAX_NESTING):
        self.seed, self.tools, self.vocabulary = seed, tools, vocabulary
        self.max_string, self.max_nesting = max_string, max_nesting

    def call(self, number: int) -> tuple[str, dict[str, Any]]:
        rng = random.Random(f"{self.seed}:{number}")
        name = self._tool_name(rng)
        schema = self.tools.get(name) or self.tools[rng.choice(sorted(self.tools))]
        return name, self._arguments(rng, schema)

    # ---- names

    def _tool_name(self, rng: random.Random) -> str:
        roll = rng.random()
        real = rng.choice(sorted(self.tools))
        if roll < 0.75:
            return real
        if roll < 0.88:
            return _typo(rng, real)
        return self._string(rng)

    # ---- arguments

    def _arguments(self, rng: random.Random, schema: Schema) -> dict[str, Any]:
        props: dict[str, Schema] = schema.get("properties", {})
        required = list(schema.get("required", []))
        roll = rng.random()
        if roll < 0.08:
            return {}
        if roll < 0.45:  # valid but for one value
            args = {k: self.valid(rng, props[k]) for k in required}
            optional = rng.sample(sorted(props), rng.randrange(len(props) + 1))
            args.update({k: self.valid(rng, props[k]) for k in optional})
            if args and rng.random() < 0.8:
                args[rng.choice(sorted(args))] = self.junk(rng)
            return args
        if roll < 0.7:  # real names, junk values
            if not props:
                return {}
            return {k: self.junk(rng) for k in rng.sample(sorted(props), rng.randrange(1, len(props) + 1))}
        if roll < 0.85:  # real names plus unknown ones
            args = {k: self.valid(rng, props[k]) for k in required}
            for _ in range(rng.randrange(1, 3)):
                key = _typo(rng, rng.choice(sorted(props))) if props and rng.random() < 0.6 else self._string(rng)
                args[key] = self.junk(rng)
            return args
        return {self._string(rng): self.junk(rng) for _ in range(rng.randrange(1, 4))}

    def valid(self, rng: random.Random, schema: Schema) -> Any:
        """A value the schema accepts (as far as its type, enum and bounds say)."""
        branches = [b for b in schema.get("anyOf", ()) if b.get("type") != "null"]
        if branches:
            return self.valid(rng, rng.choice(branches))
        if "enum" in schema:
            return rng.choice(schema["enum"])
        kind = schema.get("type")
        if kind == "integer":
            low = int(schema.get("minimum", 0))
            high = int(schema.get("maximum", low + 10))
            return rng.choice([low, high, rng.randint(low, high)])
        if kind == "number":
            return rng.uniform(float(schema.get("minimum", 0)), float(schema.get("maximum", 1)))
        if kind == "boolean":
            return rng.random() < 0.5
        if kind == "array":
            return [self.valid(rng, schema.get("items", {"type": "string"})) for _ in range(rng.randrange(1, 3))]
        if kind == "object":
            return {}
        return rng.choice(self.vocabulary)

    def junk(self, rng: random.Random, depth: int = 0) -> Any:
        roll = rng.random()
        if roll < 0.45 or depth > 3:
            return self._string(rng)
        if roll < 0.6:
            return rng.choice(NUMBERS + (rng.randint(-(10**12), 10**12),))
        if roll < 0.66:
            return rng.choice(FLOATS)
        if roll < 0.71:
            return rng.random() < 0.5
        if roll < 0.76:
            return None
        if roll < 0.86:
            return [self.junk(rng, depth + 1) for _ in range(rng.randrange(4))]
        if roll < 0.97:
            return {self._string(rng)[:40]: self.junk(rng, depth + 1) for _ in range(rng.randrange(4))}
        deep: Any = rng.choice(["x", 1, None])  # nesting far deeper than any tool reads
        for _ in range(rng.choice([min(50, self.max_nesting), self.max_nesting])):
            deep = [deep] if rng.random() < 0.5 else {"a": deep}
        return deep

    def _string(self, rng: random.Random) -> str:
        roll = rng.random()
        if roll < 0.3:
            return rng.choice(self.vocabulary)
        if roll < 0.55:
            return rng.choice(ODD_STRINGS)
        if roll < 0.7:  # a name with control characters or a NUL in it
            word = list(rng.choice(self.vocabulary))
            for _ in range(rng.randrange(1, 4)):
                word.insert(rng.randrange(len(word) + 1), rng.choice(CONTROL + "\x00"))
            return "".join(word)
        if roll < 0.85:
            return "".join(_random_char(rng) for _ in range(rng.randrange(1, 40)))
        if roll < 0.95:
            return "".join(rng.choice(string.printable) for _ in range(rng.randrange(40, 400)))
        sizes = [n for n in HUGE if n <= self.max_string] or [self.max_string]
        size = rng.choice(sizes)
        unit = rng.choice(["x", "Model", "a b ", "\x00", "é", "(", "💥"])
        return (unit * (size // len(unit) + 1))[:size]


def _typo(rng: random.Random, name: str) -> str:
    if not name:
        return "x"
    i = rng.randrange(len(name))
    return rng.choice([name[:i] + name[i + 1:], name[:i] + name[i] * 2 + name[i + 1:], name.upper(),
                       name.replace("_", "-"), name + "s", " " + name])


def _random_char(rng: random.Random) -> str:
    """Any code point a JSON string can carry (no lone surrogates)."""
    while True:
        code = rng.choice([rng.randrange(0x80), rng.randrange(0x80, 0x800), rng.randrange(0x800, 0x10000),
                           rng.randrange(0x10000, 0x110000)])
        if not 0xD800 <= code <= 0xDFFF:
            return chr(code)
