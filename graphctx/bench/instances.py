"""Benchmark instances: issue sets read from JSONL, and history sets derived from any git repository
(a commit's message is the query; the functions the commit modified are the gold). Also the one
mapping from a definition to the gold vocabulary, `path:Top` (module) and `path:Top` or
`path:Class.method` (function), that both gold derivation and scoring use."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from graphctx.bench.gitrepo import BenchError, Commit, FileDiff, commit_diff, first_parent_log, git, show_file
from graphctx.models import CLASS_KINDS, FUNCTION_KINDS
from graphctx.project import Project


@dataclass
class Instance:
    instance_id: str
    repo: str
    base_commit: str
    text: str
    gold_files: list[str]
    gold_functions: list[str] = field(default_factory=list)
    gold_modules: list[str] = field(default_factory=list)
    edited_lines: dict[str, list[int]] = field(default_factory=dict)
    subset: str = "issues"
    lexical: bool | None = None  # the text names a gold function, class or file stem

    def to_row(self) -> dict:
        row = asdict(self)
        row["problem_statement"] = row.pop("text")
        return row


def load_jsonl(path: Path, subset: str | None = None) -> list[Instance]:
    """Instances from a JSONL set (fields as in the dev set's README; `text` may stand for problem_statement)."""
    out = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                text = row.get("problem_statement", row.get("text"))
                inst = Instance(
                    instance_id=row["instance_id"], repo=row["repo"], base_commit=row["base_commit"], text=text,
                    gold_files=list(row.get("gold_files", [])), gold_functions=list(row.get("gold_functions", [])),
                    gold_modules=list(row.get("gold_modules", [])),
                    edited_lines={k: list(v) for k, v in row.get("edited_lines", {}).items()},
                    subset=row.get("subset") or subset or Path(path).stem, lexical=row.get("lexical"),
                )
            except (KeyError, TypeError, ValueError) as exc:
                raise BenchError(f"{path}:{number}: not a benchmark row ({exc})") from exc
            if not isinstance(inst.text, str) or not inst.text.strip():
                raise BenchError(f"{path}:{number}: empty problem_statement")
            if inst.lexical is None:
                inst.lexical = is_lexical(inst.text, inst.gold_functions, inst.gold_modules, inst.gold_files)
            out.append(inst)
    return out


def write_jsonl(path: Path, instances: Iterable[Instance]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        for inst in instances:
            handle.write(json.dumps(inst.to_row()) + "\n")


# ---- the gold vocabulary

def top_keys(path: str, qualified: str, kinds: dict[str, str]) -> tuple[str | None, str | None]:
    """(module key, function key) of a definition `qualified` in `path`, given {qualified name: kind}
    for the file's definitions. Module: `path:Top` for a top-level class or function. Function: the
    top-level function, or the method of a top-level class, that encloses it (nested functions count
    as their outer function); None for a class itself, a constant, or a method of a nested class."""
    parts = qualified.split(".")
    top = parts[0]
    top_kind = kinds.get(top)
    module = f"{path}:{top}" if top_kind in FUNCTION_KINDS or top_kind in CLASS_KINDS else None
    if top_kind in FUNCTION_KINDS:
        return module, f"{path}:{top}"
    if top_kind in CLASS_KINDS and len(parts) >= 2 and kinds.get(f"{top}.{parts[1]}") in FUNCTION_KINDS:
        return module, f"{path}:{top}.{parts[1]}"
    return module, None


@dataclass(frozen=True)
class Span:
    qualified: str
    kind: str
    start: int
    end: int


def gold_from_lines(path: str, spans: list[Span], lines: Iterable[int]) -> tuple[set[str], set[str], set[str], set[str]]:
    """(function keys, module keys, class-level edits, module-level edits) for edited lines of a file."""
    kinds = {s.qualified: s.kind for s in spans}
    functions, modules, class_level, module_level = set(), set(), set(), set()
    for line in lines:
        holding = [s for s in spans if s.start <= line <= s.end and (s.kind in FUNCTION_KINDS or s.kind in CLASS_KINDS)]
        if not holding:
            module_level.add(path)
            continue
        innermost = min(holding, key=lambda s: (s.end - s.start, -s.start))
        module, function = top_keys(path, innermost.qualified, kinds)
        if module:
            modules.add(module)
        if function:
            functions.add(function)
        elif module:
            class_level.add(module)
    return functions, modules, class_level, module_level


def spans_of(path: str, source: bytes) -> list[Span]:
    return [Span(d.qualified_name, d.kind, d.start_line, d.end_line) for d in Project.definitions(path, source)]


# ---- lexical or not

def _mentions(text: str, name: str) -> bool:
    return len(name) >= 3 and re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text, re.I) is not None


def is_lexical(text: str, gold_functions: list[str], gold_modules: list[str], gold_files: list[str]) -> bool:
    """Whether the text names a gold function or method, a gold class, or a gold file's stem."""
    names: set[str] = set()
    for key in [*gold_functions, *gold_modules]:
        names.update(key.split(":", 1)[-1].split("."))
    for path in gold_files:
        stem = Path(path).stem
        names.add(Path(path).parent.name if stem == "__init__" else stem)
    return any(_mentions(text, n) for n in names if n and not (n.startswith("__") and n.endswith("__")))


# ---- history sets

BOT = re.compile(r"\[bot\]|dependabot|renovate|pre-commit-ci|github-actions|\bbot@|^bot$|-bot\b", re.I)
REVERT = re.compile(r"^revert\b|this reverts commit", re.I | re.M)
VERSION_BUMP = re.compile(
    r"^(bump(ed)?\b.*\bversion|version bump|release\b|prepare(d)? (for )?release|preparing release|"
    r"(bump|set|update) (the )?version|v?\d+\.\d+(\.\d+)*([ab]|rc|\.dev|\.post)?\d*$|bump to \d)",
    re.I,
)
TRAILER = re.compile(r"^(signed-off-by|co-authored-by|reviewed-by|acked-by|cc|fixes|closes|see-also):.*$", re.I | re.M)
FORMATTING_MESSAGE = re.compile(
    r"^(style|format|reformat|lint)\b|\b(reformat(ted|ting)?|formatting)\b"
    r"|\b(run|apply|applied|update)\b.*\b(black|isort|ruff|yapf|autopep8|pre-commit|flake8|pyupgrade)\b"
    r"|^(black|isort|ruff|yapf|autopep8|pre-commit|flake8|pyupgrade)\b",
    re.I,
)


@dataclass
class HistoryOptions:
    rev: str = "HEAD"
    limit: int = 50  # instances to keep
    scan: int = 3000  # first-parent commits to look at, newest first
    since: str | None = None
    min_words: int = 4
    max_files: int = 3
    max_functions: int = 5


def clean_message(message: str) -> str:
    return TRAILER.sub("", message).strip()


def skip_reason(commit: Commit, options: HistoryOptions) -> str | None:
    """Why a commit is not a history instance judged by its metadata alone, or None."""
    if len(commit.parents) != 1:
        return "merge" if commit.parents else "root commit"
    if BOT.search(commit.author) or BOT.search(commit.email):
        return "bot author"
    message = clean_message(commit.message)
    subject = message.splitlines()[0] if message else ""
    if REVERT.search(message):
        return "revert"
    if VERSION_BUMP.search(subject.strip()):
        return "version bump"
    if FORMATTING_MESSAGE.search(subject.strip()):
        return "formatting"
    if len(re.findall(r"[A-Za-z0-9_]+", message)) < options.min_words:
        return "short message"
    return None


def _only_comments_or_blank(diff: FileDiff) -> bool:
    return all(not line.strip() or line.strip().startswith(("#", "//")) for line in diff.changed_text)


def derive_instance(git_dir: Path, repo: str, commit: Commit, options: HistoryOptions) -> tuple[Instance | None, str]:
    """The history instance of one commit (base = its parent), or None and the reason it was skipped."""
    reason = skip_reason(commit, options)
    if reason:
        return None, reason
    parent = commit.parents[0]
    names = str(git(git_dir, "diff", "--name-only", "--no-renames", parent, commit.sha)).split("\n")
    source_names = [n for n in names if n and Project.is_source_file(n)]
    changed = [n for n in source_names if not Project.is_test_file(n)]
    if not changed:
        return None, "no source change" if not source_names else "tests only"
    if len(changed) > options.max_files:
        return None, "too many files"
    diffs = commit_diff(git_dir, parent, commit.sha, ignore_whitespace=True)
    non_test = [d for d in diffs if (d.old_path or d.new_path) in changed]
    if all(_only_comments_or_blank(d) for d in non_test):  # also true when only whitespace changed
        return None, "formatting or comments only"
    functions: set[str] = set()
    modules: set[str] = set()
    edited: dict[str, list[int]] = {}
    gold_files: list[str] = []
    for d in non_test:
        if d.old_path is None or d.new_path is None:
            continue  # added or deleted: an added file cannot be retrieved
        old = show_file(git_dir, parent, d.old_path)
        if old is None:
            continue
        lines = d.edited_lines
        f, m, _, _ = gold_from_lines(d.old_path, spans_of(d.old_path, old), lines)
        functions |= f
        modules |= m
        edited[d.old_path] = lines
        gold_files.append(d.old_path)
    if not functions:
        return None, "no function edited"
    if len(functions) > options.max_functions:
        return None, "too many functions"
    text = clean_message(commit.message)
    inst = Instance(
        instance_id=f"{repo.replace('/', '__')}-{commit.sha[:12]}", repo=repo, base_commit=parent, text=text,
        gold_files=sorted(gold_files), gold_functions=sorted(functions), gold_modules=sorted(modules),
        edited_lines=edited,
    )
    inst.lexical = is_lexical(text, inst.gold_functions, inst.gold_modules, inst.gold_files)
    inst.subset = "history-lexical" if inst.lexical else "history-nonlexical"
    return inst, "kept"


def history_set(git_dir: Path, repo: str, options: HistoryOptions) -> Iterator[tuple[Commit, Instance | None, str]]:
    """Each scanned commit with its instance (or None) and the reason, newest first, until `limit` are kept."""
    kept = 0
    for commit in first_parent_log(git_dir, options.rev, options.scan, options.since):
        inst, reason = derive_instance(git_dir, repo, commit, options)
        yield commit, inst, reason
        if inst is not None:
            kept += 1
            if kept >= options.limit:
                return
