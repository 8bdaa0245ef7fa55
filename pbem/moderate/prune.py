"""`pbem prune`: a long season's mail, forgotten once no game needs it.

What goes: the raw bytes of the messages processed (the store keeps each as it came, tokens
masked), the bodies of the mails sent (and their `.eml` copies in the outbox folder), the
report frames no queued mail names, the cached archives of games with no mail waiting
(home/archives/, made again when a game-over mail needs one) and the drop folder's `cur/`
copies. What stays: every row (a redelivered message is still known by its Message-ID and
content hash, a bounce still finds the mail it names, `inbox list` and `outbox list` still list
them), the move log, its events and snapshots (so `pbem export`, `verify` and `replay` work as
before), messages not processed and mail not sent, and for each seat of a running game the
last report `player resend` sends again. `--before` keeps what came or went after a date;
`--finished` prunes only the games that have ended, their last reports too.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from pbem.base import log
from pbem.outbound import sending
from pbem.store import iso

if TYPE_CHECKING:
    from pbem.core.service import Service


@dataclass
class Pruned:
    messages: int = 0  # raw messages forgotten
    message_bytes: int = 0
    mails: int = 0  # sent bodies forgotten
    mail_chars: int = 0  # their text, HTML and context (characters)
    files: int = 0  # .eml copies, cached archives, drop-folder copies removed
    file_bytes: int = 0
    frames: int = 0  # report frames deleted
    store_before: int | None = None  # the SQLite file (and its log) in bytes; None: PostgreSQL
    store_after: int | None = None
    compacted: bool = False  # the file was given back its room (VACUUM)


def prune(svc: Service, before: datetime | None = None, *, finished: bool = False) -> Pruned:
    """Forget what no game needs of what came or went before `before` (default: now); with
    `finished`, only of the games that have ended."""
    # the store dates rows to the second: "now" takes in this second's rows too (a prune right
    # after a mail would otherwise keep it)
    cut = before or svc.now() + timedelta(seconds=1)
    ended = [g["id"] for g in svc.store.games() if g["status"] == "ended"]
    games = ended if finished else None
    done = Pruned(store_before=_store_size(svc))
    with svc.store.transaction():
        inbox = svc.store.prune_inbox(iso(cut), games)
        outbox = svc.store.prune_outbox(iso(cut), games)
        done.frames = svc.store.prune_frames()
        waiting = svc.store.unsent_games()
    done.messages, done.message_bytes = inbox["rows"], inbox["bytes"]
    done.mails, done.mail_chars = outbox["rows"], outbox["bytes"]
    sent = [svc.settings.outbox_path / sending.eml_name(i) for i in outbox["ids"]]  # dated by their rows
    dated = [f for f in (Path(svc.settings.home) / "archives").glob("*.json")
             if f.stem.rpartition("-")[0] not in waiting and (not finished or f.stem.rpartition("-")[0] in ended)]
    if not finished:  # the drop folder's copies do not say their game
        dated += [f for f in (svc.settings.inbox_path / "cur").glob("*") if f.is_file()]
    for f in sent + [f for f in dated if f.stat().st_mtime < cut.timestamp()]:
        try:
            size = f.stat().st_size
            f.unlink()
        except FileNotFoundError:  # sent by SMTP, or taken away by whoever reads the folder
            continue
        done.files, done.file_bytes = done.files + 1, done.file_bytes + size
    done.compacted = svc.store.compact()
    done.store_after = _store_size(svc)
    log.get().info("pruned", before=iso(cut), finished=finished, messages=done.messages, mails=done.mails,
                   files=done.files, frames=done.frames)
    return done


def _store_size(svc: Service) -> int | None:
    if svc.settings.db_url is not None:
        return None
    path = svc.settings.db_path
    return sum(os.path.getsize(p) for p in (path, path.with_name(path.name + "-wal")) if p.exists())
