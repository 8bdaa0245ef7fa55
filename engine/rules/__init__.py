"""The turn machine and the rules registered on it; importing this registers them all."""
from engine.rules import machine, setup, turn, movement, encounter, combat, spaces, spells  # noqa: F401
from engine import ops  # noqa: F401,E402
from engine.packs import cataclysm, nemesis  # noqa: F401,E402  (registers their hooks)
from engine.packs import lost_realms  # noqa: F401,E402  (registers its tasks)
