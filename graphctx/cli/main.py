"""The `graphctx` command: argument parsing and printing over the library API, nothing more.
One convention for every command: `--json` prints the data as JSON; exit 0 when there is an
answer, 1 when nothing was found, 2 on input a user can fix (one clear message, never a
traceback). The MCP server is imported only by `graphctx serve`, so every other command starts fast."""

from __future__ import annotations

import argparse
import difflib
import json
import logging
import os
import sys
from pathlib import Path

from graphctx.cli import feedback, printing, records, review, skills, store, sync, work
from graphctx.errors import GraphctxError, quote
from graphctx.models import (
    DEFAULT_BUDGET, DETAIL_LEVELS, EDGE_KINDS, ENTITY_KINDS, EXPORT_FORMATS, FORMATS, HOST_FORMATS, INTENTS, SESSION_SCOPES,
)

NOTHING_FOUND, BAD_INPUT, INTERNAL_ERROR = 1, 2, 3  # exit statuses; 0 is an answer
MAX_PATH_QUOTED = 1000  # a path a user gave is shown whole unless it is absurdly long
NO_DATA_COMMANDS = ("serve", "bench")  # a server, and the benchmark with its own arguments (bench -h)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="graphctx: %(message)s", stream=sys.stderr)
    try:
        _json_means_format_json(args)
        return args.run(args) or 0
    except GraphctxError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except json.JSONDecodeError as exc:  # the only JSON graphctx reads from a user is its input
        print(f"error: the input is not valid JSON ({exc}); fix it and run the command again", file=sys.stderr)
        return BAD_INPUT
    except OSError as exc:  # a file to read or write: missing, a folder, no permission
        where = f" {quote(str(exc.filename), MAX_PATH_QUOTED)}" if exc.filename else ""
        print(f"error: cannot use{where}: {exc.strerror or exc}; check the path and its permissions", file=sys.stderr)
        return BAD_INPUT
    except Exception as exc:  # a bug: say so in one line; GRAPHCTX_DEBUG=1 shows where
        if os.environ.get("GRAPHCTX_DEBUG"):
            raise
        print(f"error: graphctx failed unexpectedly ({type(exc).__name__}: {exc}); this is a bug, please report it "
              "with the command you ran (GRAPHCTX_DEBUG=1 shows the traceback)", file=sys.stderr)
        return INTERNAL_ERROR


def _json_means_format_json(args: argparse.Namespace) -> None:
    """`--json` is the one way to ask any command for JSON; where `--format` exists it is its alias."""
    if not getattr(args, "json", False) or not hasattr(args, "format"):
        return
    if args.format not in ("json", "compact"):  # compact is the default of the answering commands
        raise GraphctxError(f"--json and --format {args.format} ask for different output; pass one of them")
    args.format = "json"


