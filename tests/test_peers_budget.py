"""The peers line an answer carries fits its budget whenever there is room for it: the packet is packed
again smaller by what the line overran, measured on the packet as packed (which rarely fills its
budget), not on the budget."""

from __future__ import annotations

import json

import pytest

from conftest import make_shop
from graphctx import Project
from graphctx.context.tokens import count


@pytest.fixture(scope="module")
def claimed(tmp_path_factory):
    project = Project(make_shop(tmp_path_factory.mktemp("shop")))
    project.index()
    task = project.work.tasks.create("Orders", by="ann", entities=["shop/service.py::create_item"])
    project.work.tasks.claim(task.id, "ann")
    return project


@pytest.mark.parametrize("fmt", ["compact", "json"])
def test_the_peers_line_is_kept_at_every_budget_with_room_for_it(claimed, fmt):
    missing = []
    for budget in range(160, 1200, 9):
        _, text = claimed.context("create_item", agent="bob", token_budget=budget, format=fmt)
        assert count(text) <= budget
        shown = json.loads(text).get("peers") if fmt == "json" else "\npeers: ann (claim " in text
        if not shown:
            missing.append(budget)
    assert missing == []
