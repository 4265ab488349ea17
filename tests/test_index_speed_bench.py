"""benchmarks/index_speed.py's cold build, run as the benchmark runs it (a fresh process on a real tree):
it says where the build's time went, phase by phase, from the build's own progress reports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import write_tree

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "index_speed.py"


def test_a_cold_build_reports_its_phases_within_its_time(tmp_path):
    tree = write_tree(tmp_path / "repo", {
        "shop.py": "from tax import rate\n\n\nclass Cart:\n    def total(self, items):\n"
                   "        return sum(i.cost for i in items) * rate()\n",
        "tax.py": "def rate():\n    return 1.2\n",
    })
    done = subprocess.run([sys.executable, str(SCRIPT), "--child", "cold", str(tree), "--workers", "1"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    phases = figures["phases"]
    assert list(phases) == ["discovering", "parsing", "structure", "uses", "finishing"]
    assert all(seconds >= 0 for seconds in phases.values())
    assert sum(phases.values()) <= figures["seconds"] + 1e-6  # (the time before the first report is no phase's)
    assert figures["files"] == 2 and figures["edges"] > 0
