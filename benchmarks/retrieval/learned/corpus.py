"""Builds the learned ranker's training corpus from the git history of public repositories that are
not among the benchmark's eight, reproducibly: repos.json pins each repository's commit (`rev`) and
how far back to look (`scan` first-parent commits); every step writes under the data folder
(default ~/.cache/graphctx-learned, never into git).

    python benchmarks/retrieval/learned/corpus.py mine     --repos-dir DIR [--data D] [--only a/b,...]
    python benchmarks/retrieval/learned/corpus.py features --repos-dir DIR [--data D] [--only a/b,...] [--window N]
    python benchmarks/retrieval/learned/corpus.py dev      --repos-dir DIR --set dev_issues.jsonl [--data D]

mine: each repository's history set through `graphctx bench history`'s filters (merges, bots, reverts,
version bumps, formatting, short messages, tests only, too many files or functions are skipped): a
commit's message is the query, the functions it modified at its parent are the gold. Writes
sets/<owner__name>.jsonl and manifest.json (counts per repository and reason, the commit range).

features: for each instance, the tree at its parent commit (one work tree per repository, moved from
commit to commit oldest first with `git read-tree`, so each index run is incremental; with --window
one indexed tree also serves later commits whose gold functions it holds unchanged, see reuse.py),
graphctx's best candidates by the hand-set blend, their feature matrix and labels (1 for a candidate
whose function is gold). Writes features/<owner__name>.npz.

dev: the same for an issue set (evaluation only, never trained on), each issue on its own base
commit's tree (one work tree per repository, moved oldest first)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from graphctx.bench.gitrepo import BenchError, find_git_dir, first_parent_log, git
from graphctx.bench.instances import HistoryOptions, Instance, derive_instance, load_jsonl, top_keys, write_jsonl
from graphctx.bench.runner import RunConfig, is_done, run_on_tree
from graphctx.context.features import FEATURES
from graphctx.project import Project

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reuse import first_parent_order, gold_unchanged  # noqa: E402

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "graphctx-learned"
BENCHMARK_REPOS = {"psf/requests", "pallets/flask", "pytest-dev/pytest", "pylint-dev/pylint", "mwaskom/seaborn",
                   "sphinx-doc/sphinx", "pydata/xarray", "sympy/sympy"}


REPOS_FILE = HERE / "repos.json"


def load_repos(only: str | None = None, path: Path = REPOS_FILE) -> list[dict]:
    rows = json.loads(Path(path).read_text())["repositories"]
    for row in rows:
        if row["repo"] in BENCHMARK_REPOS:
            raise SystemExit(f"repos.json lists the benchmark repository {row['repo']}; its history is evaluation only")
    if only:
        keep = set(only.split(","))
        rows = [r for r in rows if r["repo"] in keep]
    return rows


def slug(repo: str) -> str:
    return repo.replace("/", "__")


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---- mine

def cmd_mine(args) -> int:
    manifest_path = args.data / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {"repositories": {}}
    for row in load_repos(args.only, args.repos_file):
        git_dir = find_git_dir(args.repos_dir, row["repo"])
        options = HistoryOptions(rev=row["rev"], limit=row.get("limit", args.limit), scan=row.get("scan", args.scan))
        kept, reasons, oldest = [], {}, None
        started = time.perf_counter()
        for commit in first_parent_log(git_dir, options.rev, options.scan, options.since):
            if len(kept) >= options.limit:
                break
            try:
                inst, reason = derive_instance(git_dir, row["repo"], commit, options)
            except BenchError:  # a snapshot may lack some large blobs
                inst, reason = None, "unreadable objects"
            reasons[reason] = reasons.get(reason, 0) + 1
            oldest = commit.sha
            if inst is not None:
                inst.subset = f"{row['role']}-{inst.subset}"
                kept.append(inst)
        write_jsonl(args.data / "sets" / f"{slug(row['repo'])}.jsonl", kept)
        lexical = sum(1 for i in kept if i.lexical)
        before = manifest["repositories"].get(row["repo"], {})
        entry = manifest["repositories"][row["repo"]] = {
            "role": row["role"], "rev": row["rev"], "oldest_scanned": oldest, "scanned": sum(reasons.values()),
            "kept": len(kept), "lexical": lexical, "non_lexical": len(kept) - lexical, "reasons": reasons,
        }
        if "features" in before and before.get("rev") == row["rev"] and before.get("kept") == len(kept):
            entry["features"] = before["features"]  # (mined again from the same commit: the same instances)
        say(f"{row['repo']}: kept {len(kept)} ({lexical} lexical) of {sum(reasons.values())} commits "
            f"in {time.perf_counter() - started:.0f} s")
        _write_manifest(manifest_path, manifest)
    return 0


def _write_manifest(path: Path, manifest: dict) -> None:
    repos = manifest["repositories"]
    manifest["totals"] = {role: {"repositories": sum(1 for r in repos.values() if r["role"] == role),
                                 "instances": sum(r["kept"] for r in repos.values() if r["role"] == role)}
                          for role in ("train", "heldout")}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")


# ---- features

def labels(project: Project, ids: list[str], gold_functions: list[str]) -> tuple[np.ndarray, list[str | None]]:
    """1 for each candidate whose function key (path:Top or path:Class.method) is gold and which is that
    function itself, not a nested definition inside it; and each candidate's function key (None for
    files, classes and constants), as the benchmark's measures read a ranking."""
    g = project.graph
    nodes = g.graph.nodes
    gold = set(gold_functions)
    kinds_of: dict[str, dict[str, str]] = {}
    out = np.zeros(len(ids), dtype=np.int8)
    keys: list[str | None] = [None] * len(ids)
    for row, entity_id in enumerate(ids):
        node = nodes[entity_id]
        if node["kind"] == "file":
            continue
        path = node["path"]
        if path not in kinds_of:
            kinds_of[path] = {nodes[e]["qualified_name"]: nodes[e]["kind"] for e in g.by_path.get(path, ()) if e != path}
        _, key = top_keys(path, node["qualified_name"], kinds_of[path])
        keys[row] = key
        out[row] = key in gold and key.split(":", 1)[1] == node["qualified_name"]
    return out, keys


