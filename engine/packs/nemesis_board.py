"""Nemesis: who is who (the Nemesis, the heroes in turn order, the living ones), the Trial card,
and the tokens on the board (sacred sites, villains, the adversary) and how they move.
"""
from __future__ import annotations

from engine.content import Card
from engine.rules.machine import Ctx
from engine.state import Game
from engine.text import msg

LAIR = "lair-of-the-beast"
# Where a token may step between regions: the Portal of Power continues onto the centre board
# (Setup 12); the Sentinel's bridge joins the Outer and Middle Regions.
CROSSINGS = {"portal-of-power": "plain-of-peril", "plain-of-peril": "portal-of-power", "sentinel": "hills-3",
             "hills-3": "sentinel"}


# What Action cards add to the adversary's and the villains' Strength and Craft in their fights,
# until the Nemesis's next main turn (counters; never to a villain's trophy value: Key Rules 5).
BONUSES = {"adversary": "nemesis-bonus@adversary", "villains": "nemesis-bonus@villains"}


def nemesis(s: Game) -> int:
    return next(i for i, p in enumerate(s.players) if p.role == "nemesis")


def heroes(s: Game) -> list[int]:
    """Hero seats in turn order, starting with the player to the Nemesis's left."""
    n, k = len(s.players), nemesis(s)
    return [(k + d) % n for d in range(1, n)]


def living(s: Game) -> list[int]:
    return [i for i in heroes(s) if s.players[i].alive and s.players[i].character]


def trial(ctx: Ctx) -> Card:
    return ctx.content.cards[ctx.s.piles["trial"][0]]


def tokens(s: Game, kind: str) -> dict[str, list[str]]:
    """Space -> the tokens of a kind there ("site", "villain", "adversary")."""
    pre = kind + "@"
    return {k[len(pre):]: v for k, v in s.piles.items() if k.startswith(pre) and v}


def stat(card: Card, attr: str) -> int:
    """A token's printed Strength or Craft (content keeps them as properties: not an Enemy card)."""
    return card.prop(attr, 0)


def adversary_space(s: Game) -> str | None:
    return next(iter(tokens(s, "adversary")), None)


def to_box(s: Game, deck: list[str], card: str) -> None:
    deck.remove(card)
    s.piles.setdefault("box", []).append(card)


def move_token(ctx: Ctx, kind: str, src: str, dest: str, card: str) -> None:
    ctx.s.piles[f"{kind}@{src}"].remove(card)
    if not ctx.s.piles[f"{kind}@{src}"]:
        del ctx.s.piles[f"{kind}@{src}"]
    ctx.s.piles.setdefault(f"{kind}@{dest}", []).append(card)
    ctx.emit("token",
             msg("The {card} moves to {space}.", card=ctx.content.cards[card].name,
                 space=ctx.space(dest).name), card=card, space=dest)
