"""What `.graphctx/config.toml` chooses beyond indexing: a model2vec model in place of the shipped
embedding (`[index] embedding_model`), used by every index run and every query of that index, and
ranking settings (`[ranking]`) every answer of the repository ranks by; both from the library, the
CLI and over MCP, with clear errors for what cannot be used."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import anyio
import numpy as np
import pytest
from mcp import Client

from conftest import write_tree
from graphctx import Project
from graphctx.configfile import ConfigError
from graphctx.index.indexer import index_repository
from graphctx.semantic import local, model as embedding
from graphctx.server import build_server
from test_cli import graphctx

pytest.importorskip("model2vec", reason="the optional embeddings extra: pip install 'graphctx[embeddings]'")

PROJECT = {
    "lab/machines.py": '''def frobnicate_widget(widget):
    """Turn the widget inside out."""
    return widget[::-1]


def count_bolts(box):
    return len(box)
''',
    "lab/mail.py": '''def send_receipt(address, order):
    """Mail the customer a receipt."""
    return f"{address}: {order}"
''',
}
# The tiny model's words: "teleport" means what "frobnicate" means, every other word is its own.
SYNONYMS = {"teleport": "frobnicate"}
WORDS = ["frobnicate", "widget", "count", "bolts", "box", "send", "receipt", "mail", "customer", "address",
         "order", "lab", "machines", "inside", "out", "turn"]


def tiny_model(folder: Path) -> Path:
    """A real model2vec model folder: a word-level tokenizer over WORDS and SYNONYMS, each word its
    own axis, a synonym on its word's axis."""
    from model2vec import StaticModel
    from tokenizers import Tokenizer, normalizers
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import Whitespace

    tokens = ["[UNK]", *WORDS, *SYNONYMS]
    tokenizer = Tokenizer(WordLevel({token: i for i, token in enumerate(tokens)}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = Whitespace()
    vectors = np.zeros((len(tokens), len(tokens)), dtype=np.float32)
    for i, token in enumerate(tokens[1:], 1):
        vectors[i, tokens.index(SYNONYMS.get(token, token))] = 1.0
    StaticModel(vectors, tokenizer, normalize=True).save_pretrained(str(folder))
    return folder


def configure(root: Path, text: str) -> None:
    (root / ".graphctx").mkdir(exist_ok=True)
    (root / ".graphctx" / "config.toml").write_text(text)


def stored_models(root: Path) -> dict[str, str]:
    with sqlite3.connect(root / ".graphctx" / "index.db") as conn:
        return dict(conn.execute("SELECT path, model FROM entity_vector_rows"))


def recorded_model(root: Path) -> str | None:
    with sqlite3.connect(root / ".graphctx" / "index.db") as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (local.EMBEDDING_META,)).fetchone()
    return row[0] if row else None


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory) -> Path:
    return tiny_model(tmp_path_factory.mktemp("model") / "tiny")


@pytest.fixture()
def repo(tmp_path, model_dir) -> Path:
    root = write_tree(tmp_path / "repo", PROJECT)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    configure(root, f'[index]\nembedding_model = "{model_dir}"\n')
    return root


# ---- [index] embedding_model

def test_a_configured_model_embeds_the_index_and_answers_semantic_search(repo, model_dir):
    index_repository(repo, workers=1)
    digest = local.chosen(str(model_dir)).digest
    assert digest.startswith("m2v-") and recorded_model(repo) == str(model_dir)
    assert set(stored_models(repo).values()) == {digest}
    hits = Project(repo, find=False).search("teleport", mode="semantic", limit=3).hits
    # The shipped embedding does not know the two words mean one thing; the configured model does.
    assert hits[0].id == "lab/machines.py::frobnicate_widget" and hits[0].score > 0.1
    assert all(h.score < 0.05 for h in hits[1:])


def test_a_folder_relative_to_the_root_is_recorded_as_its_absolute_path(repo, model_dir):
    (repo / "models").mkdir()
    (repo / "models" / "tiny").symlink_to(model_dir, target_is_directory=True)
    configure(repo, '[index]\nembedding_model = "models/tiny"\n')
    index_repository(repo, workers=1)
    assert recorded_model(repo) == str(model_dir.resolve())


def test_switching_models_reembeds_the_vectors_without_parsing_again(repo, model_dir):
    index_repository(repo, workers=1)
    configure(repo, "")
    result = index_repository(repo, workers=1)
    assert result.parsed == 0 and recorded_model(repo) == ""
    assert set(stored_models(repo).values()) == {embedding.shipped().digest}
    configure(repo, f'[index]\nembedding_model = "{model_dir}"\n')
    assert index_repository(repo, workers=1).parsed == 0
    assert set(stored_models(repo).values()) == {local.chosen(str(model_dir)).digest}
    assert index_repository(repo, workers=1).parsed == 0  # and a run after that is a no-op again


def test_an_edit_is_embedded_by_the_configured_model(repo, model_dir):
    index_repository(repo, workers=1)
    (repo / "lab" / "more.py").write_text("def teleport_box(box):\n    return box\n")
    index_repository(repo, workers=1)
    assert stored_models(repo)["lab/more.py"] == local.chosen(str(model_dir)).digest
    hits = Project(repo, find=False).search("frobnicate", mode="semantic", limit=2).hits
    assert {h.id for h in hits} == {"lab/machines.py::frobnicate_widget", "lab/more.py::teleport_box"}


