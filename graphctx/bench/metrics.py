"""The measures. From a ranked list: the rank of each gold item at file, module and function level,
which gives strict Acc@k (all gold items in the top k; with more gold items than k, k of them
suffice) and the reciprocal rank of the first gold item. From a packet at a budget: file recall
(gold files with any content shown), function recall (gold functions whose whole body is shown),
edited-line coverage and whether the packet is within the budget."""

from __future__ import annotations

from collections.abc import Callable, Iterable

LEVELS = ("file", "module", "function")
ACC_K = {"file": (1, 3, 5), "module": (5, 10), "function": (5, 10)}


def level_rankings(ranked: Iterable[str], keys: Callable[[str], tuple]) -> dict[str, list[str]]:
    """Ranked entity ids (or paths) -> the ranked unique files, module keys and function keys."""
    out: dict[str, list[str]] = {level: [] for level in LEVELS}
    seen: dict[str, set[str]] = {level: set() for level in LEVELS}
    for item in ranked:
        for level, key in zip(LEVELS, keys(item)):
            if key and key not in seen[level]:
                seen[level].add(key)
                out[level].append(key)
    return out


def gold_ranks(ranking: list[str], gold: Iterable[str]) -> list[int | None]:
    """The 1-based rank of each gold item in the ranking, None when absent."""
    position = {key: i + 1 for i, key in enumerate(ranking)}
    return [position.get(g) for g in gold]


def acc_at(ranks: list[int | None], k: int) -> float | None:
    """Strict Acc@k for one instance: 1.0 when min(len(gold), k) gold items rank in the top k; None without gold."""
    if not ranks:
        return None
    hits = sum(1 for r in ranks if r is not None and r <= k)
    return 1.0 if hits >= min(len(ranks), k) else 0.0


def reciprocal_rank(ranks: list[int | None]) -> float | None:
    if not ranks:
        return None
    found = [r for r in ranks if r is not None]
    return 1.0 / min(found) if found else 0.0


def budget_measures(covered: dict[str, set[int]], files: set[str], tokens: int, budget: int,
                    gold_files: list[str], gold_spans: dict[str, tuple[str, int, int] | None],
                    edited_lines: dict[str, list[int]]) -> dict:
    """Measures of one packet. gold_spans maps each gold function to (path, start, end), or None when
    the index has no such function (it then counts as not retrieved)."""
    out: dict = {"tokens": tokens, "within": tokens <= budget}
    out["file_recall"] = sum(1 for f in gold_files if f in files) / len(gold_files) if gold_files else None
    if gold_spans:
        whole = 0
        for span in gold_spans.values():
            if span is not None:
                path, start, end = span
                shown = covered.get(path, set())
                whole += all(line in shown for line in range(start, end + 1))
        out["function_recall"] = whole / len(gold_spans)
    else:
        out["function_recall"] = None
    total = sum(len(v) for v in edited_lines.values())
    if total:
        out["line_coverage"] = sum(1 for p, lines in edited_lines.items() for line in lines if line in covered.get(p, ())) / total
    else:
        out["line_coverage"] = None
    return out


def instance_measures(ranks: dict[str, list[int | None]]) -> dict[str, float | None]:
    """Acc@k per level and k, and MRR per level, for one instance."""
    out: dict[str, float | None] = {}
    for level in LEVELS:
        for k in ACC_K[level]:
            out[f"{level}_acc@{k}"] = acc_at(ranks.get(level, []), k)
        out[f"{level}_mrr"] = reciprocal_rank(ranks.get(level, []))
    return out
