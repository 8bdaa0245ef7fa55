"""Whether a daemon serves a home: the lock every running `pbem serve` holds.

A daemon holds `<inbox>/pipe/.daemon.lock` shared (`serving`: several daemons may serve one
home). Whoever can take it exclusively knows that none runs: `pbem ingest` from a pipe
(pbem/sources/pipe.py) then stores the mail itself instead of spooling it for a daemon, and
`pbem restore` and `pbem key rotate`, which must not change the store or the key under a
running daemon, hold it exclusively for their whole length (`alone`), so that a daemon
starting meanwhile waits for them. The standard library only: the MTA's pipe reads it before
anything heavy is imported.
"""
from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK = ".daemon.lock"  # a leading dot: no watcher or folder listing takes it for mail


class DaemonRunning(Exception):
    """A daemon holds the home: what was asked must wait until it is stopped."""


def path(cfg) -> Path:
    """The lock file of the home `cfg` (pbem.base.settings.Settings) names: in the pipe's spool."""
    return cfg.inbox_path / "pipe" / LOCK


def _open(cfg, create: bool) -> int:
    lock = path(cfg)
    if create:
        lock.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        return os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    return os.open(lock, os.O_RDWR)


@contextmanager
def serving(cfg) -> Iterator[None]:
    """Held by a running daemon, shared. Waits while `alone` holds it (a restore, a key rotation)."""
    fd = _open(cfg, create=True)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)  # releases the lock


def running(cfg) -> bool:
    """Whether a daemon holds the home (the lock cannot be taken exclusively)."""
    try:
        fd = _open(cfg, create=False)
    except OSError:  # no spool, or no lock file: no daemon ever served here
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


@contextmanager
def alone(cfg, what: str) -> Iterator[None]:
    """The home held exclusively for `what` (e.g. "restore"): raises DaemonRunning, saying
    how to stop it, while a daemon holds it; a daemon that starts meanwhile waits for the end."""
    fd = _open(cfg, create=True)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise DaemonRunning(
                f"a `pbem serve` daemon is running on {cfg.home}: stop it first (`systemctl stop pbem`, or "
                f"SIGTERM to its process: `pbem status` names it; it finishes the message in hand), "
                f"then {what}, then start it again") from None
        yield
    finally:
        os.close(fd)
