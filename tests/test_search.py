"""Search ranks an exact name first in any case, above prefix and full-text matches, and a kind
filter applies before matches are cut, so it lists every match of that kind. Checked through the
library, the `graphctx search` command (a subprocess) and the MCP search tool; the full-text query
without a kind gives the rows of the query that joins every match first."""

from __future__ import annotations

import json
import subprocess

import anyio
import pytest
from mcp import Client

from conftest import write_tree
from graphctx import Project
from graphctx.errors import InvalidRequest
from graphctx.index.indexer import index_repository
from graphctx.server import build_server
from test_cli import graphctx

WIDGETS = 70  # functions whose names say "widget": more than a search's full-text window at the default limit

PROJECT = {
    "app/__init__.py": "",
    "app/session.py": '''"""Sessions of signed-in users."""


class Session:
    """One user's session."""

    def refresh(self):
        return self


def sessions_for(user):
    """Every session of a user."""
    return [Session()]


def session_cookie(session):
    """The cookie that carries a session."""
    return str(session)
''',
    "app/store.py": '''from app.session import Session


def save_session(session):
    """Write a session to the store."""
    return session


def load():
    """Read a session back from the store."""
    return Session()
''',
    "app/widgets.py": "\n\n".join(
        [f'def make_widget_{i}():\n    """Build widget number {i}."""\n    return {i}\n' for i in range(WIDGETS)]
        + [f'class Gadget{i}:\n    """Holds a widget."""\n' for i in range(3)]
        + ['class Gadget:\n    """A gadget."""\n', 'def gadget():\n    """A gadget maker."""\n    return Gadget()\n']
    ),
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = write_tree(tmp_path_factory.mktemp("search") / "repo", PROJECT)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    index_repository(root)
    return root


def ids(hits) -> list[str]:
    return [h.id for h in hits]


@pytest.mark.parametrize("query", ["session", "SESSION", "Session", "sEsSiOn"])
def test_an_exact_name_wins_in_any_case(repo, query):
    hits = Project(repo, find=False).search(query).hits
    assert hits[0].id == "app/session.py::Session" and hits[0].match == "exact"
    found = ids(hits)
    # then the names it begins (prefix), then names and docs that contain the word (full text)
    assert found.index("app/session.py::sessions_for") > 0
    assert found.index("app/session.py::session_cookie") > 0
    assert found.index("app/store.py::save_session") > found.index("app/session.py::sessions_for")


def test_a_qualified_name_matches_in_any_case(repo):
    first = Project(repo, find=False).search("session.REFRESH").hits[0]
    assert (first.id, first.match) == ("app/session.py::Session.refresh", "exact")


def test_the_exact_spelling_comes_before_another_case(repo):
    assert ids(Project(repo, find=False).search("Gadget").hits)[:2] == ["app/widgets.py::Gadget", "app/widgets.py::gadget"]
    assert ids(Project(repo, find=False).search("gadget").hits)[:2] == ["app/widgets.py::gadget", "app/widgets.py::Gadget"]


def test_a_kind_filter_lists_every_match_of_that_kind(repo):
    unfiltered = ids(Project(repo, find=False).search("widget").hits)
    assert len(unfiltered) == 20 and not any("Gadget" in i for i in unfiltered)  # the functions fill the page
    classes = Project(repo, find=False).search("widget", kind="class").hits
    assert {h.id for h in classes} == {f"app/widgets.py::Gadget{i}" for i in range(3)}
    assert {h.kind for h in classes} == {"class"}
    assert ids(Project(repo, find=False).search("session", kind="function").hits)[0] == "app/session.py::sessions_for"


def test_an_unknown_kind_is_refused_with_a_suggestion(repo):
    with pytest.raises(InvalidRequest, match=r"unknown kind 'klass'; did you mean 'class'\? use one of file, class"):
        Project(repo, find=False).search("widget", kind="klass")
    assert Project(repo, find=False).search("widget", kind="struct").hits == []  # a known kind with no entity here: no hits


def test_the_search_command(repo):
    first = graphctx("search", "session", cwd=repo).stdout.splitlines()
    assert "app/session.py::Session" in next(line for line in first if "::" in line)
    answer = json.loads(graphctx("search", "widget", "--kind", "class", "--json", cwd=repo).stdout)
    assert {h["id"] for h in answer["hits"]} == {f"app/widgets.py::Gadget{i}" for i in range(3)}
    bad = graphctx("search", "widget", "--kind", "klass", cwd=repo, check=False)
    assert bad.returncode == 2 and "did you mean 'class'" in bad.stderr


def test_the_search_tool(repo):
    server = build_server(repo, watch=False)

    async def go():
        async with Client(server) as client:
            return (await client.call_tool("search", {"query": "session", "format": "json"}),
                    await client.call_tool("search", {"query": "widget", "kind": "class", "format": "json"}))

    try:
        by_name, by_kind = anyio.run(go)
    finally:
        server.graphctx_state.fresh.stop()
    assert by_name.structured_content["hits"][0]["id"] == "app/session.py::Session"
    assert len(by_kind.structured_content["hits"]) == 3


@pytest.mark.parametrize("match", ['"widget"', '"session" OR "user" OR "widget"', '"cookie" OR "refresh"'])
def test_full_text_without_a_kind_picks_the_same_rows_as_joining_first(repo, match):
    """The full-text query picks its best rows inside FTS5 before the join when no kind filters them:
    the rows and their order are those of the query that joins every match first."""
    from graphctx.index.store import connect, index_path, reads

    conn = connect(index_path(repo), readonly=True)
    weights = (4.0, 2.0, 1.0, 0.5)
    joined_first = conn.execute(
        "SELECT e.id, bm25(entities_fts, ?, ?, ?, ?) AS s FROM entities_fts f JOIN entities e ON e.rowid = f.rowid"
        " WHERE entities_fts MATCH ? ORDER BY s LIMIT ?", (*weights, match, 25)).fetchall()
    assert joined_first and reads.full_text(conn, match, weights, None, 25) == joined_first
