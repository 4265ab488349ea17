"""Links between the projects of a team server, on small real projects indexed by the CLI: HTTP
client calls (Python requests, JavaScript fetch and axios, Go net/http) found by real tree-sitter
parses and joined to the route handlers of a Flask backend by the matching rule (literal segments
win, ties stay ambiguous with every candidate, nothing is invented); imports of another project's
npm package, Go module and Java package. Through the Project API, and over a real MCP session
against a team server over HTTP: get_context brings the linked handler in, scored down, and
get_impact lists the calling functions as cross-project dependents."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import run_graphctx, write_tree
from graphctx.context.tokens import count
from graphctx.parse import httpcalls, languages
from graphctx.project import Project
from test_team_server import call, team_server, text_of  # noqa: F401 - team_server is a fixture

API = {  # a Flask backend
    "app.py": '''from flask import Flask

app = Flask(__name__)


@app.route("/users/<int:user_id>")
def get_user(user_id):
    """One user by id."""
    return {"id": user_id}


@app.route("/users/me")
def current_user():
    """The signed-in user."""
    return {"id": 0}


@app.route("/users", methods=["GET"])
def list_users():
    return []


@app.route("/users", methods=["POST"])
def create_user():
    return {}, 201
''',
}
CLIENT = {  # a Python client of it
    "sdk.py": '''import requests

BASE = "http://api.internal:8000"


def fetch_user(user_id):
    """Ask the API for a user."""
    return requests.get(f"{BASE}/users/{user_id}", timeout=5).json()


def whoami(session):
    return session.get(BASE + "/users/me").json()


def add_user(name):
    return requests.post(f"{BASE}/users/", json={"name": name})


def users(method):
    return requests.request(method, f"{BASE}/users")


def remove_user(user_id):
    return requests.delete(f"{BASE}/users/{user_id}")


def orders():
    return requests.get(f"{BASE}/orders")


def anything(url):
    return requests.get(url)
''',
}
WEB = {  # a JavaScript client of it
    "src/users.js": '''import axios from "axios";

const backend = axios.create({ baseURL: "https://api.example.com" });

export async function loadUser(id) {
  const response = await fetch(`/users/${id}`);
  return response.json();
}

export function saveUser(user) {
  return backend.post("/users", user);
}
''',
}


def index(root: Path, files: dict[str, str]) -> Path:
    write_tree(root, files)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    done = run_graphctx("index", "-q", cwd=root)
    assert done.returncode == 0, done.stderr
    return root


@pytest.fixture
def http_projects(tmp_path) -> dict[str, Path]:
    return {"api": index(tmp_path / "api", API), "client": index(tmp_path / "client", CLIENT),
            "web": index(tmp_path / "web", WEB)}


def links(user: Path, used: Path) -> set[tuple[str, str, str, float]]:
    return {(link.user, link.used, link.resolution, link.confidence)
            for link in Project(user).federation.links_to(Project(used))}


# ---- finding client calls


@pytest.mark.parametrize("language, source, expected", [
    ("python", 'import httpx\nBASE = "https://h/v1"\ndef f(i):\n    httpx.get(f"{BASE}/items/{i}?full=1")\n',
     [("GET", "/v1/items/{}")]),
    ("python", 'import requests\ndef f(s, i):\n    s.client.put("/items/%s" % i)\n    requests.request("PATCH", '
               '"/items/{}".format(i))\n', [("PUT", "/items/{}"), ("PATCH", "/items/{}")]),
    ("python", 'import httpx\napi = httpx.Client(base_url="http://h/v3")\ndef f(i):\n    api.delete(f"/items/{i}")\n',
     [("DELETE", "/v3/items/{}")]),
    ("python", 'import requests\ndef f(url, m):\n    requests.get(url)\n    requests.get("items")\n'
               '    requests.request(m, "/x")\n', [(None, "/x")]),
    ("javascript", 'const API = "/api";\nfetch(`${API}/items/${id}`, { method: "DELETE" });\n'
                   'fetch("/items/" + id);\nfetch(url, opts);\n', [("DELETE", "/api/items/{}"), ("GET", "/items/{}")]),
    ("javascript", 'import axios from "axios";\nconst c = axios.create({ baseURL: "http://h/v2" });\n'
                   'c.get(`/items/${id}/`);\naxios({ url: "/b", method: "put" });\n',
     [("GET", "/v2/items/{}"), ("PUT", "/b")]),
    ("javascript", 'const app = express();\napp.get("/items", list);\napi.post("/items", body);\n', []),
    ("typescript", 'async function f(id: number) {\n  await axios.get<Item>(`/items/${id}`);\n'
                   '  await fetch(`/items/${id}`, { method: "PUT" } as RequestInit);\n}\n',
     [("GET", "/items/{}"), ("PUT", "/items/{}")]),
    ("go", 'package m\nimport "net/http"\nconst base = "http://svc:80"\nfunc f() {\n  http.Get(base + "/items/" + id)\n'
           '  http.NewRequest(http.MethodPut, fmt.Sprintf("%s/items/%d", b, i), nil)\n  r.Get("/items", h)\n}\n',
     [("GET", "/items/{}"), ("PUT", "/items/{}")]),
])
def test_client_calls_are_found_with_their_method_and_path(language, source, expected):
    tree = languages.parser(language).parse(source.encode())
    found = httpcalls.find(language, tree.root_node, source.encode())
    assert [(c.method, c.path) for c in found] == expected


# ---- the matching rule


ROUTES = ["GET /files/{p:path}", "GET /users/{id}", "GET /users/me", "ANY /users/:id/posts", "POST /users/:id/posts",
          "ANY /orders/(?P<pk>\\d+)/", "GET /static/*rest", "GET /{tenant}/health"]


@pytest.mark.parametrize("method, path, expected", [
    ("GET", "/users/me", ["GET /users/me"]),  # the literal segment wins over the parameter
    ("GET", "/users/{}", ["GET /users/{id}"]),  # a computed value fills a parameter, never the literal `me`
    ("GET", "/users/42", ["GET /users/{id}"]),
    ("DELETE", "/users/42", []),  # no route for that method
    ("POST", "/users/{}/posts", ["POST /users/:id/posts"]),  # the very method over a route for any
    ("GET", "/users/{}/posts", ["ANY /users/:id/posts"]),
    (None, "/users/{}/posts", ["ANY /users/:id/posts", "POST /users/:id/posts"]),  # no method said: a tie
    ("GET", "/orders/7", ["ANY /orders/(?P<pk>\\d+)/"]),
    ("GET", "/files/a/b/c.txt", ["GET /files/{p:path}"]),  # a catch-all takes the rest
    ("GET", "/files", []),  # ... but at least one segment
    ("GET", "/static/app.js", ["GET /static/*rest"]),
    ("GET", "/acme/health", ["GET /{tenant}/health"]),
    ("GET", "/{}/health", ["GET /{tenant}/health"]),
    ("GET", "/users/42/posts/9", []),  # one segment too many: no route
])
def test_the_route_a_call_targets(method, path, expected):
    from graphctx.federation import routes
    from graphctx.parse.httpcalls import ClientCall

    served = [routes.Served(f"app.py::route:{r}", r.split(" ")[0], r.split(" ")[1], routes.segments(r.split(" ")[1]),
                            ()) for r in ROUTES]
    found = routes.best_routes(ClientCall(method, path, 1), routes.table(served))
    assert sorted(f"{r.method} {r.path}" for r in found) == expected


# ---- the matching rule, through the Project API


def test_client_calls_link_to_the_handlers_of_the_routes_they_target(http_projects):
    api, client, web = http_projects["api"], http_projects["client"], http_projects["web"]
    assert links(client, api) == {
        ("sdk.py::fetch_user", "app.py::get_user", "inferred", 0.7),  # /users/{} fits <int:user_id>
        ("sdk.py::whoami", "app.py::current_user", "inferred", 0.7),  # the literal /users/me wins over <int:user_id>
        ("sdk.py::add_user", "app.py::create_user", "inferred", 0.7),  # POST; the trailing slash does not count
        # No method in the code: both /users routes, ambiguous, the confidence shared.
        ("sdk.py::users", "app.py::list_users", "ambiguous", 0.35),
        ("sdk.py::users", "app.py::create_user", "ambiguous", 0.35),
    }  # nothing for DELETE (no such route), /orders (no such path) or a URL the code does not spell out
    assert links(web, api) == {("src/users.js::loadUser", "app.py::get_user", "inferred", 0.7),
                               ("src/users.js::saveUser", "app.py::create_user", "inferred", 0.7)}
    [link] = [l for l in Project(client).federation.links_to(Project(api)) if l.user == "sdk.py::whoami"]
    assert link.kind == "http" and link.route == "app.py::route:GET /users/me"
    assert link.via == "GET /users/me -> GET /users/me"
    assert links(api, client) == set()  # the backend calls nothing of its clients


def test_a_call_its_own_project_serves_stays_home(tmp_path, http_projects):
    own = index(tmp_path / "own", {
        "app.py": 'from flask import Flask\n\napp = Flask(__name__)\n\n\n@app.route("/users/me")\ndef me():\n'
                  '    return {}\n',
        "tests/test_app.py": 'import requests\n\n\ndef test_me(client):\n    assert client.get("/users/me").ok\n\n\n'
                             'def test_remote():\n    assert requests.get("http://api/users/7").ok\n',
    })
    assert links(own, http_projects["api"]) == {("tests/test_app.py::test_remote", "app.py::get_user", "inferred", 0.7)}


def test_links_follow_the_index(http_projects):
    api, client = Project(http_projects["api"]), Project(http_projects["client"])
    assert not [l for l in client.federation.links_to(api) if l.user == "sdk.py::orders"]
    routes = http_projects["api"] / "app.py"
    routes.write_text(routes.read_text() + '\n\n@app.get("/orders")\ndef list_orders():\n    return []\n')
    assert run_graphctx("index", "-q", cwd=http_projects["api"]).returncode == 0
    api = Project(http_projects["api"])
    assert [(l.user, l.used) for l in client.federation.links_to(api) if l.user == "sdk.py::orders"] == [
        ("sdk.py::orders", "app.py::list_orders")]


def test_impact_and_context_cross_projects_through_routes_in_the_project_api(http_projects):
    api, client, web = (Project(http_projects[k]) for k in ("api", "client", "web"))
    found = api.federation.dependents(["app.py::get_user"], {"client": client, "web": web})
    assert {(key, link.user) for key, link in found} == {("client", "sdk.py::fetch_user"), ("web", "src/users.js::loadUser")}
    by_route = api.federation.dependents(["app.py::route:GET /users/me"], {"client": client})
    assert [(key, link.user) for key, link in by_route] == [("client", "sdk.py::whoami")]
    [(key, answer, text)] = client.federation.linked_context(["sdk.py::fetch_user"], {"api": api}, decay=0.5,
                                                             budget=1500)
    assert key == "api" and answer.items[0].id == "app.py::get_user" and answer.items[0].score == 0.35
    assert "calls route GET /users/{} -> GET /users/<int:user_id> (inferred 0.70)" in text


# ---- over MCP, against a team server


def test_a_team_server_links_a_client_to_the_backend_it_calls(team_server, http_projects):
    base, _, _ = team_server(None, *(f"--project={key}={path}" for key, path in http_projects.items()))
    answer = call(base, "global-token", "get_context", {"entity": "fetch_user", "project": "client",
                                                          "projects": ["api"], "cross_domain_decay": 0.5,
                                                          "token_budget": 2000, "format": "json"})
    assert not answer.is_error, text_of(answer)
    [linked] = answer.structured_content["federated"]
    assert linked["project"] == "api"
    assert {i["id"]: i["score"] for i in linked["items"]}["app.py::get_user"] == 0.35  # 1 x decay 0.5 x link 0.7
    compact = call(base, "global-token", "get_context", {"entity": "fetch_user", "project": "client",
                                                           "projects": ["api"]})
    assert "# project api (linked; scores x 0.5 x the link's confidence)" in text_of(compact) and "def get_user(user_id)" in text_of(compact)
    impact = text_of(call(base, "global-token", "get_impact", {"symbol": "get_user", "project": "api",
                                                                 "projects": ["client", "web"]}))
    assert "[client] sdk.py::fetch_user uses app.py::get_user: calls route GET /users/{} -> GET /users/<int:user_id> " \
           "(inferred 0.70)" in impact
    assert "[web] src/users.js::loadUser uses app.py::get_user" in impact
    data = call(base, "global-token", "get_impact", {"symbol": "list_users", "project": "api", "projects": ["client"],
                                                       "format": "json"}).structured_content
    assert data["cross_project"] == [{"project": "client", "dependent": "sdk.py::users", "uses_project": "api",
                                      "uses": "app.py::list_users",
                                      "link": "http", "via": "ANY /users -> GET /users", "resolution": "ambiguous",
                                      "confidence": 0.35, "route": "app.py::route:GET /users"}]


# ---- imports of non-Python packages


SHARED = {  # an npm package
    "package.json": '{"name": "@acme/shared", "version": "1.0.0", "main": "dist/index.js"}\n',
    "src/index.ts": "export function formatPrice(cents: number): string {\n  return `$${cents / 100}`;\n}\n",
    "lib/text.js": "export function slug(s) {\n  return s.toLowerCase();\n}\n",
}
SHOP = {  # its user
    "package.json": '{"name": "shop", "dependencies": {"@acme/shared": "1.0.0"}}\n',
    "src/cart.ts": "import { formatPrice } from '@acme/shared';\nimport { slug } from '@acme/shared/lib/text';\n\n"
                   "export function label(cents: number, name: string): string {\n"
                   "  return slug(name) + formatPrice(cents);\n}\n",
}
CORELIB = {  # a Go module
    "go.mod": "module example.com/corelib\n\ngo 1.22\n",
    "pricing/total.go": "package pricing\n\n// Total adds the tax.\nfunc Total(n int) int { return n * 2 }\n",
}
BILLING = {  # its user
    "go.mod": "module example.com/billing\n\ngo 1.22\n",
    "main.go": 'package main\n\nimport "example.com/corelib/pricing"\n\nfunc Invoice() int {\n'
               "\treturn pricing.Total(3)\n}\n",
}
JLIB = {"src/main/java/com/acme/lib/Pricing.java": "package com.acme.lib;\n\npublic class Pricing {\n"
                                                   "    public int total(int n) { return n * 2; }\n}\n"}
JAPP = {"src/main/java/com/shop/Checkout.java": "package com.shop;\n\nimport com.acme.lib.Pricing;\n\n"
                                                "public class Checkout {\n    public int pay() {\n"
                                                "        Pricing p = new Pricing();\n        return p.total(3);\n"
                                                "    }\n}\n"}
KLIB = {"src/main/kotlin/com/acme/klib/Tax.kt": "package com.acme.klib\n\nclass Tax {\n"
                                                "    fun apply(n: Int): Int = n * 2\n}\n\nfun rate(): Int = 7\n"}
KAPP = {"src/main/kotlin/com/shop/Checkout.kt": "package com.shop\n\nimport com.acme.klib.Tax\nimport com.acme.klib.rate"
                                               "\n\nclass Checkout {\n    fun pay(): Int {\n        val t = Tax()\n"
                                               "        return t.apply(3) + rate()\n    }\n}\n"}


@pytest.mark.parametrize("used_files, user_files, expected", [
    (SHARED, SHOP, {("src/cart.ts::label", "src/index.ts::formatPrice", "@acme.shared.formatPrice"),
                    ("src/cart.ts::label", "lib/text.js::slug", "@acme.shared.lib.text.slug")}),
    (CORELIB, BILLING, {("main.go::Invoice", "pricing/total.go::Total", "example.com.corelib.pricing.Total")}),
    (JLIB, JAPP, {("src/main/java/com/shop/Checkout.java::Checkout.pay",
                   "src/main/java/com/acme/lib/Pricing.java::Pricing.total", "com.acme.lib.Pricing.total")}),
    (KLIB, KAPP, {("src/main/kotlin/com/shop/Checkout.kt::Checkout.pay", "src/main/kotlin/com/acme/klib/Tax.kt::rate",
                   "com.acme.klib.rate"),
                  ("src/main/kotlin/com/shop/Checkout.kt::Checkout.pay",
                   "src/main/kotlin/com/acme/klib/Tax.kt::Tax.apply", "com.acme.klib.Tax.apply")}),
], ids=["npm", "go-module", "java-package", "kotlin-package"])
def test_imports_of_another_projects_package_link_in_every_language(tmp_path, used_files, user_files, expected):
    used, user = index(tmp_path / "used", used_files), index(tmp_path / "user", user_files)
    found = Project(user).federation.links_to(Project(used))
    assert expected <= {(l.user, l.used, l.via) for l in found}
    assert all(l.kind == "imports" and l.resolution == "import" and l.confidence == 1.0 for l in found)
    assert all(l.user.startswith(tuple(user_files)) and l.used.startswith(tuple(used_files)) for l in found)
    mine, theirs = next(iter(sorted(expected)))[:2]
    assert ("user", mine) in {(k, l.user) for k, l in Project(used).federation.dependents([theirs], {"user": Project(user)})}


def test_a_team_server_links_an_npm_package_to_its_user(team_server, tmp_path):
    shared, shop = index(tmp_path / "shared", SHARED), index(tmp_path / "shop", SHOP)
    base, _, _ = team_server(None, f"--project=shared={shared}", f"--project=shop={shop}")
    impact = text_of(call(base, "global-token", "get_impact", {"symbol": "formatPrice", "project": "shared",
                                                                 "projects": ["shop"]}))
    assert "[shop] src/cart.ts::label uses src/index.ts::formatPrice: imports @acme.shared.formatPrice (import 1.00)" \
        in impact
    context = call(base, "global-token", "get_context", {"entity": "label", "project": "shop", "projects": ["shared"],
                                                           "format": "json"}).structured_content
    assert context["federated"][0]["project"] == "shared"
    assert {i["id"] for i in context["federated"][0]["items"]} & {"src/index.ts::formatPrice", "lib/text.js::slug"}


def test_a_federated_answer_stays_within_its_budget(team_server, http_projects):
    """The linked projects' part shares what the home answer left, the project headings and each
    linked answer's note included: the whole answer within token_budget, in both formats."""
    base, _, _ = team_server(None, *(f"--project={key}={path}" for key, path in http_projects.items()))
    over, shown = [], {}
    for budget in (100, 150, 250, 400, 700):
        for fmt in ("compact", "json"):
            answer = call(base, "global-token", "get_context", {"entity": "fetch_user", "project": "client",
                                                                  "projects": ["api", "web"], "token_budget": budget,
                                                                  "format": fmt})
            assert not answer.is_error, text_of(answer)
            whole = text_of(answer) if fmt == "compact" else json.dumps(answer.structured_content, separators=(",", ":"))
            over += [(budget, fmt, count(whole))] if count(whole) > budget else []
            if fmt == "compact":
                shown[budget] = ("# project api (linked; " in whole, "did not fit in the budget" in whole)
    assert over == []
    # 250: the home answer leaves too little for a linked one, and says so; from 400 on it is there
    assert (shown[250], shown[400], shown[700]) == ((False, True), (True, False), (True, False))


def test_a_federated_impact_stays_within_its_budget(team_server, http_projects):
    """get_impact's cross-project dependents come after the home answer's share of the budget: as many
    as fit, the rest counted."""
    base, _, _ = team_server(None, *(f"--project={key}={path}" for key, path in http_projects.items()))
    seen = {}
    for budget in (150, 200, 300, 600):
        for fmt in ("compact", "json"):
            answer = call(base, "global-token", "get_impact", {"symbol": "get_user", "project": "api",
                                                                 "projects": ["client", "web"], "token_budget": budget,
                                                                 "format": fmt})
            assert not answer.is_error, text_of(answer)
            data = answer.structured_content
            whole = text_of(answer) if fmt == "compact" else json.dumps(data, separators=(",", ":"))
            assert count(whole) <= budget, (budget, fmt, count(whole))
            if fmt == "json":
                seen[budget] = (len(data["cross_project"]), data.get("cross_project_omitted", 0))
    assert seen[600] == (2, 0) and all(sum(pair) == 2 for pair in seen.values())
