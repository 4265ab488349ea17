"""One PostgreSQL database shared by every project a team server hosts: a connection pool, and
transactions that hold a named advisory lock, so a read, a check and the writes after it are one
step for every writer on every machine. A thread inside a transaction does all its work on that
transaction's connection (so its reads see its own writes); nested transactions join it."""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from graphctx.errors import GraphctxError

URL_SCHEMES = ("postgresql", "postgres")
POOL_MAX = 16  # connections one process keeps at most (a server answers 8 calls at once, plus the watcher)
CONNECT_TIMEOUT = 10  # seconds to wait for the database at start


class StoreError(GraphctxError):
    """The team store cannot be reached or used; the message says why and what to do."""


def check_url(url: str) -> str:
    """A PostgreSQL URL as given, or a one-sentence error saying what one looks like."""
    scheme = urlsplit(url).scheme if "://" in url else ""
    if scheme not in URL_SCHEMES:
        raise StoreError(f"--store takes a PostgreSQL URL such as postgresql://user@host:5432/graphctx; got "
                         f"{shown(url)!r}")
    return url


def shown(url: str) -> str:
    """The URL without its password, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return url.replace(f":{parts.password}@", ":***@", 1)


def lock_key(name: str) -> int:
    """A stable signed 64-bit advisory-lock key for a name (every process computes the same)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


def psycopg_modules():
    try:
        import psycopg
        import psycopg_pool
    except ImportError:
        raise StoreError("the PostgreSQL store needs psycopg; install it with: pip install 'graphctx[team]'") from None
    return psycopg, psycopg_pool


class Database:
    """A pool of connections to the database at `url` (autocommit outside `transaction`)."""

    def __init__(self, url: str, *, max_size: int = POOL_MAX):
        self.url = check_url(url)
        psycopg, psycopg_pool = psycopg_modules()
        self.errors = psycopg.Error
        self._local = threading.local()
        try:  # first one plain connection, so an unreachable store is one clear error at once
            psycopg.connect(self.url, connect_timeout=CONNECT_TIMEOUT).close()
        except psycopg.Error as exc:
            raise StoreError(f"cannot reach the PostgreSQL store at {shown(url)} ({' '.join(str(exc).split())[:200]});"
                             " check that the server runs and the URL, user and password are right") from None
        # The pool retries a lost connection on its own; its per-attempt warnings would flood the log.
        logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
        self.pool = psycopg_pool.ConnectionPool(self.url, min_size=1, max_size=max_size, open=False,
                                                kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT})
        try:
            self.pool.open(wait=True, timeout=CONNECT_TIMEOUT)
        except psycopg_pool.PoolTimeout:
            self.pool.close()
            raise StoreError(f"the PostgreSQL store at {shown(url)} accepted no pooled connection within "
                             f"{CONNECT_TIMEOUT} s; check its max_connections and load") from None

    def close(self) -> None:
        self.pool.close()

    @contextmanager
    def connection(self) -> Iterator[Any]:
        """The connection of this thread's transaction, else one from the pool (autocommit)."""
        held = getattr(self._local, "conn", None)
        if held is not None:
            yield held
            return
        with self._reworded(), self.pool.connection() as conn:
            yield conn

    @contextmanager
    def _reworded(self) -> Iterator[None]:
        """A lost connection or a server going away as a StoreError: one sentence, and nothing was written
        (the transaction it was in rolled back). The pool replaces the broken connection."""
        psycopg, psycopg_pool = psycopg_modules()
        try:
            yield
        except (psycopg.OperationalError, psycopg_pool.PoolTimeout) as exc:
            raise StoreError(f"the team store at {shown(self.url)} failed ({' '.join(str(exc).split())[:160]}); "
                             "nothing was written; retry in a moment") from None

    @contextmanager
    def transaction(self, lock: str) -> Iterator[Any]:
        """A transaction holding the advisory lock named `lock` until it commits (or rolls back: an
        exception, or the process dying, releases it). Reentrant within a thread."""
        held = getattr(self._local, "conn", None)
        if held is not None:
            locks: set[str] = self._local.locks
            if lock not in locks:
                held.execute("SELECT pg_advisory_xact_lock(%s)", (lock_key(lock),))
                locks.add(lock)
            yield held
            return
        with self._reworded(), self.pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (lock_key(lock),))
            self._local.conn, self._local.locks = conn, {lock}
            try:
                yield conn
            finally:
                self._local.conn = None

    def reachable(self) -> bool:
        """Whether the database answers a query now."""
        try:
            with self.pool.connection(timeout=5) as conn:
                conn.execute("SELECT 1")
            return True
        except Exception:  # noqa: BLE001 - any failure means not reachable, which is the answer
            return False
