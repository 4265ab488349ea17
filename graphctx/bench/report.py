"""Tables and the JSON results file: a table per system (ranked-list measures and budgeted measures
at the main budget), the budget sweep, a per-repository breakdown, per-subset breakdowns, query
times, and paired significance tests of graphctx against each baseline (paired bootstrap of the
mean difference, and Wilcoxon's signed-rank test from scipy), always with n."""

from __future__ import annotations

import random
import statistics
from collections import defaultdict

RANK_COLUMNS = ("file_acc@1", "file_acc@3", "file_acc@5", "module_acc@5", "module_acc@10",
                "function_acc@5", "function_acc@10", "file_mrr", "function_mrr")
BUDGET_COLUMNS = ("file_recall", "function_recall", "line_coverage")
SIGNIFICANCE = ("function_acc@10", "function_recall", "file_acc@5", "line_coverage")
BOOTSTRAP = 10_000


def _value(row: dict, measure: str, budget: int) -> float | None:
    if measure in BUDGET_COLUMNS or measure == "within":
        b = row["budgets"].get(str(budget))
        if b is None:
            return None
        v = b.get(measure)
        return None if v is None else float(v)
    level = measure.split("_", 1)[0]
    if not row.get("ranked_levels", {}).get(level, True):
        return 0.0 if row["measures"].get(measure) is not None else None
    return row["measures"].get(measure)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarise(rows: dict[str, dict], ids: list[str], budget: int, budgets: list[int]) -> dict:
    """Mean of each measure over the instances `ids` that have it (x100), with n per measure."""
    chosen = [rows[i] for i in ids if i in rows and "error" not in rows[i]]
    out: dict = {"n": len(chosen), "errors": sum(1 for i in ids if i in rows and "error" in rows[i]),
                 "missing": sum(1 for i in ids if i not in rows)}
    for measure in RANK_COLUMNS:
        values = [v for r in chosen if (v := _value(r, measure, budget)) is not None]
        out[measure] = _pct(_mean(values))
        out[f"n_{measure}"] = len(values)
    out["ranks_functions"] = any(r.get("ranked_levels", {}).get("function") for r in chosen)
    for b in budgets:
        for measure in (*BUDGET_COLUMNS, "within"):
            values = [v for r in chosen if (v := _value(r, measure, b)) is not None]
            out[f"{measure}@{b}"] = _pct(_mean(values))
            out[f"n_{measure}@{b}"] = len(values)
        tokens = [r["budgets"][str(b)]["tokens"] for r in chosen if str(b) in r["budgets"]]
        out[f"max_tokens@{b}"] = max(tokens) if tokens else None
    seconds = sorted(r["seconds"] for r in chosen)
    if seconds:
        out["seconds_p50"] = round(statistics.median(seconds), 3)
        out["seconds_p95"] = round(seconds[min(len(seconds) - 1, int(0.95 * len(seconds)))], 3)
        out["seconds_max"] = round(seconds[-1], 3)
    intent = sorted(s for r in chosen for s in r.get("extra", {}).get("intent_seconds", []))
    if intent:
        out["intent_seconds_p50"] = round(statistics.median(intent), 3)
        out["intent_seconds_max"] = round(intent[-1], 3)
    return out


def _pct(v: float | None) -> float | None:
    return None if v is None else round(100 * v, 1)


def paired(rows_a: dict[str, dict], rows_b: dict[str, dict], ids: list[str], measure: str, budget: int, seed: int = 0) -> dict:
    """graphctx (a) minus a baseline (b) on the instances both have the measure for."""
    pairs = []
    for i in ids:
        ra, rb = rows_a.get(i), rows_b.get(i)
        if not ra or not rb or "error" in ra or "error" in rb:
            continue
        va, vb = _value(ra, measure, budget), _value(rb, measure, budget)
        if va is not None and vb is not None:
            pairs.append(va - vb)
    out: dict = {"n": len(pairs)}
    if not pairs:
        return out
    mean = sum(pairs) / len(pairs)
    rng = random.Random(seed)
    boots = sorted(sum(rng.choices(pairs, k=len(pairs))) / len(pairs) for _ in range(BOOTSTRAP))
    out["diff"] = round(100 * mean, 1)
    out["ci95"] = [round(100 * boots[int(0.025 * BOOTSTRAP)], 1), round(100 * boots[int(0.975 * BOOTSTRAP) - 1], 1)]
    below = sum(1 for x in boots if x <= 0) / BOOTSTRAP
    above = sum(1 for x in boots if x >= 0) / BOOTSTRAP
    out["p_bootstrap"] = round(min(1.0, 2 * min(below, above)), 4)
    out["wins"], out["losses"] = sum(1 for x in pairs if x > 0), sum(1 for x in pairs if x < 0)
    try:
        from scipy.stats import wilcoxon

        if any(pairs):
            out["p_wilcoxon"] = round(float(wilcoxon(pairs, zero_method="wilcox").pvalue), 4)  # ties (no difference) dropped
        else:
            out["p_wilcoxon"] = 1.0
    except (ImportError, ValueError):
        pass
    return out


def build(results: dict[str, dict[str, dict]], ids: list[str], budget: int, budgets: list[int],
          groups: dict[str, list[str]] | None = None) -> dict:
    """The whole report as a dict: overall per system, per group (repository, subset), significance."""
    report: dict = {"budget": budget, "budgets": budgets, "n_instances": len(ids), "systems": {}, "groups": {}, "significance": {}}
    for system, rows in results.items():
        report["systems"][system] = summarise(rows, ids, budget, budgets)
    for name, members in (groups or {}).items():
        report["groups"][name] = {system: summarise(rows, members, budget, budgets) for system, rows in results.items()}
    if "graphctx" in results:
        for system, rows in results.items():
            if system in ("graphctx", "oracle"):
                continue
            report["significance"][system] = {m: paired(results["graphctx"], rows, ids, m, budget) for m in SIGNIFICANCE}
    return report