class Parser(argparse.ArgumentParser):
    """argparse with a did-you-mean for a mistyped command or choice."""

    def _check_value(self, action: argparse.Action, value) -> None:
        if action.choices is not None and value not in action.choices:
            choices = [str(c) for c in action.choices]
            close = difflib.get_close_matches(str(value), choices, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise argparse.ArgumentError(action, f"invalid choice: {value!r}; {hint}choose from {', '.join(choices)}")
        super()._check_value(action, value)


class PrintVersion(argparse.Action):
    """`--version`: the installed package's version, read only when asked (it costs a metadata scan)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, help="print graphctx's version and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        from importlib.metadata import PackageNotFoundError, version

        try:
            print(f"graphctx {version('graphctx')}")
        except PackageNotFoundError:
            print("graphctx (not installed: run from a source tree)")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="graphctx", description="Code context for coding agents, from a tree-sitter entity graph.")
    parser.add_argument("--version", action=PrintVersion)
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
    p.add_argument("-q", "--quiet", action="store_true", help="print only the summary line: no progress, no warnings")

    p = command("stats", cmd_stats, "counts by language, entity kind, edge kind and resolution; parse errors; index age")
    p.add_argument("--json", action="store_true")

    p = command("search", cmd_search, "find entities by exact, prefix, full-text and fuzzy match, or by meaning")
    p.add_argument("query")
    p.add_argument("--kind", help=f"only entities of this kind: {', '.join(ENTITY_KINDS)}")
    p.add_argument("--mode", choices=("name", "semantic"), default="name",
                   help="name: exact, prefix, full-text and fuzzy (default); semantic: the functions, methods and "
                        "classes nearest to the query by the code embedding")
    p.add_argument("--limit", type=int, default=20)
    p.add_argument("--json", action="store_true")

    p = command("show", cmd_show, "one entity with its incoming and outgoing edges")
    p.add_argument("entity", help="an id (path::Qualified.name), a qualified name or a name")
    p.add_argument("--file", help="a path suffix that narrows an ambiguous name")
    p.add_argument("--json", action="store_true")

    def answer_options(p: argparse.ArgumentParser, depth: int | None = None) -> None:
        p.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help=f"token budget (default {DEFAULT_BUDGET})")
        p.add_argument("--format", choices=FORMATS, default="compact")
        if depth is not None:
            p.add_argument("--depth", type=int, default=depth, help=f"hops to follow (default {depth})")

    p = command("context", cmd_context, "an entity with its most relevant neighbourhood, within a token budget")
    p.add_argument("entity", help="an id (path::Qualified.name), a qualified name or a name")
    p.add_argument("--file", help="a path suffix that narrows an ambiguous name")
    p.add_argument("--intent", choices=INTENTS, help="shape the ranking for a purpose")
    p.add_argument("--detail", choices=DETAIL_LEVELS, default="full")
    p.add_argument("--no-inferred", action="store_true", help="drop heuristic, inferred and ambiguous edges")
    p.add_argument("--known-hash", help="the body hash you already have: an unchanged entity gets a short answer")
    answer_options(p, depth=2)
    feedback.options(p)

    p = command("intent", cmd_intent, "context for a purpose: modify, understand, review, debug, add or plan")
    p.add_argument("intent", choices=INTENTS)
    p.add_argument("target", help="an entity, a file path, or free text; - reads the text from standard input")
    p.add_argument("--no-inferred", action="store_true", help="drop heuristic, inferred and ambiguous edges")
    answer_options(p, depth=2)
    feedback.options(p)

    p = command("path", cmd_path, "the shortest call chain from one entity to another, with its code")
    p.add_argument("source", metavar="FROM")
    p.add_argument("target", metavar="TO")
    p.add_argument("--no-inferred", action="store_true", help="use only sure edges")
    answer_options(p)

    p = command("file", cmd_file, "every entity in a file, in line order, with signatures and doc lines")
    p.add_argument("file")
    answer_options(p)

    p = command("doc", cmd_doc, "a Markdown document of the repository: its outline, one section or its tables")
    p.add_argument("file")
    view = p.add_mutually_exclusive_group()
    view.add_argument("--outline", action="store_true", help="the headings, with their lines (the default)")
    view.add_argument("--tables", action="store_true", help="the tables (of --section when given)")
    p.add_argument("--section", metavar="HEADING", help="one section: its title, its path ('A > B') or '#<line>'")
    p.add_argument("--json", action="store_true")

    p = command("impact", cmd_impact, "what depends on a symbol, on everything in some files, or on what a diff changed, in tiers")
    p.add_argument("symbol", nargs="?")
    p.add_argument("--files", nargs="+", help="the files of a change (a pull request)")
    p.add_argument("--diff", nargs="?", const="default", metavar="REV",
                   help="the working tree's changes against REV (default: the merge base with the default branch)")
    answer_options(p, depth=3)

    records.register(command)
    work.register(command)
    skills.register(command)
    feedback.register(command)
    review.register(command)
    sync.register(command)
    store.register(command)

    p = command("export", cmd_export, "the graph, or an entity's neighbourhood, as JSON, GraphML, a Mermaid flowchart or an "
                "HTML page; or the team's memory into AGENTS.md, CLAUDE.md or a Cursor rule")
    p.add_argument("--format", choices=(*EXPORT_FORMATS, *HOST_FORMATS), default="json",
                   help="json (networkx node-link), graphml, mermaid (a flowchart for Markdown) or html (an interactive "
                        "page); agents-md, claude-md or cursor-rules write the shared conventions, accepted decisions "
                        "and key knowledge into AGENTS.md, CLAUDE.md or .cursor/rules/graphctx.mdc (a marked section)")
    p.add_argument("--around", metavar="ENTITY", help="only this entity's neighbourhood")
    p.add_argument("--file", help="a path suffix that narrows an ambiguous --around name")
    p.add_argument("--depth", type=int, help="hops from --around to include (default 1)")
    p.add_argument("--edges", metavar="KINDS", help=f"only these edge kinds, comma-separated, of {','.join(EDGE_KINDS)}")
    p.add_argument("--max-nodes", type=int, help="cap on entities (default: 60 for mermaid, 300 for html, none for data)")
    p.add_argument("--external", action=argparse.BooleanOptionalAction, default=None,
                   help="add the names outside the repository and the unresolved calls as ext: nodes "
                        "(default: yes for json and graphml, no for pictures)")
    p.add_argument("-o", "--output", type=Path, help="write to this file instead of standard output")

    p = command("session", cmd_session, "the onboarding packet: overview, languages, freshness, entry points, central entities")
    p.add_argument("--scope", choices=SESSION_SCOPES, help="open with your coordination state (see Working together)")
    p.add_argument("--agent", help="who you are (default: $GRAPHCTX_AGENT, else the git user); implies --scope standard")
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
    p.add_argument("--store", help="keep records and work in this PostgreSQL store (postgresql://...): a team server")
    p.add_argument("--project", action="append", metavar="KEY=PATH", dest="projects",
                   help="serve this repository as project KEY (repeat for several): a team server")
    p.add_argument("--config", type=Path, help="a team server's TOML file: store, host, port, [projects.KEY] path, tokens")

    p = sub.add_parser("bench", help="the retrieval benchmark: graphctx against BM25 and repo-map baselines (bench -h)",
                       add_help=False, prefix_chars="\0")  # every argument goes to graphctx.bench.cli
    p.add_argument("bench_args", nargs=argparse.REMAINDER)
    p.set_defaults(run=cmd_bench)
    _json_everywhere(sub)
    return parser


def _json_everywhere(sub: argparse._SubParsersAction) -> None:
    """Give `--json` to every command that prints data and does not have it yet."""
    for name, p in sub.choices.items():
        if name not in NO_DATA_COMMANDS and "--json" not in p._option_string_actions:
            alias = " (the same as --format json)" if any(a.dest == "format" for a in p._actions) else ""
            p.add_argument("--json", action="store_true", help=f"print the data as JSON{alias}")


def _project(args: argparse.Namespace):
    """The repository the command names (or the one containing the current folder). A command is
    one short process: it holds no ephemeral records."""
    from graphctx.project import Project

    return Project(getattr(args, "path", None) or args.repo, ephemeral=False)


def cmd_index(args: argparse.Namespace) -> int:
    project = _project(args)
    root = project.root
    with printing.progress_bar(enabled=not args.quiet) as progress, project:  # (closed: the next run trusts the file)
        result = project.index(full=args.full, progress=progress, verify=True)
    if not args.quiet:
        for line in printing.index_notices(result):
            print(line, file=sys.stderr)
    print(json.dumps(result.report(), indent=2) if args.json else f"indexed {root}: {result.summary()}")
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    answer = _project(args).stats()
    print(answer.model_dump_json(indent=2) if args.json else printing.stats(answer))
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    if args.limit < 1:
        raise GraphctxError(f"--limit {args.limit} is too small; give 1 or more")
    answer = _project(args).search(args.query, args.kind, args.limit, args.mode)
    print(answer.model_dump_json(indent=2) if args.json else printing.search(answer))
    return 0 if answer.hits else NOTHING_FOUND


def cmd_show(args: argparse.Namespace) -> int:
    answer = _project(args).show(args.entity, args.file)
    print(answer.model_dump_json(indent=2) if args.json else printing.entity_edges(answer))
    return 0


def cmd_context(args: argparse.Namespace) -> int:
    project = _project(args)
    _, text = project.context(
        args.entity, file=args.file, depth=args.depth, token_budget=args.budget, intent=args.intent,
        detail_level=args.detail, format=args.format, include_inferred=not args.no_inferred, known_hash=args.known_hash,
        **feedback.request(project, args),
    )
    print(text)
    return 0


def cmd_intent(args: argparse.Namespace) -> int:
    target = sys.stdin.read() if args.target == "-" else args.target
    project = _project(args)
    answer, text = project.intent(args.intent, target, depth=args.depth, token_budget=args.budget,
                                  format=args.format, include_inferred=not args.no_inferred,
                                  **feedback.request(project, args))
    print(text)
    return 0 if printing.found(answer) else NOTHING_FOUND


def cmd_path(args: argparse.Namespace) -> int:
    answer, text = _project(args).path(args.source, args.target, token_budget=args.budget, format=args.format,
                                include_inferred=not args.no_inferred)
    print(text)
    return 0 if printing.found(answer) else NOTHING_FOUND


def cmd_file(args: argparse.Namespace) -> int:
    _, text = _project(args).file(args.file, token_budget=args.budget, format=args.format)
    print(text)
    return 0


def cmd_doc(args: argparse.Namespace) -> int:
    view = "tables" if args.tables else "section" if args.section else "outline"
    answer, text = _project(args).document(args.file, view=view, heading=args.section,
                                           format="json" if args.json else "compact")
    print(text)
    return 1 if answer.is_empty() else 0


def cmd_impact(args: argparse.Namespace) -> int:
    project = _project(args)
    if args.diff is not None:
        project.refresh()  # a diff is read from the working tree: the index must describe the same lines
    answer, text = project.impact(args.symbol, args.files, diff=args.diff, depth=args.depth,
                                  token_budget=args.budget, format=args.format)
    print(text)
    return 0 if printing.found(answer) else NOTHING_FOUND


def cmd_session(args: argparse.Namespace) -> int:
    _, text = _project(args).session(token_budget=args.budget, format=args.format, scope=args.scope, agent=args.agent)
    print(text)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from graphctx.server import serve  # the MCP SDK is slow to import: only this command loads it

    return serve(args.repo, http=args.http, host=args.host, port=args.port, watch=not args.no_watch,
                 no_auth=args.no_auth, deadline=args.deadline, store=args.store, projects=args.projects,
                 config=args.config)


def cmd_export(args: argparse.Namespace) -> int:
    if args.format in HOST_FORMATS:
        return _export_host(args)
    if args.output is not None:
        _check_writable(args.output)
    elif args.format == "html" and sys.stdout.isatty():
        raise GraphctxError("an HTML page is not for the terminal: pass -o FILE.html (or redirect standard output)")
    selection, text = _project(args).export(args.format, around=args.around, file=args.file, depth=args.depth,
                                 edge_kinds=args.edges, max_nodes=args.max_nodes, external=args.external)
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


def _export_host(args: argparse.Namespace) -> int:
    graph_options = [f"--{name.replace('_', '-')}" for name in ("around", "file", "depth", "edges", "max_nodes", "external")
                     if getattr(args, name) is not None]
    if graph_options or args.output is not None:
        given = graph_options or ["-o"]
        raise GraphctxError(f"--format {args.format} writes its own file; {', '.join(given)} is for the graph formats")
    path, changed, counts = _project(args).export_host(args.format)
    if getattr(args, "json", False):
        print(json.dumps({"path": str(path), "changed": changed, "counts": counts}, indent=2))
    else:
        summary = ", ".join(f"{n} {group}" for group, n in counts.items() if n) or "nothing shared yet"
        print(f"{'wrote' if changed else 'unchanged:'} {path} ({summary})")
    return 0 if any(counts.values()) else 1


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

