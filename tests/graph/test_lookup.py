"""graph/lookup.py on a small graph: an id, a qualified name, a bare name, a module path or a file
path resolves to one entity; a file narrows an ambiguous name; unknown names get suggestions."""

from __future__ import annotations

import pytest
from small_graphs import build

from graphctx.errors import Ambiguous, NotFound
from graphctx.graph.lookup import find_entities, resolve_entity, suggest

G = build({
    "pkg/a.py": "file", "pkg/a.py::Repo": "class", "pkg/a.py::Repo.save": "method",
    "pkg/b.py": "file", "pkg/b.py::save": "function", "pkg/b.py::validate": "function",
    "pkg/c.py": "file", "pkg/c.py::validate": "function",
}, [("pkg/a.py::Repo", "pkg/a.py::Repo.save", "contains")])


@pytest.mark.parametrize("name", ["pkg/a.py::Repo.save", "Repo.save", "a.py::Repo.save", "pkg.a.Repo.save"])
def test_the_ways_to_name_one_entity(name):
    assert resolve_entity(G, name) == "pkg/a.py::Repo.save"


def test_a_file_path_names_the_file():
    assert resolve_entity(G, "pkg/b.py") == "pkg/b.py"


def test_a_file_narrows_an_ambiguous_name():
    with pytest.raises(Ambiguous) as err:
        resolve_entity(G, "validate")
    assert sorted(err.value.suggestions) == ["pkg/b.py::validate", "pkg/c.py::validate"]
    assert resolve_entity(G, "validate", file="c.py") == "pkg/c.py::validate"


def test_unknown_names_get_suggestions():
    with pytest.raises(NotFound, match="did you mean") as err:
        resolve_entity(G, "validat")
    assert "pkg/b.py::validate" in err.value.suggestions
    assert suggest(G, "Repoo") == ["pkg/a.py::Repo"]
    assert find_entities(G, "nothing_like_it") == []
