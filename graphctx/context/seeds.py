"""Turns free text (an issue report, a task, a stack trace) into weighted seed entities: stack
frames (file and line), file paths, code spans, identifiers that name entities (weighted by how
rare the name is), and full-text matches over names, signatures, docs and bodies. It also gathers,
once per text, the evidence the final ranking blends in (TextEvidence): every entity's full-text
score, how strongly the text names something in each file, and which files are asides (tests and
documentation the text does not name). Weights and limits come from a SeedPolicy."""

from __future__ import annotations

import math
import re
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field

from graphctx import deadline
from graphctx.context.policy import SeedPolicy
from graphctx.graph.loader import CodeGraph
from graphctx.graph.lookup import bm25, files_named, find_entities, full_text, uninformative_words
from graphctx.text import STOP_WORDS, words
from graphctx.parse.languages import source_extensions
from graphctx.parse.textfiles import PROSE

# The extensions of every parsed language (py|pyi|js|...), longest first so none stops at a prefix.
_EXT = "|".join(re.escape(ext[1:]) for ext in sorted(source_extensions(), key=lambda ext: (-len(ext), ext)))
# Every pattern here runs on text anyone can send, so each is linear in it: a path may start only
# where a path-like run starts (the lookbehinds), so no position is scanned again from inside a run.
_FRAME = re.compile(
    r'File "(?P<py>[^"\n]{1,1000})", line (?P<pyline>\d{1,9})'  # Python traceback
    rf"|(?<![\w./\\-])(?P<path>[\w./\\-]+\.(?:{_EXT})):(?P<line>\d{{1,9}})"  # path:line
)
_PATH = re.compile(rf"(?<![\w/.-])([\w.-]+(?:/[\w.-]+)*\.(?:{_EXT}))(?!\w)")  # (?!\w), not \b: an extension may end in "+" (.c++)
_INLINE = re.compile(r"`[^`\n]+`")
_FENCED = re.compile(r"```.*?```", re.S)
_ALIAS = re.compile(r"\bimport[ \t]+([A-Za-z_][\w.]*)[ \t]+as[ \t]+([A-Za-z_]\w*)")  # import xarray as xr
# Where a sentence (a line, a list item, a heading) starts: a capital there says nothing of code.
_SENTENCE_START = re.compile(r"(?:^|[.!?][ \t])[ \t*#>-]*$", re.M)
# What precedes a plain word in a block that makes it a name of code: an import, a definition, a
# decorator, or the function of a Python traceback's frame (`File "a.py", line 3, in unparse`).
_NAMING = re.compile(r"(?:^[ \t]*(?:from|import|def|class|async[ \t]+def)[ \t]+|\bimport[ \t]+|, in[ \t]+|@)$", re.M)
# What a code block defines (`def setup(app):`, `class Square:`), the attributes it annotates in a
# class (`width: int`), and an attribute of the object a method is on (`self.width`).
_DEFINITION = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_]\w*)", re.M)
_ANNOTATED = re.compile(r"^[ \t]+([A-Za-z_]\w*)[ \t]*:[ \t]*[^\s=]", re.M)
_OWN_ATTRIBUTE = re.compile(r"(?<![\w.])(?:self|cls)\.[A-Za-z_]\w*")
_WORD = re.compile(r"(?<![\w.])[A-Za-z_]\w*")  # a name, not an attribute (`Square`, not `x.Square`)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*")
# A compound identifier (snake_case; an option's kebab-case, three parts or more), whose words the
# full-text query also asks for side by side (see phrases). Each starts only where a word starts.
_COMPOUND = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)+|(?<!\w)[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+){2,}")
MAX_PHRASES = 20
MAX_TITLE_CHARS = 200  # a longer first line is a paragraph, not a title
MAX_NAME_CHARS = 200  # longer dotted runs (a.a.a...) name nothing, and resolving them costs per part
# Docs, examples, benchmarks, and third-party code copied in: a vendor folder, or a script named with
# its version (jquery-3.5.1.js, underscore-1.13.1.min.js).
_ASIDE = re.compile(r"(^|/)(docs?|examples?|benchmarks?|vendor(ed)?|third[_-]?party)/|[-.]v?\d+\.\d+(\.\d+)*(\.min)?\.m?js$")


