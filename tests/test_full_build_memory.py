"""What a full build's main process holds of every file, and its resolution workers of the files they
resolved, made smaller without changing what it says: packed facts put away in a spill file and read
back (in this process or a fork), structure strings and line numbers shared across files, a file's
flow tables dropped and made again the same, the snapshot built from column batches it lets go."""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest

from conftest import parsed_file as parsed, symbol_table, write_tree
from graphctx.graph.snapshot import EdgeColumns, Snapshot
from graphctx.index.flowtables import FILE_TABLES
from graphctx.index.parsing import unpack_facts
from graphctx.index.resolve import FileResolver
from graphctx.index.spill import SpillFile
from graphctx.parse.facts import STRUCTURE_LISTS, NotLoaded

ENGINE = """import os
from helpers import make, Base


class Engine(Base):
    def __init__(self, parts):
        self.parts = parts
        self.tool = make()

    def run(self, path: str) -> str:
        handlers = {"a": self.start, "b": make}
        handler = handlers["a"]
        handler()
        return os.path.join(path, str(len(self.parts)))

    def start(self):
        self.tool.start()
""" + "\n" * 300 + """

def late(x):  # past line 256: its line numbers are objects of their own once unpickled
    import json
    y = json.loads(x)
    return late(y)
"""
HELPERS = """class Base:
    def start(self):
        return 1


def make():
    return Base()
"""


@pytest.fixture
def tree(tmp_path):
    return write_tree(tmp_path / "repo", {"engine.py": ENGINE, "helpers.py": HELPERS, "copy/engine.py": ENGINE})


def _read_in_a_fork(facts, results) -> None:
    facts.load_rest()
    results.put(facts.to_json())


def test_spilled_facts_are_read_back_here_and_in_a_fork_and_let_go_again(tree):
    item = parsed(tree, "engine.py")
    full = unpack_facts(item.packed_facts)
    facts = item.facts
    facts.rest = SpillFile().put(item.packed_facts)
    del item
    assert facts.calls and facts.flows and list(facts.bindings) == full.bindings  # read back from the file, each kind
    assert facts == full and facts.complete
    facts.unload_rest()
    assert not facts.complete and isinstance(facts.calls, NotLoaded) and isinstance(facts.type_refs, NotLoaded)
    assert facts.imports == full.imports and isinstance(facts.flows, NotLoaded)  # the structure stays
    assert list(facts.calls) == full.calls and isinstance(facts.flows, NotLoaded)  # and the rest is read again
    assert list(facts.flows) == full.flows and list(facts.bindings) == full.bindings  # and the others, on their own
    assert facts == full
    if "fork" in multiprocessing.get_all_start_methods():
        facts.unload_rest()
        context = multiprocessing.get_context("fork")
        results = context.Queue()
        child = context.Process(target=_read_in_a_fork, args=(facts, results))
        child.start()
        assert results.get(timeout=60) == full.to_json()
        child.join()
        assert child.exitcode == 0


def test_value_flows_lists_and_the_rest_are_read_apart(tree):
    item = parsed(tree, "engine.py")
    full = unpack_facts(item.packed_facts)
    facts = item.facts
    facts.rest = SpillFile().put(item.packed_facts)
    assert isinstance(facts.flows, NotLoaded) and isinstance(facts.params, NotLoaded)  # (structure-only)
    assert list(facts.flows) == full.flows and facts.params == full.params
    assert isinstance(facts.calls, NotLoaded) and not facts.complete  # (the rest not read with them)
    flows = facts.flows
    assert list(facts.calls) == full.calls and list(facts.bindings) == full.bindings
    assert facts.complete and facts.flows is flows  # (not read again)
    facts.unload_rest()
    assert isinstance(facts.calls, NotLoaded) and isinstance(facts.flows, NotLoaded)
    assert list(facts.calls) == full.calls and isinstance(facts.flows, NotLoaded)  # (the rest without them)


def test_facts_whose_bytes_were_handed_over_read_once_and_are_not_let_go(tree):
    item = parsed(tree, "engine.py")
    facts = item.facts
    assert facts.calls and facts.flows and facts.bindings and facts.rest is None  # (every kind read: the bytes go)
    facts.unload_rest()  # nothing to read them again from: kept
    assert facts.complete and not isinstance(facts.calls, NotLoaded)


def test_structure_strings_and_line_numbers_are_shared_across_files(tree):
    one, other = parsed(tree, "engine.py").facts, parsed(tree, "copy/engine.py").facts
    late = [imp for imp in one.imports if imp.line > 256]
    assert late and late[0].module == "json"
    assert one.imports[0].module is not other.imports[0].module  # each file unpickled on its own
    shared: dict = {}
    for facts in (one, other):
        facts.share_strings(STRUCTURE_LISTS, shared)
    for a, b in zip(one.imports, other.imports, strict=True):
        assert a == b and a.module is b.module and a.line is b.line
    assert isinstance(other.calls, NotLoaded) and isinstance(other.flows, NotLoaded)  # (the lists left out stay out)


def test_lists_read_later_share_their_strings_across_files(tree):
    """What a worker reads of many files (flows, calls) holds each string once for all of them, as
    the main process's structure does; their line numbers are their own (a table for those would
    keep every file's alive)."""
    one, other = parsed(tree, "engine.py").facts, parsed(tree, "copy/engine.py").facts
    for facts, item in ((one, "engine.py"), (other, "copy/engine.py")):
        facts.rest = SpillFile().put(parsed(tree, item).packed_facts)
    assert [f.source for f in one.flows] == [f.source for f in other.flows]
    for a, b in zip(one.flows, other.flows, strict=True):
        assert a.target is b.target and a.source is b.source and a.scope is b.scope
    assert any(len(c.args) > 0 for c in one.calls)
    for a, b in zip(one.calls, other.calls, strict=True):
        assert a.name is b.name and a.scope is b.scope and all(x is y for x, y in zip(a.args, b.args, strict=True))


