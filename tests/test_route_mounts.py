"""Route prefixes given in another file: a router mounted by the file that imports it (FastAPI's
include_router, Flask's register_blueprint, Express's app.use, Django's include), nested mounts, a
router mounted twice, a prefix that is no literal. One small project per framework
(tests/fixtures/route_mounts/), indexed for real with the exact routes and edges expected; found
from the CLI and over MCP; an incremental run after an edit to the mounting file alone, the router
file alone or any sequence of such edits equals a full rebuild."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from conftest import index_tables, indexed_copy, query_index as query, run_graphctx as graphctx
from test_index_incremental import snapshot_matches_rows
from graphctx.index.indexer import index_repository
from graphctx.index.keeper import TableKeeper

FIXTURES = Path(__file__).parent / "fixtures" / "route_mounts"
NO_LITERAL = "gives a prefix that is no literal, so the path is the part below it"

# framework -> {route id: (handler, how it is mounted: its doc)}
EXPECTED = {
    "fastapi": {
        "fastapi/app/main.py::route:GET /health": ("fastapi/app/main.py::health", ""),
        "fastapi/app/routers/users.py::route:GET /api/users":
            ("fastapi/app/routers/users.py::list_users", "mounted by fastapi/app/main.py:10"),
        "fastapi/app/routers/users.py::route:GET /api/users/{user_id}":
            ("fastapi/app/routers/users.py::read_user", "mounted by fastapi/app/main.py:10"),
        "fastapi/app/routers/users.py::route:GET /v2/users":
            ("fastapi/app/routers/users.py::list_users", "mounted by fastapi/app/main.py:11"),
        "fastapi/app/routers/users.py::route:GET /v2/users/{user_id}":
            ("fastapi/app/routers/users.py::read_user", "mounted by fastapi/app/main.py:11"),
        "fastapi/app/routers/admin.py::route:POST /admin/reset":
            ("fastapi/app/routers/admin.py::reset", "mounted by fastapi/app/main.py:12"),
        "fastapi/app/routers/audit.py::route:GET /admin/audit/log":
            ("fastapi/app/routers/audit.py::audit_log",
             "mounted by fastapi/app/routers/admin.py:6, then fastapi/app/main.py:12"),
        "fastapi/app/routers/items.py::route:GET /{item_id}":
            ("fastapi/app/routers/items.py::read_item",
             f"mounted by fastapi/app/main.py:13; fastapi/app/main.py:13 {NO_LITERAL}"),
    },
    "flask": {  # register_blueprint(url_prefix=) replaces the blueprint's own prefix; without it, it is kept
        "flask/shop/orders.py::route:GET /shop/orders/": ("flask/shop/orders.py::orders", "mounted by flask/shop/__init__.py:11"),
        "flask/shop/orders.py::route:POST /shop/orders/": ("flask/shop/orders.py::orders", "mounted by flask/shop/__init__.py:11"),
        "flask/shop/accounts.py::route:GET /accounts/<int:account_id>":
            ("flask/shop/accounts.py::account", "mounted by flask/shop/__init__.py:12"),
    },
    "express": {
        "express/routes/users.js::route:GET /api/users": ("express/routes/users.js::listUsers", "mounted by express/app.js:7"),
        "express/routes/users.js::route:POST /api/users/:id":
            ("express/routes/users.js::updateUser", "mounted by express/app.js:7"),
        "express/routes/api.js::route:GET /api/status": ("express/routes/api.js::status", "mounted by express/app.js:8"),
        "express/routes/reports.js::route:GET /api/reports/daily":
            ("express/routes/reports.js::daily", "mounted by express/routes/api.js:10, then express/app.js:8"),
        "express/routes/admin.js::route:DELETE /cache":
            ("express/routes/admin.js::clearCache", f"mounted by express/app.js:9; express/app.js:9 {NO_LITERAL}"),
    },
    "django": {
        "django/mysite/urls.py::route:ANY /health/": ("django/mysite/views.py::health", ""),
        "django/shop/urls.py::route:ANY /api/users/": ("django/shop/views.py::user_list", "mounted by django/mysite/urls.py:6"),
        "django/shop/orders/urls.py::route:ANY /api/orders/<int:pk>/":
            ("django/shop/orders/views.py::order_detail", "mounted by django/shop/urls.py:7, then django/mysite/urls.py:6"),
    },
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    return indexed_copy(FIXTURES, tmp_path_factory.mktemp("mounts") / "repo")


def routes(root: Path, prefix: str = "") -> dict[str, str]:
    return dict(query(root, "SELECT id, doc FROM entities WHERE kind = 'route' AND path LIKE ?", prefix + "%"))


@pytest.mark.parametrize("framework", sorted(EXPECTED))
def test_each_framework_serves_a_mounted_router_under_the_mounting_files_prefix(repo, framework):
    found = routes(repo, framework + "/")
    assert found == {route: doc for route, (_, doc) in EXPECTED[framework].items()}
    for route, (handler, _) in EXPECTED[framework].items():
        path = route.partition("::")[0]
        assert query(repo, "SELECT target, resolution FROM edges WHERE source = ? AND kind = 'handles'", route) == \
            [(handler, "inferred")], route
        assert query(repo, "SELECT source FROM edges WHERE target = ? AND kind = 'calls'", route) == [(path,)], route


def test_a_router_mounted_twice_is_two_routes_of_one_handler(repo):
    handled = query(repo, "SELECT source FROM edges WHERE target = 'fastapi/app/routers/users.py::list_users'"
                          " AND kind = 'handles' ORDER BY source")
    assert handled == [("fastapi/app/routers/users.py::route:GET /api/users",),
                       ("fastapi/app/routers/users.py::route:GET /v2/users",)]


def test_a_mounted_route_by_its_full_path_from_the_cli(repo):
    run = graphctx("context", "GET /api/users", "--file", "fastapi/app/routers/users.py", "--format", "json", cwd=repo)
    assert run.returncode == 0, run.stderr
    answer = json.loads(run.stdout)
    assert answer["root"] == "fastapi/app/routers/users.py::route:GET /api/users"
    assert "fastapi/app/routers/users.py::list_users" in {item["id"] for item in answer["items"]}
    assert answer["items"][0]["text"].splitlines() == [  # how the path comes about, then the registration
        "GET /api/users -> list_users (fastapi)", "  mounted by fastapi/app/main.py:10", '@router.get("")']
    nested = graphctx("context", "GET /admin/audit/log", "--format", "json", cwd=repo)
    assert nested.returncode == 0, nested.stderr
    assert json.loads(nested.stdout)["root"] == "fastapi/app/routers/audit.py::route:GET /admin/audit/log"
    shown = graphctx("show", "DELETE /cache", cwd=repo)  # the doc says the prefix is unknown
    assert shown.returncode == 0 and "no literal" in shown.stdout, shown.stdout + shown.stderr
    local = graphctx("context", "GET /users", "--file", "fastapi/app/routers/users.py", cwd=repo)
    assert local.returncode == 2 and "GET /users" in local.stderr  # the router's own path is served nowhere


def test_a_mounted_route_over_mcp(repo):
    from graphctx.server.app import build_server

    server = build_server(repo, watch=False)

    async def go():
        async with Client(server) as client:
            return await client.call_tool("get_context", {"entity": "GET /api/reports/daily", "format": "json"})

    try:
        answer = anyio.run(go)
    finally:
        server.graphctx_state.fresh.stop()
    assert not answer.is_error, answer
    items = answer.structured_content["items"]
    assert items[0]["id"] == "express/routes/reports.js::route:GET /api/reports/daily"
    assert any(i["id"] == "express/routes/reports.js::daily" and i["relation"] == "handled-by" for i in items)


def parsed(language: str, source: str):
    from graphctx.parse.extract import extract

    return extract("app", language, source.encode())


def test_a_file_names_the_router_its_routes_hang_on_and_the_routers_it_mounts():
    facts = parsed("python", """
