"""`pbem backup FILE` and `pbem restore FILE`: SQLite's online backup API, both ways.

The store runs in WAL mode, so a plain copy of pbem.db while the daemon runs misses what is
still in the write-ahead log (and a copy of both can catch them mid-checkpoint). The backup
API copies the database as one reader's consistent snapshot while writers go on. A backup
holds no credential: the service key (secret.key) is not in the store; back it up once,
apart (it never changes, and without it no player's token works).

A restore writes the backup into the live store through the same API, so SQLite itself keeps
the WAL right (copying a file over pbem.db would leave an old -wal beside it). It checks the
backup first: SQLite's integrity check, and every game's hash chain.
"""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from pbem.store import open_store
from pbem.store.common import is_url


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


def _copy(src: Path, dst: Path) -> None:
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
        _copy(Path(db), tmp)
        problems = check(tmp)
        if problems:
            raise BackupError("the copy does not verify: " + "; ".join(problems))
        os.replace(tmp, file)
    finally:
        tmp.unlink(missing_ok=True)
    return _counts(file)


def restore(file: str | Path, db: Path) -> dict:
    """Replace the store `db` by the backup `file`, once it verifies. Stop `pbem serve` first:
    what it did after the backup was taken is undone (its mails may have gone out)."""
    _sqlite_only(db)
    file = Path(file)
    problems = check(file)
    if problems:
        raise BackupError(f"{file} is not restored: " + "; ".join(problems))
    if not Path(db).is_file():
        raise BackupError(f"{db}: no store to restore into (`pbem init` makes one)")
    _copy(file, Path(db))
    return _counts(Path(db))


def _counts(path: Path) -> dict:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return {"games": conn.execute("SELECT COUNT(*) FROM games").fetchone()[0],
                "moves": conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0]}
    finally:
        conn.close()
