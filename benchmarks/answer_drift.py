"""Answer drift: whether a change to ranking or packing (a faster algorithm, say) changes answers.
`--save` answers a fixed sample of queries (get_context on random functions, methods and classes;
intent on issue-like free text, as benchmarks/query_latency.py draws them) and writes each answer's
items and text to a file; `--compare` answers the same queries with the code installed now and
counts the answers whose text, items (id, detail, order) or item set changed, and where the first
changed item sits.

    python benchmarks/answer_drift.py --path REPO --save before.json      # with the old code
    python benchmarks/answer_drift.py --path REPO --compare before.json   # with the new code
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from query_latency import _free_texts  # noqa: E402  (the same issue-like texts)

from graphctx import Project  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--path", type=Path, required=True, help="an indexed repository")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--save", type=Path, help="write the answers to this file")
    group.add_argument("--compare", type=Path, help="compare with the answers saved in this file")
    parser.add_argument("--samples", type=int, default=300, help="get_context queries (a third as many intents)")
    parser.add_argument("--budget", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    answers = _answers(args.path.resolve(), args.samples, args.budget, args.seed)
    if args.save:
        args.save.write_text(json.dumps(answers))
        print(f"saved {len(answers)} answers to {args.save}")
        return 0
    saved = json.loads(args.compare.read_text())
    if [a["query"] for a in saved] != [a["query"] for a in answers]:
        sys.exit("the saved queries differ from this sample: use the same --path, --samples and --seed")
    for mode in ("context", "intent"):
        _report(mode, [(old, new) for old, new in zip(saved, answers) if old["mode"] == mode])
    return 0


def _answers(root: Path, samples: int, budget: int, seed: int) -> list[dict]:
    with Project(root, find=False, ephemeral=False) as project:
        g = project.graph
        rng = random.Random(seed)
        entities = sorted(n for n in g.nodes if g.nodes[n]["kind"] in ("function", "method", "class"))
        queries = [("context", e) for e in rng.sample(entities, min(samples, len(entities)))]
        queries += [("intent", text) for text in _free_texts(g, rng, samples // 3)]
        out = []
        for mode, query in queries:
            if mode == "context":
                answer, text = project.context(query, token_budget=budget)
            else:
                answer, text = project.intent("debug", query, token_budget=budget)
            out.append({"mode": mode, "query": query, "items": [[i.id, i.detail] for i in answer.items], "text": text})
        return out


def _report(mode: str, pairs: list[tuple[dict, dict]]) -> None:
    text = sum(old["text"] == new["text"] for old, new in pairs)
    items = sum(old["items"] == new["items"] for old, new in pairs)
    same_set = sum({i for i, _ in old["items"]} == {i for i, _ in new["items"]} for old, new in pairs)
    print(f"{mode:<8} {len(pairs)} answers: same text {text}, same items (id, detail, order) {items}, "
          f"same item set {same_set}")
    for old, new in pairs:
        if old["items"] != new["items"]:
            first = next((i for i, (a, b) in enumerate(zip(old["items"], new["items"])) if a != b),
                         min(len(old["items"]), len(new["items"])))
            print(f"  {old['query'][:70]!r}: first changed item {first + 1} of {len(old['items'])} -> {len(new['items'])}")


if __name__ == "__main__":
    sys.exit(main())
