"""`pbem backup FILE` and `pbem restore FILE`: SQLite's online backup API, both ways.

The store runs in WAL mode, so a plain copy of pbem.db while the daemon runs misses what is
still in the write-ahead log (and a copy of both can catch them mid-checkpoint). The backup
API copies the database as one reader's consistent snapshot while writers go on. A backup
holds no credential: the service key (secret.key) is not in the store; back it up once,
apart (it never changes, and without it no player's token works).

A restore writes the backup into the live store through the same API, so SQLite itself keeps
the WAL right (copying a file over pbem.db would leave an old -wal beside it). It checks the
backup first: SQLite's integrity check, every game's hash chain, and that it was made under
the home's key (its tokens and seeds need that key). It is refused while a daemon runs, and
holds the home meanwhile (pbem/base/daemonlock.py): a daemon that starts waits for it. The
restored store gets a new epoch, part of every Message-ID made from then on: the mails the
restored store would make again were sent before, with other content, and a receiving side
that drops a second copy by Message-ID (as the threads and dedupe of every mail program do)
would drop the new ones.
"""
from __future__ import annotations

import os
import secrets
import sqlite3
from pathlib import Path

from pbem.base import daemonlock, tokens
from pbem.store import open_store
from pbem.store.common import EPOCH, KEY_FINGERPRINT, is_url


class BackupError(Exception):
    pass


def _sqlite_only(db) -> None:
    if is_url(db):
        raise BackupError("the store is PostgreSQL: back it up with pg_dump, or copy it into a SQLite file "
                          "with `pbem store copy HOME FILE`")


def check(path: Path) -> list[str]:
    """What is wrong with the store at `path` (empty: sound, every game's chain verifies)."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            ok = conn.execute("PRAGMA integrity_check").fetchone()[0]
            games = [r[0] for r in conn.execute("SELECT id FROM games ORDER BY id")]
        finally:
            conn.close()
    except sqlite3.Error as e:
        return [f"{path}: not a readable store ({e})"]
    if ok != "ok":
        return [f"{path}: integrity check: {ok}"]
    store = open_store(path)
    try:
        return [f"{g}: {p}" for g in games for p in store.verify_chain(g)]
    finally:
        store.close()


def copy_sqlite(src: Path, dst: Path) -> None:
    """A consistent copy of the SQLite store `src` (WAL included) into `dst`."""
    source = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
    target = sqlite3.connect(str(dst))
    try:
        source.backup(target)  # all pages in one step: one consistent snapshot
    finally:
        target.close()
        source.close()


def backup(db: Path, file: str | Path) -> dict:
    """Copy the store `db` into `file` (0600, written under a temporary name, then renamed),
    and check the copy. Returns {"games": n, "moves": n}."""
    _sqlite_only(db)
    file = Path(file)
    if not Path(db).is_file():
        raise BackupError(f"{db}: no store to back up")
    tmp = file.with_name(f".{file.name}.tmp")
    tmp.unlink(missing_ok=True)
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))  # the seeds are secret
    try:
        copy_sqlite(Path(db), tmp)
        problems = check(tmp)
        if problems:
            raise BackupError("the copy does not verify: " + "; ".join(problems))
        os.replace(tmp, file)
    finally:
        tmp.unlink(missing_ok=True)
    return _counts(file)


def restore(file: str | Path, cfg) -> dict:
    """Replace the store of the home `cfg` (pbem.base.settings.Settings) by the backup `file`,
    once it verifies and was made under the home's key, with a new epoch. Raises BackupError,
    and daemonlock.DaemonRunning while a `pbem serve` runs on the home. What happened after the
    backup was taken is undone (its mails may have gone out)."""
    db = cfg.store_target
    _sqlite_only(db)
    file, db = Path(file), Path(db)
    if not db.is_file():
        raise BackupError(f"{db}: no store to restore into (`pbem init` makes one)")
    ours = tokens.fingerprint(tokens.read_key(cfg.key_path))
    with daemonlock.alone(cfg, "restore"):
        tmp = db.with_name(f".{db.name}.restore")  # the backup made ready beside the store, never the file given
        _remove(tmp)
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))  # the seeds are secret
        try:
            try:
                copy_sqlite(file, tmp)
            except sqlite3.Error as e:
                raise BackupError(f"{file}: not a readable store ({e})") from None
            problems = check(tmp)
            if problems:
                raise BackupError(f"{file} is not restored: " + "; ".join(problems))
            store = open_store(tmp)
            try:
                made_with = store.meta(KEY_FINGERPRINT)
                if made_with and made_with != ours:
                    raise BackupError(
                        f"{file} was made under key {made_with}, and this home's {cfg.key_path} is key {ours}: its "
                        f"tokens and seeds need that key. Put it back first (after `pbem key rotate` it is kept as "
                        f"{cfg.key_path.name}.{made_with}.old), then restore")
                store.claim_meta(KEY_FINGERPRINT, ours)
                epoch = secrets.token_hex(4)
                store.set_meta(EPOCH, epoch)
                last_mail = store.query("SELECT COALESCE(MAX(id), 0) AS n FROM outbox")[0]["n"]
            finally:
                store.close()
            copy_sqlite(tmp, db)
        finally:
            _remove(tmp)
        _set_aside_sent_copies(cfg.outbox_path, last_mail, epoch)
    return _counts(db)


def _set_aside_sent_copies(outbox: Path, last_mail: int, epoch: str) -> None:
    """The outbox folder's copies of mails sent after the backup (the file sender names them by
    their row, pbem/outbound/sending.py) moved into `before-restore-<epoch>/`: the restored store
    hands those rows' numbers out again, and the new mails' copies would overwrite them."""
    aside = outbox / f"before-restore-{epoch}"
    for copy in sorted(outbox.glob("*.eml")) if outbox.is_dir() else []:
        if copy.stem.isdigit() and int(copy.stem) > last_mail:
            aside.mkdir(mode=0o700, exist_ok=True)
            os.replace(copy, aside / copy.name)


def _remove(db: Path) -> None:
    for path in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        path.unlink(missing_ok=True)


def _counts(path: Path) -> dict:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return {"games": conn.execute("SELECT COUNT(*) FROM games").fetchone()[0],
                "moves": conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0]}
    finally:
        conn.close()
