"""Alternative Ending cards, whichever expansion brings them (cataclysm.txt "Alternative Ending
Cards"; lost-realms.txt "Alternative Ending Cards": they mix with other expansions' endings).

Every pack with endings adds its cards to the one `ending` deck; the ending in play lies in the
pile `"ending"` (on the Crown of Command, or beside the board for The Hunt) and is encountered by
engine/rules/spaces.py `crown`. `place` runs once per game, from the setup of whichever pack
comes first; an ending that needs setup of its own (The Gauntlet deals Nether cards) gets it
from its pack's `ending_setup(ctx, card)`.
"""
from __future__ import annotations

from engine import rng
from engine.config import ConfigError, GameConfig
from engine.rules.machine import Ctx
from engine.state import Game

ETERNAL_CROWN = "the-eternal-crown"


def variant(state: Game, default: str) -> str:
    """The `alternative_ending` option in effect: as set, else `default`: the first game pack's
    `default_ending` (The Eternal Crown with the Cataclysm), else a random faceup ending
    (`Hooks.default_ending`)."""
    v = state.options.get("alternative_ending")
    return v if v else default


def choose(ctx: Ctx, config: GameConfig) -> str:
    """The ending named in the config; else by the variant: The Eternal Crown, or one of the
    other endings in play whose `variant` allows "revealed" / "hidden", drawn at random."""
    deck = ctx.s.decks["ending"]
    if config.ending:
        if config.ending not in deck:
            raise ConfigError(f"unknown ending {config.ending!r}; known: {', '.join(sorted(set(deck)))}")
        return config.ending
    v = variant(ctx.s, ctx.hooks.default_ending())
    if v == "eternal-crown":
        return ETERNAL_CROWN
    pool = sorted(c for c in set(deck) if c != ETERNAL_CROWN
                  and ctx.content.cards[c].prop("variant", "both") in (v, "both"))
    if not pool:
        raise ConfigError(f"no Alternative Ending card for the {v} variant")
    rng.shuffle(ctx.s, pool)
    return pool[0]


def place(ctx: Ctx, config: GameConfig) -> None:
    """Choose the game's ending and set it out (once, whichever pack asks first)."""
    s = ctx.s
    if "ending" in s.piles:
        return
    card = choose(ctx, config)
    s.piles["ending"] = [card]
    s.decks["ending"].remove(card)
    ctx.hooks.ending_setup(ctx, card)


def in_play(state: Game) -> str | None:
    """The slug of the ending in play, if any."""
    pile = state.piles.get("ending") if state.piles else None
    return pile[0] if pile else None


def shown(state: Game, default: str) -> bool:
    """A hidden ending is turned faceup when a character reaches the Crown (`default`: the
    variant played unless set, as `variant` says)."""
    return variant(state, default) != "hidden" or state.crown_reached
