"""What the code embedding adds to a cold index build: a full build of a repository (CPU seconds of
this process and its parser workers, and wall seconds), then the same build's embedding step alone
(its stored vectors dropped and computed again), and their ratio.

    python benchmarks/retrieval/learned/embedding_cost.py PATH [--workers N]
"""

from __future__ import annotations

import argparse
import json
import resource
import sqlite3
import sys
import time
from pathlib import Path

from graphctx.index.indexer import index_repository
from graphctx.semantic import model as embedding, vectors


def cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", type=Path)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    model = embedding.shipped()
    cpu0, wall0 = cpu(), time.perf_counter()
    result = index_repository(args.path, full=True, workers=args.workers)
    build_cpu, build_wall = cpu() - cpu0, time.perf_counter() - wall0
    with sqlite3.connect(args.path / ".graphctx" / "index.db") as conn:
        conn.execute("DELETE FROM entity_vector_rows")
        cpu0, wall0 = cpu(), time.perf_counter()
        files = vectors.refresh(conn, model)
        embed_cpu, embed_wall = cpu() - cpu0, time.perf_counter() - wall0
        entities = len(vectors.read(conn, model).ids)
    print(json.dumps({"files": files, "entities_embedded": entities, "entities": result.entities,
                      "build_cpu_s": round(build_cpu, 2), "build_wall_s": round(build_wall, 2),
                      "embedding_cpu_s": round(embed_cpu, 2), "embedding_wall_s": round(embed_wall, 2),
                      "embedding_share_of_build_cpu": round(embed_cpu / build_cpu, 3)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
