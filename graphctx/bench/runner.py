"""Runs the systems over a set of instances: one result file per instance and system (so a run
that was interrupted resumes where it stopped, and one system can be re-run alone), in parallel
worker processes, each materialising and indexing its base commit through the cache."""

from __future__ import annotations

import json
import logging
import os
import sys
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path

from graphctx.bench.instances import Instance
from graphctx.bench.metrics import budget_measures, gold_ranks, instance_measures, level_rankings

log = logging.getLogger(__name__)
DEFAULT_BUDGETS = (1000, 2000, 4000, 8000, 16000)
TOP_KEPT = 20


@dataclass
class RunConfig:
    repos_dir: Path
    cache_dir: Path
    out_dir: Path
    systems: tuple[str, ...]
    budgets: tuple[int, ...] = DEFAULT_BUDGETS
    intent: str = "debug"
    workers: int = 1
    force: tuple[str, ...] = ()  # systems to recompute even when a result exists
    aider_python: str | None = None
    options: dict = field(default_factory=dict)
    policy: tuple[str, ...] = ()  # graphctx's ranking policy settings (group.name=value): a tuning trial

    def fingerprint(self, system: str) -> dict:
        from graphctx.bench.systems import VARIANTS

        fp = {"budgets": list(self.budgets)}
        if system in VARIANTS:
            fp["intent"] = self.intent
            if self.policy:  # results of another policy are not reused
                fp["policy"] = list(self.policy)
            if VARIANTS[system]:  # nor of the variant's own settings, should they change
                fp["variant"] = list(VARIANTS[system])
            if system == "graphctx-learned":  # nor results of another learned model
                from graphctx.project import Project

                fp["ranker"] = Project.ranker_id()
            if system in ("graphctx-learned", "graphctx-semantic"):  # nor of another embedding
                from graphctx.project import Project

                fp["embedding"] = Project.embedding_id()
        return fp


def result_path(out_dir: Path, system: str, instance_id: str) -> Path:
    return Path(out_dir) / "instances" / system / f"{instance_id}.json"


def is_done(config: RunConfig, system: str, inst: Instance) -> bool:
    if system in config.force:
        return False
    path = result_path(config.out_dir, system, inst.instance_id)
    if not path.exists():
        return False
    try:
        row = json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    return "error" not in row and row.get("config") == config.fingerprint(system)


def pending(config: RunConfig, instances: list[Instance]) -> list[tuple[Instance, list[str]]]:
    work = []
    for inst in instances:
        todo = [s for s in config.systems if not is_done(config, s, inst)]
        if todo:
            work.append((inst, todo))
    return work


def run(config: RunConfig, instances: list[Instance], progress=None) -> dict:
    """Compute every missing (instance, system) result; returns counts of done, computed and failed."""
    work = pending(config, instances)
    stats = {"instances": len(instances), "to_compute": sum(len(t) for _, t in work), "failed": 0}
    if progress:
        progress(f"{len(instances)} instances; {len(instances) - len(work)} already complete; {len(work)} to run")
    if not work:
        return stats
    started = time.perf_counter()
    if config.workers <= 1:
        for i, (inst, todo) in enumerate(work, 1):
            stats["failed"] += _report(run_instance(config, inst, todo), i, len(work), started, progress)
    else:
        with ProcessPoolExecutor(config.workers) as pool:
            futures = [pool.submit(run_instance, config, inst, todo) for inst, todo in work]
            for i, future in enumerate(as_completed(futures), 1):
                stats["failed"] += _report(future.result(), i, len(work), started, progress)
    return stats


def _report(summary: dict, i: int, total: int, started: float, progress) -> int:
    failed = sum(1 for v in summary["systems"].values() if v != "ok")
    if progress:
        elapsed = time.perf_counter() - started
        states = " ".join(f"{k}={v}" for k, v in summary["systems"].items())
        progress(f"[{i}/{total} {elapsed:.0f}s] {summary['instance_id']} index {summary['index_seconds']:.1f}s {states}")
    return failed


