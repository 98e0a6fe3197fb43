"""A throwaway PostgreSQL cluster for the tests: Debian's ``postgresql`` (``.ci/run`` installs it when missing).

``initdb`` into a temporary folder (as the ``postgres`` user when the tests run as
root: PostgreSQL refuses to run as root), the server on a free loopback port with
its socket in that folder, durability off (a test's data lives seconds). Each test
gets a database of its own (``new_database``); a password user exists for the tests
that check a password is never shown.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

__all__ = ["Cluster", "find_binaries"]

SUPERUSER = "gk"
PASSWORD_USER = "gk_pw"
PASSWORD = "s3cret-pw-never-shown-5f1c"


def find_binaries() -> Optional[Path]:
    """The folder with Debian's ``initdb`` / ``pg_ctl`` (the newest installed), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Cluster:
    def __init__(self, binaries: Path) -> None:
        self.binaries = binaries
        self.folder = Path(tempfile.mkdtemp(prefix="gatewaykit-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self._user: dict[str, Any] = {}
        if os.geteuid() == 0:
            import pwd

            name = "postgres" if _has_user("postgres") else "nobody"
            entry = pwd.getpwnam(name)
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
            self._user = {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}
        self._tool("initdb", "-D", str(self.data), "-A", "trust", "-U", SUPERUSER, "--no-sync", "-E", "UTF8",
                   "--locale=C.UTF-8", "--no-instructions")
        hba = self.data / "pg_hba.conf"  # the password user's password is checked (everyone else: trusted)
        hba.write_text(f"host all {PASSWORD_USER} 127.0.0.1/32 scram-sha-256\n" + hba.read_text())
        self.resume_server()
        self._count = 0
        self.execute(f"CREATE ROLE {PASSWORD_USER} LOGIN PASSWORD '{PASSWORD}' CREATEDB")

    def _tool(self, name: str, *args: str) -> None:
        subprocess.run([str(self.binaries / name), *args], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, cwd=self.folder, **self._user)

    def url(self, database: str = "postgres", user: str = SUPERUSER, password: Optional[str] = None) -> str:
        secret = f":{password}" if password else ""
        return f"postgresql://{user}{secret}@127.0.0.1:{self.port}/{database}"

    def execute(self, sql: str, database: str = "postgres") -> list[tuple]:
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True) as conn:
            cursor = conn.execute(sql)
            return cursor.fetchall() if cursor.description else []

    def new_database(self, owner: str = SUPERUSER) -> str:
        """A fresh empty database's name (each test its own class)."""
        self._count += 1
        name = f"class_{os.getpid()}_{self._count}"
        self.execute(f"CREATE DATABASE {name} OWNER {owner}")
        return name

    def stop(self) -> None:
        try:
            self._tool("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def pause_server(self) -> None:
        """Stop the server (a database that went away); :meth:`resume_server` starts it again on the same port."""
        self._tool("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def resume_server(self) -> None:
        """Start the server (on the same port)."""
        options = (f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        self._tool("pg_ctl", "-D", str(self.data), "-o", options, "-w", "-t", "60", "-l",
                   str(self.folder / "server.log"), "start")


def _has_user(name: str) -> bool:
    import pwd

    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def wait_until_up(cluster: Cluster, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            cluster.execute("SELECT 1")
            return
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
