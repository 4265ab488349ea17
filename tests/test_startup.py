"""A new process's first answer: a context answer from a fresh CLI process (ranking on numpy, no
scipy, no networkx) equals the one a warm Project gives (ranking on scipy's compiled products); the
one-shot path does not load what it never uses; a stdio MCP server started on a fresh index answers
initialize, tools/list and get_context in sequence, one started on an index with damaged pages
(found by the page check that now runs beside the SDK's import) rebuilds it before answering, and
one started after a file changed answers with the change (the catch-up run, also beside the import);
an answer packed again at a smaller budget reuses its ranking and equals a fresh one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from conftest import make_shop, run_graphctx
from graphctx import Project
from graphctx.graph.transition import accelerate
from test_index_safety import damage_pages
from test_server_stdio import RawServer

ENTITIES = ["create_item", "shop/models.py::CachedRepo.save", "Repo", "shop/cli.py::main", "validate"]
TEXTS = ["saving an item fails validation", "the cached repository writes twice"]


@pytest.fixture(scope="module")
def warm(shop_repo):
    """A Project that has answered before and ranks on scipy's products, as a long-lived server does."""
    with Project(shop_repo, ephemeral=False) as project:
        for entity in ENTITIES:
            project.context(entity, token_budget=1500)
        assert accelerate()
        yield project


@pytest.mark.parametrize("entity", ENTITIES)
def test_a_fresh_process_answers_as_a_warm_project_does(shop_repo, warm, entity):
    fresh = run_graphctx("context", entity, "--budget", "1500", "--format", "json", cwd=shop_repo)
    assert fresh.returncode == 0, fresh.stderr
    assert json.loads(fresh.stdout) == json.loads(warm.context(entity, token_budget=1500, format="json")[1])


@pytest.mark.parametrize("text", TEXTS)
def test_free_text_ranks_the_same_in_a_fresh_process(shop_repo, warm, text):
    """Free text is ranked by PageRank: numpy's product in the new process, scipy's in the warm one."""
    fresh = run_graphctx("intent", "debug", text, "--budget", "1500", "--format", "json", cwd=shop_repo)
    assert fresh.returncode == 0, fresh.stderr
    answer = json.loads(fresh.stdout)
    assert answer["items"] and answer == json.loads(warm.intent("debug", text, token_budget=1500, format="json")[1])


def test_a_context_answer_loads_neither_scipy_nor_networkx_nor_the_indexer_nor_pydantic(shop_repo):
    # (an answer printed as text needs no validator: the context answer is a dataclass, packets.py)
    script = ("import sys; from graphctx.cli.main import main; code = main(['context', 'create_item', '--budget', "
              "'1500']); print([m for m in ('scipy.sparse', 'networkx', 'graphctx.index.indexer', 'mcp', 'pydantic', "
              "'graphctx.answers') if m in sys.modules], file=sys.stderr); sys.exit(code)")
    done = subprocess.run([sys.executable, "-c", script], cwd=shop_repo, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "repo.save(name)" in done.stdout
    assert done.stderr.strip().splitlines()[-1] == "[]"


def test_the_work_store_loads_only_where_work_was_coordinated(tmp_path):
    """A plain answer in a repository where nobody coordinated work or gave feedback reads no work state;
    once a task exists, the same command loads the work store (peers come from it)."""
    root = make_shop(tmp_path / "shop")
    script = ("import sys; from graphctx.cli.main import main; code = main(['context', 'create_item', '--budget', "
              "'1500']); print('graphctx.coord.store' in sys.modules, file=sys.stderr); sys.exit(code)")
    plain = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True)
    assert plain.returncode == 0, plain.stderr
    assert plain.stderr.strip().splitlines()[-1] == "False"
    assert run_graphctx("tasks", "create", "Round totals", "--agent", "ann", cwd=root).returncode == 0
    coordinated = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True)
    assert coordinated.returncode == 0, coordinated.stderr
    assert coordinated.stderr.strip().splitlines()[-1] == "True"
    assert coordinated.stdout == plain.stdout  # nobody works on that code: no peers line


def test_context_served_too_long_ago_to_make_a_peer_loads_no_work_store(tmp_path):
    """What a server served to an agent makes it a peer for 30 minutes; after that a CLI answer need not
    load the work store to look for peers (a served file's time is its newest event)."""
    root = make_shop(tmp_path / "shop")
    script = ("import sys; from graphctx.cli.main import main; code = main(['context', 'validate', '--budget', "
              "'1500']); print('graphctx.coord.store' in sys.modules, file=sys.stderr); sys.exit(code)")
    with Project(root) as project:
        project.work.note_served("ann", ["shop/service.py::validate"])
    lately = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True)
    assert lately.returncode == 0, lately.stderr
    assert lately.stderr.strip().splitlines()[-1] == "True"
    assert "peers: ann" in lately.stdout
    long_ago = time.time() - 31 * 60
    for served in (root / ".graphctx" / "private" / "served").iterdir():
        os.utime(served, (long_ago, long_ago))
    later = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True)
    assert later.returncode == 0, later.stderr
    assert later.stderr.strip().splitlines()[-1] == "False"
    assert later.stdout == lately.stdout.replace(lately.stdout.splitlines()[-1] + "\n", "")


