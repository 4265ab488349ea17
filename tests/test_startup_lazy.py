"""What a new process's first answer leaves unread: the entity rows it does not rank (read on demand,
each read confirming the graph's generation, and an answer asked again when the index moved meanwhile)
and pydantic (the context answer is a dataclass pydantic checks and dumps only when asked to); the
answers stay what validation and a whole read of the rows would make."""

from __future__ import annotations

import dataclasses
import json

import pytest
from pydantic import ValidationError

from conftest import make_shop
from graphctx import Project
from graphctx.errors import IndexMoved
from graphctx.graph.loader import GraphCache, current_generation
from graphctx.index.store import graph_reads, reads
from graphctx.models import ContextAnswer, PacketItem


def test_a_graphs_entities_read_on_demand_are_the_index_rows(shop_repo):
    graphs = GraphCache(shop_repo)
    g = graphs.get()
    rows = {row[0]: row for row in graph_reads.entity_rows(graphs.connection(), g.generation)}
    assert set(g.nodes) == set(rows)
    for entity_id in g.nodes:  # every row, one by one (a big graph would switch to one read of all)
        assert g.nodes[entity_id] == dict(zip(reads.NODE_COLUMNS[1:], rows[entity_id][1:]))
    by_name: dict[str, list[str]] = {}
    for entity_id, row in rows.items():
        by_name.setdefault(row[2], []).append(entity_id)
    assert {name: sorted(ids) for name, ids in g.by_name.items()} == {name: sorted(ids) for name, ids in by_name.items()}
    graphs.close()


def test_an_answer_reads_the_rows_of_what_it_ranks_not_every_row(shop_repo):
    statements: list[str] = []
    with Project(shop_repo, ephemeral=False) as project:
        project._graphs.connection().set_trace_callback(statements.append)  # the connection answers read from
        project.context("shop/models.py::CachedRepo.save", token_budget=1500)
    row_reads = [s for s in statements if "FROM entities" in s and "kind" in s]
    assert row_reads and all("AND rowid IN" in s for s in row_reads)


def test_a_graph_the_index_moved_away_from_is_read_no_more_and_the_answer_is_asked_again(tmp_path):
    root = make_shop(tmp_path / "shop")
    graphs = GraphCache(root)
    old = graphs.get()
    (root / "shop" / "extra.py").write_text("def added():\n    return 1\n")
    with Project(root, ephemeral=False) as other:
        other.index()
    with pytest.raises(IndexMoved, match="ask again"):
        old.nodes["shop/models.py::Repo"]
    seen: list[int] = []

    def answer() -> tuple[str, bool]:
        graph = old if not seen else graphs.get()
        seen.append(graph.generation)
        return graph.nodes["shop/cli.py::main"]["kind"], "shop/extra.py::added" in graph

    assert current_generation(answer) == ("function", True)
    assert seen == [old.generation, old.generation + 1]
    graphs.close()


def test_a_context_answer_made_without_validation_is_what_validation_makes(shop_repo):
    with Project(shop_repo, ephemeral=False) as project:
        for entity in ("create_item", "Repo", "shop/cli.py::main"):
            answer, _ = project.context(entity, token_budget=300)  # small: some candidates are left out
            assert answer.items and answer.omitted
            validated = ContextAnswer.model_validate(answer.model_dump())
            assert validated == answer and validated.model_dump_json() == answer.model_dump_json()
            for made, checked in zip([answer, *answer.items, *answer.omitted],
                                     [validated, *validated.items, *validated.omitted]):
                for field in dataclasses.fields(made):
                    assert type(getattr(made, field.name)) is type(getattr(checked, field.name)), field.name
            as_json, text = project.context(entity, token_budget=300, format="json")
            assert json.loads(text) == as_json.model_dump(mode="json")


def test_the_context_answer_is_checked_as_pydantic_checks_it():
    item = PacketItem.model_validate({"id": "a", "kind": "function", "path": "a.py", "start_line": "3", "end_line": 4,
                                      "score": 1, "relation": "root", "distance": 0, "detail": "line", "text": ""})
    assert (item.start_line, item.score, item.stale) == (3, 1.0, False) and type(item.score) is float
    with pytest.raises(ValidationError, match="detail"):
        PacketItem.model_validate({**dataclasses.asdict(item), "detail": "everything"})
    assert json.loads(item.model_dump_json(indent=2))["body_hash"] == ""


def test_a_loaded_graphs_sparse_rows_are_its_snapshots_and_equal_sorting_its_arrays(shop_repo):
    graphs = GraphCache(shop_repo)
    g = graphs.get()
    sorted_anew = dataclasses.replace(g, snapshot=None, cache={}).adjacency()
    for kept, made in zip(g.adjacency(), sorted_anew, strict=True):
        assert kept.tolist() == made.tolist()
    graphs.close()
