"""A throwaway PostgreSQL server for the tests: `initdb` into a fresh temporary folder, `pg_ctl start`
on loopback at a free port (trust authentication, a socket in that folder), stopped and removed at
the end. PostgreSQL refuses to run as root, so as root the server runs as the `postgres` user the
distribution's package creates (else `nobody`), which owns the folder. The binaries are found on
PATH or under /usr/lib/postgresql/*/bin (Debian's package); without them the caller skips."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path


def binaries() -> Path | None:
    """The folder holding initdb and pg_ctl, or None when PostgreSQL is not installed."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.access(Path(folder) / "initdb", os.X_OK):
            return Path(folder)
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PostgresServer:
    def __init__(self, bin_dir: Path):
        self.bin = bin_dir
        # As root, under /tmp: the server's user must reach the folder, and $TMPDIR may be root's own.
        root_tmp = "/tmp" if os.geteuid() == 0 and os.path.isdir("/tmp") else None
        self.folder = Path(tempfile.mkdtemp(prefix="graphctx-pg-", dir=root_tmp))
        self.port = free_port()
        self.user = None
        if os.geteuid() == 0:  # postgres will not run as root
            self.user = "postgres" if _user_exists("postgres") else "nobody"
            entry = pwd.getpwnam(self.user)
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        command = [str(self.bin / args[0]), *args[1:]]
        if self.user:
            command = ["runuser", "-u", self.user, "--", *command]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120, cwd="/")

    def start(self) -> PostgresServer:
        self._run("initdb", "-D", str(self.folder / "data"), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync")
        return self.resume()

    def pause(self) -> None:
        """Stop the server process, keeping its data (resume() starts it again on the same port)."""
        self._run("pg_ctl", "-D", str(self.folder / "data"), "-m", "fast", "-w", "stop")

    def resume(self) -> PostgresServer:
        self._run("pg_ctl", "-D", str(self.folder / "data"), "-l", str(self.folder / "log"), "-w", "-t", "60", "start",
                  "-o", f"-k {self.folder} -p {self.port} -c listen_addresses=127.0.0.1 -c fsync=off "
                  "-c max_connections=300")
        return self

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.folder / "data"), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def new_database(self) -> str:
        """The URL of a new, empty database on this server."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url.rsplit("/", 1)[0] + f"/{name}"


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False