@dataclass
class TextEvidence:
    """What a text says beyond its seeds, gathered once and consumed by the blend. Whether a file is
    an aside is decided once per file, on first asking, and the seeds and the blend share the answer."""

    text: str  # the part of the text seeds are drawn from (see bounded)
    text_scores: dict[str, float] = field(default_factory=dict)  # BM25 relative to the best match, 0..1
    named: dict[str, float] = field(default_factory=dict)  # entity -> weight of the names, paths and frames naming it
    named_in_file: dict[str, float] = field(default_factory=lambda: defaultdict(float))  # path -> the same, per file
    truncated: bool = False  # the text was longer than the policy's text_head + text_tail characters
    _asides: dict[str, bool] = field(default_factory=dict, repr=False)

    def is_aside(self, graph: CodeGraph, path: str) -> bool:
        """A test or documentation (see is_aside), unless the text names the file itself."""
        known = self._asides.get(path)
        if known is None:
            known = self._asides[path] = is_aside(graph.files.get(path), path, self.text)
        return known


def is_aside(info: dict | None, path: str, text: str) -> bool:
    """Whether the file at `path` (its index row `info`) is an aside for `text`: a test, a document
    (Markdown, reStructuredText, plain text: a changelog or a README wherever it lies), a file under
    docs/, examples/ or benchmarks/, or vendored code, that the text does not name: by its file name,
    or, for a test, by its folder and file name (`tests/test_api.py`). A bare `test_foo.py` is as often
    the reporter's own reproduction, or a test the report was cut from, as the repository's file."""
    if not (info and (info.get("is_test") or info.get("language") in PROSE or _ASIDE.search(path))):
        return False
    name = "/".join(path.split("/")[-2:]) if info.get("is_test") else path.rsplit("/", 1)[-1]
    return name not in text


def asides(graph: CodeGraph, text: str, policy: SeedPolicy) -> set[str]:
    """Every file that is an aside for `text` (read as seeds read it: its bounded part)."""
    text, _ = bounded(text, policy)
    return {path for path, info in graph.files.items() if is_aside(info, path, text)}


@dataclass
class Seeds:
    """The weighted entities a walk restarts at, why each is there, and the text's evidence."""

    evidence: TextEvidence
    weights: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    reasons: dict[str, str] = field(default_factory=dict)

    def add(self, entity_id: str, weight: float, why: str) -> None:
        self.weights[entity_id] += weight
        self.reasons.setdefault(entity_id, why)

    def top(self, limit: int) -> dict[str, float]:
        return dict(sorted(self.weights.items(), key=lambda kv: -kv[1])[:limit])


def from_text(graph: CodeGraph, conn: sqlite3.Connection, text: str, policy: SeedPolicy) -> Seeds:
    """The seeds a text names or matches, weighted by `policy`, with the text's evidence."""
    text, truncated = bounded(text, policy)
    seeds = Seeds(TextEvidence(text, truncated=truncated))
    _frames(graph, text, seeds, policy.frame)
    for named in dict.fromkeys(m.group(1) for m in _PATH.finditer(text)):
        deadline.check()
        for path in _files_matching(graph, named):
            seeds.add(path, policy.path, f"path {named}")
    # An inline span names code; a fenced block also holds shell sessions (`$ git clone`), logs and
    # program output, whose plain words name code only when used as code (see _reads_as_code).
    blocks = without_reporters_names(graph, [m.group(0).strip("`") for m in _FENCED.finditer(text)])
    prose = _FENCED.sub(" ", text)
    inline = [m.group(0).strip("`") for m in _INLINE.finditer(prose)]
    aliases = {m.group(2): m.group(1) for m in _ALIAS.finditer(text)}  # xr.where names xarray.where
    _identifiers(graph, "\n".join(inline), seeds, policy.span, policy.prose_name, "always", aliases)
    _identifiers(graph, "\n".join(blocks), seeds, policy.span, policy.prose_name, "called", aliases)
    _identifiers(graph, _INLINE.sub(" ", prose), seeds, policy.name, policy.prose_name, "shaped", aliases)
    evidence = seeds.evidence
    evidence.named = dict(seeds.weights)  # so far only what the text names: frames, paths, names
    for entity_id, weight in evidence.named.items():
        evidence.named_in_file[graph.nodes[entity_id]["path"]] += weight
    matches = [(entity_id, share) for entity_id, share in _full_text(graph, conn, text, policy) if entity_id in graph]
    evidence.text_scores = dict(matches)
    for entity_id, share in matches[:policy.full_text_limit]:
        seeds.add(entity_id, policy.text * share, "full-text")
    for entity_id in list(seeds.weights):  # asides spread less relevance (see SeedPolicy.aside)
        if evidence.is_aside(graph, graph.nodes[entity_id]["path"]):
            seeds.weights[entity_id] *= policy.aside
    return seeds


