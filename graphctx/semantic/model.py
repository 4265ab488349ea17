"""The embedding model: one vector per hashed word, trained contrastively on (commit message,
modified function) pairs of public repositories (benchmarks/retrieval/learned/embedding.py). A text
or an entity is the weighted sum of its words' vectors, unit length; two are alike by their dot
product. Words are what full-text search uses (identifiers split at snake_case and CamelCase,
lowercased, stop words dropped), hashed into a fixed number of buckets, so any word of any
repository has a vector. The file ships inside the package (int8 with a scale per row, about 2 MB)
and is read with numpy alone."""

from __future__ import annotations

import hashlib
import re
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from itertools import chain, islice
from pathlib import Path

import numpy as np

from graphctx.text import STOP_WORDS, words

FORMAT = "graphctx-embedding"
FORMAT_VERSION = 1
SHIPPED = "embedding.npz"  # in graphctx/semantic/
FIELDS = ("words", "signature", "doc", "body")  # an entity's full-text row: split names and path, then the rest
MAX_TOKENS = 4000  # words read from one field: a generated table must not cost more than a function
_PART = re.compile(r"[A-Za-z0-9]+")  # what graphctx.text.words splits at


class EmbeddingError(Exception):
    """An embedding file that cannot be used: not one, another format version, or damaged."""


def tokens(text: str) -> list[str]:
    """The words of a text the embedding sees: split identifiers, lowercased, no stop words, no
    single letters or bare numbers (graphctx.text.words, one identifier at a time)."""
    return list(islice(chain.from_iterable(map(_part_words, _PART.findall(text))), MAX_TOKENS))


@lru_cache(maxsize=1 << 16)
def _part_words(part: str) -> tuple[str, ...]:
    # Code repeats its identifiers: splitting each once is most of an index run's embedding time.
    return tuple(w for w in words(part).split() if len(w) > 1 and not w.isdigit() and w not in STOP_WORDS)


@lru_cache(maxsize=1 << 17)
def bucket(token: str, buckets: int) -> int:
    """A word's row: crc32, the same on every machine and in every process (unlike hash())."""
    return zlib.crc32(token.encode("utf-8")) % buckets


@lru_cache(maxsize=1 << 12)
def _sqrt(n: int) -> float:
    # numpy's scalar functions cost a microsecond a call, and a build asks for the same few counts
    # millions of times: each is worked out once, as the same double.
    return float(np.sqrt(n))


@lru_cache(maxsize=1 << 12)
def _log1p(n: int) -> float:
    return float(np.log1p(n))


@dataclass(frozen=True)
class Bags:
    """Many texts as weighted bags of rows: entry i adds weights[i] x table[rows[i]] to text owners[i]."""

    rows: np.ndarray
    weights: np.ndarray
    owners: np.ndarray
    count: int


def bags(texts: Sequence[Sequence[list[str]]], buckets: int, field_weights: Sequence[float]) -> Bags:
    """Each text given as its fields' word lists (one list for a query; FIELDS for an entity). A
    word counts log(1 + n) for n uses, each field is scaled by 1/sqrt(its distinct words) so a long
    body does not drown the name, then by its field weight."""
    rows, weights, owners = [], [], []
    for owner, fields in enumerate(texts):
        for field_weight, field in zip(field_weights, fields):
            if not field or not field_weight:
                continue
            counts: dict[int, int] = {}  # (each distinct word hashed once, buckets in the order the words first come)
            count = counts.get  # (a plain dict: a Counter's += goes through __missing__, a Python call, per new bucket)
            for token, n in Counter(field).items():
                row = bucket(token, buckets)
                counts[row] = count(row, 0) + n
            scale = field_weight / _sqrt(len(counts))
            rows += counts
            weights += [scale * _log1p(n) for n in counts.values()]
            owners += [owner] * len(counts)
    return Bags(np.asarray(rows, dtype=np.int64), np.asarray(weights, dtype=np.float32),
                np.asarray(owners, dtype=np.int64), len(texts))


def pool(table: np.ndarray, b: Bags) -> np.ndarray:
    """The unnormalised sum of each text's weighted rows (count x dim)."""
    out = np.zeros((b.count, table.shape[1]), dtype=np.float32)
    if len(b.rows):  # entries come grouped by owner, in order: one reduceat sums each text's run
        starts = np.flatnonzero(np.r_[True, b.owners[1:] != b.owners[:-1]])
        out[b.owners[starts]] = np.add.reduceat(table[b.rows] * b.weights[:, None], starts, axis=0)
    return out


def unit(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


@dataclass(frozen=True)
class EmbeddingModel:
    table: np.ndarray  # buckets x dim, float32
    field_weights: tuple[float, ...]  # per entity field (FIELDS)
    meta: dict
    digest: str  # of the file's content: vectors of another model are recomputed

    @property
    def dim(self) -> int:
        return int(self.table.shape[1])

    def encode_texts(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors of free texts (queries), one row each (a text with no known word: zeros)."""
        return unit(pool(self.table, bags([[tokens(t)] for t in texts], len(self.table), (1.0,))))

    def encode_entities(self, rows: Sequence[Sequence[str]]) -> np.ndarray:
        """Unit vectors of entities given as full-text rows (words, signature, doc, body)."""
        fields = [[tokens(text) for text in row] for row in rows]
        return unit(pool(self.table, bags(fields, len(self.table), self.field_weights)))


def quantize(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 rows with one float32 scale each: a quarter of the size, cosines move by about 1 %."""
    scale = np.abs(table).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    return np.round(table / scale[:, None]).astype(np.int8), scale.astype(np.float32)


def save(path: Path, table: np.ndarray, field_weights: Sequence[float], meta: dict) -> None:
    """Write a model file (training only)."""
    import io
    import json

    values, scale = quantize(np.asarray(table, dtype=np.float32))
    buffer = io.BytesIO()
    np.savez_compressed(buffer, format=np.array(FORMAT), version=np.array(FORMAT_VERSION), table=values, scale=scale,
                        field_weights=np.asarray(field_weights, dtype=np.float32), meta=np.array(json.dumps(meta)))
    Path(path).write_bytes(buffer.getvalue())


def from_bytes(data: bytes) -> EmbeddingModel:
    import io
    import json

    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            if str(z["format"]) != FORMAT:
                raise EmbeddingError(f"not a {FORMAT} file")
            if int(z["version"]) != FORMAT_VERSION:
                raise EmbeddingError(f"embedding format version {int(z['version'])} is not {FORMAT_VERSION}; retrain "
                                     "it with benchmarks/retrieval/learned/embedding.py")
            table = z["table"].astype(np.float32) * z["scale"][:, None]
            field_weights = tuple(float(w) for w in z["field_weights"])
            meta = json.loads(str(z["meta"]))
    except (OSError, ValueError, KeyError) as exc:
        raise EmbeddingError(f"cannot read the embedding file: {exc}") from None
    if len(field_weights) != len(FIELDS):
        raise EmbeddingError(f"the embedding has {len(field_weights)} field weights, not {len(FIELDS)}")
    return EmbeddingModel(table, field_weights, meta, hashlib.blake2b(data, digest_size=6).hexdigest())


def load(path: Path) -> EmbeddingModel:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise EmbeddingError(f"cannot read the embedding file {path}: {exc.strerror or exc}") from None
    return from_bytes(data)


@lru_cache(maxsize=1)
def shipped() -> EmbeddingModel:
    """The model inside the package, read once per process."""
    return from_bytes(resources.files("graphctx.semantic").joinpath(SHIPPED).read_bytes())
