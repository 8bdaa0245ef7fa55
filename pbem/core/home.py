"""The home folder, made on purpose: `pbem init` creates it (the store, the key, a commented
pbem.toml); every other command refuses a folder that is not one, so a typo in --home never
starts an empty service with a new key (which would void every player's token).

A home is private whatever folder it is given: every file 0600, every folder 0700. An
existing folder others may read (a 0755 folder made by hand) is tightened rather than
refused, since nothing in it is meant for anyone else; one this user cannot change is refused,
saying how to fix it. `pbem init` on an existing home tightens whatever has loosened since, and
`pbem serve` warns at start about any file or folder others may read (`exposed`). Later writes
stay private by the umask the CLI and the daemon set (077).

`pbem init --key FILE` makes a home with a key made elsewhere: a second machine's home over a
shared PostgreSQL store (with `--db URL`), or a new machine's before `pbem restore`. The key
must be the store's (pbem/core/keys.py), and a key a home already has is never overwritten
while it is its store's.
"""
from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from pbem.base import settings as settings_mod, tokens
from pbem.core import keys
from pbem.store import open_store
from pbem.store.common import KEY_FINGERPRINT

PRIVATE = 0o600
LOOSE = stat.S_IRWXG | stat.S_IRWXO  # any access for the group or others


class NotAHome(Exception):
    """The folder is not an initialised home (`pbem init` makes one)."""


class InitRefused(Exception):
    """`pbem init` cannot make the home as asked; the message says how to."""


