"""Entity vectors in the index: one row per file (its content hash, the model's digest, a digest of
the ids of its functions, methods and classes, their unit vectors as int8 with a scale each),
written by each index run for the files whose content or model changed, in the run's transaction.
The text embedded is the entity's full-text row (split names and path, signature, doc, own body),
read back from the index, so no file is read again. An index from before this table, or from
another model, still answers: what is missing or does not match is computed in memory when the
vectors are read."""

from __future__ import annotations

import hashlib
import sqlite3
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from graphctx.index.store import vectors as table
from graphctx.models import CLASS_KINDS, FUNCTION_KINDS
from graphctx.semantic.model import EmbeddingModel, quantize
from graphctx.text import words

KINDS = tuple(sorted(FUNCTION_KINDS | CLASS_KINDS))
CHUNK = 32  # files encoded together: one numpy pass each; their word rows (entries x dim floats) bound the peak memory


@dataclass(frozen=True)
class Vectors:
    """Every embedded entity of an index: ids in a fixed order (by path, then line) and their unit rows."""

    ids: list[str]
    matrix: np.ndarray  # len(ids) x dim, float32

    def similarity(self, query: np.ndarray) -> np.ndarray:
        return self.matrix @ query if len(self.ids) else np.zeros(0, dtype=np.float32)

    @cached_property
    def position(self) -> dict[str, int]:
        """Each id's row (made once per read of the vectors: a query looks up a few hundred ids)."""
        return {entity_id: row for row, entity_id in enumerate(self.ids)}


def refresh(conn: sqlite3.Connection, model: EmbeddingModel) -> int:
    """Bring the stored vectors up to date with the index's files; returns how many files were embedded."""
    table.ensure_table(conn)
    stale = table.stale(conn, model.digest)  # path -> content hash
    paths = sorted(stale)
    for start in range(0, len(paths), CHUNK):
        chunk = paths[start:start + CHUNK]
        table.put(conn, [(path, stale[path], model.digest, ids_digest(ids), pack(matrix))
                         for path, (ids, matrix) in _embed_files(conn, model, chunk).items()])
    return len(paths)


def file_row(model: EmbeddingModel, entities: Sequence[tuple], texts: Sequence[tuple]) -> tuple[str, bytes, bytes]:
    """(model digest, ids digest, vectors) of one file from its entity rows and their full-text rows,
    as the parser process that read it makes them: the row an index run stores for the file."""
    chosen = sorted((row[6], row[0], text) for row, text in zip(entities, texts) if row[1] in KINDS)
    matrix = model.encode_entities([text for _, _, text in chosen]) if chosen else np.zeros((0, model.dim), np.float32)
    return model.digest, ids_digest([entity_id for _, entity_id, _ in chosen]), pack(matrix)


def read(conn: sqlite3.Connection, model: EmbeddingModel) -> Vectors:
    """Every entity's vector: stored rows where they are current, the rest computed now (not written:
    a reader may not hold the index's write lock)."""
    files = table.file_hashes(conn)
    ids_of: dict[str, list[str]] = defaultdict(list)
    for path, entity_id in table.entity_ids(conn, KINDS):
        ids_of[path].append(entity_id)
    by_path: dict[str, tuple[list[str], np.ndarray]] = {}
    for path, digest, model_id, stored_ids, blob in table.stored_rows(conn):
        ids = ids_of.get(path, [])
        if files.get(path) == digest and model_id == model.digest and stored_ids == ids_digest(ids):
            by_path[path] = (ids, unpack(blob, len(ids), model.dim))
    missing = sorted(p for p in files if p not in by_path)
    for start in range(0, len(missing), CHUNK):
        by_path.update(_embed_files(conn, model, missing[start:start + CHUNK]))
    ids = [i for path in sorted(by_path) for i in by_path[path][0]]
    parts = [by_path[path][1] for path in sorted(by_path) if len(by_path[path][0])]
    matrix = np.vstack(parts).astype(np.float32) if parts else np.zeros((0, model.dim), dtype=np.float32)
    return Vectors(ids, matrix)


def ids_digest(ids: list[str]) -> bytes:
    """What a stored row keeps of its ids: enough to know that the entities read now are the ones embedded."""
    return hashlib.blake2b("\0".join(ids).encode("utf-8"), digest_size=8).digest()


def pack(matrix: np.ndarray) -> bytes:
    """Rows as a float32 scale each, then int8 components: a quarter of float32."""
    quantized, scales = quantize(matrix)
    return scales.tobytes() + quantized.tobytes()


def unpack(blob: bytes, count: int, dim: int) -> np.ndarray:
    scales = np.frombuffer(blob, dtype=np.float32, count=count)
    quantized = np.frombuffer(blob, dtype=np.int8, offset=4 * count).reshape(count, dim)
    return quantized.astype(np.float32) * scales[:, None]


def _embed_files(conn: sqlite3.Connection, model: EmbeddingModel, paths: list[str]) -> dict[str, tuple[list[str], np.ndarray]]:
    """(ids, vectors) of each file's functions, methods and classes (files with none get empty rows)."""
    if not paths:
        return {}
    entities = table.entity_texts(conn, paths, KINDS)
    matrix = model.encode_entities([(words(q, p), sig, doc, body) for _, q, p, sig, doc, body in entities])
    out: dict[str, tuple[list[str], np.ndarray]] = {p: ([], np.zeros((0, model.dim), dtype=np.float32)) for p in paths}
    start = 0
    while start < len(entities):
        path = entities[start][2]
        end = start
        while end < len(entities) and entities[end][2] == path:
            end += 1
        out[path] = ([row[0] for row in entities[start:end]], matrix[start:end])
        start = end
    return out
