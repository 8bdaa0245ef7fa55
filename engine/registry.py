"""Every task, answer handler and op of the rules and of every pack, registered by importing
their modules: before any game runs, since a decoded game may resume on any of them (a pack's
task included, before anything has asked that pack a question). engine/api.py imports this.

Kept out of the packages' __init__ files so that any single module (engine.ops, a pack's
topic module) can be imported first without a cycle.
"""
from engine.rules import machine, setup, turn, movement, encounter, combat, spaces, spells  # noqa: F401
from engine import ops  # noqa: F401
from engine.rules import boardcards  # noqa: F401  (its ops: denizen, visit, terrain)
from engine.packs import cataclysm, city, lost_realms, nemesis, sea_voyage, timescape  # noqa: F401
