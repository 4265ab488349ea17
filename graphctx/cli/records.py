"""The record commands: remember, decide, recall, revise, verify and check, as arguments over
Project's record store, printed by the records' one renderer (Project.record_text): the library and
the renderer the MCP record tools use too, so a record behaves and reads the same from both. A
command is one short process: it refuses the ephemeral scope, and signs its writes with
$GRAPHCTX_AUTHOR or the git user. `graphctx check --strict` fails a pre-commit hook or CI step when an
accepted decision or convention is anchored to code that changed, or a key is held by two records."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from graphctx.models import DECISION_STATUSES, KNOWLEDGE_TYPES, RECORD_KINDS, SCOPES

LIST_FIELDS = frozenset({"tags", "refs", "anchors", "supersedes"})  # --set tags=a,b
BOOLEANS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}


def register(command: Callable[..., argparse.ArgumentParser]) -> None:
    p = command("remember", cmd_remember, "write a knowledge record (or many, as JSON) anchored to code")
    p.add_argument("--title", help="needed for a new record without --key (it then takes its title from the key);"
                                   " an update keeps its title unless given")
    p.add_argument("--body", help="Markdown; - reads it from standard input")
    p.add_argument("--type", choices=KNOWLEDGE_TYPES, help="default note")
    p.add_argument("--category", help="dotted, e.g. infra.database (default general)")
    p.add_argument("--key", help="unique within the category: writing it again updates that record, changing only"
                                 " the fields given")
    p.add_argument("--confidence", type=float, help="0 to 1 (default 1)")
    _common_fields(p)
    p.add_argument("--from-json", dest="json_file", help="a JSON list of records to write at once (- for standard input)")

    p = command("decide", cmd_decide, "record a decision (ADR), or supersede earlier ones")
    p.add_argument("--title", required=True)
    p.add_argument("--decision", required=True)
    p.add_argument("--context", default="")
    p.add_argument("--consequences", default="")
    p.add_argument("--status", choices=DECISION_STATUSES, default="accepted")
    p.add_argument("--supersedes", action="append", default=[], metavar="ID")
    _common_fields(p)

    p = command("recall", cmd_recall, "search records, or read one (--id) with its outline, a section, tables or history")
    p.add_argument("query", nargs="?", default="")
    p.add_argument("--id", help="one record by id")
    p.add_argument("--outline", action="store_true", help="with --id: the headings")
    p.add_argument("--section", help="with --id: one section, by heading")
    p.add_argument("--tables", action="store_true", help="with --id: the tables (in --section if given)")
    p.add_argument("--history", action="store_true", help="with --id: its git history")
    p.add_argument("--kind", choices=RECORD_KINDS)
    p.add_argument("--type", choices=KNOWLEDGE_TYPES)
    p.add_argument("--category")
    p.add_argument("--status", choices=DECISION_STATUSES)
    p.add_argument("--tag", action="append", dest="tags")
    p.add_argument("--entity", help="records anchored to this entity id, file or folder")
    p.add_argument("--min-confidence", type=float)
    p.add_argument("--sort", choices=("relevance", "recent"), default="relevance")
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--cursor")
    p.add_argument("--json", action="store_true")

    p = command("revise", cmd_revise, "edit a record's fields or status, or retract it; refuses a stale version")
    p.add_argument("id")
    p.add_argument("--version", type=int, required=True, help="the version you read (recall --id shows it)")
    p.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", help="a field to change (repeatable)")
    p.add_argument("--retract", action="store_true")
    p.add_argument("--reason", default="")
    p.add_argument("--json", action="store_true")

    p = command("verify", cmd_verify, "re-stamp a record's anchors after checking the code under them")
    p.add_argument("id")
    p.add_argument("--json", action="store_true")

    p = command("check", cmd_check, "accepted decisions and conventions anchored to code that changed")
    p.add_argument("--base", help="a git revision: also report code changed since it")
    p.add_argument("--strict", action="store_true", help="exit 1 when anything is reported (changed code, key conflicts)")
    p.add_argument("--json", action="store_true")


def _common_fields(p: argparse.ArgumentParser) -> None:
    # No defaults for the lists: left out, a keyed update keeps what the record has.
    p.add_argument("--tag", action="append", dest="tags")
    p.add_argument("--ref", action="append", dest="refs")
    p.add_argument("--anchor", action="append", dest="anchors", metavar="ENTITY",
                   help="an entity id (path::Qualified.name) or file path the record is about (repeatable)")
    p.add_argument("--scope", choices=SCOPES, default="shared",
                   help="shared (committed) or private (this clone); ephemeral lives only in `graphctx serve`")
    p.add_argument("--author", help="who it comes from (default: $GRAPHCTX_AUTHOR, else git config user.name)")
    p.add_argument("--json", action="store_true", help="print the written record as JSON")


def _renderer():
    from graphctx.project import Project

    return Project.record_text


def _store(args: argparse.Namespace):
    from graphctx.project import Project

    # This process ends with the command, so it cannot keep ephemeral records.
    return Project(args.repo, ephemeral=False)


def cmd_remember(args: argparse.Namespace) -> int:
    with _store(args) as store:
        if args.json_file:
            entries = _read_entries(args.json_file)
            results = store.remember(entries, scope=args.scope, author=args.author)
        else:
            body = sys.stdin.read() if args.body == "-" else args.body
            given = dict(title=args.title, body=body, type=args.type, category=args.category, key=args.key,
                         confidence=args.confidence, tags=args.tags, refs=args.refs, anchors=args.anchors)
            # Only what was given: a keyed update changes those fields and keeps the rest.
            results = store.remember(scope=args.scope, author=args.author,
                                     **{name: value for name, value in given.items() if value is not None})
    for result in results:
        _print_write(result, args.json)
    return 0


def _read_entries(source: str) -> list:
    from graphctx.errors import InvalidRequest

    where = "standard input" if source == "-" else source
    try:
        entries = json.loads(sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidRequest(f"cannot read {where} ({exc.strerror or exc}); give a JSON file that exists") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidRequest(f"{where} is not valid JSON ({exc}); give a JSON list of records") from None
    return entries if isinstance(entries, list) else [entries]


def cmd_decide(args: argparse.Namespace) -> int:
    with _store(args) as store:
        result = store.decide(args.title, args.decision, context=args.context, consequences=args.consequences,
                              status=args.status, supersedes=args.supersedes, tags=args.tags or (),
                              anchors=args.anchors or (), scope=args.scope, author=args.author)
    _print_write(result, args.json)
    return 0


def cmd_recall(args: argparse.Namespace) -> int:
    with _store(args) as store:
        if args.id:
            if args.outline:
                out = [h.model_dump() for h in store.outline(args.id)]
            elif args.tables:
                out = [t.model_dump() for t in store.tables(args.id, args.section)]
            elif args.section:
                out = store.section(args.id, args.section).model_dump()
            elif args.history:
                out = [h.model_dump(mode="json") for h in store.history(args.id)]
            else:
                out = store.record(args.id).model_dump(mode="json")
            _warn_conflicts(store.conflicts([args.id]))
            print(json.dumps(out, indent=2, default=str))
            return 0
        page = store.recall(args.query, kind=args.kind, type=args.type, category=args.category, status=args.status,
                            tags=args.tags or (), entity=args.entity, min_confidence=args.min_confidence, sort=args.sort,
                            limit=args.limit, cursor=args.cursor)
    _warn_conflicts(page.conflicts)
    render = _renderer()

    if args.json:
        print(page.model_dump_json(indent=2))
    elif page.hits:
        for hit in page.hits:
            print(render.hit_row(hit))
        if page.next_cursor:
            print(f"more: --cursor {page.next_cursor}", file=sys.stderr)
    else:
        print(render.PAST_LAST_PAGE if page.total else render.no_match("--sort recent"))
    return 0 if page.hits else 1  # an empty answer is "nothing found"


def _warn_conflicts(conflicts) -> None:
    for conflict in conflicts:
        print(f"warning: {conflict.message}", file=sys.stderr)


def cmd_revise(args: argparse.Namespace) -> int:
    from graphctx.errors import InvalidRequest

    changes = {}
    for item in args.set:
        field, sep, value = item.partition("=")
        if not sep:
            raise InvalidRequest(f"--set {item!r} is not FIELD=VALUE")
        if field in LIST_FIELDS:
            changes[field] = [v.strip() for v in value.split(",") if v.strip()]
        elif field == "retracted":
            if value.strip().lower() not in BOOLEANS:
                raise InvalidRequest(f"--set {item!r}: retracted is true or false")
            changes[field] = BOOLEANS[value.strip().lower()]
        else:
            changes[field] = value
    with _store(args) as store:
        if args.retract:
            result = store.retract(args.id, args.version, args.reason)
        else:
            result = store.revise(args.id, args.version, **changes)
    _print_write(result, args.json)
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    with _store(args) as store:
        _print_write(store.verify(args.id), args.json)
    return 0


def _print_write(result, as_json: bool) -> None:
    render = _renderer()

    print(result.model_dump_json(indent=2) if as_json else render.write_line(result))


def cmd_check(args: argparse.Namespace) -> int:
    with _store(args) as store:
        report = store.check(args.base)
    render = _renderer()

    print(report.model_dump_json(indent=2) if args.json else render.check_text(report))
    return 1 if args.strict and (report.items or report.conflicts) else 0