def test_a_files_flow_tables_made_again_are_the_ones_it_dropped(tree):
    items = [parsed(tree, path, structure_only=False) for path in ("engine.py", "helpers.py")]
    facts = {item.path: item.facts for item in items}
    table = symbol_table(tree, items, facts)
    resolver = FileResolver(facts["engine.py"], table)
    resolver.resolve_structure()
    made = {name: getattr(resolver, name) for name in FILE_TABLES}
    assert made["flow_sources"] and made["_targets"][0] and made["params"]
    levels = {key: resolver.local_level(*key) for key in [("handler", "Engine.run"), ("x", "late"), ("os", "")]}
    resolver.forget_tables()
    assert not any(name in vars(resolver) for name in FILE_TABLES) and not resolver._levels
    assert {name: getattr(resolver, name) for name in FILE_TABLES} == made
    assert {key: resolver.local_level(*key) for key in levels} == levels


def test_a_file_let_go_works_out_the_same_edges_again(tree):
    """What a worker done with a file's project drops (its tables and what value flow worked out
    there) is made again, the same, when a later question reaches the file."""
    items = [parsed(tree, path, structure_only=False) for path in ("engine.py", "helpers.py")]
    facts = {item.path: item.facts for item in items}
    table = symbol_table(tree, items, facts)
    resolvers = {path: FileResolver(facts[path], table) for path in facts}
    for path, resolver in resolvers.items():
        table.resolvers[path] = resolver
        resolver.resolve_structure()
    first = sorted(resolvers["engine.py"].resolve_uses())
    flowed = {("engine.py::Engine.run", "engine.py::Engine.start"), ("engine.py::Engine.start", "helpers.py::Base.start")}
    assert flowed <= {edge[:2] for edge in first}  # (through a dict of handlers, and an attribute's value)
    for resolver in resolvers.values():
        resolver.let_go()
        assert not resolver._memo and not any(name in vars(resolver) for name in FILE_TABLES)
    again = FileResolver(facts["engine.py"], table)
    table.resolvers["engine.py"] = again
    again.resolve_structure()
    assert sorted(again.resolve_uses()) == first


def test_a_file_let_go_lets_go_of_the_lists_it_read_and_reads_them_again(tree):
    """A full build's worker holds structure-only facts whose other lists are read from the spill file:
    done with a project, it lets go of what it read of each file, flows and calls alike."""
    items = [parsed(tree, path) for path in ("engine.py", "helpers.py")]
    facts = {item.path: item.facts for item in items}
    for item in items:
        facts[item.path].rest = SpillFile().put(item.packed_facts)
    table = symbol_table(tree, items, facts)
    resolvers = {path: FileResolver(facts[path], table) for path in facts}
    table.resolvers.update(resolvers)
    for resolver in resolvers.values():
        resolver.resolve_structure()
    first = sorted(resolvers["engine.py"].resolve_uses())
    assert not isinstance(facts["engine.py"].flows, NotLoaded) and not isinstance(facts["helpers.py"].flows, NotLoaded)
    for resolver in resolvers.values():
        resolver.let_go()
    assert all(isinstance(f.flows, NotLoaded) and isinstance(f.calls, NotLoaded) for f in facts.values())
    again = FileResolver(facts["engine.py"], table)
    table.resolvers["engine.py"] = again
    again.resolve_structure()
    assert sorted(again.resolve_uses()) == first


def test_contains_edges_left_to_the_uses_pass_are_the_same(tree):
    """A full build's structure pass leaves the contains edges to the worker that resolves the file's
    uses: the same edges come out, made once."""
    items = [parsed(tree, path, structure_only=False) for path in ("engine.py", "helpers.py")]
    facts = {item.path: item.facts for item in items}
    edges = {}
    for contains in (True, False):
        table = symbol_table(tree, items, facts)
        resolver = FileResolver(facts["engine.py"], table)
        table.resolvers["engine.py"] = resolver
        resolver.resolve_structure(contains=contains)
        assert any(edge[2] == "contains" for edge in resolver.edges.values()) == contains
        edges[contains] = resolver.resolve_uses()
        resolver.resolve_contains()  # (once: nothing more)
        assert sorted(resolver.edges.values()) == edges[contains]
    assert edges[True] == edges[False] and any(edge[2] == "contains" for edge in edges[False])


def test_a_snapshot_from_column_batches_lets_them_go_and_packs_the_same(tree):
    rng = np.random.default_rng(7)
    nodes = list(range(1, 200))
    rows = [(int(s), int(t), int(k), int(r), float(c), 1)
            for s, t, k, r, c in zip(rng.integers(1, 220, 3000), rng.integers(-20, 220, 3000), rng.integers(0, 9, 3000),
                                     rng.integers(0, 6, 3000), rng.random(3000).round(4))]
    batches = EdgeColumns()
    for start in range(0, len(rows), 128):
        batches.add(rows[start:start + 128])
    built = Snapshot.from_rows(nodes, batches)
    assert built.pack() == Snapshot.from_rows(nodes, rows).pack()
    assert all(len(column) == 0 for column in batches.arrays())  # taken out
    assert Snapshot.unpack(built.pack()).pack() == built.pack()
    assert built.sources.dtype == np.int32 and built.confidence.dtype == np.float64 and len(built.sources) > 1000
