"""Python's cycle collector during an index run: off in the main process for the whole run (full
builds too) and given back after it, off in a parser process, which is safe because parsing makes
no cycles. (What this saves is measured by benchmarks/index_speed.py, not here.)"""

from __future__ import annotations

import gc
from pathlib import Path

from conftest import write_tree
from graphctx.index import workers
from graphctx.index.discover import load_config
from graphctx.index.indexer import DISCOVERING, index_repository
from graphctx.index.parsing import parse_file

FIXTURES = Path(__file__).parent / "fixtures"


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


def test_a_parser_process_runs_without_the_collector(tmp_path):
    """Forked while the run has the collector paused, or started fresh, a parser keeps it off, with
    everything it inherited frozen out of its passes should anything turn it on."""
    for paused in (True, False):
        if paused:
            gc.disable()
        try:
            with workers.pool(1) as pool:
                enabled, frozen = pool.submit(_collector_state).result()
        finally:
            gc.enable()
        assert not enabled
        assert frozen > 0


def test_parsing_makes_no_cycles():
    """Every language's fixtures parsed as a full build's parsers parse them (structure-only facts,
    whose placeholders hold their owner weakly): nothing is left for the cycle collector."""
    files = sorted(str(p.relative_to(FIXTURES)) for p in FIXTURES.rglob("*") if p.is_file())
    config = load_config(FIXTURES)
    parse_file((str(FIXTURES), files[0], 0, 0, None, config, True))  # (grammars and caches loaded)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        parsed = sum(parse_file((str(FIXTURES), path, 0, 0, None, config, structure_only)).facts is not None
                     for path in files for structure_only in (True, False))  # (each let go, as once sent)
        found = gc.collect()
        kinds = sorted({type(o).__name__ for o in gc.garbage})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert parsed > 100  # (sixteen languages' files, parsed)
    assert found == 0, kinds
