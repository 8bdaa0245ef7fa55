"""What every part of the service works with: settings, the store, the engine, the clock and
the key tokens are derived from. One object, so a test can swap the engine or the clock.
`open_service` refuses a key that is not the store's (pbem/core/keys.py)."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pbem.base import sealed, settings as settings_mod, tokens
from pbem.core import keys
from pbem.store import EPOCH, Clock, Store, open_store, utcnow

if TYPE_CHECKING:
    from engine.interface import Engine


def _real_engine() -> Engine:
    from engine import api
    return api


@dataclass
class Service:
    settings: settings_mod.Settings
    store: Store
    engine: Engine  # engine.api, or a stand-in with the same functions (tests/fake_engine.py)
    key: bytes
    templates: Any = field(default=None, repr=False)  # pbem.outbound.render.Templates, made on first use
    epoch: str = ""  # set by each `pbem restore`: part of every Message-ID made since (pbem/store/backup.py)

    @property
    def clock(self) -> Clock:
        return self.store.clock

    def now(self) -> datetime:
        return self.store.clock()

    @property
    def key_fingerprint(self) -> str:
        return keys.fingerprint(self.key)

    def token(self, player: dict) -> str:
        """A player's token (player: a row of the players table)."""
        return tokens.token_for(self.key, player["game"], player["name"], player["token_salt"])


def open_service(home=None, *, settings: settings_mod.Settings | None = None, engine: Engine | None = None,
                 clock: Clock | None = None, check_key: bool = True) -> Service:
    """The service over `home` (default ./var or $PBEM_HOME). Raises StoreUnavailable, and
    KeyMismatch when the home's key is not the store's (`check_key` False: the key is not
    compared, for `pbem status`, which reports it)."""
    cfg = settings or settings_mod.load(home)
    if engine is None:  # the real engine reads the home's content folder (a test's engine has none)
        from pbem.base import (  # here: they import the engine, which the pipe's path never needs
            content_cache,
            content_overlay,
        )
        content_cache.use(cfg)  # its files parsed once per text, kept in the home
        content_overlay.use(cfg)
    store = open_store(cfg.store_target, clock=clock or utcnow)
    try:
        key = tokens.load_key(cfg.key_path)
        if check_key:
            key = keys.check(store, key, cfg.key_path)
        epoch = store.meta(EPOCH) or ""
    except BaseException:
        store.close()
        raise
    svc = Service(cfg, store, engine or _real_engine(), key, epoch=epoch)
    if check_key:  # sealed under the store's own key only
        seal_clear_seeds(svc)  # a home from before seeds were sealed: once
    return svc


def seal_clear_seeds(svc: Service) -> list[str]:
    """Once per home made before seeds were sealed (pbem/core/games.py): each game's seed sealed
    in its row, and taken out of its saved state and snapshots (the SQLite store overwrites
    what it frees). Returns the games changed."""
    done = []
    for gid in svc.store.games_with_clear_seeds():
        with svc.store.transaction():
            game = svc.store.game(gid)
            if game is None or sealed.is_sealed(game["seed"]):
                continue  # another process sealed it meanwhile
            svc.store.set_seed(gid, sealed.seal(svc.key, game["seed"], gid), _without_seed(svc.engine, game["state"]))
            for snap in svc.store.snapshots(gid):
                svc.store.save_snapshot(gid, snap["seq"], _without_seed(svc.engine, snap["state"]), replace=True)
        done.append(gid)
    if done:
        svc.store.scrub()
    return done


def _without_seed(engine: Engine, blob: bytes) -> bytes:
    state = engine.decode(blob)
    state.seed = ""  # kept as games.encode keeps every state
    return engine.encode(state)
