"""The code embedding: the shipped file loads and scores deterministically, a tiny model trained here
ranks a planted answer first, index runs keep the entity vectors current, and semantic search and
the blend's similarity serve from the CLI and over MCP, answers staying within budget."""

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
from graphctx.index.indexer import index_repository
from graphctx.semantic import model as embedding, vectors
from graphctx.server import build_server
from test_cli import graphctx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks" / "retrieval" / "learned"))

PROJECT = {
    "shop/mail.py": '''import smtplib


def send_receipt(address, order):
    """Mail the customer a receipt for their order."""
    server = smtplib.SMTP("localhost")
    server.sendmail("shop@example.com", [address], f"Thanks for order {order.number}")
    server.quit()
''',
    "shop/images.py": '''from PIL import Image


def make_thumbnail(path, width=128):
    """Shrink a product photo to a small square picture."""
    picture = Image.open(path)
    picture.thumbnail((width, width))
    picture.save(path + ".thumb.png")
''',
    "shop/config.py": '''import yaml


class Settings:
    """The shop's settings read from a YAML file."""

    def __init__(self, path):
        with open(path) as handle:
            self.values = yaml.safe_load(handle)

    def get(self, key, default=None):
        return self.values.get(key, default)
''',
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = write_tree(tmp_path_factory.mktemp("semantic") / "repo", PROJECT)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    index_repository(root)
    return root


def stored(root: Path) -> dict[str, tuple[str, list[str]]]:
    """path -> (content hash, embedded ids) of each stored row; its ids are those of the index's
    current entities when the row's digest of them matches."""
    with sqlite3.connect(root / ".graphctx" / "index.db") as conn:
        ids_of: dict[str, list[str]] = {}
        for path, entity_id in vectors.table.entity_ids(conn, vectors.KINDS):
            ids_of.setdefault(path, []).append(entity_id)
        rows = {}
        for path, digest, _, ids, _ in vectors.table.stored_rows(conn):
            assert ids == vectors.ids_digest(ids_of.get(path, []))
            rows[path] = (digest, ids_of.get(path, []))
        return rows


# ---- the model file

def test_the_shipped_model_loads_and_scores_deterministically():
    model = embedding.shipped()
    assert model.table.shape == (model.meta["settings"]["buckets"], model.dim) and model.meta["trained_on"]
    assert len(model.field_weights) == len(embedding.FIELDS)
    texts = ["the receipt email is never sent", "thumbnails come out blurry"]
    first, second = model.encode_texts(texts), embedding.shipped().encode_texts(list(texts))
    assert np.array_equal(first, second)
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    rows = [("send receipt shop mail", "def send_receipt(address, order)", "Mail the customer a receipt.",
             "server.sendmail(address)")]
    assert np.array_equal(model.encode_entities(rows), model.encode_entities(list(rows)))
    assert not model.encode_texts(["!!! ??"]).any()  # no word the model reads: no direction


def test_a_file_that_is_not_an_embedding_is_refused(tmp_path):
    path = tmp_path / "other.npz"
    np.savez(path, format=np.array("something-else"), version=np.array(1))
    with pytest.raises(embedding.EmbeddingError, match="not a graphctx-embedding file"):
        embedding.load(path)
    path.write_bytes(b"not a zip file")
    with pytest.raises(embedding.EmbeddingError, match="cannot read the embedding file"):
        embedding.load(path)


class TinyCorpus:
    """What the trainer reads of a corpus part (embedding.py's Corpus): entity texts, queries, labels."""


def test_a_tiny_training_run_ranks_the_planted_answer_first(tmp_path):
    from embedding import Trainer  # benchmarks/retrieval/learned/embedding.py

    # Messages share no word with the function they are about: only training can join them.
    topics = {
        "crash when the inbox address is empty": ("smtp sendmail recipient", "deliver mail"),
        "pictures look blurry on phones": ("pil thumbnail resample", "shrink photo"),
        "prices rounded wrong in euros": ("decimal quantize currency", "format money"),
        "login fails after password reset": ("bcrypt verify hash", "check credentials"),
        "report totals are off by a day": ("timezone utc offset", "day bucket"),
        "upload hangs on big files": ("chunk stream multipart", "send parts"),
    }
    entity_rows = [[name, "", "", body] for body, name in topics.values()]
    messages = list(topics)
    corpus = TinyCorpus()
    corpus.entity_rows = entity_rows
    corpus.entity_tokens = [[embedding.tokens(t) for t in row] for row in entity_rows]
    corpus.query_tokens = [embedding.tokens(m) for m in messages]
    corpus.instances = [{"refs": list(range(len(messages))), "labels": [int(i == q) for i in range(len(messages))]}
                        for q in range(len(messages))]
    trainer = Trainer(buckets=1 << 10, dim=16, seed=5, rate=0.05, temperature=0.1, negatives=10, batch=6)
    examples = trainer.examples([corpus])
    for _ in range(40):
        trainer.epoch(examples)
    path = tmp_path / "tiny.npz"
    embedding.save(path, trainer.table, trainer.field_weights, {"test": True})
    model = embedding.load(path)
    scores = model.encode_texts(messages) @ model.encode_entities(entity_rows).T
    assert [int(i) for i in scores.argmax(axis=1)] == list(range(len(messages)))


# ---- vectors in the index

def test_an_index_run_stores_each_files_vectors(repo):
    rows = stored(repo)
    assert set(rows) >= set(PROJECT)
    assert rows["shop/config.py"][1] == ["shop/config.py::Settings", "shop/config.py::Settings.__init__",
                                         "shop/config.py::Settings.get"]
    with sqlite3.connect(repo / ".graphctx" / "index.db") as conn:
        found = vectors.read(conn, embedding.shipped())
    assert len(found.ids) == 5 and np.allclose(np.linalg.norm(found.matrix, axis=1), 1.0, atol=1e-2)


def test_an_edit_embeds_the_changed_file_alone(tmp_path):
    root = write_tree(tmp_path / "repo", PROJECT)
    index_repository(root)
    before = stored(root)
    (root / "shop" / "mail.py").write_text(PROJECT["shop/mail.py"] + "\n\ndef send_refund(address):\n    pass\n")
    index_repository(root)
    after = stored(root)
    assert after["shop/mail.py"][0] != before["shop/mail.py"][0]
    assert after["shop/mail.py"][1] == ["shop/mail.py::send_receipt", "shop/mail.py::send_refund"]
    assert {p: after[p] for p in after if p != "shop/mail.py"} == {p: before[p] for p in before if p != "shop/mail.py"}
    (root / "shop" / "images.py").unlink()
    index_repository(root)
    assert "shop/images.py" not in stored(root)


def test_stored_vectors_are_close_to_computed_ones_and_checked_against_the_entities(tmp_path):
    root = write_tree(tmp_path / "repo", PROJECT)
    index_repository(root)
    model = embedding.shipped()
    with sqlite3.connect(root / ".graphctx" / "index.db") as conn:
        from_rows = vectors.read(conn, model)
        made_by_the_parsers = sorted(vectors.table.stored_rows(conn))
        conn.execute("DELETE FROM entity_vector_rows")
        computed = vectors.read(conn, model)
        assert from_rows.ids == computed.ids
        assert np.abs(from_rows.matrix - computed.matrix).max() <= np.abs(computed.matrix).max() / 200
        assert vectors.refresh(conn, model) == len(PROJECT)
        assert sorted(vectors.table.stored_rows(conn)) == made_by_the_parsers  # the same rows, from the index
        # A row whose ids are not the entities' (an index written by another version) is not trusted.
        conn.execute("UPDATE entity_vector_rows SET ids = ?, vectors = ? WHERE path = 'shop/config.py'",
                     (vectors.ids_digest(["other"]), vectors.pack(np.ones((1, model.dim), dtype=np.float32))))
        conn.commit()
        config = [i for i, entity_id in enumerate(from_rows.ids) if entity_id.startswith("shop/config.py::")]
        assert config == [0, 1, 2]  # computed again, exactly; the other rows read back
        assert np.array_equal(vectors.read(conn, model).matrix, np.vstack([computed.matrix[:3], from_rows.matrix[3:]]))


def test_the_float16_table_of_earlier_versions_is_dropped(tmp_path):
    root = write_tree(tmp_path / "repo", PROJECT)
    index_repository(root)
    with sqlite3.connect(root / ".graphctx" / "index.db") as conn:
        conn.execute("CREATE TABLE entity_vectors (path TEXT PRIMARY KEY, hash, model, ids, vectors)")
    (root / "shop" / "mail.py").write_text(PROJECT["shop/mail.py"] + "\n\ndef send_refund(address):\n    pass\n")
    index_repository(root)
    with sqlite3.connect(root / ".graphctx" / "index.db") as conn:
        assert not conn.execute("SELECT name FROM sqlite_schema WHERE name = 'entity_vectors'").fetchall()


def test_an_index_without_vectors_still_answers(tmp_path):
    root = write_tree(tmp_path / "repo", PROJECT)
    index_repository(root)
    with sqlite3.connect(root / ".graphctx" / "index.db") as conn:
        conn.execute("DROP TABLE entity_vector_rows")
    hits = Project(root, find=False).search("resize a photo into a small picture", mode="semantic", limit=2).hits
    assert hits and hits[0].id == "shop/images.py::make_thumbnail"


# ---- semantic search and the blend

def test_semantic_search_finds_code_by_what_it_does(repo):
    project = Project(repo, find=False)
    hits = project.search("shrink a photo to a thumbnail picture", mode="semantic", limit=3).hits
    assert hits[0].id == "shop/images.py::make_thumbnail" and hits[0].match == "semantic"
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    classes = project.search("settings from a yaml file", mode="semantic", kind="class").hits
    assert [h.id for h in classes] == ["shop/config.py::Settings"]


def test_the_search_command_in_semantic_mode(repo):
    out = graphctx("search", "mail the customer a receipt", "--mode", "semantic", "--limit", "2", cwd=repo).stdout
    assert "semantic" in out and "shop/mail.py::send_receipt" in out.splitlines()[0]
    bad = graphctx("search", "anything", "--mode", "semantic", "--kind", "file", cwd=repo, check=False)
    assert bad.returncode == 2 and "semantic search finds" in bad.stderr and "search by name" in bad.stderr
    nothing = graphctx("search", "?? !!", "--mode", "semantic", cwd=repo, check=False)
    assert nothing.returncode == 1
    unknown = graphctx("search", "x", "--mode", "meaning", cwd=repo, check=False)
    assert unknown.returncode == 2 and "semantic" in unknown.stderr


def test_the_search_tool_in_semantic_mode(repo):
    server = build_server(repo, watch=False)

    async def go():
        async with Client(server) as client:
            return await client.call_tool("search", {"query": "shrink a product photo", "mode": "semantic",
                                                     "limit": 2, "format": "json"})

    try:
        result = anyio.run(go)
    finally:
        server.graphctx_state.fresh.stop()
    hits = result.structured_content["hits"]
    assert hits[0]["id"] == "shop/images.py::make_thumbnail" and hits[0]["match"] == "semantic"


def test_answers_with_the_similarity_stay_within_budget(repo):
    project = Project(repo, find=False)
    semantic = Project.policy("debug", ["blend.semantic=1.0"])
    text = "the receipt mail never arrives at the customer's address"
    for budget in (200, 600):
        answer, rendered = project.intent("debug", text, token_budget=budget, format="json", policy=semantic)
        assert answer.tokens_used <= budget and Project.count_tokens(rendered) <= budget
    ranked = project.rank_text(text, policy=semantic)
    assert ranked[0][0] == "shop/mail.py::send_receipt"


def test_the_learned_rankers_semantic_feature(repo):
    from graphctx.context.features import INDEX

    project = Project(repo, find=False)
    ids, matrix = project.rank_text_features("the receipt mail never arrives at the customer's address")
    column = dict(zip(ids, matrix[:, INDEX["semantic"]]))
    assert column["shop/mail.py::send_receipt"] > 0
    assert column["shop/mail.py::send_receipt"] == max(column.values())
    assert all(value == 0 for entity, value in column.items() if "::" not in entity or entity.endswith("::Settings"))