def is_truncated(text: str, policy: SeedPolicy) -> bool:
    """Whether seeds are drawn from only the head and tail of `text` (see bounded)."""
    return len(text) > policy.text_head + policy.text_tail


def bounded(text: str, policy: SeedPolicy) -> tuple[str, bool]:
    """The part of a text that seeds are drawn from, and whether anything was left out."""
    if not is_truncated(text, policy):
        return text, False
    return f"{text[:policy.text_head]}\n{text[-policy.text_tail:]}", True


def query_terms(text: str, policy: SeedPolicy) -> list[str]:
    """The full-text query's terms: split words minus stop words, in the text's order, up to max_terms."""
    return [t for t in dict.fromkeys(words(text).split()) if len(t) > 1 and t not in STOP_WORDS][:policy.max_terms]


def title(text: str) -> str:
    """The first line of a text that goes on after it, when it is short enough to be a title (an issue's,
    a commit message's subject): the words its author chose to sum the rest up. A one-line text has
    none (every word is the title's, so none stands out)."""
    head, _, rest = text.strip().partition("\n")
    return head if rest.strip() and len(head) <= MAX_TITLE_CHARS else ""


def phrases(text: str) -> list[str]:
    """The words of each compound identifier in `text` (`autodoc_typehints_description_target`,
    `min-similarity-lines`), as the full-text index splits them, up to MAX_PHRASES: asked for as a
    phrase, they match the code that spells the identifier (a config value read in a body), not every
    entity that uses one of its words."""
    found = dict.fromkeys(" ".join(part.lower() for part in re.split(r"[_-]+", m.group(0)) if part)
                          for m in _COMPOUND.finditer(text))
    return [phrase for phrase in found if 1 < phrase.count(" ") + 1 <= 8][:MAX_PHRASES]


def _full_text(graph: CodeGraph, conn: sqlite3.Connection, text: str, policy: SeedPolicy) -> list[tuple[str, float]]:
    """BM25 over entity names, signatures, docs and bodies: (id, score relative to the best), best first.
    The query asks for the text's compound identifiers as phrases (see phrases), then its words in the
    text's order up to max_terms, and the title's words once more (see title). Words in the paths of
    half the entities or more are left out, unless nothing else is left: BM25 gives them no weight, and
    matching them cost most of the query (see uninformative_words)."""
    terms = query_terms(text, policy)
    common = uninformative_words(graph)
    terms = [t for t in terms if t not in common] or terms
    # BM25 counts a term once per time the query asks for it: the title's words are asked for twice.
    emphasis = [t for t in query_terms(title(text), policy) if t in terms]
    terms = phrases(text) + terms + emphasis
    try:
        rows = bm25(conn, terms, policy.columns, policy.text_scores_limit)
    except sqlite3.OperationalError:  # an index from before the body column: names, signatures and docs
        limit = policy.full_text_limit
        return [(i, 1 - rank / limit) for rank, i in enumerate(full_text(conn, text, limit))]
    best = rows[0][1] if rows and rows[0][1] < 0 else -1.0
    return [(entity_id, score / best) for entity_id, score in rows]


def without_reporters_names(graph: CodeGraph, blocks: list[str]) -> list[str]:
    """The code blocks with the reporter's own names blanked out. A block that defines a name the
    repository lacks (a reproduction's `class Square`, an extension's `subst_vars_replace`) is the
    reporter's own code, and so is all it defines (its `setup`, however many the repository has), the
    attributes it annotates (`width: int`) and every attribute of the object its methods are on
    (`self.width`): they name the reporter's objects, not the repository's, in any block. A block
    whose every definition the repository has quotes it (a traceback's source lines) and names what
    it defines; so do the names a block assigns (a traceback's locals, `capfd = <CaptureFixture ...>`,
    are the fixtures its test asked for)."""
    defined = [_DEFINITION.findall(block) for block in blocks]
    mine = [any(name not in graph.by_name for name in names) for names in defined]
    if not any(mine):
        return blocks
    own = {name for block, names, is_mine in zip(blocks, defined, mine) if is_mine
           for name in (*names, *_ANNOTATED.findall(block))}
    blank = lambda m: " " * len(m.group(0))  # noqa: E731 (the text keeps its length and lines)
    unless_own = lambda m: blank(m) if m.group(0) in own else m.group(0)  # noqa: E731 (a set: linear in the text)
    return [_WORD.sub(unless_own, _OWN_ATTRIBUTE.sub(blank, block) if is_mine else block)
            for block, is_mine in zip(blocks, mine)]


