"""A full build's structure pass asks value flow only whether a scope binds a name, for the module's
names and the names bases are written with; each parsed file's bound names (flowsummary.py) answer
that as the flow tables would, so the main process reads no file's flows to resolve the structure."""

from __future__ import annotations


from conftest import parsed_file as parsed, symbol_table, write_tree
from graphctx.index.resolve import FileResolver
from graphctx.index.spill import SpillFile
from graphctx.parse.facts import NotLoaded

SHAPES = '''import helpers
from helpers import Base as Alias

registry = {}
handlers = []
Plain = helpers.Base


def register(name, cls):
    registry[name] = cls  # a store into the module's dict: `registry` stays the module's variable


def factory(Base, *extra):
    class Local(Base):  # a base that is a parameter
        pass

    Mixin = helpers.Mixin
    table = {}
    table["a"] = Mixin

    class Other(Mixin, helpers.Base):  # a base that is a local variable, and a dotted one
        pass

    return Local, Other, table


class Top(Plain):
    pass


class Holder:
    Inner = Alias

    class Nested(Inner):  # a class body's name
        pass

    def method(self, Inner):
        self.Inner = Inner  # an attribute: no variable
        return Inner
'''
HELPERS = '''class Base:
    pass


class Mixin:
    pass
'''


class CountedReads:
    """A spill file's reader that counts how often the facts left out are read."""

    def __init__(self, packed: bytes):
        self.reader, self.reads = SpillFile().put(packed), 0

    def read(self) -> bytes:
        self.reads += 1
        return self.reader.read()


def resolvers_of(tree, path: str, structure_only: bool):
    items = {name: parsed(tree, name, structure_only) for name in (path, "helpers.py")}
    facts = {path: item.facts for path, item in items.items()}
    reads = {}
    if structure_only:
        for name, item in items.items():
            facts[name].rest = reads[name] = CountedReads(item.packed_facts)
    table = symbol_table(tree, items.values(), facts)
    resolvers = {name: FileResolver(facts[name], table) for name in facts}
    table.resolvers.update(resolvers)
    return resolvers, reads


def test_bound_names_answer_as_the_flow_tables_do(tmp_path):
    tree = write_tree(tmp_path / "repo", {"shapes.py": SHAPES, "helpers.py": HELPERS})
    light = parsed(tree, "shapes.py", structure_only=True).facts
    summary = light.bound
    assert summary.names == {"Base", "Mixin", "helpers", "Plain", "Inner"}
    full = resolvers_of(tree, "shapes.py", structure_only=False)[0]["shapes.py"]
    assert full.facts.bound is None  # (full facts read their flows)
    scopes = ["", *(d.qualified_name for d in full.facts.definitions)]
    names = {"registry", "handlers", "Plain", "Alias", "helpers", "Mixin", "table", "Base", "Inner", "extra", "cls",
             "name", "self", "Local", "nothing"}
    asked = [(scope, name) for scope in scopes for name in sorted(names) if summary.answers(scope, name)]
    assert ("factory", "Mixin") in asked and ("factory", "table") not in asked
    for scope, name in asked:
        assert ((scope, name) in summary.assigned) == full.assigns(scope, name), (scope, name)
        assert ((scope, name) in summary.params) == (name in full.params.get(scope, {})), (scope, name)
    assert {("", "registry"), ("", "Plain"), ("factory", "Mixin"), ("Holder", "Inner")} <= summary.assigned
    assert ("factory", "Base") in summary.params and ("Holder.method", "Inner") in summary.params


PLAIN = '''import helpers
from helpers import Base as Alias

DEFAULTS = {"a": 1}


class Top(Alias, helpers.Mixin):  # what most bases are: an import, a module's class
    limit = DEFAULTS["a"]

    def run(self, items):
        total = 0
        for item in items:
            total += item
        return total


class Child(Top):
    pass
'''


def test_the_structure_pass_finds_the_same_edges_reading_flows_only_where_a_base_is_a_variable(tmp_path):
    tree = write_tree(tmp_path / "repo", {"shapes.py": SHAPES, "plain.py": PLAIN, "helpers.py": HELPERS})
    for path in ("shapes.py", "plain.py"):
        full, _ = resolvers_of(tree, path, structure_only=False)
        light, reads = resolvers_of(tree, path, structure_only=True)
        for name in full:
            assert light[name].resolve_structure() == full[name].resolve_structure()
            assert light[name].edges == full[name].edges
        if path == "plain.py":  # no base is a variable: no file's flows read (`helpers.Mixin`: its bindings)
            for facts in (resolver.facts for resolver in light.values()):
                assert all(isinstance(getattr(facts, name), NotLoaded) for name in ("flows", "params", "calls"))
            facts, before = light[path].facts, reads[path].reads
            assert light[path].local_level("total", "Top.run") == "Top.run"  # not answered: the flows are read
            assert reads[path].reads == before + 1 and isinstance(facts.calls, NotLoaded)
        else:  # `class Top(Plain)`, `Plain = helpers.Base`: what the variable holds is value flow's
            assert reads[path].reads >= 1