NOT_FOR_A_NO_OP = ('numpy', 'graphctx.graph.snapshot', 'graphctx.graph.lazy', 'pydantic', 'graphctx.answers',
                   'graphctx.index.generation', 'graphctx.index.parsing', 'graphctx.index.keeper', 'graphctx.parse.extract')


def test_an_index_run_with_nothing_changed_loads_no_graph_code(tmp_path):
    """A no-op `graphctx index` (what hooks run on every edit) imports neither numpy nor the snapshot code,
    nor pydantic (the CLI's vocabulary is no model), nor the parser, the resolver or the kept table, and
    reads no file skipped for its content last time."""
    root = make_shop(tmp_path / "shop", index=False)
    (root / "bundle.js").write_text("var a=function(){return 1};" * 400)  # skipped as minified: not read again
    _index_an_hour_after_writing(root)
    script = ("import sys; from graphctx.cli.main import main; code = main(['index', '-q']); "
              f"print([m for m in {NOT_FOR_A_NO_OP!r} if m in sys.modules], file=sys.stderr); sys.exit(code)")
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "0 parsed" in done.stdout
    assert done.stderr.strip().splitlines()[-1] == "[]"



RESOLVER = ("graphctx.index.scope", "graphctx.index.symbols", "graphctx.index.dependencies", "graphctx.index.languages")


def test_a_long_lived_projects_no_op_run_loads_no_resolver(tmp_path):
    """A server's watcher runs the indexer after every save; one that finds nothing changed makes the
    project's table keeper but loads none of the resolving code the keeper keeps tables for."""
    root = make_shop(tmp_path / "shop", index=False)
    _index_an_hour_after_writing(root)
    script = ("import sys; from graphctx import Project; result = Project('.').index(); "
              f"print(result.parsed, [m for m in {RESOLVER!r} if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "[]"]


def _index_an_hour_after_writing(root):
    """Date every file an hour back (out of the racy window in which a run just after a write must
    read the file again) and index the repository."""
    an_hour_ago = time.time() - 3600
    for path in root.rglob("*"):
        os.utime(path, (an_hour_ago, an_hour_ago))
    assert run_graphctx("index", "-q", cwd=root).returncode == 0

def test_networkx_is_still_the_graph_api(shop_repo):
    graph = Project(shop_repo).graph.graph
    assert type(graph).__name__ == "MultiDiGraph"
    assert graph.has_edge("shop/service.py::create_item", "shop/service.py::validate", key="calls")
    assert graph.nodes["shop/service.py::validate"]["kind"] == "function"


def session_in_sequence(root) -> tuple[list[str], str]:
    """initialize (RawServer sends it and checks the answer), tools/list, then get_context, one by one."""
    server = RawServer(root)
    try:
        server.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        listed = server.reply()
        assert listed["id"] == 1 and "error" not in listed, listed
        server.send(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "get_context", "arguments": {"entity": "create_item", "token_budget": 1000}}}))
        called = server.reply()
        assert called["id"] == 2 and "error" not in called and not called["result"].get("isError"), called
        return [tool["name"] for tool in listed["result"]["tools"]], called["result"]["content"][0]["text"]
    finally:
        server.close()


def test_a_stdio_session_on_a_fresh_index_answers_each_request_in_turn(tmp_path):
    root = make_shop(tmp_path / "shop")
    tools, text = session_in_sequence(root)
    assert "get_context" in tools and "search" in tools
    assert "repo.save(name)" in text


def test_a_server_rebuilds_an_index_with_damaged_pages_before_answering(tmp_path):
    root = make_shop(tmp_path / "shop")
    damage_pages(root, "edge_keys")  # only reading every page finds this; a query's checks do not
    tools, text = session_in_sequence(root)
    assert "repo.save(name)" in text
    done = run_graphctx("show", "create_item", "--json", cwd=root)
    assert done.returncode == 0 and "shop/service.py::validate" in done.stdout  # the edges are back


def test_a_file_changed_while_no_server_ran_is_in_its_first_answer(tmp_path):
    """The catch-up index run starts beside the SDK's import now: the first answer still waits for it."""
    root = make_shop(tmp_path / "shop")
    (root / "shop" / "audit.py").write_text(  # a new file: no file the old index knows has changed
        "from shop.service import create_item\n\n\ndef audit(name):\n    return create_item(name)\n", encoding="utf-8")
    tools, text = session_in_sequence(root)
    assert "shop/audit.py::audit" in text


def test_an_answer_packed_again_smaller_ranks_once_and_equals_a_fresh_one(shop_repo):
    """A peers line or feedback packs an answer again: the ranking is kept, not redone, and unchanged."""
    with Project(shop_repo, ephemeral=False) as project:
        project.context("create_item", token_budget=1500)
        again = project.context("create_item", token_budget=700, format="json")[1]
        kept = project.graph.cache["recent-rankings"]
        assert len(kept) == 1
        ranking = next(iter(kept.values()))
        with pytest.raises(AttributeError):
            ranking[0].score = 0.0  # candidates are frozen: one ranking serves several packings
        project.intent("debug", TEXTS[0], token_budget=1500)
        text_again = project.intent("debug", TEXTS[0], token_budget=700, format="json")[1]
        assert len(kept) == 2
    with Project(shop_repo, ephemeral=False) as fresh:
        assert json.loads(again) == json.loads(fresh.context("create_item", token_budget=700, format="json")[1])
        assert json.loads(text_again) == json.loads(fresh.intent("debug", TEXTS[0], token_budget=700, format="json")[1])
