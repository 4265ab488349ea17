"""`.graphctx/config.toml`: one table per concern, each checked by the layer it configures ([index]
by the indexer, [ranking] by the context engine); this reads the file and refuses what no layer
reads, naming the file and the fix. Standard library only."""

from __future__ import annotations

import difflib
import tomllib
from pathlib import Path
from typing import Any

from graphctx.errors import GraphctxError
from graphctx.layout import config_path

TABLES = ("index", "ranking")


class ConfigError(GraphctxError, ValueError):
    """`.graphctx/config.toml` cannot be used; the message names the file and the fix."""


def table(root: Path, name: str) -> dict[str, Any]:
    """The `[name]` table of the repository's configuration (empty when the file or table is absent)."""
    assert name in TABLES, name
    path = config_path(root)
    try:
        data = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}); fix or delete the file") from exc
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc.strerror}); fix or delete it") from exc
    try:
        tables = tomllib.loads(data)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}); fix or delete the file") from exc
    for unknown in sorted(set(tables) - set(TABLES)):
        close = difflib.get_close_matches(unknown, TABLES, n=1)
        hint = f"did you mean [{close[0]}]? " if close else ""
        what = f"table [{unknown}]" if isinstance(tables[unknown], dict) else f"key {unknown!r} outside any table"
        raise ConfigError(f"{path}: unknown {what}; {hint}the tables are {', '.join(f'[{t}]' for t in TABLES)}")
    found = tables.get(name, {})
    if not isinstance(found, dict):
        raise ConfigError(f"{path}: `{name}` must be a table ([{name}]), not {type(found).__name__}")
    return found
