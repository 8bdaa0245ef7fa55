"""A Maildir the MTA delivers to (Postfix `home_mailbox = Maildir/`, Dovecot LDA).

New mail is read from new/ and, once stored, moved to cur/ with the Seen flag, as a mail
reader would (as stored: its tokens masked); so nothing is read twice."""
from __future__ import annotations

import mailbox
from pathlib import Path
from typing import TYPE_CHECKING

from pbem.inbound.process import Result
from pbem.sources import replace_with_stored, take_batch

if TYPE_CHECKING:
    from pbem.core.service import Service


def open_maildir(path: str | Path) -> mailbox.Maildir:
    """The Maildir at `path` (its tmp/, new/ and cur/ made if missing)."""
    return mailbox.Maildir(str(path), create=True)


def waiting(path: str | Path) -> list[Path]:
    new = Path(path) / "new"
    return sorted((p for p in new.iterdir() if not p.name.startswith(".")), key=lambda p: (p.stat().st_mtime, p.name)) \
        if new.is_dir() else []


def poll(svc: Service, path: str | Path, stop=None) -> list[Result]:
    """Store and process the new mail as a batch (one fsync: mail is known again by its
    Message-ID and content, so a crash before the marks re-reads and applies nothing twice),
    then mark each stored one seen. A file that cannot be read is logged and left."""
    open_maildir(path)
    stored = take_batch(svc, waiting(path), "maildir", stop)
    for file, result in stored:
        try:
            mark_seen(svc, file, result.inbox_id)
        except FileNotFoundError:  # another daemon marked it: stored once all the same
            pass
    return [result for _, result in stored]


def mark_seen(svc: Service, file: Path, inbox_id: int | None = None) -> Path:
    """To cur/ with the Seen flag, as a mail reader would; the copy kept is the stored one
    (its tokens masked)."""
    name = file.name.split(":")[0]
    return replace_with_stored(svc, file, file.parent.parent / "cur" / f"{name}:2,S", inbox_id)
