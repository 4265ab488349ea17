"""What extraction reads off the query and the source once per language or file must say what each
match and node would: a pattern's reader is the one its matches' captures pick, a pattern that may
open a scope is marked so, and a node's text read off the file's bytes is node.text decoded."""

from __future__ import annotations

from pathlib import Path

import pytest
from tree_sitter import Query, QueryCursor

from graphctx.parse import languages, patterns
from graphctx.parse.flows import source_text, vocabulary

FIXTURES = Path(__file__).parent / "fixtures"
SOURCES = sorted((path, spec.name) for path in FIXTURES.rglob("*") if path.is_file()
                 for spec in [languages.language_for_path(path.name)] if spec is not None)


def _nodes(node):
    yield node
    for child in node.children:
        yield from _nodes(child)


def test_every_registered_language_has_a_fixture():
    assert {name for _, name in SOURCES} >= {spec.name for spec in languages.LANGUAGES
                                              if languages.available(spec.name) and spec.name != "tsx"}


@pytest.mark.parametrize("path,language", SOURCES, ids=[str(p.relative_to(FIXTURES)) for p, _ in SOURCES])
def test_a_patterns_reader_is_the_one_its_matches_pick(path: Path, language: str):
    query = languages.load(language)[1]
    plans = patterns.of(language)
    assert len(plans) == query.pattern_count
    with_flow = vocabulary(language) is not None
    tree = languages.parser(language).parse(path.read_bytes())
    for pattern, caps in QueryCursor(query).matches(tree.root_node):
        plan = plans[pattern]
        if plan.reader is not None:
            assert plan.reader == patterns.decide(caps, with_flow), (pattern, sorted(caps))
        if any(name.startswith("definition.") or name == "scope.impl" for name in caps):
            assert plan.defines, (pattern, sorted(caps))
        flows = [name for name in caps if name.startswith("flow.")]
        if plan.flow_capture is not None:
            assert flows == [plan.flow_capture]


def test_a_pattern_with_an_optional_deciding_capture_leaves_the_choice_to_its_matches():
    language = languages.load("python")[0]
    query = Query(language, "(assignment left: (identifier) @name right: (call)? @call) @flow.assign")
    plan, = patterns.read(query, with_flow=True)
    assert plan.reader is None and plan.flow_capture == "flow.assign" and not plan.defines
    tree = languages.parser("python").parse(b"x = f()\ny = 1\n")
    picked = [patterns.decide(caps, True) for _, caps in QueryCursor(query).matches(tree.root_node)]
    assert picked == [patterns.CALL, patterns.FLOW]


@pytest.mark.parametrize("source", [
    b"def f(x):\n    return x.y  # plain ASCII\n",
    "def f(\u00e9t\u00e9):\n    s = '\u2603 snow'\n    return \u00e9t\u00e9.\u00fcber(s)\n".encode(),
    b"def f(x):\n    s = '\xff\xfe broken'\n    return x.y(s)\n",  # invalid UTF-8: replaced, as node.text decodes it
])
def test_a_nodes_text_read_off_the_source_is_node_text_decoded(source: bytes):
    text = source_text(source)
    tree = languages.parser("python").parse(source)
    for node in _nodes(tree.root_node):
        assert text(node) == node.text.decode("utf-8", "replace"), node