from fastapi import APIRouter, FastAPI
from .routers import users

app = FastAPI()
api = APIRouter(prefix="/api")
api.include_router(users.router, prefix="/users")
app.include_router(api)

@api.get("/ping")
def ping():
    return "pong"
""")
    assert [(r.path, r.router, r.below) for r in facts.routes] == [("/api/ping", "app", "/api/ping")]
    assert [(m.child, m.parent, m.below, m.known) for m in facts.mounts] == [("users.router", "app", "/api/users", True)]
    express = parsed("javascript", """
const app = express();
app.use(express.json());
app.use(cors());
app.use('/v1', require('./v1'));
app.use(helmet);
""")
    assert [(m.child, m.module, m.below) for m in express.mounts] == [("./v1", True, "/v1"), ("helmet", False, "")]


def test_django_paths_in_an_include_list_take_the_paths_around_them():
    facts = parsed("python", """
from django.urls import include, path, re_path

urlpatterns = [
    path("api/", include([
        path("users/", views.users),
        re_path(r"^v1/", include([path("items/", views.items)])),
        path("shop/", include("shop.urls")),
    ])),
    path("health/", views.health),
]
""")
    assert [(r.path, r.handler) for r in facts.routes] == [
        ("/api/users/", "views.users"), ("/api/v1/items/", "views.items"), ("/health/", "views.health")]
    assert [(m.child, m.below) for m in facts.mounts] == [("shop.urls", "/api/shop/")]


def test_a_prefix_that_is_no_literal_within_one_file_is_said_so_too(tmp_path):
    root = tmp_path / "repo"
    (root).mkdir()
    (root / "main.py").write_text('from fastapi import APIRouter, FastAPI\n\nfrom . import settings\n\n'
                                  'app = FastAPI()\nrouter = APIRouter()\n\n\n@router.get("/x")\ndef x():\n    return 1\n\n\n'
                                  'app.include_router(router, prefix=settings.PREFIX)\n')
    index_repository(root, workers=1)
    assert routes(root) == {"main.py::route:GET /x": f"mounted by main.py:14; main.py:14 {NO_LITERAL}"}


# ---------------------------------------------------------------- incremental runs equal a full rebuild

def same_as_full(root: Path, scratch: Path) -> None:
    incremental = index_tables(root)
    if scratch.exists():
        shutil.rmtree(scratch)
    shutil.copytree(root, scratch, ignore=shutil.ignore_patterns(".graphctx"))
    index_repository(scratch, full=True, workers=1)
    full = index_tables(scratch)
    for table in ("entities", "edges"):
        assert incremental[table] == full[table], (
            f"{table}: only incremental {sorted(incremental[table] - full[table])}, "
            f"only full {sorted(full[table] - incremental[table])}")


def edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text()
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new, 1))


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURES, root)
    index_repository(root, workers=1)
    return root


def test_an_edit_to_the_mounting_file_alone_moves_the_routes_of_the_router_file(project, tmp_path):
    edit(project, "fastapi/app/main.py", 'prefix="/api")', 'prefix="/api/v1")')
    edit(project, "django/mysite/urls.py", '"api/"', '"shop-api/"')
    result = index_repository(project, workers=1)
    assert result.parsed == 2
    assert "fastapi/app/routers/users.py::route:GET /api/v1/users/{user_id}" in routes(project)
    assert "fastapi/app/routers/users.py::route:GET /api/users/{user_id}" not in routes(project)
    assert "django/shop/orders/urls.py::route:ANY /shop-api/orders/<int:pk>/" in routes(project)  # two levels down
    same_as_full(project, tmp_path / "full")
    found = graphctx("search", "/api/v1/users", "--kind", "route", "--json", cwd=project)  # the full-text rows follow
    assert json.loads(found.stdout)["hits"][0]["id"] == "fastapi/app/routers/users.py::route:GET /api/v1/users"
    gone = graphctx("search", "route:GET /api/users/{user_id}", "--kind", "route", "--json", cwd=project)
    assert "fastapi/app/routers/users.py::route:GET /api/users/{user_id}" not in gone.stdout


def test_an_edit_to_the_router_file_alone_keeps_the_mounting_files_prefix(project, tmp_path):
    edit(project, "fastapi/app/routers/users.py", 'APIRouter(prefix="/users"', 'APIRouter(prefix="/people"')
    edit(project, "express/routes/api.js", "api.use('/reports', reports);", "api.use('/stats', reports);")
    assert index_repository(project, workers=1).parsed == 2
    found = routes(project)
    assert {"fastapi/app/routers/users.py::route:GET /api/people", "fastapi/app/routers/users.py::route:GET /v2/people",
            "express/routes/reports.js::route:GET /api/stats/daily"} <= set(found)
    same_as_full(project, tmp_path / "full")


def test_a_mount_removed_or_made_unreadable_gives_back_the_routers_own_path(project, tmp_path):
    edit(project, "fastapi/app/main.py", 'app.include_router(users.router, prefix="/v2")\n', "")
    edit(project, "flask/shop/__init__.py", 'url_prefix="/shop/orders"', "url_prefix=ORDERS")
    index_repository(project, workers=1)
    found = routes(project)
    assert "fastapi/app/routers/users.py::route:GET /v2/users" not in found
    assert NO_LITERAL in found["flask/shop/orders.py::route:GET /orders/"]
    same_as_full(project, tmp_path / "full")


def test_a_mounting_file_deleted_then_back(project, tmp_path):
    main = (project / "fastapi/app/main.py").read_text()
    (project / "fastapi/app/main.py").unlink()
    (project / "fastapi/app/routers/admin.py").unlink()  # the router between the app and audit.py's
    index_repository(project, workers=1)
    assert set(routes(project, "fastapi/")) == {
        "fastapi/app/routers/users.py::route:GET /users", "fastapi/app/routers/users.py::route:GET /users/{user_id}",
        "fastapi/app/routers/audit.py::route:GET /log", "fastapi/app/routers/items.py::route:GET /{item_id}"}
    same_as_full(project, tmp_path / "full")
    (project / "fastapi/app/main.py").write_text(main)
    index_repository(project, workers=1)
    assert "fastapi/app/routers/users.py::route:GET /v2/users" in routes(project)
    same_as_full(project, tmp_path / "full")


EDITS = [  # (file, old, new): each an edit a developer makes to one file of the fixture
    ("fastapi/app/main.py", 'prefix="/api")', 'prefix="/api/v1")'),
    ("fastapi/app/main.py", 'app.include_router(users.router, prefix="/v2")\n', ""),
    ("fastapi/app/main.py", 'prefix=settings.ITEMS_PREFIX', 'prefix="/catalog"'),
    ("fastapi/app/main.py", 'app.include_router(admin_router, prefix="/admin")', 'app.include_router(admin_router)'),
    ("fastapi/app/routers/users.py", 'APIRouter(prefix="/users"', 'APIRouter(prefix="/people"'),
    ("fastapi/app/routers/admin.py", 'prefix="/audit"', 'prefix="/audits"'),
    ("fastapi/app/routers/admin.py", "admin_router = APIRouter()", 'admin_router = APIRouter(prefix="/ops")'),
    ("fastapi/app/routers/audit.py", '@router.get("/log")', '@router.get("/entries")'),
    ("flask/shop/__init__.py", 'url_prefix="/shop/orders"', 'url_prefix="/orders-v2"'),
    ("flask/shop/orders.py", 'url_prefix="/orders"', 'url_prefix="/o"'),
    ("express/app.js", "app.use('/api', api);", "app.use('/v3', api);"),
    ("express/routes/api.js", "api.use('/reports', reports);", "api.use('/stats', reports);"),
    ("express/routes/users.js", "module.exports = router;", "module.exports = { router };"),
    ("django/mysite/urls.py", '"api/"', '"shop-api/"'),
    ("django/shop/urls.py", '"orders/"', '"purchases/"'),
]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(st.lists(st.sampled_from(range(len(EDITS))), min_size=1, max_size=2, unique=True),
                      min_size=1, max_size=4), kept=st.booleans())
def test_any_sequence_of_mount_and_router_edits_equals_a_full_rebuild(steps, kept):
    """Each step applies one or two edits (or undoes them, when already applied) and runs an
    incremental index, from the symbol table the previous run kept (as a server's watcher does) or
    from the rows; after each, the rows equal a full rebuild of the same tree."""
    keeper = TableKeeper() if kept else None
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        shutil.copytree(FIXTURES, root)
        index_repository(root, workers=1, keeper=keeper)
        applied: set[int] = set()
        for step in steps:
            for i in step:
                rel, old, new = EDITS[i]
                text = (root / rel).read_text()
                if i not in applied and old in text:
                    (root / rel).write_text(text.replace(old, new, 1))
                    applied.add(i)
                elif i in applied and new and new in text:  # (a line deleted stays deleted)
                    (root / rel).write_text(text.replace(new, old, 1))
                    applied.discard(i)
            index_repository(root, workers=1, keeper=keeper)
            same_as_full(root, Path(tmp) / "full")
            assert snapshot_matches_rows(root), steps  # the graph a new process loads is the rows'

