"""Alternative Ending cards, whichever expansion brings them (cataclysm.txt "Alternative Ending
Cards"; lost-realms.txt "Alternative Ending Cards": they mix with other expansions' endings).

Every pack with endings adds its cards to the one `ending` deck; the ending in play lies in the
pile `"ending"` (on the Crown of Command, or beside the board for The Hunt) and is encountered by
engine/rules/spaces.py `crown`. `place` runs once per game, from the setup of whichever pack
comes first; an ending that needs setup of its own (The Gauntlet deals Nether cards) gets it
from its pack's `ending_setup(ctx, card)`.
"""
from __future__ import annotations

from engine import packs, rng
from engine.config import ConfigError

ETERNAL_CROWN = "the-eternal-crown"


def variant(state) -> str:
    """The `alternative_ending` option in effect: as set, else the first pack's `default_ending`
    (The Eternal Crown with the Cataclysm) and a random faceup ending without one."""
    v = state.options.get("alternative_ending")
    if v:
        return v
    return next((d for d in (packs.get(p).default_ending for p in state.packs) if d), "revealed")


def choose(ctx, config) -> str:
    """The ending named in the config; else by the variant: The Eternal Crown, or one of the
    other endings in play whose `variant` allows "revealed" / "hidden", drawn at random."""
    deck = ctx.s.decks["ending"]
    if config.ending:
        if config.ending not in deck:
            raise ConfigError(f"unknown ending {config.ending!r}; known: {', '.join(sorted(set(deck)))}")
        return config.ending
    v = variant(ctx.s)
    if v == "eternal-crown":
        return ETERNAL_CROWN
    pool = sorted(c for c in set(deck) if c != ETERNAL_CROWN
                  and ctx.content.cards[c].prop("variant", "both") in (v, "both"))
    if not pool:
        raise ConfigError(f"no Alternative Ending card for the {v} variant")
    rng.shuffle(ctx.s, pool)
    return pool[0]


def place(ctx, config) -> None:
    """Choose the game's ending and set it out (once, whichever pack asks first)."""
    s = ctx.s
    if "ending" in s.piles:
        return
    card = choose(ctx, config)
    s.piles["ending"] = [card]
    s.decks["ending"].remove(card)
    owner = ctx.content.cards[card].pack
    if owner in s.packs:
        packs.get(owner).ending_setup(ctx, card)


def in_play(state) -> str | None:
    """The slug of the ending in play, if any."""
    pile = state.piles.get("ending") if state.piles else None
    return pile[0] if pile else None


def shown(state) -> bool:
    """A hidden ending is turned faceup when a character reaches the Crown."""
    return variant(state) != "hidden" or state.crown_reached