def test_a_model_that_cannot_load_stops_the_run_and_keeps_the_index(repo, tmp_path):
    index_repository(repo, workers=1)
    before = stored_models(repo)
    (repo / "lab" / "new.py").write_text("def other():\n    return 1\n")
    configure(repo, f'[index]\nembedding_model = "{tmp_path / "missing"}"\n')
    with pytest.raises(local.ModelUnavailable, match="does not exist"):
        index_repository(repo, workers=1)
    out = graphctx("index", cwd=repo, check=False)
    assert out.returncode == 2 and "embedding_model" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert stored_models(repo) == before  # nothing of the stopped run was written
    assert Project(repo, find=False).search("teleport", mode="semantic", limit=1).hits[0].id == \
        "lab/machines.py::frobnicate_widget"  # the index still answers, with the model that made it


def test_an_index_whose_model_is_gone_says_so_when_asked(repo, tmp_path, model_dir):
    moved = tiny_model(tmp_path / "moved")
    configure(repo, f'[index]\nembedding_model = "{moved}"\n')
    index_repository(repo, workers=1)
    for file in moved.iterdir():
        file.unlink()
    moved.rmdir()
    local._load.cache_clear()
    out = graphctx("search", "teleport", "--mode", "semantic", cwd=repo, check=False)
    assert out.returncode == 2 and "does not exist" in out.stderr and "embedding_model" in out.stderr


def test_without_model2vec_the_error_names_the_install(repo, model_dir):
    script = ("import sys; sys.modules['model2vec'] = None\n"
              "from graphctx.semantic import local\n"
              f"try:\n    local.chosen({str(model_dir)!r})\n"
              "except local.ModelUnavailable as exc:\n    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert "pip install 'graphctx[embeddings]'" in out and "shipped embedding" in out


def test_the_cli_and_the_mcp_search_use_the_configured_model(repo):
    graphctx("index", cwd=repo)
    out = graphctx("search", "teleport", "--mode", "semantic", "--limit", "2", cwd=repo).stdout
    assert "lab/machines.py::frobnicate_widget" in out.splitlines()[0]
    server = build_server(repo, watch=False)

    async def go():
        async with Client(server) as client:
            return await client.call_tool("search", {"query": "teleport", "mode": "semantic", "limit": 1,
                                                     "format": "json"})

    try:
        result = anyio.run(go)
    finally:
        server.graphctx_state.fresh.stop()
    assert result.structured_content["hits"][0]["id"] == "lab/machines.py::frobnicate_widget"


def test_the_blend_ranks_by_the_configured_model(repo):
    configure(repo, f'{(repo / ".graphctx" / "config.toml").read_text()}\n[ranking]\nblend.semantic = 2.0\n')
    index_repository(repo, workers=1)
    answer, _ = Project(repo, find=False).intent("debug", "the teleport of a widget fails", token_budget=600)
    assert answer.items[0].id == "lab/machines.py::frobnicate_widget"


# ---- [ranking]

def test_ranking_settings_shape_every_answer(tmp_path):
    root = write_tree(tmp_path / "repo", PROJECT)
    index_repository(root, workers=1)
    text = "the receipt mail to the customer address is wrong"
    plain, _ = Project(root, find=False).intent("debug", text, token_budget=2000)
    assert any(item.detail == "full" for item in plain.items)
    configure(root, '[ranking.shape]\nothers = "summary"\nroot = "summary"\n')
    answer, rendered = Project(root, find=False).intent("debug", text, token_budget=2000)
    assert answer.items and all(item.detail != "full" for item in answer.items)
    out = graphctx("intent", "debug", text, cwd=root).stdout
    assert "send_receipt" in out and 'return f"{address}' not in out
    # a caller's own policy (a benchmark's) ranks as given
    own, _ = Project(root, find=False).intent("debug", text, token_budget=2000, policy=Project.policy("debug"))
    assert any(item.detail == "full" for item in own.items)


@pytest.mark.parametrize("text,expected", [
    ("[ranking]\nblend.semantc = 0.5\n", "did you mean blend.semantic"),
    ("[ranking]\nblend = 0.5\n", "names no setting"),
    ("[ranking]\nblend.learned = 3\n", "takes true or false"),
    ("[rankings]\nblend.semantic = 0.5\n", "did you mean [ranking]"),
])
def test_a_bad_ranking_setting_is_a_clear_error(tmp_path, text, expected):
    root = write_tree(tmp_path / "repo", PROJECT)
    index_repository(root, workers=1)
    configure(root, text)
    with pytest.raises(ConfigError, match="config.toml") as info:
        Project(root, find=False).intent("debug", "mail a receipt")
    assert expected in str(info.value)
    out = graphctx("intent", "debug", "mail a receipt", cwd=root, check=False)
    assert out.returncode == 2 and expected in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_a_bad_ranking_setting_over_mcp_is_a_tool_error(tmp_path):
    root = write_tree(tmp_path / "repo", PROJECT)
    index_repository(root, workers=1)
    configure(root, "[ranking]\nwalk.decy = 0.5\n")
    server = build_server(root, watch=False)

    async def go():
        async with Client(server) as client:
            return await client.call_tool("get_context", {"mode": "intent", "intent": "debug", "target": "mail a receipt"})

    try:
        result = anyio.run(go)
    finally:
        server.graphctx_state.fresh.stop()
    assert result.is_error and "did you mean walk.decay" in result.content[0].text
