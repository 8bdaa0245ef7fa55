"""Who may affect whom: the one place that decides it.

timescape.txt §9: "Characters in the Timescape cannot affect or be affected by other Characters
in any way (including the use of Pandora's Box)". A character out of the others' reach carries
`flags["apart"]`, the key of the reality it is in: the Timescape gives each character there its
own (every space a reality of its own, §2), Sea Voyage one for a character at sea. Two characters
reach each other when they share a reality; every list of characters an effect, a Spell, an
attack or a pack's card may touch is drawn through here (engine/ops.py `targets`, the Spells'
targets, the Command Spell, Pandora's Box, the Sneakthief...).
"""
from __future__ import annotations

from engine.rules import stats
from engine.rules.machine import Ctx
from engine.state import Player


def apart(p: Player) -> str | None:
    """The reality a character is in, when it is not the board's (None: on the board)."""
    return p.flags.get("apart") if p.flags else None


def reaches(ctx: Ctx, i: int, j: int) -> bool:
    """Whether character i may affect character j (and so j may affect i)."""
    return i == j or apart(ctx.s.players[i]) == apart(ctx.s.players[j])


def within(ctx: Ctx, i: int, js: list[int]) -> list[int]:
    """Those of `js` that character i may affect."""
    return [j for j in js if reaches(ctx, i, j)]


def others(ctx: Ctx, i: int) -> list[int]:
    """The living characters other than i that i may affect, in seat order."""
    return [j for j in stats.alive_players(ctx) if j != i and reaches(ctx, i, j)]
