"""Python's cycle collector during an index run: off in the main process for the whole run (full
builds too) and given back after it; a parser process collects only what it makes, not the heap it
inherited. (What this saves is measured by benchmarks/index_speed.py, not here.)"""

from __future__ import annotations

import gc

from conftest import write_tree
from graphctx.index import workers
from graphctx.index.indexer import DISCOVERING, index_repository


def _collector_state() -> tuple[bool, int]:
    return gc.isenabled(), gc.get_freeze_count()


def test_an_index_run_pauses_the_collector_and_gives_it_back(tmp_path):
    files = {f"pkg/m{i}.py": f"def f{i}():\n    return f{i}()\n" for i in range(3)}
    root = write_tree(tmp_path / "repo", files)
    seen = []
    assert gc.isenabled()
    for full in (True, False):
        write_tree(root, {"pkg/m0.py": f"def f0():\n    return {full}\n"})
        index_repository(root, full=full, workers=1, progress=lambda phase, done, total: seen.append((phase, gc.isenabled())))
        assert {phase for phase, _ in seen} > {DISCOVERING}
        assert not any(enabled for phase, enabled in seen if phase != DISCOVERING)  # (from parsing on)
        assert gc.isenabled()
        seen.clear()


def test_a_parser_process_collects_only_what_it_makes(tmp_path):
    """Forked while the run has the collector paused, a parser turns it back on (parsing makes a few
    cycles) with everything it inherited frozen out of its passes."""
    gc.disable()
    try:
        with workers.pool(1) as pool:
            enabled, frozen = pool.submit(_collector_state).result()
    finally:
        gc.enable()
    assert enabled
    assert frozen > 0
