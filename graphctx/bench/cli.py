"""`graphctx bench`: run the retrieval benchmark (`run`), derive a history set from a repository
(`history`), or print the tables of recorded results (`report`)."""

from __future__ import annotations

import argparse
import difflib
import json
import sys
import time
from pathlib import Path

from graphctx.bench import dependencies, report as reporting
from graphctx.bench.gitrepo import BenchError, find_git_dir
from graphctx.bench.instances import HistoryOptions, history_set, load_jsonl, write_jsonl
from graphctx.bench.runner import DEFAULT_BUDGETS, RunConfig, config_dict, load_results, run
from graphctx.bench.systems import DEFAULT_SYSTEMS, SYSTEMS
from graphctx.bench.workspace import DEFAULT_CACHE


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(title="bench commands", metavar="ACTION", dest="bench_action")

    p = sub.add_parser("run", help="run the systems over issue or history sets and write results and tables")
    p.add_argument("sets", nargs="+", type=Path, help="JSONL sets (issue sets, or history sets from `bench history`)")
    _common(p)
    p.add_argument("--systems", default=",".join(DEFAULT_SYSTEMS),
                   help=f"comma-separated, from {', '.join(SYSTEMS)} (default: {','.join(DEFAULT_SYSTEMS)})")
    p.add_argument("--budget", type=int, default=4000, help="the main budget of the tables (default 4000)")
    p.add_argument("--budgets", default=",".join(map(str, DEFAULT_BUDGETS)), help="the sweep (default 1000..16000)")
    p.add_argument("--intent", default="debug", help="graphctx's intent for issue text (default debug)")
    p.add_argument("--policy", action="append", default=[], metavar="GROUP.NAME=VALUE",
                   help="a setting of graphctx's ranking policy, for a tuning trial (seeds.text=1.5, "
                        "edges.calls=0.6,1.0); repeatable; results of another policy are recomputed")
    p.add_argument("--workers", type=int, default=1, help="parallel processes (default 1)")
    p.add_argument("--force", default="", help="comma-separated systems to recompute even when results exist")
    p.add_argument("--aider-python", help="python of a separate environment with aider-chat, for aider-repomap")
    p.add_argument("--repo-filter", help="only instances of these repositories (comma-separated owner/name)")
    p.add_argument("--limit", type=int, help="only the first N instances of each set (a quick look)")
    p.add_argument("--json", action="store_true", help="print the report as JSON (results.json) instead of tables")
    p.set_defaults(bench_run=cmd_run)

    p = sub.add_parser("history", help="derive a history set (commit message -> functions modified) from a repository")
    p.add_argument("repo", help="owner/name, looked up under --repos-dir")
    p.add_argument("--repos-dir", type=Path, required=True, help="folder of bare git directories (see `bench run -h`)")
    p.add_argument("-o", "--output", type=Path, required=True, help="the JSONL set to write")
    p.add_argument("--rev", default="HEAD", help="walk the first-parent history of this revision (default HEAD)")
    p.add_argument("--limit", type=int, default=50, help="instances to keep (default 50)")
    p.add_argument("--scan", type=int, default=3000, help="commits to look at, newest first (default 3000)")
    p.add_argument("--since", help="only commits after this date (git's --since)")
    p.set_defaults(bench_run=cmd_history)

    p = sub.add_parser("report", help="print the tables of recorded results")
    p.add_argument("results", type=Path, help="a results folder written by `bench run`")
    p.add_argument("--sets", nargs="*", type=Path, default=[], help="restrict to the instances of these sets")
    p.add_argument("--budget", type=int, default=4000)
    p.add_argument("--json", action="store_true", help="print the report as JSON (results.json) instead of tables")
    p.set_defaults(bench_run=cmd_report)
    parser.set_defaults(bench_run=lambda args: parser.print_help() or 0)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--repos-dir", type=Path, required=True,
                   help="folder of bare git directories, one per repository: owner__name.git, owner+name/repo, "
                        "owner/name.git or name.git (any of these)")
    p.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE,
                   help=f"materialised and indexed base commits, kept between runs (default {DEFAULT_CACHE})")
    p.add_argument("-o", "--out", type=Path, required=True, help="results folder: per-instance files, results.json, report.md")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="graphctx bench", description=__doc__)
    add_arguments(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.bench_run(args) or 0
    except BenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def cmd_run(args: argparse.Namespace) -> int:
    systems = tuple(s.strip() for s in args.systems.split(",") if s.strip())
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown:
        close = {name: difflib.get_close_matches(name, SYSTEMS, n=1) for name in unknown}
        hints = "".join(f" (did you mean {c[0]!r} for {name!r}?)" for name, c in close.items() if c)
        raise BenchError(f"unknown systems {unknown}{hints}; use {', '.join(SYSTEMS)}")
    _check_policy(args.intent, args.policy)
    missing = dependencies.problems(systems, args.aider_python)
    for problem in missing:
        print(f"error: {problem}", file=sys.stderr)
    if missing:
        return 2
    budgets = sorted({int(b) for b in args.budgets.split(",") if b.strip()} | {args.budget})
    instances = []
    for path in args.sets:
        rows = load_jsonl(path)
        if args.repo_filter:
            keep = set(args.repo_filter.split(","))
            rows = [r for r in rows if r.repo in keep]
        instances += rows[: args.limit] if args.limit else rows
    for repo in sorted({i.repo for i in instances}):
        find_git_dir(args.repos_dir, repo)  # fail early on a missing repository
    config = RunConfig(repos_dir=args.repos_dir, cache_dir=args.cache_dir, out_dir=args.out, systems=systems,
                       budgets=tuple(budgets), intent=args.intent, workers=args.workers,
                       force=tuple(s for s in args.force.split(",") if s), aider_python=args.aider_python,
                       policy=tuple(args.policy))
    started = time.perf_counter()
    stats = run(config, instances, progress=_say)
    _say(f"done in {time.perf_counter() - started:.0f} s: {stats}")
    write_report(args.out, instances, list(systems), args.budget, budgets, config_dict(config), as_json=args.json)
    return 1 if stats["failed"] else 0


def _check_policy(intent: str, settings: list[str]) -> None:
    """Refuse an unknown intent or policy setting before any work starts."""
    from graphctx.errors import InvalidRequest
    from graphctx.project import Project

    try:
        Project.policy(intent, settings)
    except InvalidRequest as exc:
        raise BenchError(str(exc)) from None


def write_report(out: Path, instances, systems: list[str], budget: int, budgets: list[int], config: dict | None = None,
                 as_json: bool = False) -> dict:
    results = load_results(out, systems)
    ids = [i.instance_id for i in instances]
    meta = {i.instance_id: {"repo": i.repo, "subset": i.subset, "lexical": i.lexical} for i in instances}
    report = reporting.build(results, ids, budget, budgets, reporting.groups_for(meta))
    report["config"] = config or {}
    report["sets"] = sorted({i.subset for i in instances})
    report["per_instance"] = {
        system: {i: {"measures": r.get("measures"), "budget": r.get("budgets", {}).get(str(budget)), "seconds": r.get("seconds"),
                     "error": r.get("error")} for i, r in rows.items() if i in meta}
        for system, rows in results.items()
    }
    (out / "results.json").write_text(json.dumps(report, indent=1))
    text = reporting.markdown(report, title=", ".join(report["sets"]))
    (out / "report.md").write_text(text)
    print(json.dumps(report, indent=1) if as_json else text)
    return report


def cmd_history(args: argparse.Namespace) -> int:
    git_dir = find_git_dir(args.repos_dir, args.repo)
    options = HistoryOptions(rev=args.rev, limit=args.limit, scan=args.scan, since=args.since)
    kept, reasons = [], {}
    for _, inst, reason in history_set(git_dir, args.repo, options):
        reasons[reason] = reasons.get(reason, 0) + 1
        if inst is not None:
            kept.append(inst)
    write_jsonl(args.output, kept)
    lexical = sum(1 for i in kept if i.lexical)
    _say(f"{args.output}: {len(kept)} instances ({lexical} lexical, {len(kept) - lexical} non-lexical); "
         f"scanned {sum(reasons.values())} commits: " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items(), key=lambda kv: -kv[1])))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    results = load_results(args.results)
    if args.sets:
        instances = [i for path in args.sets for i in load_jsonl(path)]
    else:
        instances = []
        seen = set()
        for rows in results.values():
            for i, r in rows.items():
                if i not in seen and "repo" in r:
                    seen.add(i)
                    from graphctx.bench.instances import Instance

                    instances.append(Instance(i, r["repo"], "", "", [], subset=r.get("subset", ""), lexical=r.get("lexical")))
    budgets = sorted({int(b) for rows in results.values() for r in rows.values() for b in r.get("budgets", {})} | {args.budget})
    write_report(args.results, instances, list(results), args.budget, budgets, as_json=args.json)
    return 0
