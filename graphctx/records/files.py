"""Record files, the truth of the records layer: where they live, how a record becomes Markdown with
YAML front matter and back, the atomic write (temporary file in the same folder, fsync, rename) and
the lock that serializes writers across processes, so no write is lost or half done."""

from __future__ import annotations

import os
import re
import sys
import tempfile
import time
from pathlib import Path

import yaml
from pydantic import ValidationError

from graphctx import deadline
from graphctx.errors import DeadlineExceeded, quote
from graphctx.index import store
from graphctx.layout import INDEX_DIR, RECORD_SCOPE_DIRS, RECORDS_DB  # noqa: F401 - RECORDS_DB: re-exported
from graphctx.records import ids
from graphctx.records.errors import BrokenRecordFile, RecordError, validation_message
from graphctx.records.models import KIND_MODELS, Record

GRAPHCTX_DIR = INDEX_DIR
SCOPE_DIRS = RECORD_SCOPE_DIRS
LOCK_FILE = "records.lock"
# The derived index and the lock are local to a checkout; private records never leave it.
GITIGNORE_LINES = ("private/", "records.db*", "records.lock")
LOCK_TIMEOUT = 30.0

# The C (libyaml) safe loader and dumper are many times faster; the pure-Python ones behave the same.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_SLUG = re.compile(r"[^a-z0-9]+")


# ---- layout


def graphctx_dir(root: Path) -> Path:
    return root / GRAPHCTX_DIR


def scope_dir(root: Path, scope: str) -> Path:
    return graphctx_dir(root).joinpath(*SCOPE_DIRS[scope])


def slug(title: str, limit: int = 48) -> str:
    text = _SLUG.sub("-", title.lower()).strip("-")
    if len(text) > limit:
        text = text[:limit].rsplit("-", 1)[0] or text[:limit]
    return text or "record"


def new_path(root: Path, record: Record) -> Path:
    """Where a new record goes: the id first so names sort by time, then the title for people."""
    return scope_dir(root, record.scope) / record.FOLDER / f"{record.id}-{slug(record.title)}.md"


def scan(root: Path) -> dict[str, tuple[str, tuple[int, int, int]]]:
    """Every record file as relative path -> (scope, (mtime_ns, size, inode)). Temporary files of
    writes under way are dot-files and skipped. os.scandir, because this runs on every read."""
    out: dict[str, tuple[str, tuple[int, int, int]]] = {}
    for scope in SCOPE_DIRS:
        folder = scope_dir(root, scope)
        prefix = relative(root, folder)
        stack = [(str(folder), prefix)]
        while stack:
            path, rel = stack.pop()
            try:
                entries = list(os.scandir(path))
            except (FileNotFoundError, NotADirectoryError):
                continue
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                if entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, f"{rel}/{entry.name}"))
                elif entry.name.endswith(".md"):
                    try:
                        stat = entry.stat()
                    except FileNotFoundError:
                        continue  # removed while we looked
                    out[f"{rel}/{entry.name}"] = (scope, (stat.st_mtime_ns, stat.st_size, stat.st_ino))
    return out


def find_file(root: Path, record_id: str) -> tuple[str, Path] | None:
    """The file of a record by the id its name starts with (the index may be behind a fresh write)."""
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", record_id):
        return None
    for scope in SCOPE_DIRS:
        folder = scope_dir(root, scope)
        if folder.is_dir():
            for path in folder.rglob(f"{record_id}*.md"):
                if path.stem == record_id or path.stem.startswith(record_id + "-"):
                    return scope, path
    return None


def ensure_layout(root: Path) -> None:
    """Create .graphctx/ with a .gitignore that keeps private records and derived files out of git."""
    folder = graphctx_dir(root)
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    try:
        current = ignore.read_text(encoding="utf-8")
    except FileNotFoundError:
        # The index writes its own .gitignore only when none exists, so include its lines too.
        current = ""
        wanted = store.INDEX_GITIGNORE.splitlines()
    else:
        wanted = []
    present = set(current.splitlines())
    missing = [line for line in dict.fromkeys((*wanted, *GITIGNORE_LINES)) if line not in present]
    if missing:
        prefix = current if not current or current.endswith("\n") else current + "\n"
        write_atomic(ignore, prefix + "".join(f"{line}\n" for line in missing))


# ---- Markdown with front matter


def render(record: Record) -> str:
    """The file text of a record: YAML front matter with the stored fields, then the Markdown."""
    front, body = _stored_fields(record)
    dumped = yaml.dump(front, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100,
                       default_flow_style=False)
    return f"---\n{dumped}---\n" + (f"\n{body}\n" if body else "")


