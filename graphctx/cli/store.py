"""`graphctx store migrate|import|export`: the team server's PostgreSQL store from the command line.
`migrate` brings its schema up to date (a server also does at start); `import` copies a repository's
`.graphctx/` records and coordination into its project in the store, `export` copies them back into
the files. The store is `--store URL`, else $GRAPHCTX_STORE; the project key is `--project`, else
the repository folder's name. Safe to run again: nothing is lost or doubled."""

from __future__ import annotations

import argparse
import json
import os
import re
from collections.abc import Callable

from graphctx.errors import GraphctxError

STORE_ENV = "GRAPHCTX_STORE"
ACTIONS = {
    "migrate": "create or upgrade the store's schema (a server migrates at start too)",
    "import": "copy the repository's .graphctx/ records, tasks, claims, agents and runs into the store",
    "export": "copy the repository's project in the store into its .graphctx/ files",
}


def register(command: Callable[..., argparse.ArgumentParser]) -> None:
    p = command("store", None, "the team server's PostgreSQL store: migrate its schema, import or export a repository")
    p.set_defaults(run=lambda args: p.error("name an action: migrate, import or export"))
    actions = p.add_subparsers(title="actions", metavar="ACTION")
    for name, help in ACTIONS.items():
        a = actions.add_parser(name, help=help, description=help)
        a.add_argument("--store", help=f"postgresql://user@host:5432/db (default: ${STORE_ENV})")
        a.add_argument("--repo", default=argparse.SUPPRESS, help="the repository (default: the current one)")
        if name != "migrate":
            a.add_argument("--project", help="the project's key in the store (default: the repository folder's name)")
        a.add_argument("--json", action="store_true", help="print the data as JSON")
        a.set_defaults(run=cmd_store, action=name)


def store_url(given: str | None) -> str:
    url = given or os.environ.get(STORE_ENV, "").strip()
    if not url:
        raise GraphctxError(f"name the store: --store postgresql://user@host:5432/db, or set {STORE_ENV}")
    return url


def default_key(folder: str) -> str:
    """A project key from a folder name: lower case, other characters as '-'."""
    return re.sub(r"[^a-z0-9_.-]+", "-", folder.lower()).strip("-.") or "default"


def cmd_store(args: argparse.Namespace) -> int:
    from graphctx.project import Project

    store = Project.open_team_store(store_url(args.store))
    try:
        if args.action == "migrate":
            before, after = store.migrated
            data = {"store": store.where, "schema_before": before, "schema": after}
            line = (f"{store.where}: schema {after} (was {before})" if before != after
                    else f"{store.where}: schema {after}, already current")
        else:
            project = Project(args.repo, ephemeral=False)
            key = args.project or default_key(project.root.name)
            counts = store.project(key).transfer(project.root, "into-store" if args.action == "import" else "out-of-store")
            data = {"store": store.where, "project": key, "repository": str(project.root), "written": counts}
            where = f"{project.root} -> {store.where} project {key}" if args.action == "import" else \
                f"{store.where} project {key} -> {project.root}"
            line = f"{args.action}: {where}: " + ", ".join(f"{n} {kind}" for kind, n in counts.items())
    finally:
        store.close()
    print(json.dumps(data, indent=2) if args.json else line)
    return 0
