"""`graphctx bench run` names the optional dependency a system needs and how to install it, before
it runs anything: checked in a subprocess where bm25s cannot be imported (a sys.meta_path finder
refuses it, as if it were not installed), and for aider-repomap's separate environment."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

# Runs the graphctx command in an interpreter where `import bm25s` fails like a missing package.
WITHOUT_BM25S = """
import sys

class NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name == "bm25s" or name.startswith("bm25s."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NotInstalled())
from graphctx.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def bench_run(tmp_path: Path, *args: str, python_code: str | None = None) -> subprocess.CompletedProcess:
    head = [sys.executable, "-c", python_code] if python_code else [sys.executable, "-m", "graphctx.cli.main"]
    command = [*head, "bench", "run", str(tmp_path / "set.jsonl"), "--repos-dir", str(tmp_path / "repos"),
               "-o", str(tmp_path / "out"), *args]
    proc = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def test_bm25_systems_name_the_extra_to_install(tmp_path):
    proc = bench_run(tmp_path, "--systems", "graphctx,bm25-functions,bm25-files", python_code=WITHOUT_BM25S)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "error: bm25-functions and bm25-files need bm25s, which is not installed: pip install 'graphctx[bench]' "
        "(or leave bm25-functions and bm25-files out: --systems graphctx)"
    )
    assert not (tmp_path / "out").exists()  # nothing ran


def test_systems_without_optional_dependencies_do_not_ask_for_them(tmp_path):
    proc = bench_run(tmp_path, "--systems", "graphctx,repomap,random,oracle", python_code=WITHOUT_BM25S)
    assert proc.returncode == 2 and "bm25s" not in proc.stderr
    assert "set.jsonl" in proc.stderr  # it went on, to the missing set


def test_aider_repomap_explains_its_separate_environment(tmp_path):
    proc = bench_run(tmp_path, "--systems", "aider-repomap")
    assert proc.returncode == 2
    assert "aider-repomap runs aider-chat in a separate environment and needs --aider-python" in proc.stderr
    assert "pip install aider-chat" in proc.stderr
    missing = bench_run(tmp_path, "--systems", "aider-repomap", "--aider-python", str(tmp_path / "no-python"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr


@pytest.mark.skipif(importlib.util.find_spec("aider") is not None, reason="this environment has aider-chat")
def test_aider_python_without_aider_says_what_to_install_there(tmp_path):
    proc = bench_run(tmp_path, "--systems", "aider-repomap", "--aider-python", sys.executable)
    assert proc.returncode == 2
    assert "cannot import them (ModuleNotFoundError: No module named 'aider')" in proc.stderr
    assert f"{sys.executable} -m pip install aider-chat" in proc.stderr
