"""Probe 2: several processes write records into one repository at once through the library
(RecordStore, as the CLI and the MCP tools do): each writes its own records and updates one
shared keyed record. Afterwards every record must be there exactly once, the shared key must be
held by one record, and its version must count every update: nothing lost, nothing duplicated.

Run as a module, this file is one writer: `python -m reliability.record_writers ROOT NAME COUNT`
prints "ready", waits for a line on standard input (so that all writers start together), then writes."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from reliability import procs
from reliability.tally import TRACEBACK, Tally

CATEGORY = "probe.writers"
SHARED = ("probe.shared", "counter")  # category and key every writer updates
WRITER_LIMIT_S = 300.0


def concurrent_record_writers(workdir: Path, writers: int = 4, records: int = 25) -> Tally:
    tally = Tally("concurrent record writers")
    root = workdir / "records-project"
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "main.py").write_text("def main():\n    return 0\n")
    names = [f"writer{n}" for n in range(writers)]
    running = [(name, subprocess.Popen([*procs.suite_module("record_writers"), str(root), name, str(records)],
                                       env=procs.suite_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True))
               for name in names]
    for _, proc in running:  # every writer started and holding its store: then all go at once
        proc.stdout.readline()
    for _, proc in running:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    written: dict[str, list[dict]] = {}
    for name, proc in running:
        try:
            out, err = proc.communicate(timeout=WRITER_LIMIT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            tally.notes["writers hung"] += 1
        written[name] = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        if proc.returncode != 0 or TRACEBACK in err:
            missing = 2 * records - len(written[name])
            for _ in range(max(1, missing)):
                tally.add("crashed", f"{name} exited {proc.returncode} after {len(written[name])} writes: "
                                     f"{' | '.join(err.strip().splitlines()[-2:])}")
    _check(root, written, tally)
    return tally


def _check(root: Path, written: dict[str, list[dict]], tally: Tally) -> None:
    from graphctx.records import RecordStore

    with RecordStore(root, holds_ephemeral=False) as store:
        titles = Counter(hit.title for hit in _all_hits(store, CATEGORY))
        shared = _all_hits(store, SHARED[0])
    for entries in written.values():  # what a writer was told was written must be there, once
        for title in (entry["title"] for entry in entries if not entry["key"]):
            seen = titles.get(title, 0)
            if seen == 1:
                tally.add("ok")
            elif seen == 0:
                tally.add("lost", f"{title!r} is not among the records after all writers finished")
            else:
                tally.add("failed", f"{title!r} is there {seen} times")
    updates = sum(1 for entries in written.values() for entry in entries if entry["key"])
    holders = [hit for hit in shared if hit.key == SHARED[1]]
    if len(holders) != 1:
        tally.add("failed", f"the shared key is held by {len(holders)} records, not one")
        return
    version = holders[0].version
    for n in range(updates):
        if n < version:
            tally.add("ok")
        else:
            tally.add("lost", f"the shared record is at version {version} after {updates} writes to it: "
                              f"{updates - version} update(s) lost")
    if version > updates:
        tally.add("failed", f"the shared record is at version {version} after only {updates} writes to it")
    files = list((root / ".graphctx" / "records" / "knowledge").glob("*.md"))
    tally.notes["record files"] = len(files)


def _all_hits(store, category: str) -> list:
    hits, cursor = [], None
    while True:
        page = store.recall(category=category, sort="recent", limit=100, cursor=cursor)
        hits += page.hits
        if not (cursor := page.next_cursor):
            return hits


def _title(name: str, number: int) -> str:
    return f"{name} note {number}"


def write(root: Path, name: str, records: int) -> None:
    """One writer: its own records interleaved with updates of the shared one, each reported on stdout
    as JSON once written."""
    from graphctx.records import RecordStore

    with RecordStore(root, holds_ephemeral=False, author=name) as store:
        print("ready", flush=True)
        sys.stdin.readline()
        for number in range(records):
            result = store.remember(title=_title(name, number), body=f"Written by {name}, number {number}.",
                                    category=CATEGORY, tags=[name])[0]
            print(json.dumps({"title": result.record.title, "key": None}), flush=True)
            result = store.remember(category=SHARED[0], key=SHARED[1], body=f"{name} was here, {number}.")[0]
            print(json.dumps({"title": result.record.title, "key": SHARED[1]}), flush=True)


if __name__ == "__main__":
    write(Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]))
