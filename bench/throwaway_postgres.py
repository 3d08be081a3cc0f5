"""A PostgreSQL server of one's own, in a temporary folder on a port of one's choosing, to
restart and stop during outage tests and benchmarks without touching a shared server.

    with ThrowawayPostgres(55437) as server:
        server.database_create("evalsite_outage")
        server.restart("immediate")

Runs the server as the `postgres` user when started as root (initdb refuses root). Its data
are thrown away on exit. fsync is off (the operating system's cache outlives a server
crash, and nothing here needs to survive a power cut); commits stay synchronous, so an
immediate shutdown loses nothing that was acknowledged.
"""

import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path


def _binaries() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if not found:
        located = shutil.which("pg_ctl")
        if located is None:
            raise RuntimeError("pg_ctl not found: install PostgreSQL's server binaries")
        return Path(located).parent
    return Path(found[-1]).parent


class ThrowawayPostgres:
    def __init__(self, port: int, *, timeout: float = 60.0):
        self.port = port
        self.timeout = timeout
        self.bin = _binaries()
        self.folder = Path(tempfile.mkdtemp(prefix=f"evalsite-pg-{port}-"))
        self.data = self.folder / "data"
        self.as_postgres = os.geteuid() == 0

    def _run(self, *command: str, check: bool = True) -> subprocess.CompletedProcess:
        argv = [str(self.bin / command[0]), *command[1:]]
        if self.as_postgres:
            argv = ["runuser", "-u", "postgres", "--", *argv]
        return subprocess.run(
            argv, check=check, capture_output=True, text=True, timeout=self.timeout
        )

    def start(self) -> "ThrowawayPostgres":
        if self.as_postgres:
            shutil.chown(self.folder, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        self._pg_ctl("start")
        return self

    def _pg_ctl(self, action: str, *extra: str) -> None:
        options = (
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c max_connections=100"
        )
        self._run(
            "pg_ctl",
            action,
            "-D",
            str(self.data),
            "-w",
            "-t",
            "60",
            "-o",
            options,
            "-l",
            str(self.folder / "server.log"),
            *extra,
        )

    def restart(self, mode: str = "fast") -> None:
        """Stop (fast: roll back open transactions; immediate: as a crash would) and start."""
        self._pg_ctl("restart", "-m", mode)

    def stop(self) -> None:
        if self.data.exists():
            self._run("pg_ctl", "stop", "-D", str(self.data), "-m", "immediate", check=False)
        shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def database_create(self, name: str) -> str:
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)
        return self.url(name)

    def query(self, database: str, sql: str) -> str:
        return self._run(
            "psql",
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-U",
            "postgres",
            "-d",
            database,
            "-At",
            "-c",
            sql,
        ).stdout.strip()

    def __enter__(self) -> "ThrowawayPostgres":
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()