def _fmt(v, digits: int = 1) -> str:
    return "–" if v is None else (f"{v:.{digits}f}" if isinstance(v, float) else str(v))


ORDER = ("graphctx-text", "graphctx", "graphctx-learned", "graphctx-semantic", "bm25-functions", "bm25-files", "aider-repomap", "repomap", "random", "oracle")


def _systems(summary: dict) -> list[str]:
    return sorted(summary, key=lambda s: (ORDER.index(s) if s in ORDER else len(ORDER), s))


def markdown(report: dict, title: str = "") -> str:
    b = report["budget"]
    out = []
    if title:
        out.append(f"### {title}\n")
    out.append(f"n = {report['n_instances']} instances. Acc@k and MRR from each system's ranked list; recall and coverage "
               f"from its packet at {b} tokens (cl100k_base). Percentages; '–' where a system ranks no items at that level.\n")
    head = ["system", "n", "file@1", "file@3", "file@5", "mod@5", "mod@10", "fn@5", "fn@10", "MRR file", "MRR fn",
            f"file rec@{b}", f"fn rec@{b}", f"lines@{b}", "within", "query s p50", "p95"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    for system in _systems(report["systems"]):
        s = report["systems"][system]
        fn = s["ranks_functions"]
        cells = [system, s["n"], s["file_acc@1"], s["file_acc@3"], s["file_acc@5"],
                 s["module_acc@5"] if fn else None, s["module_acc@10"] if fn else None,
                 s["function_acc@5"] if fn else None, s["function_acc@10"] if fn else None,
                 s["file_mrr"], s["function_mrr"] if fn else None,
                 s[f"file_recall@{b}"], s[f"function_recall@{b}"], s[f"line_coverage@{b}"], s[f"within@{b}"],
                 s.get("seconds_p50"), s.get("seconds_p95")]
        out.append("| " + " | ".join(_fmt(c, 2 if i >= len(cells) - 2 else 1) for i, c in enumerate(cells)) + " |")
    any_s = report["systems"].get("graphctx") or max(report["systems"].values(), key=lambda v: v["n"], default={})
    out.append(f"\nn per measure: file {any_s.get('n_file_acc@1')}, module {any_s.get('n_module_acc@5')}, "
               f"function {any_s.get('n_function_acc@5')} (instances with gold at that level); "
               f"function recall n = {any_s.get(f'n_function_recall@{b}')}.\n")
    out.append("Budget sweep: function recall / edited-line coverage / file recall, and max tokens used.\n")
    head = ["system", *[f"{x}" for x in report["budgets"]]]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    for system in _systems(report["systems"]):
        s = report["systems"][system]
        cells = [system] + [f"{_fmt(s[f'function_recall@{x}'])} / {_fmt(s[f'line_coverage@{x}'])} / "
                            f"{_fmt(s[f'file_recall@{x}'])} ({s[f'max_tokens@{x}']})" for x in report["budgets"]]
        out.append("| " + " | ".join(cells) + " |")
    if report["significance"]:
        out.append("\nPaired tests, graphctx minus baseline (points; 95% bootstrap CI; p from paired bootstrap and Wilcoxon):\n")
        out.append("| baseline | measure | n | diff | 95% CI | wins/losses | p boot | p Wilcoxon |")
        out.append("|---|---|---|---|---|---|---|---|")
        for system in _systems(report["significance"]):
            for measure, t in report["significance"][system].items():
                if t.get("n"):
                    name = measure if measure.startswith(("function_acc", "file_acc")) else f"{measure}@{b}"
                    out.append(f"| {system} | {name} | {t['n']} | {_fmt(t.get('diff'))} | {t.get('ci95')} | "
                               f"{t.get('wins')}/{t.get('losses')} | {t.get('p_bootstrap')} | {t.get('p_wilcoxon', '–')} |")
    if report["groups"]:
        out.append(f"\nBreakdown: function Acc@10 / function recall@{b} / file Acc@5 (n).\n")
        systems = _systems(report["systems"])
        out.append("| group | n | " + " | ".join(systems) + " |")
        out.append("|---|---|" + "---|" * len(systems))
        for name, by_system in report["groups"].items():
            n = max((v["n"] for v in by_system.values()), default=0)
            cells = []
            for system in systems:
                s = by_system.get(system)
                if not s:
                    cells.append("–")
                    continue
                fn = s["function_acc@10"] if s["ranks_functions"] else None
                cells.append(f"{_fmt(fn)} / {_fmt(s[f'function_recall@{b}'])} / {_fmt(s['file_acc@5'])}")
            out.append(f"| {name} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def groups_for(rows_by_id: dict[str, dict]) -> dict[str, list[str]]:
    """Groups by repository, by subset, and lexical vs non-lexical."""
    groups: dict[str, list[str]] = defaultdict(list)
    for i, row in rows_by_id.items():
        groups[f"repo {row['repo']}"].append(i)
        groups[f"subset {row['subset']}"].append(i)
        if row.get("lexical") is not None:
            groups["lexical" if row["lexical"] else "non-lexical"].append(i)
    return dict(sorted(groups.items()))
