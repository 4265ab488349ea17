"""The three views of an entity an answer can show: `full` (its code; for a class with members
or a file, an outline of them instead of a copy of their bodies), `summary` (signature and doc)
and `line` (the heading alone). Reads source from disk, never through a symbolic link that leaves
the repository (keeping recently quoted files' lines between answers while their stat stays the same),
and flags files changed since indexing."""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

from graphctx.context.packer import Candidate
from graphctx.graph.loader import CodeGraph
from graphctx.index.changes import changed_files
from graphctx.index.root import Boundary
from graphctx.models import ANONYMOUS_KINDS, CLASS_KINDS, PacketItem

if TYPE_CHECKING:
    from graphctx.records import AnchoredRecord

SUMMARY_DOC_LINES = 3
KEPT_FILES = 64  # source files whose lines the answers of one graph generation keep between them
KEPT_OUTLINES = 4096  # class and file outlines the answers of one graph generation keep between them
_KEEPING = threading.Lock()  # the graph's cache is shared by the threads answering from it


class Views:
    def __init__(self, graph: CodeGraph, summary_doc_lines: int = SUMMARY_DOC_LINES,
                 records: dict[str, AnchoredRecord] | None = None):
        self.graph = graph
        self.records = records or {}
        self.summary_doc_lines = summary_doc_lines
        self.boundary = Boundary(graph.root)
        self._sources: dict[str, list[str] | None] = {}
        self._stale: dict[str, bool] = {}

    def __call__(self, candidate: Candidate, detail: str) -> PacketItem:
        if candidate.id in self.records:
            return self._record(candidate, detail)
        e = self.graph.entity(candidate.id)
        stale = self.stale(e["path"])
        if detail == "full":
            text = self._full(candidate.id, e, self.source(e["path"]))
        elif detail == "summary":
            text = self._summary(e)
        else:
            text = ""
        # An answer is not validated (packets.py): its values are given in the plain types validation gives.
        return PacketItem(
            id=candidate.id, kind=e["kind"], path=e["path"], start_line=e["start_line"], end_line=e["end_line"],
            score=float(round(candidate.score, 4)), relation=candidate.relation, distance=int(candidate.distance),
            detail=detail, text=text, body_hash=e["body_hash"], resolution=candidate.resolution,
            confidence=float(candidate.confidence), stale=bool(stale),
        )

    def _record(self, candidate: Candidate, detail: str) -> PacketItem:
        from graphctx.records.render import answer_text  # only answers with records show one

        record = self.records[candidate.id].record
        return PacketItem(
            id=candidate.id, kind=record.kind, path=record.path or "", start_line=0, end_line=0,
            score=float(round(candidate.score, 4)), relation="record", distance=0, detail=detail,
            text=answer_text(self.records[candidate.id], detail),
        )

    def source(self, path: str) -> list[str] | None:
        """The file's lines, read once per answer; None when unreadable."""
        if path not in self._sources:
            self._sources[path] = self._lines(path)
        return self._sources[path]

    def _lines(self, path: str) -> list[str] | None:
        """The file's lines, kept on the graph between answers (the last KEPT_FILES files) while its
        stat (inode, size, modification and change times) stays the same: answers quote the same big
        files again and again, and reading and splitting one costs more than ranking its entities."""
        try:
            st = os.stat(self.boundary.path(path))
            identity = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
            kept = self.graph.cache.setdefault("file-lines", {})
            found = kept.get(path)
            if found is not None and found[0] == identity:
                return found[1]
            lines = self.boundary.read_text(path).splitlines()
        except OSError:
            return None
        with _KEEPING:
            kept.pop(path, None)
            kept[path] = (identity, lines)  # (a file changed since the stat is read again next time)
            while len(kept) > KEPT_FILES:
                del kept[next(iter(kept))]
        return lines

    def stale(self, path: str) -> bool:
        """Whether the file's content changed on disk since it was indexed (its lines may have moved).
        A touched file keeps its content hash: only a new stat with new bytes counts."""
        if path not in self._stale:
            files = self.graph.files if path in self.graph.files else {path: {}}  # unknown: stale unless absent
            self._stale[path] = bool(changed_files(self.boundary, files, [path]).changed)
        return self._stale[path]

    def counted(self) -> dict:
        """The token counts of view texts, kept on the graph: its generation's answers show the same bodies."""
        return self.graph.cache.setdefault("view-tokens", {})

    def min_full_tokens(self, entity_id: str) -> int:
        """A cheap lower bound on the tokens of the full view, to skip reading what cannot fit."""
        if entity_id not in self.graph:
            return 0
        e = self.graph.nodes[entity_id]
        return 0 if e["kind"] in CLASS_KINDS or e["kind"] == "file" else e["end_line"] - e["start_line"] + 1

    def _full(self, entity_id: str, e: dict, lines: list[str] | None) -> str:
        if e["kind"] == "file" or e["kind"] in CLASS_KINDS:  # only these show their members
            members = self.members(entity_id)
            if e["kind"] == "file" or members:
                return self._kept_outline(entity_id, e, members, lines)
        if lines is None:
            return self._summary(e)
        code = lines[e["start_line"] - 1: e["end_line"]]
        if e["kind"] == "route":  # the registration alone does not say the path another file's mount gives
            return "\n".join([self._summary(e), *code])
        return "\n".join(code)

    def _kept_outline(self, entity_id: str, e: dict, members: list[str], lines: list[str] | None) -> str:
        """The outline, kept on the graph while its file holds what was indexed (the graph's generation
        then fixes every line of it): answers outline the same hub classes and files again and again."""
        if lines is None or self.stale(e["path"]):
            return self._outline(e, members, lines)
        kept = self.graph.cache.setdefault("outlines", {})
        key = (entity_id, self.summary_doc_lines)
        found = kept.get(key)
        if found is None:
            if len(kept) >= KEPT_OUTLINES:
                kept.clear()
            found = kept[key] = self._outline(e, members, lines)
        return found

    def _summary(self, e: dict) -> str:
        doc = [line for line in e["doc"].splitlines() if line.strip()][: self.summary_doc_lines]
        head = e["signature"] or e["name"]
        return "\n".join([head, *(f"  {line}" for line in doc)]) if e["kind"] != "file" else "\n".join(doc)

    def _outline(self, e: dict, members: list[str], lines: list[str] | None) -> str:
        """A class's header and doc then its members' signatures; a file's doc then its top-level entities."""
        out = []
        self.graph.fill_details(members)
        if e["kind"] != "file":
            first_member = self.graph.entity(members[0])["start_line"] if members else e["end_line"] + 1
            if lines is not None:
                out += lines[e["start_line"] - 1: min(first_member - 1, e["end_line"])]
            else:
                out.append(e["signature"])
        elif e["doc"]:
            out += e["doc"].splitlines()[: self.summary_doc_lines]
        for member in members:
            m = self.graph.entity(member)
            doc = m["doc"].splitlines()[0] if m["doc"] else ""
            out.append(f"  L{m['start_line']} {m['signature'] or m['name']}" + (f"  # {doc}" if doc else ""))
        return "\n".join(out)

    def members(self, entity_id: str) -> list[str]:
        """The entity's named members in source order, kept on the graph (its generation's edges do not
        change): answers outline the same big classes again and again, and sorting hundreds of members
        costs more than counting their outline's remembered lines."""
        kept = self.graph.cache.setdefault("members", {})
        found = kept.get(entity_id)
        if found is None:
            nodes = self.graph.nodes
            named = {t for t, kind in self.graph.out_kinds(entity_id)
                     if kind == "contains" and nodes[t]["kind"] not in ANONYMOUS_KINDS}
            found = kept[entity_id] = tuple(sorted(named, key=lambda m: (nodes[m]["path"], nodes[m]["start_line"])))
        return list(found)
