"""The benchmark's shared vocabulary: the indexed base commit a system reads (Repo), what a system
returns (Output, with a Packet per budget), the function and class chunks the baselines rank, and the
greedy packer they share. Every system and baseline module imports these from here, so that none
imports another's."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from graphctx.bench.instances import top_keys
from graphctx.models import CLASS_KINDS, FUNCTION_KINDS
from graphctx.project import Project

MAX_EXAMINED = 3000  # chunks a greedy packer looks at before it stops
count = Project.count_tokens


@dataclass
class Packet:
    text: str
    tokens: int
    covered: dict[str, set[int]] = field(default_factory=dict)  # path -> source lines shown verbatim
    files: set[str] = field(default_factory=set)  # files with any content shown


@dataclass
class Output:
    ranked: list[str]  # entity ids (path::Qualified.name) or file paths, best first
    packets: dict[int, Packet]
    seconds: float  # the query alone (ranking and packing), index and graph load excluded
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Chunk:
    id: str
    path: str
    kind: str
    start: int
    end: int
    exclude: tuple[tuple[int, int], ...] = ()  # member spans left out of a class chunk


class Repo:
    """One indexed base commit: its files, entities and source, read once per instance."""

    def __init__(self, root: Path):
        self.root = root
        self.project = Project(root, find=False, ephemeral=False)
        started = time.perf_counter()
        self.graph = self.project.graph
        self.load_seconds = time.perf_counter() - started
        g = self.graph.graph
        self.files = sorted(self.graph.files)
        self.entities = {n: d for n, d in g.nodes(data=True)}
        self._lines: dict[str, list[str]] = {}

    def lines(self, path: str) -> list[str]:
        if path not in self._lines:
            try:
                self._lines[path] = (self.root / path).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                self._lines[path] = []
        return self._lines[path]

    @cached_property
    def kinds_by_file(self) -> dict[str, dict[str, str]]:
        out: dict[str, dict[str, str]] = {}
        for d in self.entities.values():
            if d["kind"] != "file":
                out.setdefault(d["path"], {})[d["qualified_name"]] = d["kind"]
        return out

    def keys(self, entity_id: str) -> tuple[str | None, str | None, str | None]:
        """(file, module key, function key) of an entity id or a file path."""
        d = self.entities.get(entity_id)
        if d is None:
            return (entity_id if entity_id in self.graph.files else None), None, None
        if d["kind"] == "file":
            return d["path"], None, None
        module, function = top_keys(d["path"], d["qualified_name"], self.kinds_by_file.get(d["path"], {}))
        return d["path"], module, function

    @cached_property
    def function_spans(self) -> dict[str, tuple[str, int, int]]:
        """Function key -> (path, start, end): the span whose whole body counts as retrieved."""
        out = {}
        for n, d in self.entities.items():
            if d["kind"] in FUNCTION_KINDS:
                _, _, key = self.keys(n)
                if key and key.split(":", 1)[1] == d["qualified_name"]:
                    out[key] = (d["path"], d["start_line"], d["end_line"])
        return out

    @cached_property
    def chunks(self) -> list[Chunk]:
        """Functions and methods (nested functions stay inside their outer one) and classes (their own
        lines: header, doc, attributes, without member bodies), in file order."""
        members: dict[str, list[tuple[int, int]]] = {}
        for d in self.entities.values():
            if d["kind"] in FUNCTION_KINDS | CLASS_KINDS and d.get("parent"):
                members.setdefault(d["parent"], []).append((d["start_line"], d["end_line"]))
        out = []
        for n, d in self.entities.items():
            parent = self.entities.get(d.get("parent") or "")
            if parent is not None and parent["kind"] in FUNCTION_KINDS:
                continue
            if d["kind"] in FUNCTION_KINDS:
                out.append(Chunk(n, d["path"], d["kind"], d["start_line"], d["end_line"]))
            elif d["kind"] in CLASS_KINDS:
                out.append(Chunk(n, d["path"], d["kind"], d["start_line"], d["end_line"], tuple(sorted(members.get(n, ())))))
        out.sort(key=lambda c: (c.path, c.start, c.id))
        return out

    def chunk_lines(self, chunk: Chunk) -> list[int]:
        skip = set()
        for a, b in chunk.exclude:
            skip.update(range(a, b + 1))
        return [i for i in range(chunk.start, chunk.end + 1) if i not in skip]

    def chunk_text(self, chunk: Chunk) -> str:
        lines = self.lines(chunk.path)
        return "\n".join(lines[i - 1] for i in self.chunk_lines(chunk) if i - 1 < len(lines))


# ---- packing for the baselines

def render_chunk(path: str, start: int, end: int, body: str) -> str:
    return f"## {path} L{start}-{end}\n{body}"


def pack_chunks(repo: Repo, chunks: list[Chunk], budget: int, *, cut_last: bool = False) -> Packet:
    """Greedy: each chunk in rank order goes in whole if it fits in what is left, else is skipped
    (with cut_last, cut to its first lines instead). The joined text is counted exactly at the end
    and trimmed from the end if token merges across joins pushed it over."""
    parts: list[tuple[str, str, list[int]]] = []
    left = budget
    for examined, chunk in enumerate(chunks):
        if left <= 16 or examined >= MAX_EXAMINED:
            break
        lines = repo.chunk_lines(chunk)
        src = repo.lines(chunk.path)
        body_lines = [src[i - 1] for i in lines if i - 1 < len(src)]
        text = render_chunk(chunk.path, chunk.start, chunk.end, "\n".join(body_lines))
        cost = count(text) + 1
        if cost <= left:
            parts.append((chunk.path, text, lines))
            left -= cost
        elif cut_last:
            keep = _cut_to(chunk.path, lines, body_lines, left - 1)
            if keep:
                shown = lines[:keep]
                parts.append((chunk.path, render_chunk(chunk.path, shown[0], shown[-1], "\n".join(body_lines[:keep])), shown))
                left -= count(parts[-1][1]) + 1
    while True:
        text = "\n".join(p[1] for p in parts)
        tokens = count(text)
        if tokens <= budget or not parts:
            break
        parts.pop()
    packet = Packet(text, tokens)
    for path, _, lines in parts:
        packet.covered.setdefault(path, set()).update(lines)
        packet.files.add(path)
    return packet


def _cut_to(path: str, lines: list[int], body: list[str], left: int) -> int:
    """How many leading lines of a chunk fit in `left` tokens (binary search on the exact count)."""
    lo, hi = 0, len(body)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(render_chunk(path, lines[0], lines[mid - 1], "\n".join(body[:mid]))) <= left:
            lo = mid
        else:
            hi = mid - 1
    return lo
