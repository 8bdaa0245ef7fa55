"""A real PostgreSQL for the tests: one cluster per test session, started here with the
server's own initdb and pg_ctl (Debian's `postgresql` package; .ci/run installs it), as a
user other than root, its data and socket in a temporary folder, on a loopback port. Each
test gets a database of its own. Without the server the PostgreSQL tests skip, and the
run's summary says why (pytest_terminal_summary below)."""
from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

SKIPPED: list[str] = []  # why the cluster could not start, for the summary
_names = itertools.count(1)


def _bin_dir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server_user() -> str | None:
    """Who runs the server: postgres refuses root. None: ourselves (not root)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "pbemtest"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "pbemtest"],
                   check=True, capture_output=True)
    return "pbemtest"


class Cluster:
    def __init__(self, bindir: Path):
        self.bindir, self.port = bindir, _free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="pbem-pg-"))
        self.user = _server_user()
        self.data = self.dir / "data"
        if self.user:
            pw = pwd.getpwnam(self.user)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        self._as_server("initdb", "-D", str(self.data), "-U", "pbem", "--auth=trust", "--no-sync", "-E", "UTF8",
                        "--locale=C")
        # durability is not what these tests test: no fsync, for speed
        opts = (f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        self._as_server("pg_ctl", "-D", str(self.data), "-o", opts, "-l", str(self.dir / "log"), "-w", "-t", "60",
                        "start")
        self.url = f"postgresql://pbem@127.0.0.1:{self.port}/postgres"

    def _as_server(self, tool: str, *args: str) -> None:
        cmd = [str(self.bindir / tool), *args]
        if self.user:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=self.dir)
        if done.returncode != 0:
            log = (self.dir / "log").read_text() if (self.dir / "log").exists() else ""
            raise RuntimeError(f"{tool} failed: {done.stderr.strip() or done.stdout.strip()} {log[-2000:]}")

    def database(self) -> str:
        import psycopg
        name = f"t{os.getpid()}_{next(_names)}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url.rsplit("/", 1)[0] + "/" + name

    def drop(self, url: str) -> None:
        import psycopg
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {url.rsplit('/', 1)[1]} WITH (FORCE)")

    def stop(self) -> None:
        try:
            self._as_server("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_cluster():
    bindir = _bin_dir()
    if bindir is None:
        reason = "no PostgreSQL server (initdb): the PostgreSQL tests skip (Debian: apt-get install postgresql)"
        SKIPPED.append(reason)
        pytest.skip(reason)
    try:
        import psycopg  # noqa: F401
    except ImportError:
        SKIPPED.append("psycopg is not installed: the PostgreSQL tests skip")
        pytest.skip(SKIPPED[-1])
    try:
        cluster = Cluster(bindir)
    except (RuntimeError, OSError, subprocess.SubprocessError) as e:
        SKIPPED.append(f"the PostgreSQL cluster did not start: {e}")
        pytest.skip(SKIPPED[-1])
    yield cluster
    cluster.stop()


@pytest.fixture
def pg_url(pg_cluster):
    """A new, empty database on the session's cluster: its URL."""
    url = pg_cluster.database()
    yield url
    pg_cluster.drop(url)


def pytest_terminal_summary(terminalreporter):
    for reason in dict.fromkeys(SKIPPED):
        terminalreporter.write_line(f"PostgreSQL: {reason}", yellow=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_setting(request) -> dict:
    """The store setting of a test run on both stores: {} (the home's SQLite file) or
    {"db": a new PostgreSQL database}. A module runs on both by wrapping make_service:
    `functools.partial(make_service, **db_setting)`."""
    if request.param == "sqlite":
        return {}
    return {"db": request.getfixturevalue("pg_url")}


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def either_store(request) -> dict:
    """As db_setting, with the PostgreSQL half behind the `postgres` marker (`pytest -m
    postgres`, which .ci/run runs): for whole modules of the pipeline's tests, run on both
    stores without doubling the default run. A module opts in with
    `make_service = functools.partial(make_service, **either_store)` (a fixture)."""
    if request.param == "sqlite":
        return {}
    return {"db": request.getfixturevalue("pg_url")}


def pg_database(request) -> str:
    """A new database on the session's cluster for a fixture of a wider scope than pg_url's
    (dropped when that fixture's scope ends)."""
    cluster = request.getfixturevalue("pg_cluster")
    url = cluster.database()
    request.addfinalizer(lambda: cluster.drop(url))
    return url
