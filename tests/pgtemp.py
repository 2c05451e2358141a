"""A throwaway PostgreSQL server on 127.0.0.1 for tests and benchmarks (Debian's ``postgresql`` binaries).

``TempServer`` runs ``initdb`` in a temporary directory, starts ``postgres`` on a free port and
stops it (and deletes the directory) on ``stop``. As root, the server runs as the ``postgres``
user, because PostgreSQL refuses to run as root.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

PASSWORD = "karaka-test"


def find_bindir() -> Path | None:
    """The directory holding ``initdb`` and ``pg_ctl``, or None when no server is installed."""
    env = os.environ.get("KARAKA_PG_BINDIR")
    candidates = [env] if env else []
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    found = shutil.which("initdb")
    if found:
        candidates.append(str(Path(found).resolve().parent))
    for item in candidates:
        if item and (Path(item) / "initdb").exists() and (Path(item) / "pg_ctl").exists():
            return Path(item)
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class TempServer:
    """One server; ``url(db)`` gives a connection URL with the superuser's password."""

    def __init__(self, bindir: Path | None = None):
        found = bindir or find_bindir()
        if found is None:
            raise RuntimeError("no PostgreSQL server binaries (install Debian's postgresql package)")
        self.bindir = found
        self.dir = Path(tempfile.mkdtemp(prefix="karaka-pg-"))
        self.data = self.dir / "data"
        self.port = _free_port()
        self.user = "postgres" if os.geteuid() == 0 else None
        self._started = False

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self.user:
            command = ["runuser", "-u", self.user, "--", *command]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)

    def start(self) -> TempServer:
        """initdb, then start and wait until the server accepts connections."""
        pwfile = self.dir / "pw"
        pwfile.write_text(PASSWORD)
        if self.user:
            shutil.chown(self.dir, self.user)
            shutil.chown(pwfile, self.user)
            os.chmod(self.dir, 0o700)
        done = self._run("initdb", "-D", str(self.data), "-U", "postgres", "--pwfile", str(pwfile),
                         "--auth-host=scram-sha-256", "--auth-local=trust", "-E", "UTF8", "--no-sync")
        if done.returncode:
            raise RuntimeError(f"initdb failed: {done.stderr.strip() or done.stdout.strip()}")
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        done = self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.dir / "log"), "-w",
                         "-t", "60", "start")
        if done.returncode:
            log = (self.dir / "log").read_text() if (self.dir / "log").exists() else ""
            raise RuntimeError(f"postgres did not start: {done.stderr.strip()} {log[-2000:]}")
        self._started = True
        return self

    def url(self, db: str = "postgres", password: str = PASSWORD) -> str:
        """A URL for a database on this server."""
        return f"postgresql://postgres:{password}@127.0.0.1:{self.port}/{db}"

    def create_db(self, name: str) -> str:
        """Create a database; returns its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def restart(self) -> None:
        """Stop and start again (fast shutdown: open connections are cut)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.dir / "log"), "-w", "start")

    def stop(self) -> None:
        """Stop the server and delete its directory."""
        if self._started:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
            self._started = False
        shutil.rmtree(self.dir, ignore_errors=True)