def _stored_fields(record: Record) -> tuple[dict, str]:
    data = record.model_dump(mode="json", exclude_none=True)
    order = ["id", "kind", "title", *record.file_fields(), "tags", "anchors", "author", "created", "updated", "version"]
    if record.retracted_at is not None:
        order += ["retracted_at", "retracted_reason"]
    front = {name: data[name] for name in order if name in data}
    for name in ("created", "updated", "retracted_at"):
        if name in front:
            front[name] = format_time(getattr(record, name))
    return front, record.markdown()


def format_time(value) -> str:
    return value.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def split_front_matter(text: str, where: str) -> tuple[dict, str]:
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    if not text.startswith("---\n"):
        raise BrokenRecordFile(where, "no front matter: the file must start with a line '---', then the fields, then '---'")
    end = text.find("\n---\n", 3)
    if end < 0:
        if text.rstrip().endswith("\n---"):
            end = text.rstrip().rfind("\n---")
        else:
            raise BrokenRecordFile(where, "the front matter is not closed: add a line '---' after the fields")
    raw, body = text[4:end + 1], text[end + 5:]
    try:
        data = yaml.load(raw, Loader=_Loader)  # noqa: S506 - a safe loader, the C one when present
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" at line {mark.line + 2}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise BrokenRecordFile(where, f"the front matter is not valid YAML{line} ({problem})") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise BrokenRecordFile(where, "the front matter must be a list of 'field: value' lines")
    return data, body


def parse(text: str, where: str, scope: str = "shared") -> Record:
    """A record from its file text; `where` (the path) names the file in any error."""
    data, body = split_front_matter(text, where)
    stem = Path(where).stem
    data.setdefault("id", _id_from_name(stem))
    data["id"] = str(data["id"]).strip()
    kind = str(data.get("kind") or _kind_by_folder(where)).strip().lower()
    model = KIND_MODELS.get(kind)
    if model is None:
        raise BrokenRecordFile(where, f"field 'kind': invalid kind {quote(kind)}: use {' or '.join(KIND_MODELS)}")
    data["kind"] = kind
    data = model.from_file(data, body)
    data["scope"] = scope
    data["path"] = where
    for name in ("staleness", "superseded_by"):
        data.pop(name, None)  # derived on read; a hand-written value must not masquerade as the truth
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise BrokenRecordFile(where, validation_message(exc)) from None


def _id_from_name(stem: str) -> str:
    head = stem.split("-", 1)[0]
    return ids.normalize(head) if ids.is_id(ids.normalize(head)) else stem


def _kind_by_folder(where: str) -> str:
    """The kind of a file without a `kind` field, from the nearest kind folder it is in (knowledge by default)."""
    folders = {model.FOLDER: kind for kind, model in KIND_MODELS.items()}
    return next((folders[part] for part in reversed(Path(where).parts[:-1]) if part in folders), "knowledge")


def read(root: Path, path: Path, scope: str) -> Record:
    """One record file; a file that cannot be read raises BrokenRecordFile naming it."""
    where = relative(root, path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise BrokenRecordFile(where, f"not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise BrokenRecordFile(where, f"cannot read it ({exc.strerror or exc})") from None
    return parse(text, where, scope)


def relative(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


# ---- atomic writes and the writers' lock


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` so that a reader sees the old file or the new one, never a mix,
    and a crash leaves at most a dot-file behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem[:40]}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, 0o644)  # mkstemp makes it owner-only; a committed file should read like any other
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    _sync_folder(path.parent)


def remove(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        return
    _sync_folder(path.parent)


def _sync_folder(folder: Path) -> None:
    # The rename is durable only once the folder entry is on disk (POSIX; Windows has no folder fd).
    if sys.platform == "win32":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class WriteLock:
    """An exclusive lock on `.graphctx/records.lock` held while a writer reads, checks and writes,
    so a version check and the write after it are one step for every other process. The OS drops
    the lock when its holder dies, so a crashed writer never blocks the others."""

    def __init__(self, path: Path, timeout: float = LOCK_TIMEOUT):
        self.path = path
        self.timeout = timeout
        self._handle = None

    def __enter__(self) -> WriteLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+b")  # noqa: SIM115 - held until __exit__
        give_up = time.monotonic() + self.timeout
        pause = 0.001
        while not _try_lock(handle):
            if time.monotonic() > give_up:
                handle.close()
                raise RecordError(
                    f"the records are locked by another writer for over {self.timeout:.0f} s ({self.path});"
                    " retry when it has finished"
                )
            try:
                deadline.check()  # a server call out of time stops waiting, having written nothing
            except DeadlineExceeded:
                handle.close()
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.02)
        self._handle = handle
        return self

    def __exit__(self, *exc) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            _unlock(handle)
            handle.close()


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(handle) -> bool:
        try:
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False

    def _unlock(handle) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(handle) -> bool:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False

    def _unlock(handle) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
