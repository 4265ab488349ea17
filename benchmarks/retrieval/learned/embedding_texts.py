"""The entity texts the embedding is trained and evaluated on: for every instance of the learned
ranker's corpus (features/<repo>.npz and the dev features), the full-text row (split names and path,
signature, doc, body) of each of its candidate functions, cut from the files at the instance's base
commit by graphctx's own parser, exactly as an index run cuts them. Files are read from the bare
clones by blob id and parsed once per blob. Writes embedding/<name>.json.gz under the data folder:
the instances (id, text, labels of their candidates) and the distinct entity texts they point to.

    python benchmarks/retrieval/learned/embedding_texts.py --repos-dir DIR [--data D] [--dev dev_issues.jsonl]
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from graphctx.bench.gitrepo import find_git_dir, git
from graphctx.bench.instances import load_jsonl
from graphctx.index.fulltext import text_rows
from graphctx.index.parsing import entity_rows
from graphctx.parse.extract import extract
from graphctx.parse.languages import language_for_path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import DEFAULT_DATA, say  # noqa: E402


class Blobs:
    """File contents by blob id, through one `git cat-file --batch` process."""

    def __init__(self, git_dir: Path):
        self.process = subprocess.Popen(["git", f"--git-dir={git_dir}", "cat-file", "--batch"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE)

    def read(self, blob: str) -> bytes:
        self.process.stdin.write(blob.encode() + b"\n")
        self.process.stdin.flush()
        header = self.process.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            return b""
        data = self.process.stdout.read(int(header[2]))
        self.process.stdout.read(1)
        return data

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def file_texts(path: str, data: bytes) -> dict[str, list[str]]:
    """Qualified name -> full-text row of each function and method of one file."""
    spec = language_for_path(path)
    if spec is None or not data:
        return {}
    try:
        facts = extract(path, spec.name, data)
    except Exception:  # noqa: BLE001 - a file the parser cannot read adds no text
        return {}
    entities = list(entity_rows(facts))
    texts = text_rows(entities, data.decode("utf-8", errors="replace"))
    return {row[3]: list(text) for row, text in zip(entities, texts) if row[1] in ("function", "method")}


def extract_set(npz: Path, git_dir: Path, base_of: dict[str, tuple[str, str]], out: Path) -> dict:
    """Texts of one feature set's candidates; `base_of`: instance id -> (base commit, query text)."""
    with np.load(npz, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        y, group = z["y"], z["group"]
    blobs = Blobs(git_dir)
    parsed: dict[tuple[str, str], dict[str, list[str]]] = {}
    entity_index: dict[tuple[str, str], int] = {}
    entities: list[list[str]] = []
    instances = []
    labels_of = [y[group == i] for i in range(len(meta))]
    for i, inst in enumerate(meta):
        base, query = base_of.get(inst["instance_id"], (None, ""))
        keys = inst["keys"]
        if base is None or not len(labels_of[i]):
            continue
        paths = sorted({k.rsplit(":", 1)[0] for k in keys if k})
        listing = {}
        if paths:
            for line in str(git(git_dir, "ls-tree", base, "--", *paths)).splitlines():
                info, name = line.split("\t", 1)
                listing[name] = info.split()[2]
        refs = []
        for key in keys:
            if not key:
                refs.append(-1)
                continue
            path, qualified = key.rsplit(":", 1)
            blob = listing.get(path)
            if blob is None:
                refs.append(-1)
                continue
            if (path, blob) not in parsed:
                parsed[(path, blob)] = file_texts(path, blobs.read(blob))
            text = parsed[(path, blob)].get(qualified)
            if text is None:
                refs.append(-1)
                continue
            slot = entity_index.setdefault((blob, qualified), len(entities))
            if slot == len(entities):
                entities.append(text)
            refs.append(slot)
        instances.append({"instance_id": inst["instance_id"], "repo": inst["repo"], "lexical": inst["lexical"],
                          "text": inst["text"] if isinstance(inst.get("text"), str) else query, "exact": inst.get("exact", True), "refs": refs,
                          "labels": [int(v) for v in labels_of[i]], "row0": int(np.flatnonzero(group == i)[0])})
    blobs.close()
    out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(out, "wt", encoding="utf-8") as handle:
        json.dump({"source": npz.name, "instances": instances, "entities": entities}, handle)
    return {"instances": len(instances), "entities": len(entities), "files_parsed": len(parsed)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repos-dir", type=Path, required=True, help="folder of bare git directories")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--dev", type=Path, help="the dev issue set, for the base commits of the dev features")
    parser.add_argument("--only", help="comma-separated feature file stems")
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args(argv)
    base_of = {}
    for set_path in sorted((args.data / "sets").glob("*.jsonl")):
        base_of.update({i.instance_id: (i.base_commit, i.text) for i in load_jsonl(set_path)})
    if args.dev:
        base_of.update({i.instance_id: (i.base_commit, i.text) for i in load_jsonl(args.dev)})
    for npz in sorted((args.data / "features").glob("*.npz")):
        if args.only and npz.stem not in args.only.split(","):
            continue
        out = args.data / "embedding" / f"{npz.stem}.json.gz"
        if out.exists() and not args.force:
            continue
        with np.load(npz, allow_pickle=False) as z:
            repo = json.loads(str(z["meta"]))[0]["repo"] if len(z["y"]) else None
        if repo is None:
            continue
        started = time.perf_counter()
        counts = extract_set(npz, find_git_dir(args.repos_dir, repo), base_of, out)
        say(f"{npz.stem}: {counts} in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
