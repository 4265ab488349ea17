"""HTTP routes as entities: one small project per framework (tests/fixtures/routes/), indexed for
real, with the exact routes and edges expected; a route found by its request line from the CLI
and over MCP; route edges are inferred (left out without them); a registration is no call."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from mcp import Client

from conftest import indexed_copy, query_index as query, run_graphctx as graphctx

FIXTURES = Path(__file__).parent / "fixtures" / "routes"

# framework -> {route id: (handles target, registering source)}
EXPECTED = {
    "flask": {
        "flask/app.py::route:GET /api/users/": ("flask/app.py::list_users", "flask/app.py"),
        "flask/app.py::route:POST /api/users/": ("flask/app.py::list_users", "flask/app.py"),
        "flask/app.py::route:GET /health": ("flask/app.py::health", "flask/app.py"),
    },
    "fastapi": {
        "fastapi/main.py::route:GET /v1/items/{item_id}": ("fastapi/main.py::read_item", "fastapi/main.py"),
        "fastapi/main.py::route:POST /v1/items": ("fastapi/main.py::create_item", "fastapi/main.py"),
        "fastapi/main.py::route:DELETE /cache": ("fastapi/main.py::clear_cache", "fastapi/main.py"),
    },
    "django": {
        "django/shop/urls.py::route:ANY /users/": ("django/shop/views.py::user_list", "django/shop/urls.py"),
        "django/shop/urls.py::route:ANY /users/(?P<pk>\\d+)/": ("django/shop/views.py::user_detail", "django/shop/urls.py"),
        "django/shop/urls.py::route:ANY /orders/": ("django/shop/views.py::OrderList", "django/shop/urls.py"),
    },
    "express": {
        "express/server.js::route:GET /users": ("express/server.js::listUsers", "express/server.js"),
        "express/server.js::route:POST /orders": ("express/handlers.js::createOrder", "express/server.js"),
        "express/server.js::route:GET /ping": (None, "express/server.js"),
    },
    "gonet": {
        "gonet/main.go::route:GET /users": ("gonet/main.go::listUsers", "gonet/main.go::main"),
        "gonet/main.go::route:GET /v1/items/:id": ("gonet/main.go::getItem", "gonet/main.go::main"),
        "gonet/main.go::route:POST /api/items": ("gonet/main.go::createItem", "gonet/main.go::main"),
    },
    "spring": {
        f"spring/src/main/java/shop/UserController.java::route:{method} {path}":
            (f"spring/src/main/java/shop/UserController.java::UserController.{handler}",
             "spring/src/main/java/shop/UserController.java::UserController")
        for method, path, handler in (("GET", "/users/{id}", "show"), ("POST", "/users", "create"),
                                      ("PUT", "/users/search", "search"))
    },
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    return indexed_copy(FIXTURES, tmp_path_factory.mktemp("routes") / "repo")


@pytest.mark.parametrize("framework", sorted(EXPECTED))
def test_each_framework_gives_exactly_its_routes_and_edges(repo, framework):
    routes = {i for (i,) in query(repo, "SELECT id FROM entities WHERE kind = 'route' AND path LIKE ?", framework + "/%")}
    assert routes == set(EXPECTED[framework])
    for route, (handler, registrar) in EXPECTED[framework].items():
        handles = query(repo, "SELECT target, resolution FROM edges WHERE source = ? AND kind = 'handles'", route)
        assert handles == ([(handler, "inferred")] if handler else []), route
        callers = query(repo, "SELECT source, resolution FROM edges WHERE target = ? AND kind = 'calls'", route)
        assert callers == [(registrar, "inferred")], route


def test_a_route_registration_is_no_call_of_a_repository_method(repo):
    # app.get('/users', listUsers) once became a call edge to the unrelated Cache.get
    into_get = query(repo, "SELECT source FROM edges WHERE target = 'express/cache.js::Cache.get' AND kind = 'calls'")
    assert into_get == []


def test_a_route_by_its_request_line_or_its_path_from_the_cli(repo):
    for name in ("GET /users", "get /users", "route:GET /users"):
        run = graphctx("context", name, "--file", "express/server.js", "--format", "json", "--budget", "1500", cwd=repo)
        assert run.returncode == 0, (name, run.stderr)
        answer = json.loads(run.stdout)
        assert answer["root"] == "express/server.js::route:GET /users"
        assert {"express/server.js::listUsers"} <= {item["id"] for item in answer["items"]}
    both = graphctx("context", "/api/users/", cwd=repo)  # GET and POST: the candidates are listed
    assert both.returncode == 2 and "route:GET /api/users/" in both.stderr and "route:POST /api/users/" in both.stderr
    search = graphctx("search", "/health", "--json", cwd=repo)
    assert json.loads(search.stdout)["hits"][0]["id"] == "flask/app.py::route:GET /health"
    routes = graphctx("search", "users", "--kind", "route", "--json", cwd=repo)
    assert {hit["kind"] for hit in json.loads(routes.stdout)["hits"]} == {"route"}


def test_route_edges_are_inferred_and_left_out_without_inferred_edges(repo):
    run = graphctx("context", "GET /health", "--no-inferred", "--format", "json", cwd=repo)
    assert run.returncode == 0, run.stderr
    assert [item["id"] for item in json.loads(run.stdout)["items"]] == ["flask/app.py::route:GET /health"]


def test_a_route_over_mcp(repo):
    from graphctx.server.app import build_server

    server = build_server(repo, watch=False)

    async def go():
        async with Client(server) as client:
            context = await client.call_tool("get_context", {"entity": "DELETE /cache", "format": "json"})
            search = await client.call_tool("search", {"query": "/v1/items", "format": "json"})
            return context, search

    try:
        context, search = anyio.run(go)
    finally:
        server.graphctx_state.fresh.stop()
    assert not context.is_error and not search.is_error
    items = context.structured_content["items"]
    assert items[0]["id"] == "fastapi/main.py::route:DELETE /cache"
    assert any(i["id"] == "fastapi/main.py::clear_cache" and i["relation"] == "handled-by" for i in items)
    assert search.structured_content["hits"][0]["id"] == "fastapi/main.py::route:POST /v1/items"


def routes_of(language: str, source: str) -> list[tuple[str, str, str, str]]:
    from graphctx.parse.extract import extract

    facts = extract("app", language, source.encode())
    return [(r.method, r.path, r.defined or r.handler, r.scope) for r in facts.routes]


def test_a_router_name_reused_in_another_function_is_another_router():
    source = '''
from flask import Blueprint, Flask

def make_one():
    app = Flask(__name__)
    bp = Blueprint("bp", __name__, url_prefix="/one")
    @bp.route("/x")
    def x():
        return ""
    app.register_blueprint(bp)

def make_two():
    parent = Blueprint("parent", __name__, url_prefix="/parent")
    bp = Blueprint("bp", __name__)
    @bp.post("/y")
    def y():
        return ""
    parent.register_blueprint(bp, url_prefix="/child")
'''
    assert routes_of("python", source) == [
        ("GET", "/one/x", "make_one.x", "make_one"),
        ("POST", "/parent/child/y", "make_two.y", "make_two"),
    ]


def test_only_routers_register_routes_in_javascript():
    source = '''
const app = express();
const api = Router();
cache.get('/users', fallback);
api.delete('/users/:id', removeUser);
app.use('/v2', api);
'''
    assert routes_of("javascript", source) == [("DELETE", "/v2/users/:id", "removeUser", "")]


def test_an_http_client_named_like_an_app_registers_no_route():
    """`api` is a common name for an Express app and for an HTTP client alike: what the file binds
    the name to decides (a client's `api.post('/users', user)` sends a request, it serves none)."""
    source = """
import axios from 'axios';
const api = axios.create({ baseURL: '/backend' });
export function save(user) {
  return api.post('/users', user);
}
"""
    assert routes_of("javascript", source) == []


def test_go_patterns_name_their_method_and_chi_routes_nest():
    source = '''package main

func routes(r chi.Router) {
	http.Handle("/static/", files)
	mux.HandleFunc("POST /items/{id}", h.Update)
	r.Route("/a", func(r chi.Router) {
		r.Route("/b", func(r chi.Router) {
			r.Delete("/c", remove)
		})
	})
	cache.Get("key")
}
'''
    assert routes_of("go", source) == [
        ("ANY", "/static/", "files", "routes"),
        ("POST", "/items/{id}", "h.Update", "routes"),
        ("DELETE", "/a/b/c", "remove", "routes"),
    ]


def test_a_handlers_routes_are_what_its_change_can_break(repo):
    run = graphctx("impact", "fastapi/main.py::read_item", "--format", "json", cwd=repo)
    assert run.returncode == 0, run.stderr
    items = {item["id"]: item["relation"] for item in json.loads(run.stdout)["items"]}
    assert items["fastapi/main.py::route:GET /v1/items/{item_id}"] == "tier1 handles"
