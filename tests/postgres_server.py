"""A real PostgreSQL server for the tests: Debian's postgresql package (scripts/test installs it
where it is missing), a fresh cluster in a temporary folder on a free loopback port, trusting
local connections; it can be killed and started again on the same port. PostgreSQL refuses to
run as root, so under root (as on CI) the cluster belongs to the package's `postgres` user."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from tests.evm import as_child
from tests.redis_server import free_port


def running_in_group(group: int) -> bool:
    """Whether a process of the process group runs (one ended and not yet reaped does not)."""
    for stat in glob.glob("/proc/[0-9]*/stat"):
        with contextlib.suppress(OSError):
            # the fields after the command's closing parenthesis: state, parent, process group
            state, _, pgrp = Path(stat).read_text().rpartition(")")[2].split()[:3]
            if int(pgrp) == group and state != "Z":
                return True
    return False


def binaries() -> Path | None:
    """The newest installed PostgreSQL's bin folder, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"), key=lambda p: int(p.split("/")[4]))
    return Path(found[-1]).parent if found else None


class PostgresServer:
    def __init__(self) -> None:
        bin_dir = binaries()
        assert bin_dir is not None, "PostgreSQL is not installed (scripts/test installs Debian's postgresql)"
        self.bin = bin_dir
        self.port = free_port()
        self.directory = Path(tempfile.mkdtemp(prefix="index-pg-"))
        self.user = "postgres" if os.geteuid() == 0 else None
        self.ids = None
        if self.user:
            entry = pwd.getpwnam(self.user)
            self.ids = (entry.pw_uid, entry.pw_gid)
            os.chown(self.directory, entry.pw_uid, entry.pw_gid)
        self.process: subprocess.Popen[bytes] | None = None
        self._run([str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8"])

    @property
    def data(self) -> Path:
        return self.directory / "data"

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _command(self, argv: list[str]) -> list[str]:
        return ["runuser", "-u", self.user, "--", *argv] if self.user else argv

    def _run(self, argv: list[str]) -> None:
        subprocess.run(self._command(argv), check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        argv = [str(self.bin / "postgres"), "-D", str(self.data), "-p", str(self.port), "-h", "127.0.0.1"]
        argv += ["-k", str(self.directory), "-c", "fsync=off", "-c", "max_connections=200"]
        self.process = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=self._as_owner
        )
        deadline = time.monotonic() + 30
        ready = [str(self.bin / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres"]
        while time.monotonic() < deadline:
            assert self.process.poll() is None, "postgres exited at start"
            if subprocess.run(ready, capture_output=True).returncode == 0:
                return
            time.sleep(0.1)
        raise AssertionError("postgres did not accept connections")

    def create_database(self, name: str) -> str:
        """A new empty database's URL (`createdb`, run by whoever runs the tests: the server trusts loopback)."""
        argv = [str(self.bin / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name]
        subprocess.run(argv, check=True, capture_output=True, timeout=60)
        return self.url.rsplit("/", 1)[0] + "/" + name

    def _as_owner(self) -> None:
        """The server runs as the cluster's owner, in a process group of its own with its
        backends (`kill` ends them together), and ends with the tests, even by SIGKILL: the death
        signal is set after the change of user, which clears it."""
        os.setsid()
        if self.ids is not None:
            os.setgid(self.ids[1])
            os.setuid(self.ids[0])
        as_child()

    def kill(self) -> None:
        """SIGKILL to the server and its backends at once, as a crash: the next start recovers
        from the write-ahead log. It may start once no backend of the old one runs (they hold
        its shared memory); the crash leaves postmaster.pid behind, removed here."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and running_in_group(self.process.pid):
                time.sleep(0.02)
            (self.data / "postmaster.pid").unlink(missing_ok=True)

    def remove(self) -> None:
        self.kill()
        shutil.rmtree(self.directory, ignore_errors=True)
