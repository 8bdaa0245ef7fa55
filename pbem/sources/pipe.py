"""The MTA pipe's spool: `pbem ingest` from a pipe hands its mail to a running daemon.

An MTA starts one process per mail, and a process that imports the service and opens the
store costs about a second of CPU (interpreter, imports, engine content). So while a
`pbem serve` daemon runs on the home (it holds `LOCK` shared: pbem/base/daemonlock.py),
`pbem ingest` only writes the raw mail durably into the spool -- `<inbox>/pipe/`, a Maildir:
written in tmp/, fsynced, renamed into new/, the folder fsynced -- and exits 0; the daemon's
watcher wakes on the new file and `poll` stores and processes the spool as a batch (one
fsync), then unlinks each file. This module imports only the standard library and
`pbem.base` (settings, daemonlock), so the console script (pbem/entry.py) answers the pipe
before anything heavy is imported.

With no daemon running `ingest` processes the mail itself, as before (the store's commit,
exit 75 when it cannot be stored). A spooled mail waits for the next daemon or
`pbem serve --once` if the daemon stopped meanwhile: it is on disk, never lost; a copy the
MTA delivers twice is one message (Message-ID and content hash, pbem/inbound/process.py).
"""
from __future__ import annotations

import os
import secrets
import shutil
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from pbem.base import daemonlock
from pbem.base.daemonlock import LOCK, running as daemon_running  # noqa: F401 -- named here as before

if TYPE_CHECKING:
    from pbem.core.service import Service

EX_TEMPFAIL = 75
STALE_TMP_SECONDS = 36 * 3600  # a tmp/ file this old was left by an ingest that died mid-write


def folder(cfg) -> Path:
    return cfg.inbox_path / "pipe"


def ensure(cfg) -> Path:
    spool = folder(cfg)
    for sub in ("tmp", "new"):
        (spool / sub).mkdir(parents=True, exist_ok=True, mode=0o700)
    return spool


@contextmanager
def serving(cfg) -> Iterator[None]:
    """Held by a running daemon (pbem/base/daemonlock.py): while it is, `ingest` spools its mail for it."""
    ensure(cfg)
    with daemonlock.serving(cfg):
        yield


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def spool(cfg, stream: BinaryIO) -> Path:
    """Write the mail on `stream` into the spool, durable before it returns (the file and its
    rename fsynced). Raises OSError when it cannot: the MTA must then keep the mail."""
    spool = ensure(cfg)
    name = f"{time.time_ns()}.{os.getpid()}_{secrets.token_hex(4)}.{socket.gethostname().replace('/', '_')}"
    tmp = spool / "tmp" / name
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # it holds a token until processed
    try:
        with os.fdopen(fd, "wb") as f:
            shutil.copyfileobj(stream, f)  # streamed: a mail over the limit costs no memory here
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, spool / "new" / name)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(spool / "new")
    return spool / "new" / name


def waiting(cfg) -> list[Path]:
    """Spooled mail, oldest first (names start with the time they were written)."""
    new = folder(cfg) / "new"
    return sorted(p for p in new.iterdir() if not p.name.startswith(".")) if new.is_dir() else []


_listed: dict[Path, set[str]] = {}  # per spool, the names the last poll took in hand


def arrived_since_poll(cfg) -> bool:
    """Whether mail came into the spool after the last poll listed it (no watcher saw it while
    the daemon's cycle ran). A file the poll could not read does not count: it waits for the
    next poll, not in a loop."""
    seen = _listed.get(folder(cfg), set())
    return any(p.name not in seen for p in waiting(cfg))


def poll(svc: Service, stop=None) -> list:
    """Store and process what the pipe spooled, as a batch in one group commit (one fsync),
    then unlink each stored file: the store keeps it (masked). A crash before the unlink
    re-reads a file, known again as a duplicate. A file that cannot be read is logged and left."""
    from pbem.sources import take_batch
    _sweep_stale(svc.settings)
    files = waiting(svc.settings)
    _listed[folder(svc.settings)] = {p.name for p in files}
    stored = take_batch(svc, files, "stdin", stop)
    for file, _ in stored:  # after the group's fsync: the store holds each of them (masked)
        file.unlink(missing_ok=True)  # another daemon may have taken it first: stored once all the same
    return [result for _, result in stored]


def _sweep_stale(cfg) -> None:
    tmp = folder(cfg) / "tmp"
    if not tmp.is_dir():
        return
    limit = time.time() - STALE_TMP_SECONDS
    for p in tmp.iterdir():
        try:
            if p.stat().st_mtime < limit:
                p.unlink()
        except FileNotFoundError:
            pass


def pipe_home(argv: list[str]) -> str | None:
    """The home of a `pbem [--home H] ingest` with no FILE (the MTA pipe), None for any other
    command line, which the click CLI reads (pbem/cli/)."""
    home = None
    args = list(argv)
    while args and args[0].startswith("--home"):
        opt = args.pop(0)
        if opt.startswith("--home="):
            home = opt.split("=", 1)[1]
        elif opt == "--home" and args:
            home = args.pop(0)
        else:
            return None
    if args != ["ingest"]:
        return None
    return home or os.environ.get("PBEM_HOME") or "var"


def hand_over(home: str, stream: BinaryIO | None = None) -> int | None:
    """The exit code once the mail is spooled for a running daemon (75 if it could not be
    written), None when `ingest` must store and process it itself (no daemon runs, or the
    home's settings cannot be read: the CLI says what is wrong, with its exit code)."""
    import sys

    from pbem.base import settings as settings_mod
    try:
        cfg = settings_mod.load(home)
    except settings_mod.SettingsError:
        return None
    if not daemon_running(cfg):
        return None
    try:
        spool(cfg, stream or sys.stdin.buffer)
    except OSError as e:
        print(f"error: {e}; the mail was not stored: try again later", file=sys.stderr)
        return EX_TEMPFAIL
    print("stdin: spooled: the daemon processes it now")
    return 0
