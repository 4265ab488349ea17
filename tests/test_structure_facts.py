"""Structure-only facts: what a full build's main process holds of every file (FileFacts.structure),
the rest read from the packed facts on first use, never taken for empty."""

from __future__ import annotations

import pickle

from conftest import write_tree
from graphctx.index.discover import load_config
from graphctx.index.parsing import parse_file, unpack_facts
from graphctx.parse.facts import STRUCTURE_LISTS, NotLoaded

SOURCE = """import os
from helpers import make


class Engine(Base):
    @property
    def size(self):
        return len(self.parts)

    def run(self, path: str) -> str:
        tool = make()
        tool.start()
        return os.path.join(path, str(self.size))
"""


def parsed(tmp_path, structure_only: bool):
    root = write_tree(tmp_path / "repo", {"engine.py": SOURCE})
    item = parse_file((str(root), "engine.py", len(SOURCE), 0, None, load_config(root), structure_only))
    return pickle.loads(pickle.dumps(item))  # as the main process receives it from a parser process


def test_structure_only_facts_hold_the_structure_and_read_the_rest_on_first_use(tmp_path):
    item = parsed(tmp_path, structure_only=True)
    full = unpack_facts(item.packed_facts)
    light = item.facts
    assert not light.complete and light.imports == full.imports and light.bases == full.bases
    assert isinstance(light.calls, NotLoaded) and isinstance(light.type_refs, NotLoaded)
    calls = light.calls
    assert len(calls) == len(full.calls) > 0  # read now, every list left out at once but value flow's
    assert not any(isinstance(getattr(light, name), NotLoaded) for name in ("calls", "type_refs", "attributes"))
    assert not light.complete and isinstance(light.flows, NotLoaded) and isinstance(light.params, NotLoaded)
    assert len(light.flows) == len(full.flows) > 0  # read on their own
    assert list(light.bindings) == full.bindings  # and the typed bindings
    assert light.complete and light.rest is None and light == full


def test_a_list_left_out_is_read_whichever_way_it_is_first_used(tmp_path):
    full = unpack_facts(parsed(tmp_path, structure_only=True).packed_facts)
    uses = {"iter": lambda x: list(x), "bool": bool, "index": lambda x: x[0], "in": lambda x: x[0] in x}
    for how, use in uses.items():
        light = parsed(tmp_path / how, structure_only=True).facts
        assert use(light.calls) == use(full.calls), how
        assert use(light.flows) == use(full.flows), how
        assert list(light.bindings) == full.bindings, how
        assert light == full, how


def test_full_facts_are_handed_over_whole_outside_a_full_build(tmp_path):
    item = parsed(tmp_path, structure_only=False)
    assert item.facts.complete and item.facts == unpack_facts(item.packed_facts)
    assert STRUCTURE_LISTS >= {"imports", "bases"}
