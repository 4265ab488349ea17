"""The `graphctx` command: argument parsing and printing over the library API, nothing more.
Errors a user can fix print as one clear message (exit 2); the MCP server is imported only by
`graphctx serve`, so every other command starts fast."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from graphctx.cli import printing, records
from graphctx.errors import GraphctxError
from graphctx.models import DEFAULT_BUDGET, INTENTS


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="graphctx: %(message)s", stream=sys.stderr)
    try:
        return args.run(args) or 0
    except GraphctxError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="graphctx", description="Code context for coding agents, from a tree-sitter entity graph.")
    parser.set_defaults(run=lambda _: parser.print_help())
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")

    def command(name: str, run, help: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=help)
        p.add_argument("--repo", type=Path, default=None, help="the repository (default: the one containing the current folder)")
        p.set_defaults(run=run)
        return p

    p = command("index", cmd_index, "index a repository (incremental; --full rebuilds)")
    p.add_argument("path", nargs="?", type=Path, help="the repository to index (default: --repo or the current one)")
    p.add_argument("--full", action="store_true", help="rebuild from scratch")
    p.add_argument("-q", "--quiet", action="store_true", help="print only the summary line")

    p = command("stats", cmd_stats, "counts by language, entity kind, edge kind and resolution; parse errors; index age")
    p.add_argument("--json", action="store_true")

    p = command("search", cmd_search, "find entities by exact, prefix, full-text and fuzzy match")
    p.add_argument("query")
    p.add_argument("--kind", help="only entities of this kind (function, method, class, ...)")
    p.add_argument("--limit", type=int, default=20)
    p.add_argument("--json", action="store_true")

    p = command("show", cmd_show, "one entity with its incoming and outgoing edges")
    p.add_argument("entity", help="an id (path::Qualified.name), a qualified name or a name")
    p.add_argument("--file", help="a path suffix that narrows an ambiguous name")
    p.add_argument("--json", action="store_true")

    def answer_options(p: argparse.ArgumentParser, depth: int | None = None) -> None:
        p.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help=f"token budget (default {DEFAULT_BUDGET})")
        p.add_argument("--format", choices=("compact", "json"), default="compact")
        if depth is not None:
            p.add_argument("--depth", type=int, default=depth, help=f"hops to follow (default {depth})")

    p = command("context", cmd_context, "an entity with its most relevant neighbourhood, within a token budget")
    p.add_argument("entity", help="an id (path::Qualified.name), a qualified name or a name")
    p.add_argument("--file", help="a path suffix that narrows an ambiguous name")
    p.add_argument("--intent", choices=INTENTS, help="shape the ranking for a purpose")
    p.add_argument("--detail", choices=("summary", "neighbors", "full"), default="full")
    p.add_argument("--no-inferred", action="store_true", help="drop heuristic, inferred and ambiguous edges")
    p.add_argument("--known-hash", help="the body hash you already have: an unchanged entity gets a short answer")
    answer_options(p, depth=2)

    p = command("intent", cmd_intent, "context for a purpose: modify, understand, review, debug, add or plan")
    p.add_argument("intent", choices=INTENTS)
    p.add_argument("target", help="an entity, a file path, or free text; - reads the text from standard input")
    p.add_argument("--no-inferred", action="store_true", help="drop heuristic, inferred and ambiguous edges")
    answer_options(p, depth=2)

    p = command("path", cmd_path, "the shortest call chain from one entity to another, with its code")
    p.add_argument("source", metavar="FROM")
    p.add_argument("target", metavar="TO")
    p.add_argument("--no-inferred", action="store_true", help="use only sure edges")
    answer_options(p)

    p = command("file", cmd_file, "every entity in a file, in line order, with signatures and doc lines")
    p.add_argument("file")
    answer_options(p)

    p = command("impact", cmd_impact, "what depends on a symbol, on everything in some files, or on what a diff changed, in tiers")
    p.add_argument("symbol", nargs="?")
    p.add_argument("--files", nargs="+", help="the files of a change (a pull request)")
    p.add_argument("--diff", nargs="?", const="default", metavar="REV",
                   help="the working tree's changes against REV (default: the merge base with the default branch)")
    answer_options(p, depth=3)

    records.register(command)

    p = command("export", cmd_export, "the graph, or an entity's neighbourhood, as JSON, GraphML, a Mermaid flowchart or an HTML page")
    p.add_argument("--format", choices=("json", "graphml", "mermaid", "html"), default="json",
                   help="json (networkx node-link), graphml, mermaid (a flowchart for Markdown) or html (an interactive page)")
    p.add_argument("--around", metavar="ENTITY", help="only this entity's neighbourhood")
    p.add_argument("--file", help="a path suffix that narrows an ambiguous --around name")
    p.add_argument("--depth", type=int, help="hops from --around to include (default 1)")
    p.add_argument("--edges", metavar="KINDS", help="only these edge kinds, comma-separated (calls,inherits,...)")
    p.add_argument("--max-nodes", type=int, help="cap on entities (default: 60 for mermaid, 300 for html, none for data)")
    p.add_argument("-o", "--output", type=Path, help="write to this file instead of standard output")

    p = command("session", cmd_session, "the onboarding packet: overview, languages, freshness, entry points, central entities")
    answer_options(p)

    p = command("serve", cmd_serve, "serve the repository over MCP (stdio; --http for streamable HTTP)")
    p.add_argument("--http", action="store_true", help="streamable HTTP at http://HOST:PORT/mcp instead of stdio")
    p.add_argument("--host", help="HTTP address to bind (default 127.0.0.1, loopback only)")
    p.add_argument("--port", type=int, help="HTTP port (default 8765)")
    p.add_argument("--no-auth", action="store_true",
                   help="HTTP without a bearer token, on loopback only: any local process can read the code")
    p.add_argument("--deadline", type=float, metavar="SECONDS",
                   help="stop a call that runs longer and answer with an error (default 30)")
    p.add_argument("--no-watch", action="store_true", help="do not watch the tree (answers still check the files they name)")

    p = sub.add_parser("bench", help="the retrieval benchmark: graphctx against BM25 and repo-map baselines (bench -h)",
                       add_help=False, prefix_chars="\0")  # every argument goes to graphctx.bench.cli
    p.add_argument("bench_args", nargs=argparse.REMAINDER)
    p.set_defaults(run=cmd_bench)
    return parser


def _root(args: argparse.Namespace) -> Path:
    from graphctx.index.root import find_root

    return find_root(getattr(args, "path", None) or args.repo)


def cmd_index(args: argparse.Namespace) -> int:
    from graphctx.context import api

    root = _root(args)
    with printing.progress_bar("parsing", enabled=not args.quiet) as progress:
        result = api.index(root, full=args.full, progress=progress)
    for path, message in result.warnings[:20]:
        print(f"warning: {path}: {message}", file=sys.stderr)
    if len(result.warnings) > 20:
        print(f"warning: ... and {len(result.warnings) - 20} more (graphctx stats lists them all)", file=sys.stderr)
    print(f"indexed {root}: {result.summary()}")
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    from graphctx.context import api

    answer = api.stats(_root(args))
    print(answer.model_dump_json(indent=2) if args.json else printing.stats(answer))
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    from graphctx.context import api

    answer = api.search(_root(args), args.query, args.kind, args.limit)
    print(answer.model_dump_json(indent=2) if args.json else printing.search(answer))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from graphctx.context import api

    answer = api.show(_root(args), args.entity, args.file)
    print(answer.model_dump_json(indent=2) if args.json else printing.entity_edges(answer))
    return 0


def cmd_context(args: argparse.Namespace) -> int:
    from graphctx.context import api

    _, text = api.get_context(
        _root(args), args.entity, file=args.file, depth=args.depth, token_budget=args.budget, intent=args.intent,
        detail_level=args.detail, format=args.format, include_inferred=not args.no_inferred, known_hash=args.known_hash,
    )
    print(text)
    return 0


def cmd_intent(args: argparse.Namespace) -> int:
    from graphctx.context import api

    target = sys.stdin.read() if args.target == "-" else args.target
    _, text = api.get_intent(_root(args), args.intent, target, depth=args.depth, token_budget=args.budget,
                             format=args.format, include_inferred=not args.no_inferred)
    print(text)
    return 0


def cmd_path(args: argparse.Namespace) -> int:
    from graphctx.context import api

    _, text = api.get_path(_root(args), args.source, args.target, token_budget=args.budget, format=args.format,
                           include_inferred=not args.no_inferred)
    print(text)
    return 0


def cmd_file(args: argparse.Namespace) -> int:
    from graphctx.context import api

    _, text = api.get_file_context(_root(args), args.file, token_budget=args.budget, format=args.format)
    print(text)
    return 0


def cmd_impact(args: argparse.Namespace) -> int:
    from graphctx.context import api

    root = _root(args)
    if args.diff is not None:
        api.refresh(root)  # a diff is read from the working tree: the index must describe the same lines
    answer, text = api.get_impact(root, args.symbol, args.files, diff=args.diff, depth=args.depth,
                                  token_budget=args.budget, format=args.format)
    print(text)
    return 0 if answer.total_candidates else 1


def cmd_session(args: argparse.Namespace) -> int:
    from graphctx.context import api

    _, text = api.session_init(_root(args), token_budget=args.budget, format=args.format)
    print(text)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from graphctx.server import serve  # the MCP SDK is slow to import: only this command loads it

    return serve(args.repo, http=args.http, host=args.host, port=args.port, watch=not args.no_watch,
                 no_auth=args.no_auth, deadline=args.deadline)


def cmd_export(args: argparse.Namespace) -> int:
    from graphctx.context import api

    if args.output is not None:
        _check_writable(args.output)
    elif args.format == "html" and sys.stdout.isatty():
        raise GraphctxError("an HTML page is not for the terminal: pass -o FILE.html (or redirect standard output)")
    selection, text = api.export(_root(args), args.format, around=args.around, file=args.file, depth=args.depth,
                                 edge_kinds=args.edges, max_nodes=args.max_nodes)
    if args.output:
        try:
            args.output.write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            raise GraphctxError(f"cannot write {args.output}: {exc.strerror or exc}; pass another -o") from None
        print(f"wrote {args.output}: {selection.counts()}", file=sys.stderr)
    else:
        sys.stdout.write(text + "\n")
    if note := selection.note():
        print(f"note: {note}", file=sys.stderr)
    if not selection.nodes:
        print(f"nothing to export: {selection.scope()} has no entities", file=sys.stderr)
        return 1
    return 0


def _check_writable(path: Path) -> None:
    """Refuse an output path that cannot be written, before any work is done."""
    if path.is_dir():
        raise GraphctxError(f"{path} is a folder: pass a file path to -o, such as {path / 'graph.html'}")
    if not path.parent.exists():
        raise GraphctxError(f"cannot write {path}: the folder {path.parent} does not exist; create it first or pass another -o")
    if not path.parent.is_dir():
        raise GraphctxError(f"cannot write {path}: {path.parent} is a file, not a folder; pass another -o")


def cmd_bench(args: argparse.Namespace) -> int:
    from graphctx.bench.cli import main as bench_main

    return bench_main(args.bench_args)


if __name__ == "__main__":
    sys.exit(main())

