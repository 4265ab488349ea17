"""`Project`, the library face: every method once on the shared shop project, record verbs on a
copy of it, two projects in one process kept apart, and close() releasing what a project opened."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import make_shop
from graphctx import Project
from graphctx.errors import GraphctxError, NoIndex, NotFound


@pytest.fixture(scope="module")
def shop(shop_repo):
    with Project(shop_repo) as project:
        yield project


def test_import_graphctx_stays_light():
    code = "import sys, graphctx; print(sorted(m for m in ('networkx', 'graphctx.project', 'mcp') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out.replace("'", '"')) == []


def test_project_finds_the_root_from_a_folder_inside_it(shop_repo):
    with Project(shop_repo / "shop") as project:
        assert project.root == shop_repo.resolve()
        assert repr(project) == f"Project({str(shop_repo.resolve())!r})"


def test_index_and_refresh_and_stats(shop):
    before = shop.stats()
    shop.refresh()  # nothing changed: the same index generation
    stats = shop.stats()
    assert stats.generation == before.generation
    assert stats.files == 7 and stats.entity_kinds["class"] == 2
    assert stats.languages == {"python": 5, "markdown": 1, "toml": 1}  # README.md and pyproject.toml at file level
    assert shop.has_index() and shop.graph.generation == stats.generation


def test_lookups(shop):
    assert shop.search("create_item").hits[0].id == "shop/service.py::create_item"
    shown = shop.show("validate")
    assert shown.entity.id == "shop/service.py::validate"
    assert {e.source for e in shown.incoming} >= {"shop/service.py::create_item"}
    with pytest.raises(NotFound, match="did you mean"):
        shop.show("create_itm")


def test_answers(shop):
    answer, text = shop.context("create_item", token_budget=800)
    assert answer.root == "shop/service.py::create_item" and "def create_item(name):" in text
    answer, _ = shop.intent("modify", "validate")
    assert answer.root == "shop/service.py::validate"
    answer, _ = shop.path("main", "validate")
    assert [i.id for i in answer.items][-1] == "shop/service.py::validate"
    answer, text = shop.file("shop/models.py")
    assert "shop/models.py::Repo.save" in [i.id for i in answer.items]
    answer, _ = shop.impact("validate")
    assert "shop/service.py::create_item" in [i.id for i in answer.items]
    answer, text = shop.session(format="json")
    assert json.loads(text)["mode"] == answer.mode
    assert shop.rank_text("store one item")
    selection, text = shop.export("mermaid", around="Repo")
    assert "flowchart" in text and selection.nodes


def test_record_verbs(tmp_path):
    with Project(make_shop(tmp_path / "shop"), ephemeral=False) as project:
        written = project.remember(title="Repo writes through _write", body="Override _write, not save.",
                                   anchors=["shop/models.py::Repo._write"])[0]
        assert written.action == "created"
        decided = project.decide("Validate first", "create_item validates before it stores")
        assert project.record(decided.record.id).title == "Validate first"
        assert project.recall("override").hits[0].id == written.record.id
        revised = project.revise(written.record.id, written.record.version, body="Override _write only.")
        assert revised.action == "updated"
        assert project.verify(written.record.id).record.id == written.record.id
        report = project.check()  # nothing anchored has changed since it was written
        assert report.items == [] and report.problems == []
        assert project.retract(decided.record.id, decided.record.version, "wrong").action == "retracted"
        with pytest.raises(GraphctxError, match="ephemeral"):
            project.remember(title="gone", body="x", scope="ephemeral")


def test_two_projects_in_one_process_do_not_share_state(tmp_path):
    first, second = make_shop(tmp_path / "one"), make_shop(tmp_path / "two")
    (second / "shop" / "extra.py").write_text("def only_in_two():\n    return 2\n", encoding="utf-8")
    with Project(first) as one, Project(second) as two:
        two.refresh()
        assert two.search("only_in_two").hits and not one.search("only_in_two").hits
        assert one.graph is not two.graph and one.graph.root != two.graph.root
        one.remember(title="only in one", body="here", scope="ephemeral")
        assert one.recall("only in one").hits and not two.recall("only in one").hits


def test_two_projects_on_the_same_root_are_independent(tmp_path):
    root = make_shop(tmp_path / "shop")
    one, two = Project(root), Project(root)
    assert one.graph is not two.graph  # each loads its own
    one.remember(title="one's own note", body="kept by one", scope="ephemeral")
    assert one.recall("own note").hits and not two.recall("own note").hits
    one.close()
    assert two.search("validate").hits and two.context("validate")[0].items  # closing one leaves the other whole
    assert two.graph is two.graph
    assert not one.recall("own note").hits  # one's ephemeral records went with its store
    two.close()


def test_each_thread_reads_through_its_own_connection(tmp_path):
    import threading

    with Project(make_shop(tmp_path / "shop")) as project:
        project.search("validate")
        found = []
        worker = threading.Thread(target=lambda: found.append(project.search("Repo").hits))
        worker.start()
        worker.join()
        assert found[0] and project._graphs.open_connections == 2  # SQLite connections are not shared across threads


def test_close_releases_connections_and_records(tmp_path):
    root = make_shop(tmp_path / "shop").resolve()
    project = Project(root)
    project.search("validate")
    project.remember(title="ephemeral note", body="kept while open", scope="ephemeral")
    assert project._graphs.open_connections and project._graphs.loaded
    project.close()
    assert not project._graphs.open_connections and not project._graphs.loaded
    assert not project.recall("ephemeral note").hits  # the ephemeral records went with the store
    assert project.search("validate").hits  # a closed project opens again on use
    project.close()


def test_a_folder_without_an_index_says_how_to_build_one(tmp_path):
    with Project(make_shop(tmp_path / "bare", index=False)) as project:
        assert not project.has_index()
        with pytest.raises(NoIndex, match="graphctx index"):
            project.search("validate")
        assert project.index().summary()
        assert project.search("validate").hits


def test_helpers_that_need_no_repository(shop):
    assert Project.count_tokens("def f(): pass") > 0
    assert Project.policy("debug", ["seeds.frame=7"]) != Project.policy("debug")
    with pytest.raises(GraphctxError, match="seeds"):
        Project.policy("debug", ["seeds.no_such_weight=1"])
    names = [d.qualified_name for d in Project.definitions("m.py", b"class A:\n    def f(self):\n        pass\n")]
    assert names == ["A", "A.f"]
    assert Project.is_source_file("a/b.py") and not Project.is_source_file("README.md")
    assert Project.is_test_file("tests/test_x.py") and not Project.is_test_file("shop/cli.py")
    assert shop.members("shop/models.py::Repo") == ["shop/models.py::Repo.save", "shop/models.py::Repo._write"]


def test_the_graph_docstring_examples_hold_on_the_shop(shop):
    from graphctx.graph.hierarchy import related_methods
    from graphctx.graph.paths import call_chain, reach

    g = shop.graph
    assert [n for n, _ in call_chain(g, "shop/cli.py::main", "shop/service.py::validate")] == [
        "shop/cli.py::main", "shop/service.py::create_item", "shop/service.py::validate"]
    assert reach(g, "shop/service.py::validate", forward=False) == (4, 2)
    assert related_methods(g, "shop/models.py::CachedRepo.save", upward=True) == [("shop/models.py::Repo.save", 1)]
