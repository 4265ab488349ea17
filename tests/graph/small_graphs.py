"""Small graphs built in a test, without parsing or an index: entities named by id
(`path::Qualified.name`, or a bare path for a file) and edges (source, target, kind[, resolution,
confidence]), assembled with the loader's own builder so they are the graphs the engine ranks."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np

from graphctx.graph.loader import CodeGraph, EdgeArrays, _multidigraph
from graphctx.models import EDGE_KINDS, INFERRED, RESOLUTIONS


def build(entities: dict[str, str], edges: list[tuple]) -> CodeGraph:
    """{id: kind} and [(source, target, kind, resolution="exact", confidence=1.0)] -> a CodeGraph."""
    rows = []
    for entity_id, kind in entities.items():
        path, _, qualified = entity_id.partition("::")
        qualified = qualified or path
        rows.append((entity_id, kind, qualified.rsplit(".", 1)[-1], qualified, "python", path, 1, 2, "", "", None))
    full = [(e[0], e[1], e[2], e[3] if len(e) > 3 else "exact", e[4] if len(e) > 4 else 1.0) for e in edges]
    graph = _multidigraph(rows, full)
    for node in graph.nodes.values():
        node.update(signature="", doc="")  # details present: nothing to read from an index
    nodes = [r[0] for r in rows]
    index = {n: i for i, n in enumerate(nodes)}
    code = {k: i for i, k in enumerate(EDGE_KINDS)}
    arrays = EdgeArrays(nodes, index, np.array([index[e[0]] for e in full], np.int64),
                        np.array([index[e[1]] for e in full], np.int64), np.array([code[e[2]] for e in full], np.int64),
                        np.array([e[4] for e in full], float), np.array([e[3] in INFERRED for e in full], bool),
                        np.array([RESOLUTIONS.index(e[3]) for e in full], np.uint8))
    by_name, by_qualified, by_path = defaultdict(list), defaultdict(list), defaultdict(list)
    for r in rows:
        by_name[r[2]].append(r[0])
        by_qualified[r[3]].append(r[0])
        by_path[r[5]].append(r[0])
    files = {r[5]: {"language": "python", "size": 0, "mtime_ns": 0, "hash": "", "lines": 2, "is_test": False}
             for r in rows}
    return CodeGraph(root=Path("/nonexistent"), generation=1, nodes=graph._node, succ=graph._succ, pred=graph._pred,
                     arrays=arrays, by_name=dict(by_name),
                     by_qualified_name=dict(by_qualified), by_path=dict(by_path), files=files)