def instance_rows(project: Project, inst: Instance, limit: int, widen: int = 0) -> dict:
    """The features of an instance's candidates: the blend's best `limit`, or with `widen` the pool
    the engine re-orders when `blend.widen` is that (the best 200 and up to `widen` more, pool.py)."""
    if widen:
        policy = Project.policy("debug", [f"blend.widen={widen}", f"blend.rerank={limit}"])
        ids, matrix = project.rank_text_features(inst.text, policy=policy)
    else:
        ids, matrix = project.rank_text_features(inst.text, intent="debug", limit=limit)
    y, keys = labels(project, ids, inst.gold_functions)
    return {"ids": ids, "keys": keys, "x": matrix, "y": y}


def save(path: Path, rows: list[tuple[Instance, dict]]) -> dict:
    """One npz per set: the stacked matrix, labels, the instance of each row, and the instances' gold."""
    path.parent.mkdir(parents=True, exist_ok=True)
    xs = [r["x"] for _, r in rows if len(r["ids"])]
    x = np.vstack(xs) if xs else np.zeros((0, len(FEATURES)))
    y = np.concatenate([r["y"] for _, r in rows if len(r["ids"])]) if xs else np.zeros(0, dtype=np.int8)
    group = np.concatenate([np.full(len(r["ids"]), i) for i, (_, r) in enumerate(rows) if len(r["ids"])]) if xs else np.zeros(0)
    meta = [{"instance_id": inst.instance_id, "repo": inst.repo, "lexical": inst.lexical, "gold": inst.gold_functions,
             "keys": r["keys"], "exact": r.get("tree", inst.base_commit) == inst.base_commit, "text": inst.text}
            for inst, r in rows]
    np.savez_compressed(path, x=x, y=y, group=group, features=np.array(FEATURES),
                        meta=np.array(json.dumps(meta)))
    return {"instances": len(rows), "rows": int(len(y)), "positives": int(y.sum()),
            "with_gold_in_candidates": sum(1 for _, r in rows if r["y"].any())}


def repositories_to_walk(args, folder: str, suffix: str) -> Iterator[tuple[dict, Path, list[Instance], ParentTrees]]:
    """Each listed repository whose output (`folder`/<repo><suffix>) is missing, or all with --force:
    its row, that output path, its instances oldest first, and the work tree that serves them."""
    for row in load_repos(args.only, args.repos_file):
        set_path = args.data / "sets" / f"{slug(row['repo'])}.jsonl"
        out = args.data / folder / f"{slug(row['repo'])}{suffix}"
        if not set_path.exists() or (out.exists() and not args.force):
            continue
        git_dir = find_git_dir(args.repos_dir, row["repo"])
        tree = args.data / "trees" / slug(row["repo"])
        limit_workers(tree, args.workers)
        trees = ParentTrees(git_dir, tree, args.window)
        try:
            yield row, out, ordered_instances(set_path, row, git_dir, args.per_repo), trees
        finally:
            trees.close()


def ordered_instances(set_path: Path, row: dict, git_dir: Path, per_repo: int | None) -> list[Instance]:
    """A repository's instances whose parent commit is on its first-parent line, oldest first; with
    `per_repo`, only that many of the newest (close together, so each index run is short)."""
    instances = load_jsonl(set_path)
    place = first_parent_order(git_dir, row["rev"], {i.base_commit for i in instances}, row.get("scan", 3000) + 2)
    instances = sorted((i for i in instances if i.base_commit in place), key=lambda i: place[i.base_commit])
    return instances[-per_repo:] if per_repo else instances