def _frames(graph: CodeGraph, text: str, seeds: Seeds, frame_weight: float) -> None:
    frames = list(dict.fromkeys(((m.group("py") or m.group("path")).replace("\\", "/"), int(m.group("pyline") or m.group("line")))
                                for m in _FRAME.finditer(text)))
    for position, (path, line) in enumerate(frames):
        deadline.check()
        weight = frame_weight * (1 + position / max(1, len(frames)))  # the innermost frame is where it broke
        for file in _files_matching(graph, path):
            entity = _innermost(graph, file, line)
            seeds.add(entity, weight, f"frame {path}:{line}")


def _identifiers(graph: CodeGraph, text: str, seeds: Seeds, weight: float, prose_factor: float, code: str,
                 aliases: dict[str, str]) -> None:
    """Seed the entities each identifier in `text` names, weighted by the name's rarity. A token reads
    as code (full weight, not `prose_factor`) at any of its occurrences where _reads_as_code says so;
    a dotted name's first part may be an alias the text imports a module as."""
    total = max(1, len(graph.nodes))
    tokens: dict[str, bool] = {}  # token -> read as code, at any of its occurrences
    for match in _IDENT.finditer(text):
        deadline.check()
        token = match.group(0).replace("::", ".")
        head, dot, rest = token.partition(".")
        if dot and head in aliases:
            token = f"{aliases[head]}.{rest}"
        if 3 <= len(token) <= MAX_NAME_CHARS and not tokens.get(token):
            tokens[token] = _reads_as_code(text, match, code)
    for token, looks_like_code in tokens.items():
        deadline.check()
        ids = find_entities(graph, token) if "." in token else graph.by_name.get(token, [])
        if not ids and "." in token:
            ids = graph.by_name.get(token.rsplit(".", 1)[-1], [])
        if not ids:
            continue
        rarity = math.log(total / len(ids)) / math.log(total) if total > 1 else 1.0
        share = weight * rarity * (1.0 if looks_like_code else prose_factor) / math.sqrt(len(ids))
        for entity_id in ids:
            seeds.add(entity_id, share, f"name {token}")


def _reads_as_code(text: str, match: re.Match, code: str) -> bool:
    """Whether the identifier `match` reads as a name of code: always, for `code` "always" (an inline
    span); when shaped like code (_, ., ::, camelCase, or a capital not opening a sentence); or, for
    "called" (a code block), when called, or imported, defined or a frame's function (_NAMING)."""
    token = match.group(0)
    if code == "always" or "_" in token or "." in token or ":" in token or re.search(r"[a-z][A-Z]", token):
        return True
    if token[:1].isupper() and not _preceded_by(_SENTENCE_START, text, match):
        return True
    return code == "called" and (text.startswith("(", match.end()) or _preceded_by(_NAMING, text, match))


def _preceded_by(pattern: re.Pattern, text: str, match: re.Match) -> bool:
    """Whether `pattern` (anchored with $) ends where `match` starts. Only the 64 characters before it
    are read, so each word costs the same on any line."""
    return bool(pattern.search(text, max(0, match.start() - 64), match.start()))


def _files_matching(graph: CodeGraph, path: str) -> list[str]:
    path = path.lstrip("./")
    parts = path.split("/")
    named = files_named(graph, parts[-1])  # a suffix ends in the file's name
    for start in range(len(parts)):  # absolute paths from another machine: try ever shorter suffixes
        suffix = "/".join(parts[start:])
        hits = [p for p in named if p == suffix or p.endswith("/" + suffix)]
        if hits:
            return hits if len(hits) <= 3 else []
    return []


def _innermost(graph: CodeGraph, path: str, line: int) -> str:
    best, best_span = path, math.inf
    for _, member in _descendants(graph, path):
        e = graph.nodes[member]
        if e["start_line"] <= line <= e["end_line"] and e["end_line"] - e["start_line"] < best_span:
            best, best_span = member, e["end_line"] - e["start_line"]
    return best


def _descendants(graph: CodeGraph, path: str):
    stack = [path]
    while stack:
        node = stack.pop()
        for child, kind in graph.out_kinds(node):
            if kind == "contains" and graph.nodes[child]["path"] == path:
                yield node, child
                stack.append(child)
