"""Where graphctx keeps its files in a repository and how it names entities: the `.graphctx/`
folder (index, configuration, record folders and their derived index) and the entity id format,
`path::Qualified.name` (a file's id is its path; `ext:name` for names outside the repository),
with its parse. Standard library only, so any layer, and a command before it loads anything
heavy, may use it."""

from __future__ import annotations

from pathlib import Path

INDEX_DIR = ".graphctx"  # in the repository root
INDEX_FILE = "index.db"
CONFIG_FILE = "config.toml"
RECORDS_DB = "records.db"  # derived from the record files, rebuilt when they change
# Record folders under INDEX_DIR per scope: shared ones are committed, private ones gitignored.
RECORD_SCOPE_DIRS: dict[str, tuple[str, ...]] = {"shared": ("records",), "private": ("private", "records")}

ID_SEPARATOR = "::"
EXTERNAL_PREFIX = "ext:"


def index_dir(root: Path) -> Path:
    return root / INDEX_DIR


def index_path(root: Path) -> Path:
    return root / INDEX_DIR / INDEX_FILE


def config_path(root: Path) -> Path:
    return root / INDEX_DIR / CONFIG_FILE


def record_dirs(root: Path) -> list[Path]:
    """The folders record files live in, shared first."""
    return [index_dir(root).joinpath(*parts) for parts in RECORD_SCOPE_DIRS.values()]


def entity_id(path: str, qualified_name: str) -> str:
    """The id of an entity: `path::Qualified.name`, or the path alone for a file."""
    return f"{path}{ID_SEPARATOR}{qualified_name}" if qualified_name else path


def split_entity_id(entity_id: str) -> tuple[str, str]:
    """(path, qualified name) of an id; the qualified name is empty for a file's id."""
    path, _, qualified = entity_id.partition(ID_SEPARATOR)
    return path, qualified


def entity_path(entity_id: str) -> str:
    """The file an entity is in (a file's id is its path)."""
    return entity_id.partition(ID_SEPARATOR)[0]


def short_name(name: str) -> str:
    """The last part of an id or a qualified name: `Store.add` for `a/b.py::Store.add` gives `add`."""
    return name.rsplit(ID_SEPARATOR, 1)[-1].rsplit(".", 1)[-1]


def external_id(name: str) -> str:
    return EXTERNAL_PREFIX + name
