"""graphctx as users get it: the built wheel installed into a fresh virtual environment outside the
checkout, driven through its console script from a folder that is not the checkout; `uvx`, `uv tool
install` and `pipx install` from the checkout; and a real MCP host (the Claude Code CLI) listing the
installed server as connected.

`.ci/run` builds and installs the wheel once and names the script in GRAPHCTX_INSTALLED; without it
these tests build and install their own (about half a minute, packages from the index)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from conftest import write_tree

CHECKOUT = Path(__file__).resolve().parents[1]

POLYGLOT = {
    "shop/__init__.py": "",
    "shop/service.py": (
        "from shop.store import save\n\n\n"
        "def create_item(name):\n"
        "    \"\"\"Create and store an item.\"\"\"\n"
        "    return save(validate(name))\n\n\n"
        "def validate(name):\n"
        "    return name.strip()\n"
    ),
    "shop/store.py": "def save(item):\n    \"\"\"Write an item.\"\"\"\n    return item\n",
    "web/app.js": (
        "import { render } from './view.js';\n\n"
        "export function main() {\n  return render('home');\n}\n"
    ),
    "web/view.js": "export function render(page) {\n  return `<h1>${page}</h1>`;\n}\n",
    "cmd/main.go": "package main\n\nfunc main() {\n\tgreet()\n}\n\nfunc greet() {}\n",
}


def clean_env(**extra: str) -> dict[str, str]:
    """The environment of a user's shell: no PYTHONPATH or virtual environment of the test run leaks in."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if not p.startswith(str(Path(sys.prefix))))
    return {**env, **extra}


def build_dist(out: Path) -> Path:
    """Build the sdist, then the wheel from the sdist (as `python -m build` does), into out."""
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(CHECKOUT)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


@pytest.fixture(scope="session")
def dist(tmp_path_factory) -> Path:
    """A folder holding the built sdist and wheel."""
    given = os.environ.get("GRAPHCTX_DIST")
    return Path(given) if given else build_dist(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="session")
def installed(tmp_path_factory, dist) -> Path:
    """The `graphctx` console script of the wheel installed into a fresh virtual environment."""
    given = os.environ.get("GRAPHCTX_INSTALLED")
    if given:
        return Path(given)
    venv = tmp_path_factory.mktemp("user") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    wheel = next(dist.glob("graphctx-*.whl"))
    done = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(wheel)], capture_output=True, text=True,
                          env=clean_env(), cwd=venv)
    assert done.returncode == 0, done.stderr[-3000:]
    return venv / "bin" / "graphctx"


@pytest.fixture
def project(tmp_path) -> Path:
    root = write_tree(tmp_path / "polyglot", POLYGLOT)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def graphctx(script: Path, *args: str, cwd: Path) -> str:
    done = subprocess.run([str(script), *args], capture_output=True, text=True, cwd=cwd, env=clean_env(), timeout=300)
    assert done.returncode == 0, f"graphctx {' '.join(args)} -> {done.returncode}\n{done.stdout}\n{done.stderr}"
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout


# ---- the distributions

