"""What the learned ranker and a widened pool cost a free-text query on an indexed repository: each
text ranked under each policy (alternated, after one warm-up round), CPU and wall seconds per query,
p50 and p95. The texts are a repository's own commit messages (`--git-dir`, the newest `--texts`
first-parent commits with at least 8 words) or lines of a file; nothing here is tuned on them.

    python benchmarks/retrieval/learned/pool_cost.py PATH --git-dir REPO.git [--texts 30] [--long-lived]
        [--policy hand-set= --policy learned=blend.learned=true --policy widened=blend.learned=true,blend.widen=100]

`--long-lived` ranks as a long-lived process (the MCP server) does after its first answer: with
scipy's compiled sparse product loaded (graph/transition.py's accelerate; the same scores to the bit).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from graphctx.bench.gitrepo import git
from graphctx.graph import transition
from graphctx.project import Project

DEFAULT_POLICIES = ("hand-set=", "learned=blend.learned=true",
                    "widened=blend.learned=true,blend.widen=100,blend.widen_files=5,blend.widen_neighbours=50")


def commit_texts(git_dir: Path, count: int) -> list[str]:
    log = str(git(git_dir, "log", "--first-parent", "--no-merges", "-n", str(count * 4), "--format=%B%x00"))
    texts = [t.strip() for t in log.split("\0") if len(t.split()) >= 8]
    return texts[:count]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", type=Path, help="an indexed repository")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--git-dir", type=Path, help="take the texts from this repository's commit messages")
    source.add_argument("--texts-file", type=Path, help="one text a line")
    parser.add_argument("--texts", type=int, default=30)
    parser.add_argument("--long-lived", action="store_true", help="load scipy's sparse product first, as a "
                        "long-lived process does after its first answer")
    parser.add_argument("--policy", action="append", help="NAME=SETTING,SETTING (repeat); default: hand-set, "
                        "learned, widened")
    args = parser.parse_args(argv)
    texts = (commit_texts(args.git_dir, args.texts) if args.git_dir
             else [t for t in args.texts_file.read_text().splitlines() if t.strip()][:args.texts])
    policies = {}
    for item in args.policy or DEFAULT_POLICIES:
        name, _, settings = item.partition("=")
        policies[name] = Project.policy("debug", [s for s in settings.split(",") if s])
    if args.long_lived and not transition.accelerate():
        parser.error("--long-lived needs scipy")
    project = Project(args.path, find=False)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in policies}
    for round_ in range(2):  # the first round warms the graph, the model and the caches of each text
        for text in texts:
            for name, policy in policies.items():
                cpu0, wall0 = time.process_time(), time.perf_counter()
                project.rank_text(text + f"\n({round_})", policy=policy)  # never the kept answer of the round before
                if round_:
                    times[name].append((time.process_time() - cpu0, time.perf_counter() - wall0))
    project.close()
    out: dict = {"texts": len(texts)}
    for name, rows in times.items():
        cpu, wall = np.array([r[0] for r in rows]), np.array([r[1] for r in rows])
        out[name] = {"cpu_p50": round(float(np.percentile(cpu, 50)), 3), "cpu_p95": round(float(np.percentile(cpu, 95)), 3),
                     "wall_p50": round(float(np.percentile(wall, 50)), 3), "wall_p95": round(float(np.percentile(wall, 95)), 3)}
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
