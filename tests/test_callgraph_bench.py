"""The PyCG micro-benchmark script (benchmarks/callgraph/pycg_micro.py) on programs written here in
its format: each folder's sources and a callgraph.json, scored through a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from conftest import write_tree

SCRIPT = Path(__file__).parent.parent / "benchmarks" / "callgraph" / "pycg_micro.py"


def snippet(root: Path, name: str, files: dict[str, str], graph: dict[str, list[str]]) -> None:
    write_tree(root / name, {**{p: textwrap.dedent(t).lstrip() for p, t in files.items()},
                             "callgraph.json": json.dumps(graph)})


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300)


def test_conversion_to_pycg_names_and_scores(tmp_path):
    snippets = tmp_path / "snippets"
    # a class call is its __init__, found through the bases; module-level code is the module; builtins
    snippet(snippets, "classes/init_through_base", {"main.py": """
        class A:
            def __init__(self):
                pass

        class B(A):
            def m(self):
                print(len([]))

        B().m()
    """}, {"main": ["main.A.__init__", "main.B.m"], "main.B.m": ["<builtin>.print", "<builtin>.len"],
           "main.A.__init__": []})
    # a package's __init__ is the package; an external name keeps its dotted name
    snippet(snippets, "imports/package", {
        "pkg/__init__.py": "def f():\n    pass\n",
        "main.py": "import pkg\nfrom ext import g\n\npkg.f()\ng()\n",
    }, {"main": ["pkg.f", "ext.g"], "pkg.f": []})
    # one edge missed on purpose: the expected graph names a call graphctx cannot see
    snippet(snippets, "dynamic/string", {"main.py": "def f():\n    pass\n\neval('f()')\n"},
            {"main": ["main.f", "<builtin>.eval"], "main.f": []})
    proc = run(str(snippets), "--json")
    assert proc.returncode == 0, proc.stderr
    scores = json.loads(proc.stdout)
    assert scores["classes"]["exact"] == 1 and scores["imports"]["exact"] == 1
    assert scores["dynamic"]["sound"] == 0 and scores["dynamic"]["complete"] == 1
    assert scores["all"]["expected"] == 8 and scores["all"]["right"] == 7 and scores["all"]["found"] == 7
    assert scores["all"]["precision"] == 100.0 and round(scores["all"]["recall"], 1) == 87.5
    table = run(str(snippets), "--show-misses").stdout
    assert "missing main -> main.f" in table and "| **all** | 3 | 100.0 | 87.5 | 2 | 3 | 2 |" in table


def test_a_folder_without_programs_is_refused(tmp_path):
    proc = run(str(tmp_path))
    assert proc.returncode == 2 and "callgraph.json" in proc.stderr and "Traceback" not in proc.stderr
    snippet(tmp_path, "args/call", {"main.py": "pass\n"}, {"main": []})
    proc = run(str(tmp_path), "--only", "arg")
    assert proc.returncode == 2 and "no category 'arg'; categories: args" in proc.stderr


def test_lambdas_are_numbered_per_scope_and_builtin_types_take_pycgs_names(tmp_path):
    snippets = tmp_path / "snippets"
    snippet(snippets, "lambdas/numbered", {"main.py": """
        def g():
            pass

        def apply(a, b):
            a()
            b()

        def run():
            apply(lambda: 1, lambda: g())

        x = lambda: " ".join([])
        x()
        run()
    """}, {"main": ["main.<lambda1>", "main.run"], "main.run": ["main.apply"],
           "main.apply": ["main.run.<lambda1>", "main.run.<lambda2>"], "main.run.<lambda2>": ["main.g"],
           "main.<lambda1>": ["<**PyStr**>.join"]})
    proc = run(str(snippets), "--show-misses")
    assert proc.returncode == 0, proc.stderr
    assert "| **all** | 1 | 100.0 | 100.0 | 1 | 1 | 1 |" in proc.stdout, proc.stdout