def run_instance(config: RunConfig, inst: Instance, systems: list[str]) -> dict:
    """Run `systems` on one instance and write their result files; never raises."""
    from graphctx.bench import workspace

    try:
        root, index_seconds = workspace.prepare(config.cache_dir, config.repos_dir, inst.repo, inst.base_commit)
    except Exception as exc:  # noqa: BLE001 - recorded per instance, the run goes on
        for system in systems:
            _write(config, system, inst, {"error": f"prepare: {exc}"})
        return {"instance_id": inst.instance_id, "index_seconds": 0.0,
                "systems": {s: f"error (prepare: {_first_line(exc)})" for s in systems}}
    return run_on_tree(config, inst, systems, root, index_seconds)


def run_on_tree(config: RunConfig, inst: Instance, systems: list[str], root: Path, index_seconds: float = 0.0) -> dict:
    """Run `systems` on one instance over `root`, a tree of its base commit that graphctx has indexed
    (the cache's, or a work tree walked from base to base), and write their result files; never raises."""
    from graphctx.bench.corpus import Repo
    from graphctx.bench.systems import run_system

    summary = {"instance_id": inst.instance_id, "index_seconds": index_seconds, "systems": {}}
    try:
        repo = Repo(root)
    except Exception as exc:  # noqa: BLE001 - recorded per instance, the run goes on
        for system in systems:
            _write(config, system, inst, {"error": f"prepare: {exc}"})
            summary["systems"][system] = f"error (prepare: {_first_line(exc)})"
        return summary
    try:
        gold_spans = {g: repo.function_spans.get(g) for g in inst.gold_functions}
        options = {"intent": config.intent, "policy": config.policy, "aider_python": config.aider_python, **config.options}
        for system in systems:
            try:
                output = run_system(system, repo, inst, list(config.budgets), options)
            except Exception as exc:  # noqa: BLE001
                _write(config, system, inst, {"error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()[-2000:]})
                summary["systems"][system] = f"error ({_first_line(exc)})"  # the reason, on the progress line
                continue
            levels = level_rankings(output.ranked, repo.keys)
            ranks = {
                "file": gold_ranks(levels["file"], inst.gold_files),
                "module": gold_ranks(levels["module"], inst.gold_modules),
                "function": gold_ranks(levels["function"], inst.gold_functions),
            }
            row = {
                "config": config.fingerprint(system),
                "instance_id": inst.instance_id, "repo": inst.repo, "subset": inst.subset, "lexical": inst.lexical,
                "n_gold": {"file": len(inst.gold_files), "module": len(inst.gold_modules), "function": len(inst.gold_functions)},
                "gold_missing_in_index": sorted(g for g, s in gold_spans.items() if s is None),
                "ranks": ranks,
                "measures": instance_measures(ranks),
                "ranked_levels": {"file": bool(levels["file"]), "module": bool(levels["module"]), "function": bool(levels["function"])},
                "top": {level: keys[:TOP_KEPT] for level, keys in levels.items()},
                "budgets": {
                    str(b): budget_measures(p.covered, p.files, p.tokens, b, inst.gold_files, gold_spans, inst.edited_lines)
                    for b, p in output.packets.items()
                },
                "seconds": round(output.seconds, 4),
                "graph_load_seconds": round(repo.load_seconds, 3),
                "extra": output.extra,
            }
            _write(config, system, inst, row)
            summary["systems"][system] = "ok"
    finally:
        repo.project.close()  # a worker holds one repository at a time
    return summary


def _first_line(exc: BaseException, limit: int = 200) -> str:
    text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _write(config: RunConfig, system: str, inst: Instance, row: dict) -> None:
    path = result_path(config.out_dir, system, inst.instance_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(row, default=_jsonable))
    tmp.replace(path)  # atomic: an interrupted write leaves no half file to resume from


def _jsonable(value):
    if isinstance(value, set):
        return sorted(value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(type(value))


def load_results(out_dir: Path, systems: list[str] | None = None) -> dict[str, dict[str, dict]]:
    """{system: {instance_id: row}} of every result file that has no error."""
    out: dict[str, dict[str, dict]] = {}
    base = Path(out_dir) / "instances"
    if not base.exists():
        return out
    for folder in sorted(base.iterdir()):
        if not folder.is_dir() or (systems and folder.name not in systems):
            continue
        rows = {}
        for path in folder.glob("*.json"):
            row = json.loads(path.read_text())
            rows[path.stem] = row
        out[folder.name] = rows
    return out


def config_dict(config: RunConfig) -> dict:
    d = asdict(config)
    for key in ("repos_dir", "cache_dir", "out_dir"):
        d.pop(key)
    d["python"] = sys.version.split()[0]
    return d