def cmd_features(args) -> int:
    for row, out, instances, trees in repositories_to_walk(args, "features", ".npz"):
        started, rows = time.perf_counter(), []
        for inst in instances:
            try:
                features = instance_rows(trees.serve(inst), inst, args.candidates, args.widen)
                features["tree"] = trees.indexed
                rows.append((inst, features))
            except Exception as exc:  # noqa: BLE001 - one commit graphctx cannot index does not end the corpus
                say(f"  {inst.instance_id}: skipped ({type(exc).__name__}: {str(exc)[:200]})")
                trees.forget()
        counts = save(out, rows)
        counts["indexed_trees"] = len({r["tree"] for _, r in rows})
        counts["seconds"] = round(time.perf_counter() - started)
        out.with_suffix(".json").write_text(json.dumps(counts) + "\n")  # manifest.json is mine's alone
        say(f"{row['repo']}: {counts}")
    return 0


class ParentTrees:
    """One work tree per repository, checked out at an instance's parent and indexed (incrementally,
    by one Project that keeps its symbol table) only when the tree indexed last cannot serve it: it
    served `window` instances already, or the instance's gold functions differ there."""

    def __init__(self, git_dir: Path, tree: Path, window: int):
        self.git_dir, self.tree, self.window = git_dir, tree, window
        self.indexed: str | None = None  # the commit the tree is indexed at
        self.served = 0
        self.project: Project | None = None

    def serve(self, inst: Instance) -> Project:
        """The project indexed at a tree that holds `inst`'s parent's gold functions as they are."""
        if self.indexed is None or self.served >= self.window or not gold_unchanged(
                self.git_dir, self.indexed, inst.base_commit, inst.gold_functions):
            checkout(self.git_dir, self.tree, inst.base_commit)
            self.project = self.project or Project(self.tree, find=False, ephemeral=False)
            self.project.index()
            self.indexed, self.served = inst.base_commit, 0
        self.served += 1
        return self.project

    def forget(self) -> None:
        """After a failure: the next instance checks out and indexes its own parent."""
        self.indexed = None

    def close(self) -> None:
        if self.project is not None:
            self.project.close()


def checkout(git_dir: Path, tree: Path, commit: str) -> None:
    """Make `tree` hold exactly the files of `commit`, touching only what differs from its last commit."""
    tree.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_INDEX_FILE": str(tree.parent / f".{tree.name}.gitindex")}
    fresh = not Path(env["GIT_INDEX_FILE"]).exists()
    base = ["git", f"--git-dir={git_dir}", f"--work-tree={tree}"]
    if fresh:
        subprocess.run([*base, "read-tree", commit], env=env, check=True, capture_output=True)
        subprocess.run([*base, "checkout-index", "-a", "-f"], env=env, check=True, capture_output=True)
    else:
        subprocess.run([*base, "read-tree", "-u", "--reset", commit], env=env, check=True, capture_output=True)


def limit_workers(tree: Path, workers: int) -> None:
    """Index `tree` with at most `workers` processes (its own .graphctx/config.toml, which no commit
    holds), so a corpus job shares a machine politely; 0 leaves graphctx's default, one per core."""
    config = tree / ".graphctx" / "config.toml"
    if workers:
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(f"[index]\nworkers = {workers}\n")
    elif config.exists():
        config.unlink()


def cmd_dev(args) -> int:
    """Each issue ranked on the tree of its own base commit: one work tree per repository, moved from
    base to base oldest first, so each index run is incremental (exact, and far cheaper than a fresh
    index per issue). The feature file is rewritten after every issue, and --resume keeps the issues
    it already holds, so a long walk (sympy's 53 bases) survives being stopped."""
    instances = load_jsonl(args.set)
    if args.repo_filter:
        instances = [i for i in instances if i.repo in set(args.repo_filter.split(","))]
    part = f"-{slug(args.repo_filter.replace(',', '-'))}" if args.repo_filter else ""
    out = args.data / "features" / f"dev-{args.set.stem}{part}.npz"
    rows = stored_rows(out, instances) if args.resume and out.exists() else []
    done = {inst.instance_id for inst, _ in rows}
    if args.bench:  # an issue is done when its features and every system's result are
        config = bench_config(args)
        done = {i for i in done if all(is_done(config, s, inst) for inst in instances if inst.instance_id == i
                                       for s in config.systems)}
        rows = [(inst, r) for inst, r in rows if inst.instance_id in done]
    started = time.perf_counter()
    for repo in sorted({i.repo for i in instances}):
        git_dir = find_git_dir(args.repos_dir, repo)
        mine = [i for i in instances if i.repo == repo and i.instance_id not in done]
        dates = {i.base_commit: int(str(git(git_dir, "show", "-s", "--format=%ct", i.base_commit)).strip() or 0) for i in mine}
        mine.sort(key=lambda i: (dates[i.base_commit], i.instance_id))
        tree = args.data / "trees" / f"dev-{slug(repo)}"
        limit_workers(tree, args.workers)
        project = None
        for inst in mine:
            checkout(git_dir, tree, inst.base_commit)
            project = project or Project(tree, find=False, ephemeral=False)
            project.index()
            rows.append((inst, instance_rows(project, inst, args.candidates, args.widen)))
            save(out, rows)
            bench = bench_instance(args, inst, tree) if args.bench else ""
            say(f"  {inst.instance_id}: {len(rows)}/{len(instances)} in {time.perf_counter() - started:.0f} s {bench}")
        if project is not None:
            project.close()
    counts = save(out, rows)
    say(f"{args.set}: {counts}")
    return 0


