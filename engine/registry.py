"""The one module that imports every pack: the list of the packs (`PACKS`), the base game's pack
(`BASE`), and a game's packs resolved into its `Hooks` (engine/hooks.py) at the API's door.

Importing a pack registers its tasks, answer handlers and ops; the registry imports them all
before any game runs, since a decoded game may resume on any of them (a pack's task included,
before anything has asked that pack a question). engine/api.py imports this.

Adding a pack is its content folder, its module engine/packs/<pack>.py and its entry in
`PACKS` (docs/contributing.md). Its order is the order packs are listed in (config errors, the
coverage report, the service's reports). A pack kept outside the engine is not listed: it is
handed in where a game is made or played (`api.new_game(config, seed, packs=(MyPack(),))`).
"""
from __future__ import annotations

from collections.abc import Sequence

from engine import ops  # noqa: F401
from engine.config import EDITION_TITLES, ConfigError
from engine.hooks import Hooks
from engine.packs import cataclysm, city, deep_realms, dungeon, lost_realms, nemesis, revised4, sea_voyage, timescape
from engine.packs.base import Pack
from engine.rules import (  # noqa: F401
    boardcards,
    combat,
    encounter,
    machine,
    movement,
    rerolls,
    setup,
    spaces,
    spells,
    turn,
)

BASE: Pack = revised4.PACK  # the base game's card hooks: first in every game
PACKS: tuple[Pack, ...] = (cataclysm.PACK, lost_realms.PACK, nemesis.PACK, sea_voyage.PACK, timescape.PACK, city.PACK,
                          dungeon.PACK, deep_realms.PACK)
# What the service reads of the list: the packs a game may name, every box's printed name, and
# every board's regions by their printed names (a pack's `regions`)
PLAYABLE_PACKS: tuple[str, ...] = tuple(p.name for p in PACKS if p.playable)
TITLES: dict[str, str] = {**EDITION_TITLES, **{p.name: p.title or p.name for p in PACKS}}
REGIONS: dict[str, str] = {ring: name for p in (BASE, *PACKS) for ring, name in p.regions.items()}


def declared(extra: Sequence[Pack] = ()) -> dict[str, Pack]:
    """Every pack a game may name, by name: the listed ones and those handed in (`extra`)."""
    out = {p.name: p for p in PACKS}
    for p in extra:
        if out.get(p.name, p) is not p:
            raise ConfigError(f"pack {p.name!r} is declared twice: a pack handed in cannot take a listed pack's name")
        out[p.name] = p
    return out


_RESOLVED: dict[tuple[tuple[str, ...], tuple[Pack, ...]], Hooks] = {}


def hooks(names: Sequence[str], extra: Sequence[Pack] = ()) -> Hooks:
    """A game's packs (`names`, in config order) resolved into its Hooks, once per mix."""
    key = (tuple(names), tuple(extra))
    found = _RESOLVED.get(key)
    if found is None:
        known = declared(extra)
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ConfigError(f"unknown pack {unknown[0]!r}; known: {', '.join(known)}")
        found = _RESOLVED[key] = Hooks(BASE, [known[n] for n in names])
    return found
