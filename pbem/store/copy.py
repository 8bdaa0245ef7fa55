"""`pbem store copy SRC DST`: a whole store into an empty one, SQLite to PostgreSQL or back
(the path for a moderator who outgrows one machine, and back to one file).

The source is read as one consistent snapshot while its daemon may go on; the target is
written in one transaction, and every game's hash chain is verified in it before it commits:
a copy that does not verify leaves the target as it was. Stop the daemons on the target's
side (there should be none: it must be empty) and point pbem.toml's `db` at it afterwards.
"""
from __future__ import annotations

import os
import secrets
from pathlib import Path

from pbem.store import open_store
from pbem.store.base import Store
from pbem.store.common import EPOCH, KEY_FINGERPRINT, is_url

# every table, parents before children, each with its key (the order rows are read in); the
# schema's own (schema_migrations) and service_meta (_copy_meta) apart. tests/test_postgres.py
# checks that no table of the schema is missing here.
TABLES = [("games", "id"), ("players", "game, name"), ("moves", "game, seq"), ("snapshots", "game, seq"),
          ("move_events", "game, seq"), ("report_frames", "id"), ("inbox", "id"), ("outbox", "id"),
          ("imap_claims", "mailbox, uidvalidity, uid"), ("deadlines", "game, prompt, player"),
          ("standing_orders", "game, player, n"), ("vacations", "id"), ("notices", "id"),
          ("uses", "what, who, at"), ("address_settings", "address"), ("misses", "game, prompt, player"),
          ("downtime", "since"), ("offers", "game, player, email")]
PAGE = 500


class CopyError(Exception):
    pass


def open_target(target: str | Path) -> Store:
    """A store by what names it: a postgresql:// URL, a SQLite file (made 0600 if new), or a
    home folder (the store its pbem.toml names)."""
    if not is_url(target) and Path(target).is_dir():
        from pbem.base import settings as settings_mod
        target = settings_mod.load(target).store_target
    if not is_url(target) and not Path(target).exists():
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))  # the seeds are secret
    return open_store(target if is_url(target) else Path(target))


def copy(src: Store, dst: Store) -> dict[str, int]:
    """Copy every row of `src` into the empty `dst`; {table: rows}. Raises CopyError."""
    counts: dict[str, int] = {}
    with src.snapshot(), dst.transaction():
        busy = [t for t, _ in TABLES if dst.query(f"SELECT 1 FROM {t} LIMIT 1")]
        if busy:
            raise CopyError(f"the target is not empty (it has {', '.join(busy)}): copy into a new store")
        for table, key in TABLES:
            counts[table] = 0
            while True:
                rows = src.query(f"SELECT * FROM {table} ORDER BY {key} LIMIT ? OFFSET ?", (PAGE, counts[table]))
                for row in rows:
                    dst._insert(table, row)
                counts[table] += len(rows)
                if len(rows) < PAGE:
                    break
        _copy_meta(src, dst)
        dst._after_copy()
        problems = [f"{g}: {p}" for g in dst.game_ids() for p in dst.verify_chain(g)]
        problems += [f"{t}: {n} rows read, {dst.query(f'SELECT COUNT(*) AS n FROM {t}')[0]['n']} written"
                     for t, n in counts.items() if dst.query(f"SELECT COUNT(*) AS n FROM {t}")[0]["n"] != n]
        if problems:
            raise CopyError("the copy does not verify, nothing was written: " + "; ".join(problems))
    return counts


def _copy_meta(src: Store, dst: Store) -> None:
    """The service's key fingerprint goes with its rows (the copy needs the same secret.key);
    the copy is a new store: a new Message-ID epoch, as after a restore (pbem/store/backup.py)."""
    fp = src.meta(KEY_FINGERPRINT)
    if fp is not None and dst.claim_meta(KEY_FINGERPRINT, fp) != fp:
        raise CopyError(f"the target was made under key {dst.meta(KEY_FINGERPRINT)}, the source under key {fp}: "
                        "copy into a store no other service has used")
    dst.set_meta(EPOCH, secrets.token_hex(4))