def test_the_wheel_carries_the_queries_and_no_checkout_paths(dist):
    wheel = next(dist.glob("graphctx-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for language in ("python", "javascript", "typescript", "go", "rust", "java"):
        assert f"graphctx/grammars/{language}.scm" in names
    assert "graphctx/grammars/__init__.py" in names
    modules = {str(p.relative_to(CHECKOUT)) for p in (CHECKOUT / "graphctx").rglob("*.py")}
    assert modules <= set(names), f"modules missing from the wheel: {sorted(modules - set(names))}"
    assert {"graphctx/export/assets/cytoscape.min.js", "graphctx/export/assets/cytoscape.LICENSE"} <= set(names)
    assert not any(n.startswith(("tests/", "benchmarks/", "grammars/")) for n in names)
    assert next(dist.glob("graphctx-*.tar.gz")).exists()  # the wheel was built from it


def test_the_installed_package_lives_outside_the_checkout(installed, tmp_path):
    python = installed.with_name("python")
    probe = "import graphctx, sys, json; print(json.dumps([graphctx.__file__, sys.path]))"
    done = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, cwd=tmp_path, env=clean_env())
    module_file, path = json.loads(done.stdout)
    assert not Path(module_file).resolve().is_relative_to(CHECKOUT)
    assert not any(p and Path(p).resolve().is_relative_to(CHECKOUT) for p in path), path


def test_the_installed_script_says_its_version(installed, tmp_path):
    declared = tomllib.loads((CHECKOUT / "pyproject.toml").read_text())["project"]["version"]
    assert graphctx(installed, "--version", cwd=tmp_path) == f"graphctx {declared}\n"


# ---- the main job, end to end, with the installed console script

def test_smoke_index_and_answer(installed, project, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    summary = graphctx(installed, "index", str(project), cwd=elsewhere)
    assert f"indexed {project.resolve()}: 6 files" in summary
    stats = json.loads(graphctx(installed, "stats", "--json", "--repo", str(project), cwd=elsewhere))
    assert stats["languages"].keys() >= {"python", "javascript", "go"}

    context = graphctx(installed, "context", "create_item", "--budget", "1500", cwd=project)
    assert "return save(validate(name))" in context and "def save(item)" in context

    intent = graphctx(installed, "intent", "debug", "validate strips the item name wrongly", "--budget", "1500", cwd=project)
    assert "def validate(name)" in intent

    path = graphctx(installed, "path", "create_item", "save", cwd=project)
    assert "create_item" in path and "shop/store.py::save" in path

    js = graphctx(installed, "context", "main", "--file", "web/app.js", "--budget", "800", cwd=project)
    assert "web/view.js::render" in js


def test_smoke_mcp_over_stdio(installed, project, tmp_path):
    graphctx(installed, "index", str(project), cwd=tmp_path)
    params = StdioServerParameters(command=str(installed), args=["serve", "--repo", str(project)], cwd=str(tmp_path),
                                   env=clean_env())

    async def session():
        async with Client(params, mode="legacy") as client:  # legacy: the initialize handshake, as hosts do
            tools = await client.list_tools()
            answer = await client.call_tool("get_context", {"entity": "create_item", "token_budget": 1000})
            return tools, answer

    tools, answer = anyio.run(session)
    assert {"get_context", "search", "session_init"} <= {t.name for t in tools.tools}
    assert not answer.is_error
    assert "return save(validate(name))" in answer.content[0].text


# ---- the other ways users install it

def tool(name: str) -> str:
    found = shutil.which(name, path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    if found is None:
        pytest.skip(f"{name} is not installed (pip install '.[test]' brings it)")
    return found


def test_uvx_from_the_checkout(project, tmp_path):
    uvx = tool("uvx")
    done = subprocess.run([uvx, "--from", str(CHECKOUT), "graphctx", "index", str(project)], capture_output=True,
                          text=True, cwd=tmp_path, env=clean_env(), timeout=600)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert "indexed" in done.stdout


def test_uv_tool_install_and_pipx_install(project, tmp_path):
    uv, pipx = tool("uv"), tool("pipx")
    env = clean_env(UV_TOOL_DIR=str(tmp_path / "uv-tools"), UV_TOOL_BIN_DIR=str(tmp_path / "uv-bin"),
                    PIPX_HOME=str(tmp_path / "pipx"), PIPX_BIN_DIR=str(tmp_path / "pipx-bin"))
    for install, script in (([uv, "tool", "install", str(CHECKOUT)], tmp_path / "uv-bin" / "graphctx"),
                            ([pipx, "install", str(CHECKOUT)], tmp_path / "pipx-bin" / "graphctx")):
        done = subprocess.run(install, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        graphctx(script, "index", "--full", str(project), cwd=tmp_path)
        assert "def save(item)" in graphctx(script, "context", "save", "--repo", str(project), cwd=tmp_path)


def test_the_embeddings_extra_serves_a_configured_model(dist, project, tmp_path):
    """`graphctx[embeddings]` from the wheel: a model2vec model configured, indexed with and searched by."""
    from test_configured_models import tiny_model

    uv = tool("uv")
    venv = tmp_path / "venv"
    subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(venv)], check=True, env=clean_env(), cwd=tmp_path)
    wheel = next(dist.glob("graphctx-*.whl"))
    done = subprocess.run([uv, "pip", "install", "-q", "--python", str(venv / "bin" / "python"), f"{wheel}[embeddings]"],
                          capture_output=True, text=True, cwd=tmp_path, env=clean_env(), timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (project / "lab.py").write_text("def frobnicate_widget(widget):\n    return widget[::-1]\n")
    (project / ".graphctx").mkdir(exist_ok=True)
    (project / ".graphctx" / "config.toml").write_text(f'[index]\nembedding_model = "{tiny_model(tmp_path / "tiny")}"\n')
    script = venv / "bin" / "graphctx"
    graphctx(script, "index", str(project), cwd=tmp_path)
    found = graphctx(script, "search", "teleport", "--mode", "semantic", "--limit", "1", cwd=project)
    assert "lab.py::frobnicate_widget" in found


# ---- a real MCP host: the Claude Code CLI

def claude_cli() -> str:
    given = os.environ.get("GRAPHCTX_CLAUDE_CLI")
    if given:  # (.ci/run names it whether or not npm could install it: it says its tests are then skipped)
        if Path(given).exists():
            return given
        pytest.skip(f"GRAPHCTX_CLAUDE_CLI names {given}, which does not exist: `bash .ci/install-node-tools.sh` puts it there (needs npm)")
    for candidate in (CHECKOUT / ".ci" / ".node" / "node_modules" / ".bin" / "claude", shutil.which("claude")):
        if candidate and Path(candidate).exists():
            return str(candidate)
    pytest.skip("the Claude Code CLI is not installed: `bash .ci/install-node-tools.sh` puts it in .ci/.node (needs npm)")


def test_claude_code_lists_graphctx_as_connected(installed, dist, project, tmp_path):
    cli = claude_cli()
    uvx = tool("uvx")
    graphctx(installed, "index", str(project), cwd=tmp_path)
    # A private HOME so the registrations touch no real configuration; uv keeps its usual cache.
    env = clean_env(HOME=str(tmp_path / "home"), UV_CACHE_DIR=os.environ.get("UV_CACHE_DIR")
                    or str(Path.home() / ".cache" / "uv"))
    env["PATH"] = os.pathsep.join([str(Path(uvx).parent), env["PATH"]])

    def claude(*args: str) -> str:
        done = subprocess.run([cli, *args], capture_output=True, text=True, cwd=project, env=env, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout + done.stderr

    # The README's registrations: the installed script, a checkout through uvx, and the package name
    # through uvx (here the name resolves from the built wheel, standing in for the package index).
    claude("mcp", "add", "gc-script", "--", str(installed), "serve", "--repo", str(project))
    claude("mcp", "add", "gc-checkout", "--", "uvx", "--from", str(CHECKOUT), "graphctx", "serve", "--repo", str(project))
    claude("mcp", "add", "gc-name", "-e", f"UV_FIND_LINKS={dist}", "--", "uvx", "graphctx", "serve", "--repo", str(project))
    # uvx builds each environment on its first start; built here first (from this checkout and this
    # wheel, not what uv's cache kept of earlier ones), so that on a busy machine the host's connection
    # check times the server's start, not the environment's creation.
    for first_start in (["--from", str(CHECKOUT), "graphctx"], ["graphctx"]):
        done = subprocess.run([uvx, "--refresh-package", "graphctx", *first_start, "--version"], capture_output=True, text=True, cwd=project,
                              env={**env, "UV_FIND_LINKS": str(dist)}, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
    env["MCP_TIMEOUT"] = "60000"  # the host's start-up wait, in ms (its default is made for idle machines)
    listed = claude("mcp", "list")
    for name in ("gc-script", "gc-checkout", "gc-name"):
        line = next((l for l in listed.splitlines() if l.startswith(f"{name}:")), "")
        assert "Connected" in line and "Failed" not in line, listed
