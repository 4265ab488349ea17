"""The record commands end to end through the console script: write, search, read, revise with a
stale version, check with --strict after the anchored code changed, and a clear error for an unknown id."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

GRAPHCTX = [sys.executable, "-m", "graphctx.cli.main"]


def run(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run([*GRAPHCTX, *args, "--repo", str(root)], capture_output=True, text=True)
    if check:
        assert result.returncode == 0, result.stderr
    return result


def test_record_commands(tmp_path):
    (tmp_path / "m.py").write_text("def f(x):\n    return x + 1\n")
    run(tmp_path, "index")
    out = run(tmp_path, "decide", "--title", "f adds one", "--decision", "callers rely on x+1", "--anchor", "m.py::f").stdout
    assert out.startswith("created decision") and "(anchors fresh)" in out
    record_id = out.split()[2]
    run(tmp_path, "remember", "--title", "Use f", "--body", "Always call f", "--type", "convention", "--anchor", "m.py::f")
    assert "Use f" in run(tmp_path, "recall", "call").stdout
    got = json.loads(run(tmp_path, "recall", "--id", record_id).stdout)
    assert got["decision"] == "callers rely on x+1" and got["version"] == 1
    assert "record" in run(tmp_path, "context", "f").stdout
    revised = run(tmp_path, "revise", record_id, "--version", "1", "--set", "status=deprecated").stdout
    assert revised.startswith("updated") and " v2 " in revised
    stale = run(tmp_path, "revise", record_id, "--version", "1", "--set", "title=x", check=False)
    assert stale.returncode == 2 and "Traceback" not in stale.stderr
    assert run(tmp_path, "check", "--strict").returncode == 0
    (tmp_path / "m.py").write_text("def f(x):\n    return x + 2\n")
    run(tmp_path, "index")
    failed = run(tmp_path, "check", "--strict", check=False)
    assert failed.returncode == 1 and "Use f" in failed.stdout
    unknown = run(tmp_path, "recall", "--id", "nope", check=False)
    assert unknown.returncode == 2 and "no record" in unknown.stderr and "Traceback" not in unknown.stderr
