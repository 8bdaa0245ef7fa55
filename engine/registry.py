"""Every task, answer handler and op of the rules and of every pack, registered by importing
their modules: before any game runs, since a decoded game may resume on any of them (a pack's
task included, before anything has asked that pack a question). engine/api.py imports this.

`PACKS` is the one list of the packs (engine/packs/base.py): adding a pack is its content
folder, its module engine/packs/<pack>.py and its entry here. Its order is the order packs are
listed in (config errors, the coverage report, the service's reports).

Kept out of the packages' __init__ files so that any single module (engine.ops, a pack's
topic module) can be imported first without a cycle.
"""
from engine import ops  # noqa: F401
from engine.packs import cataclysm, city, deep_realms, dungeon, lost_realms, nemesis, sea_voyage, timescape
from engine.packs.base import Pack
from engine.rules import (  # noqa: F401
    boardcards,
    combat,
    encounter,
    machine,
    movement,
    setup,
    spaces,
    spells,
    turn,
)

PACKS: tuple[Pack, ...] = (cataclysm.PACK, lost_realms.PACK, nemesis.PACK, sea_voyage.PACK, timescape.PACK, city.PACK,
                          dungeon.PACK, deep_realms.PACK)
