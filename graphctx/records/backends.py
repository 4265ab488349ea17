"""Where records are kept unless the caller says otherwise: the shared and private scopes in files
under `.graphctx/`, the ephemeral scope in this process's memory (only for a process that lives long
enough to serve it). Another storage backend is another mapping of scopes to RecordRepository
objects, handed to RecordStore; the use cases do not change."""

from __future__ import annotations

from pathlib import Path

from graphctx.records.file_repository import FileRepository
from graphctx.records.memory_repository import MemoryRepository
from graphctx.records.repository import RecordRepository


def local_repositories(root: Path, *, holds_ephemeral: bool = True) -> dict[str, RecordRepository]:
    in_files = FileRepository(root)
    by_scope: dict[str, RecordRepository] = {scope: in_files for scope in in_files.scopes}
    if holds_ephemeral:
        by_scope["ephemeral"] = MemoryRepository()
    return by_scope