def _create_private(path: Path, text: str = "") -> bool:
    """Create `path` 0600 (whatever the umask); False if it exists already."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(path, PRIVATE)  # O_CREAT's mode is cut by the umask; 0600 is what is promised
    return True


def init(home: str | Path, *, key: bytes | None = None, db: str | None = None) -> list[str]:
    """Make `home` a home; keeps what is there already, tightening what others may read.
    `key`: the service key to use (another machine's), instead of a new one; `db`: the store
    (a postgresql:// URL) pbem.toml names. Returns what it did, a line each. Raises InitRefused
    (nothing of the key written) and keys.KeyMismatch."""
    home = Path(home)
    done = []
    if not home.is_dir():
        home.mkdir(parents=True, mode=0o700)
        done.append(f"created {home}/")
    config = settings_mod.config_path(home)
    if _create_private(config, _with_db(settings_mod.sample(), db)):
        done.append(f"created {config}")
    elif db is not None and _set_db(config, db):
        done.append(f"{config}: db set")
    cfg = settings_mod.load(home)
    if cfg.db_url is None:
        cfg.db_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if _create_private(cfg.db_path):  # SQLite gives its -wal and -shm files the database's mode
            done.append(f"created {cfg.db_path}")
    store = open_store(cfg.store_target)  # the schema
    try:
        done += _place_key(cfg.key_path, key, store)
        keys.check(store, tokens.read_key(cfg.key_path), cfg.key_path)  # recorded, if the store names none yet
    finally:
        store.close()
    for folder in (cfg.inbox_path, cfg.outbox_path):
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    done += [f"tightened {p} (it was {mode:04o})" for p, mode in tighten(cfg)]
    return done


def _place_key(path: Path, given: bytes | None, store) -> list[str]:
    """The home's key file: kept, made, or `given` (another's key) put in place."""
    recorded = store.meta(KEY_FINGERPRINT)
    have = tokens.read_key(path) if path.exists() else None
    if recorded is None and have is not None and store.game_ids():  # a store from before fingerprints
        recorded = keys.fingerprint(have)
    if given is None:
        if have is not None:
            return []  # a key that is not the store's: keys.check says so
        if recorded is not None:
            raise InitRefused(f"the store this home names belongs to a service whose key is {recorded}; a new "
                              f"key would mail tokens that open no seat. Make the home with that key: "
                              f"`pbem init {path.parent} --key FILE`, FILE a copy of its secret.key")
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tokens.write_key(path, tokens.new_key())
        return [f"created {path}"]
    fp = keys.fingerprint(given)
    if recorded is not None and recorded != fp:
        raise InitRefused(f"the key given is {fp}, but the store this home names was made with key {recorded}: "
                          f"give that service's secret.key")
    if have == given:
        return []
    if have is None:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tokens.write_key(path, given)
        return [f"created {path} (key {fp})"]
    # the home has another key, which its store does not name (recorded is None or the given one)
    pending = keys.pending_path(path)
    pending.unlink(missing_ok=True)
    tokens.write_key(pending, given)
    retired = keys.install(path, pending)
    return [f"{path}: key {fp} in place; the key it held is kept as {retired}"]


def _with_db(text: str, db: str | None) -> str:
    """The sample pbem.toml with `db` set (JSON's escapes are TOML's for a URL)."""
    return text if db is None else text.replace('# db = "pbem.db"', f"db = {json.dumps(db)}", 1)


def _set_db(config: Path, db: str) -> bool:
    """`db = ...` set in an existing pbem.toml that leaves it at its default; True if written.
    One that names another store is refused: the operator edits it."""
    current = settings_mod.load(config.parent, config).db
    if current == db:
        return False
    if current != settings_mod.Settings().db:
        raise InitRefused(f"{config} names another store already (db): edit it there")
    text = config.read_text("utf-8")
    if '# db = "pbem.db"' in text:
        text = _with_db(text, db)
    else:  # a top-level key goes before any table
        text = f"db = {json.dumps(db)}\n" + text
    config.write_text(text, "utf-8")
    return True


def require(cfg: settings_mod.Settings) -> None:
    """Raise NotAHome unless `cfg.home` was made by `pbem init` (its store and key exist)."""
    home = Path(cfg.home)
    if not home.is_dir():
        raise NotAHome(f"{home} does not exist: `pbem init {home}` makes a home there (or give the right --home)")
    missing = [p for p in ((cfg.key_path,) if cfg.db_url else (cfg.db_path, cfg.key_path)) if not p.is_file()]
    if missing:
        raise NotAHome(f"{home} is not a pbem home (no {', '.join(p.name for p in missing)}): "
                       f"`pbem init {home}` makes one (or give the right --home)")


# -- file modes ----------------------------------------------------------------------------

def _loose_paths(cfg: settings_mod.Settings) -> Iterator[tuple[Path, int]]:
    """Each path of the home that the group or others may use, with its mode: the home's
    secrets first (store, key, config, wherever they are), then every file and folder under
    the home, the home itself included, each folder before its files and its folders (by
    name); symbolic links are neither followed nor reported. One lstat a file, as the
    folder is listed (os.scandir), and only what is loose kept, a Path made of it: `serve` runs this
    at every start, over every mail the outbox folder keeps (13,000 of them cost 0.13 s CPU
    through os.walk and a Path each, issue 28's "old mail costs nothing at start")."""
    db = cfg.db_path
    secrets = [] if cfg.db_url else [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")]
    secrets += [cfg.key_path, settings_mod.config_path(cfg.home)]
    for path in secrets:
        mode = _loose(path)
        if mode is not None:
            yield path, mode
    seen = {os.fspath(path) for path in secrets}
    folders = [os.fspath(Path(cfg.home))]  # as the secrets are named (no "./", no trailing "/")
    while folders:
        folder = folders.pop()
        mode = _loose(Path(folder))
        if mode is not None and folder not in seen:
            yield Path(folder), mode
        inner, loose = [], []  # kept: the folders and the loose files only, not the whole listing
        try:
            with os.scandir(folder) as listing:
                for entry in listing:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            inner.append(entry.path)
                            continue
                        mode = _loose_mode(entry.stat(follow_symlinks=False).st_mode)
                    except OSError:  # gone meanwhile
                        continue
                    if mode is not None and entry.path not in seen:
                        loose.append((entry.path, mode))
        except OSError:  # gone meanwhile, or not ours to list
            continue
        for found, mode in sorted(loose):
            yield Path(found), mode
        folders.extend(sorted(inner, reverse=True))  # the first by name is walked next


def _loose(path: Path) -> int | None:
    """The mode of `path` if the group or others may use it (a symbolic link never), else None."""
    try:
        return _loose_mode(path.lstat().st_mode)
    except OSError:  # not there (the -wal of a closed store), or gone meanwhile
        return None


def _loose_mode(mode: int) -> int | None:
    """The permission bits of a file's `mode` if the group or others may use it (a symbolic link
    never), else None."""
    return None if stat.S_ISLNK(mode) or not mode & LOOSE else stat.S_IMODE(mode)


def exposed(cfg: settings_mod.Settings) -> list[Path]:
    """What of the home others may read or write: its secrets (store, key, config) first, then
    any other file or folder under it (outbox mails hold tokens, the store's copies seeds)."""
    return [path for path, _ in _loose_paths(cfg)]


def tighten(cfg: settings_mod.Settings) -> list[tuple[Path, int]]:
    """Every file and folder of the home made its owner's alone (0600 and 0700 as they are
    made); what was changed, with its mode before. InitRefused for one this user may not change."""
    changed = []
    for p, mode in _loose_paths(cfg):
        try:
            os.chmod(p, mode & ~LOOSE)
        except PermissionError:
            raise InitRefused(f"{p} is mode {mode:04o} (others may read it) and this user cannot change it: as "
                              f"its owner, `chmod -R go= {cfg.home}`, then run `pbem init {cfg.home}` again") from None
        changed.append((p, mode))
    return changed
