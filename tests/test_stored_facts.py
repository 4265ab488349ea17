"""Facts read back from the index with their lists made on first use (index/storedfacts.py) equal
the facts the parser produced, list for list, for real tree-sitter parses of several languages."""

from __future__ import annotations

import pickle
import zlib
from dataclasses import fields

import pytest

from graphctx.index.parsing import entity_rows, pack_facts, unpack_facts
from graphctx.index.storedfacts import StoredFacts, unpack_stored
from graphctx.parse.extract import extract
from graphctx.parse.facts import FileFacts

SOURCES = {
    "app/service.py": ("python", b'''"""Service."""
from .models import User, make as build
import os.path

class Service(Base):
    def __init__(self, repo):
        self.repo = repo
        self.tool: Widget = Widget()

    @property
    def name(self):
        return self.repo.name

    def run(self, *args, key=None):
        user = build(User, key=key)
        handler = lambda x: self.repo.save(x)
        return handler(user).finish(os.path.join("a", "b"))

@app.get("/users")
def list_users():
    return Service(None).run()
'''),
    "web/routes.js": ("javascript", b'''import { helper } from "./util";
const express = require("express");
const router = express.Router();
class Cache extends Store { get(key) { return helper(this.items, key); } }
router.get("/items", (req, res) => res.send(new Cache().get(req.id)));
module.exports = router;
'''),
    "cmd/main.go": ("go", b'''package main
import "example.com/app/util"
type Server struct{ store *util.Store }
func (s *Server) Run() error { return s.store.Load() }
func main() { s := Server{}; s.Run() }
'''),
}


def _facts(path: str) -> FileFacts:
    language, source = SOURCES[path]
    return extract(path, language, source)


@pytest.mark.parametrize("path", sorted(SOURCES))
def test_stored_facts_equal_the_parsed_ones_list_for_list(path):
    parsed = _facts(path)
    stored = unpack_stored(pack_facts(parsed))
    eager = unpack_facts(pack_facts(parsed))
    assert isinstance(stored, StoredFacts)
    for f in fields(FileFacts):
        assert getattr(stored, f.name) == getattr(parsed, f.name) == getattr(eager, f.name), f.name
    assert parsed.calls and parsed.definitions  # (the sources give every test something to compare)


def test_a_list_is_made_once_and_its_equal_strings_are_one_object():
    stored = unpack_stored(pack_facts(_facts("app/service.py")))
    calls = stored.calls
    assert stored.calls is calls
    scopes = [c.scope for c in calls if c.scope == "Service.run"]
    assert len(scopes) > 1 and all(s is scopes[0] for s in scopes)
    definitions = stored.definitions  # another list shares the strings already met
    run = next(d for d in definitions if d.qualified_name == "Service.run")
    assert run.qualified_name is scopes[0]


def test_stored_facts_survive_pickling_and_rewriting():
    parsed = _facts("app/service.py")
    stored = unpack_stored(pack_facts(parsed))
    _ = stored.imports  # one list made, the others still rows
    again = pickle.loads(pickle.dumps(stored))
    for f in fields(FileFacts):
        assert getattr(again, f.name) == getattr(parsed, f.name), f.name
    assert FileFacts.from_json(stored.to_json()) == parsed


def test_an_unknown_attribute_is_still_an_error():
    stored = unpack_stored(pack_facts(_facts("cmd/main.go")))
    with pytest.raises(AttributeError):
        stored.not_a_list  # noqa: B018


def test_packed_facts_leave_a_definitions_text_to_its_entity_row():
    """A definition's signature, doc and hashes are in its entity row: the packed facts hold them
    no second time (read back empty), and what resolution reads of it comes back whole."""
    parsed = _facts("app/service.py")
    run = next(d for d in parsed.definitions if d.qualified_name == "Service.run")
    assert run.signature and run.sig_hash and run.body_hash
    packed = zlib.decompress(pack_facts(parsed)).decode("utf-8")
    for d in parsed.definitions:
        for text in (d.signature, d.doc, d.sig_hash, d.body_hash):
            assert not text or text not in packed, (d.qualified_name, text)
    back = next(d for d in unpack_stored(pack_facts(parsed)).definitions if d.qualified_name == "Service.run")
    assert (back.kind, back.name, back.start_line, back.end_line) == (run.kind, run.name, run.start_line, run.end_line)
    assert (back.signature, back.doc, back.sig_hash, back.body_hash) == ("", "", "", "")
    rows = {row[0]: row for row in entity_rows(parsed)}
    assert rows["app/service.py::Service.run"][8:12] == (run.signature, run.doc, run.sig_hash, run.body_hash)
