"""benchmarks/history_edits.py on a real git repository: each commit applied to a work tree of its
own and indexed incrementally, with the files resolved again; the clone itself is only read."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from conftest import write_tree

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "history_edits.py"
TAX = ("class Flat:\n    def get(self):\n        return 1\n\n\nclass Banded:\n    def get(self):\n        return 2\n\n\n"
       "def rate():\n    return Flat()\n")
SHOP = "from tax import rate\n\n\ndef total():\n    return rate().get()\n"  # (it reads what rate returns)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          check=True, capture_output=True, text=True).stdout


def test_each_commit_is_indexed_with_the_files_it_resolved_again(tmp_path):
    repo = write_tree(tmp_path / "repo", {"tax.py": TAX, "shop.py": SHOP})
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "first")
    (repo / "shop.py").write_text("# moved\n" + SHOP)  # a line added above: shop.py alone
    git(repo, "commit", "-qam", "a comment")
    (repo / "tax.py").write_text(TAX.replace("return Flat()", "return Banded()"))
    git(repo, "commit", "-qam", "another rate")
    status, head = git(repo, "status", "--porcelain"), git(repo, "symbolic-ref", "HEAD")
    done = subprocess.run([sys.executable, str(SCRIPT), "--repo", str(repo), "--commits", "2"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    steps = re.findall(r"(\d+) parsed,\s+(\d+) resolved  (\S+)", done.stdout)
    assert steps == [("1", "1", "shop.py"), ("1", "2", "tax.py")], done.stdout  # (and shop.py, which read rate)
    assert "2 commits: median" in done.stdout
    assert git(repo, "status", "--porcelain") == status and git(repo, "symbolic-ref", "HEAD") == head
    assert not (repo / ".graphctx").exists()
