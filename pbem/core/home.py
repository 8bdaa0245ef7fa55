"""The home folder, made on purpose: `pbem init` creates it (the store, the key, a commented
pbem.toml, each 0600); every other command refuses a folder that is not one, so a typo in
--home never starts an empty service with a new key (which would void every player's token).
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from pbem.base import settings as settings_mod, tokens
from pbem.store import open_store

PRIVATE = 0o600


class NotAHome(Exception):
    """The folder is not an initialised home (`pbem init` makes one)."""


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


def init(home: str | Path) -> list[str]:
    """Make `home` a home; keeps what is there already. Returns what it created."""
    home = Path(home)
    made = []
    if not home.is_dir():
        home.mkdir(parents=True, mode=0o700)
        made.append(f"{home}/")
    config = settings_mod.config_path(home)
    if _create_private(config, settings_mod.sample()):
        made.append(str(config))
    cfg = settings_mod.load(home)
    if not cfg.key_path.exists():
        cfg.key_path.parent.mkdir(parents=True, exist_ok=True)
        tokens.load_key(cfg.key_path)  # creates it, 0600
        made.append(str(cfg.key_path))
    if cfg.db_url is None:
        cfg.db_path.parent.mkdir(parents=True, exist_ok=True)
        if _create_private(cfg.db_path):  # SQLite gives its -wal and -shm files the database's mode
            made.append(str(cfg.db_path))
    open_store(cfg.store_target).close()  # the schema
    for folder in (cfg.inbox_path, cfg.outbox_path):
        folder.mkdir(parents=True, exist_ok=True)
    return made


def require(cfg: settings_mod.Settings) -> None:
    """Raise NotAHome unless `cfg.home` was made by `pbem init` (its store and key exist)."""
    home = Path(cfg.home)
    if not home.is_dir():
        raise NotAHome(f"{home} does not exist: `pbem init {home}` makes a home there (or give the right --home)")
    missing = [p for p in ((cfg.key_path,) if cfg.db_url else (cfg.db_path, cfg.key_path)) if not p.is_file()]
    if missing:
        raise NotAHome(f"{home} is not a pbem home (no {', '.join(p.name for p in missing)}): "
                       f"`pbem init {home}` makes one (or give the right --home)")


def exposed(cfg: settings_mod.Settings) -> list[Path]:
    """The home's secrets (store, key, config) that other users may read or write."""
    db = cfg.db_path
    paths = [] if cfg.db_url else [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")]
    paths += [cfg.key_path, settings_mod.config_path(cfg.home)]
    return [p for p in paths if p.is_file() and p.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO)]
