"""Whether a change to the learned ranker's code left its answers alone: `dump` writes, for each text,
the top 20 of the hand-set and the learned ranking and the learned ranker's feature matrix (the pool's
ids and rows); `compare` reads two dumps (before and after the change, on the same index and texts) and
says which tops differ and the largest feature difference. Run `dump` once with each version of the
code (PYTHONPATH picks the old one), then `compare`.

    python benchmarks/retrieval/learned/rank_check.py dump PATH --git-dir REPO.git [--texts 30] -o new.json
    python benchmarks/retrieval/learned/rank_check.py dump PATH --issues dev_issues.jsonl --repo owner/name -o new.json
    python benchmarks/retrieval/learned/rank_check.py compare old.json new.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from graphctx.project import Project

TOP = 20
POLICIES = {"hand-set": [], "learned": ["blend.learned=true"]}


def issue_texts(issues: Path, repo: str, count: int) -> list[str]:
    rows = [json.loads(line) for line in issues.read_text().splitlines() if line.strip()]
    return [r["problem_statement"] for r in rows if r["repo"] == repo][:count]


def dump(path: Path, texts: list[str]) -> dict:
    project = Project(path, find=False)
    out = []
    for text in texts:
        entry = {"text": text[:80]}
        for name, settings in POLICIES.items():
            policy = Project.policy("debug", settings)
            entry[name] = [entity for entity, _ in project.rank_text(text, policy=policy, limit=TOP)]
        ids, matrix = project.rank_text_features(text, policy=Project.policy("debug", POLICIES["learned"]))
        entry["pool"], entry["features"] = list(ids), np.asarray(matrix).tolist()
        out.append(entry)
    project.close()
    return {"texts": out}


def compare(old: dict, new: dict) -> tuple[list[str], float]:
    """(one line per difference, the largest absolute feature difference)."""
    problems, worst = [], 0.0
    if len(old["texts"]) != len(new["texts"]):
        return [f"{len(old['texts'])} texts against {len(new['texts'])}: dump the same texts"], float("inf")
    for number, (a, b) in enumerate(zip(old["texts"], new["texts"], strict=True)):
        for name in (*POLICIES, "pool"):
            if a[name] != b[name]:
                problems.append(f"text {number} ({a['text']!r}): the {name} order differs")
        fa, fb = np.asarray(a["features"]), np.asarray(b["features"])
        if fa.shape != fb.shape:
            problems.append(f"text {number}: feature matrices of shape {fa.shape} and {fb.shape}")
        elif fa.size:
            diff = np.abs(fa - fb)
            worst = max(worst, float(diff.max()))
            if diff.max() > 1e-12:
                problems.append(f"text {number}: features differ by up to {diff.max():.3g} in columns "
                                f"{sorted(set(np.argwhere(diff > 1e-12)[:, 1].tolist()))}")
    return problems, worst


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    verbs = parser.add_subparsers(dest="verb", required=True)
    d = verbs.add_parser("dump", help="rank each text and write the tops and features")
    d.add_argument("path", type=Path, help="an indexed repository")
    source = d.add_mutually_exclusive_group(required=True)
    source.add_argument("--git-dir", type=Path, help="texts from this repository's commit messages (as pool_cost.py)")
    source.add_argument("--issues", type=Path, help="texts from a JSON-lines issue set (with --repo)")
    d.add_argument("--repo", help="owner/name: the issues of this repository")
    d.add_argument("--texts", type=int, default=30)
    d.add_argument("-o", "--output", type=Path, required=True)
    c = verbs.add_parser("compare", help="compare two dumps")
    c.add_argument("old", type=Path)
    c.add_argument("new", type=Path)
    args = parser.parse_args(argv)
    if args.verb == "dump":
        if args.issues and not args.repo:
            parser.error("--issues needs --repo owner/name")
        if args.git_dir:
            from pool_cost import commit_texts  # the texts pool_cost.py times

            texts = commit_texts(args.git_dir, args.texts)
        else:
            texts = issue_texts(args.issues, args.repo, args.texts)
        if not texts:
            print("no texts to rank: check --git-dir, or --issues and --repo", file=sys.stderr)
            return 1
        args.output.write_text(json.dumps(dump(args.path, texts)))
        print(f"{len(texts)} texts ranked into {args.output}")
        return 0
    problems, worst = compare(json.loads(args.old.read_text()), json.loads(args.new.read_text()))
    print("\n".join(problems) if problems else "every top and pool is the same")
    print(f"largest feature difference: {worst:.3g}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
