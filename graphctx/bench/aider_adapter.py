"""The aider-repomap system: aider's own RepoMap, run by aider_worker.py in a separate Python
environment that has aider-chat installed (--aider-python), its ranked definition tags mapped
onto graphctx's entities so every system is scored on the same ids."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from graphctx.bench.gitrepo import BenchError
from graphctx.bench.instances import Instance
from graphctx.bench.corpus import Output, Packet, Repo, count

WORKER = Path(__file__).with_name("aider_worker.py")


def run_aider(repo: Repo, inst: Instance, budgets: list[int], options: dict) -> Output:
    python = options.get("aider_python")
    if not python:
        raise BenchError("aider-repomap needs --aider-python: the python of an environment with aider-chat installed")
    request = {"root": str(repo.root), "files": repo.files, "text": inst.text, "budgets": budgets}
    started = time.perf_counter()
    result = subprocess.run([python, str(WORKER)], input=json.dumps(request), capture_output=True, text=True,
                            timeout=options.get("aider_timeout", 1800))
    wall = time.perf_counter() - started
    if result.returncode != 0:
        raise BenchError(f"aider worker failed: {result.stderr.strip()[-500:]}")
    answer = json.loads(result.stdout)
    by_line = _entity_index(repo)
    ranked: list[str] = []
    seen: set[str] = set()
    tag_entities = []
    for tag in answer["ranked"]:
        entity = _entity_of(repo, by_line, tag) if len(tag) == 3 else tag[0]
        tag_entities.append((tag, entity))
        if entity and entity not in seen:
            seen.add(entity)
            ranked.append(entity)
    packets = {}
    for budget in budgets:
        shown = answer["maps"][str(budget)]
        text = shown["text"]
        packet = Packet(text, count(text))
        for tag, entity in tag_entities[: shown["tags"]]:
            packet.files.add(tag[0])
            if len(tag) == 3:
                packet.covered.setdefault(tag[0], set()).add(tag[1] + 1)
        packets[budget] = packet
    # The map's own seconds (tag extraction is cached per tree after the first query) and the wall time.
    return Output(ranked, packets, answer["seconds"], {"wall_seconds": wall})


def _entity_index(repo: Repo) -> dict[str, list[tuple[int, int, str, str]]]:
    out: dict[str, list] = {}
    for n, d in repo.entities.items():
        if d["kind"] != "file":
            out.setdefault(d["path"], []).append((d["start_line"], d["end_line"], d["name"], n))
    return out


def _entity_of(repo: Repo, by_line, tag) -> str | None:
    """The graphctx entity a definition tag names: same file and name, its span holding the tag's
    line (tags count lines from 0), the smallest such; else the file."""
    path, line, name = tag[0], tag[1] + 1, tag[2]
    best = None
    for start, end, entity_name, n in by_line.get(path, ()):
        if entity_name == name and start <= line <= end and (best is None or end - start < best[0]):
            best = (end - start, n)
    return best[1] if best else (path if path in repo.graph.files else None)
