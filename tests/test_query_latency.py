"""benchmarks/query_latency.py end to end on a repository made here, with a hub (a function 400
others call), so that get_context ranks with PageRank: every mode's row comes out, and `--phases`
accounts for every get_context call, with and without PageRank. Speed itself is not asserted."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCHMARK = Path(__file__).resolve().parents[1] / "benchmarks" / "query_latency.py"


def test_query_latency_reports_every_mode_and_get_contexts_phases(tmp_path):
    callers = "".join(f'\n\ndef caller{i}(value):\n    """Pass value {i} to the hub."""\n    return hub(value) + {i}\n'
                      for i in range(400))
    (tmp_path / "mod.py").write_text('def hub(value):\n    """Return the value unchanged."""\n    return value\n' + callers)
    (tmp_path / "lone.py").write_text('def lone(value):\n    """Nobody calls this."""\n    return value\n')
    done = subprocess.run([sys.executable, str(BENCHMARK), "--path", str(tmp_path), "--samples", "12", "--phases"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    for mode in ("context", "intent", "path", "file", "impact"):
        assert re.search(rf"^{mode}\s+\d+\s", done.stdout, re.M), done.stdout
    walked = re.search(r"(\d+) calls with PageRank\s+spread\s+[\d.]+\s+pagerank\s+[\d.]+\s+ranking\s+[\d.]+\s+packing\s+[\d.]+",
                       done.stdout)
    assert walked and int(walked.group(1)) > 0, done.stdout  # the hub's callers reach over 300 entities
    others = re.search(r"(\d+) without\s+spread", done.stdout)
    assert int(walked.group(1)) + (int(others.group(1)) if others else 0) == 12
