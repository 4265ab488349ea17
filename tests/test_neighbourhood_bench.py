"""benchmarks/retrieval/neighbourhood.py scores get_context's answers by co-change, on a small tree
indexed for real: functions a commit modified together are context for each other."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import write_tree

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "retrieval" / "neighbourhood.py"


def test_co_changed_functions_are_found_in_each_others_context(tmp_path):
    tree = write_tree(tmp_path / "repo", {
        "shop.py": "def price(item):\n    return item.cost * tax(item)\n\n\ndef tax(item):\n    return 1.2\n",
        "mail.py": "def greet(name):\n    return 'hello ' + name\n",
    })
    history = tmp_path / "history.jsonl"
    rows = [{"instance_id": "together", "gold_functions": ["shop.py:price", "shop.py:tax"]},  # price calls tax
            {"instance_id": "apart", "gold_functions": ["shop.py:price", "mail.py:greet"]},  # nothing joins them
            {"instance_id": "gone", "gold_functions": ["shop.py:price", "old.py:removed"]}]  # one the tree lacks: skipped
    history.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    done = subprocess.run([sys.executable, str(SCRIPT), str(history), "--tree", str(tree),
                           "--against", "walk.neighbourhood_local=false"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "2 commits with two or more modified functions it has (4 answers per policy)" in out
    assert "policy   recall 50.0  rr 50.0" in out  # each of price and tax holds the other first; greet neither
    assert "against - policy, recall: +0.0 points" in out and "0 won / 0 lost of 2" in out


def test_a_mistyped_setting_is_refused_with_the_closest_name(tmp_path):
    tree = write_tree(tmp_path / "repo", {"a.py": "def f():\n    return 1\n"})
    history = tmp_path / "history.jsonl"
    history.write_text("", encoding="utf-8")
    done = subprocess.run([sys.executable, str(SCRIPT), str(history), "--tree", str(tree),
                           "--against", "walk.neighbourhood_locl=false"], capture_output=True, text=True)
    assert done.returncode != 0 and "neighbourhood_local" in done.stderr
