"""A model2vec model of the user's choosing in place of the shipped embedding (`[index]
embedding_model` in .graphctx/config.toml: a model folder, or a model name in the local model
cache). Each index run embeds with the configured model and notes its name in the index
(`EMBEDDING_META`); every reader embeds a query with the model named there, so a query and the
vectors it is compared with always come from one model. model2vec is an optional dependency
(`pip install 'graphctx[embeddings]'`), imported only when a model is configured."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from graphctx.errors import GraphctxError
from graphctx.index import store

EMBEDDING_META = "embedding"  # the index's meta key: the model that made its vectors ("" for the shipped one)
MAX_CHARS = 4000  # of an entity's text given to the model: its tokenizer keeps the first 512 tokens anyway
INSTALL = "pip install 'graphctx[embeddings]'"


class ModelUnavailable(GraphctxError):
    """The configured model cannot be loaded here; the message says why and how to fix it."""


@dataclass(frozen=True)
class LocalModel:
    """A model2vec model with the shipped embedding's interface (graphctx.semantic.model.EmbeddingModel)."""

    name: str
    static: Any  # model2vec.StaticModel
    digest: str  # of its vectors: the index's rows made by another model are recomputed

    @property
    def dim(self) -> int:
        return int(self.static.dim)

    def encode_texts(self, texts: Sequence[str]):
        """Unit vectors, one row per text (a text with no token the model knows: zeros)."""
        import numpy as np

        from graphctx.semantic.model import unit

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self.static.encode([t[:MAX_CHARS] for t in texts], normalize=False, use_multiprocessing=False)
        return unit(np.asarray(vectors, dtype=np.float32).reshape(len(texts), self.dim))

    def encode_entities(self, rows: Sequence[Sequence[str]]):
        """Unit vectors of entities given as full-text rows (split names and path, signature, doc,
        body), each read as one text, its names first."""
        return self.encode_texts(["\n".join(field for field in row if field) for row in rows])


def model_name(root: Path, configured: str) -> str:
    """What the index records for `[index] embedding_model`: a folder (relative to the repository
    root, or with ~) as its absolute path, anything else as given (a model name); "" for none."""
    configured = configured.strip()
    if not configured:
        return ""
    for candidate in (Path(configured).expanduser(), root / configured):
        if candidate.is_absolute() and candidate.is_dir():
            return str(candidate.resolve())
    return configured


def chosen(name: str):
    """The model named (as model_name gives it); the shipped embedding for ""."""
    if not name:
        from graphctx.semantic.model import shipped

        return shipped()
    return _load(name)


def of_index(conn: sqlite3.Connection):
    """The model that made the index's vectors: the one a query must be embedded with."""
    return chosen(store.get_meta(conn, EMBEDDING_META, "") or "")


@lru_cache(maxsize=4)
def _load(name: str) -> LocalModel:
    try:
        from model2vec import StaticModel
    except ImportError:
        raise ModelUnavailable(f"the embedding model {name!r} needs model2vec, which is not installed: {INSTALL}, "
                               "or remove [index] embedding_model from .graphctx/config.toml (and index again) to "
                               "use the shipped embedding") from None
    if name.startswith(("/", "~", ".")) and not Path(name).expanduser().is_dir():
        raise ModelUnavailable(f"the embedding model folder {name} does not exist; set [index] embedding_model in "
                               ".graphctx/config.toml to a model2vec model's folder (absolute, or relative to the "
                               "repository root) or name, or remove it to use the shipped embedding")
    try:
        static = StaticModel.from_pretrained(name, force_download=False)
    except Exception as exc:  # (a missing folder, a name not in the cache with no network, a damaged file)
        raise ModelUnavailable(f"cannot load the model2vec model {name!r} ({type(exc).__name__}: {exc}); set [index] "
                               "embedding_model in .graphctx/config.toml to a model folder or to the name of a model "
                               "in the local model cache, or remove it to use the shipped embedding") from None
    import numpy as np

    vectors = np.ascontiguousarray(static.embedding)
    digest = hashlib.blake2b(vectors.tobytes(), digest_size=6)
    digest.update(repr((vectors.shape, str(vectors.dtype), len(static.tokens))).encode())
    return LocalModel(name, static, "m2v-" + digest.hexdigest())
