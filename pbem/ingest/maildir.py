"""A Maildir the MTA delivers to (Postfix `home_mailbox = Maildir/`, Dovecot LDA).

New mail is read from new/ and, once stored, moved to cur/ with the Seen flag, as a mail
reader would; so nothing is deleted and nothing is read twice."""
from __future__ import annotations

import mailbox
import os
from pathlib import Path

from pbem.process import Result, handle


def open_maildir(path: str | Path) -> mailbox.Maildir:
    """The Maildir at `path` (its tmp/, new/ and cur/ made if missing)."""
    return mailbox.Maildir(str(path), create=True)


def waiting(path: str | Path) -> list[Path]:
    new = Path(path) / "new"
    return sorted((p for p in new.iterdir() if not p.name.startswith(".")), key=lambda p: (p.stat().st_mtime, p.name)) \
        if new.is_dir() else []


def poll(svc, path: str | Path, stop=None) -> list[Result]:
    open_maildir(path)
    results, stored = [], []
    with svc.store.group_commit():  # one fsync for the batch, before any mail is marked seen
        for file in waiting(path):
            if stop is not None and stop.is_set():
                break
            results.append(handle(svc, file.read_bytes(), "mail", source="maildir"))
            stored.append(file)
    for file in stored:
        mark_seen(file)
    return results


def mark_seen(file: Path) -> None:
    name = file.name.split(":")[0]
    os.replace(file, file.parent.parent / "cur" / f"{name}:2,S")