def bench_config(args) -> RunConfig:
    return RunConfig(args.repos_dir, args.data / "bench-cache", args.bench, tuple(args.systems.split(",")),
                     budgets=(args.budget,))


def bench_instance(args, inst: Instance, tree: Path) -> str:
    """`graphctx bench run`'s systems on this issue, over the walked tree (indexed at its base commit):
    the same result files as a run of its own, so `graphctx bench report` reads them."""
    config = bench_config(args)
    todo = [system for system in config.systems if not is_done(config, system, inst)]
    if not todo:
        return ""
    summary = run_on_tree(config, inst, todo, tree)
    return " ".join(f"{k}={v}" for k, v in summary["systems"].items())


def stored_rows(path: Path, instances: list[Instance]) -> list[tuple[Instance, dict]]:
    """The (instance, rows) pairs a feature file already holds, for the instances still asked for."""
    data = np.load(path, allow_pickle=False)
    if tuple(data["features"]) != FEATURES:
        return []  # extracted with other features: start again
    by_id = {i.instance_id: i for i in instances}
    group = data["group"].astype(np.int64)
    out = []
    for n, meta in enumerate(json.loads(str(data["meta"]))):
        if meta["instance_id"] in by_id:
            mask = group == n
            out.append((by_id[meta["instance_id"]], {"ids": meta["keys"], "keys": meta["keys"], "x": data["x"][mask],
                                                     "y": data["y"][mask]}))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    for name, run in (("mine", cmd_mine), ("features", cmd_features), ("dev", cmd_dev)):
        p = sub.add_parser(name)
        p.add_argument("--repos-dir", type=Path, required=True, help="folder of bare git directories")
        p.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"where the corpus goes (default {DEFAULT_DATA})")
        p.add_argument("--only", help="only these repositories (comma-separated owner/name)")
        p.add_argument("--repos-file", type=Path, default=REPOS_FILE, help="the repository list (default repos.json here)")
        p.add_argument("--candidates", type=int, default=200, help="candidates per instance (default 200)")
        p.add_argument("--workers", type=int, default=0, help="index with at most N processes (default 0: one per core)")
        if name != "mine":
            p.add_argument("--widen", type=int, default=0, help="also take up to N candidates past the best (blend.widen, "
                           "context/pool.py), as a ranker trained for a widened pool must see them (default 0)")
        p.set_defaults(run=run)
        if name == "mine":
            p.add_argument("--limit", type=int, default=40, help="instances per repository unless repos.json says")
            p.add_argument("--scan", type=int, default=1500, help="commits to look at unless repos.json says")
        if name == "features":
            p.add_argument("--force", action="store_true", help="recompute existing feature files")
            p.add_argument("--per-repo", type=int, help="only the newest N instances of each repository")
            p.add_argument("--window", type=int, default=1,
                           help="let one indexed parent tree serve up to N commits whose gold functions it holds "
                                "unchanged (default 1: index every commit's own parent)")
        if name == "dev":
            p.add_argument("--set", type=Path, required=True)
            p.add_argument("--repo-filter")
            p.add_argument("--resume", action="store_true", help="keep the issues the feature file already holds")
            p.add_argument("--bench", type=Path, help="also run `graphctx bench run`'s systems on each issue's walked "
                           "tree, writing their results here (read them with `graphctx bench report`)")
            p.add_argument("--systems", default="graphctx-text,graphctx,graphctx-learned,graphctx-semantic,bm25-functions,bm25-files",
                           help="the systems --bench runs (comma-separated)")
            p.add_argument("--budget", type=int, default=4000, help="the token budget --bench packs to (default 4000)")
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
