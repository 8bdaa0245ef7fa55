"""The Deep Realms' tables and piles (engine/packs/deep_realms.py): what both its modules read.

A character's facedown Tunnel stack is a deck of its own, `tunnel-stack-<player>`, top last: every
view shows a deck's size and never its cards, and the preview (engine/preview.py) stops at a deck
whose size changes, so turning the top card is never shown before it is turned. `flags["dr-faceup"]`
counts the cards on top of it that were turned and are still there (met, not beaten)."""
from __future__ import annotations

from typing import Any

from engine import rng
from engine.content import pack_table
from engine.rules.items import discard
from engine.rules.machine import Ctx
from engine.state import Game
from engine.text import Text, msg

BRIDGE, TUNNEL = "bridge", "tunnel"
REALMS = ("rat-lair", "wraith-domain")


def tables() -> dict[str, Any]:
    """The `[deep-realms]` table of this pack's board.toml (an owner's content folder included)."""
    return pack_table("deep-realms", "board.toml", "deep-realms")


def in_realm(ctx: Ctx, space: str | None) -> bool:
    return space is not None and space in ctx.content.board.spaces and ctx.content.space(space).ring in REALMS


def hook_of(ctx: Ctx, space: str | None) -> str | None:
    return ctx.content.space(space).hook if space is not None and in_realm(ctx, space) else None


def stack_deck(name: str) -> str:
    return f"tunnel-stack-{name}"


def stack(s: Game, name: str) -> list[str]:
    """A character's facedown Tunnel stack (top last); empty when it has none."""
    return s.decks.get(stack_deck(name), [])


def fold_back(ctx: Ctx) -> None:
    """lost-realms.txt, Bridge and Tunnel Cards: a discarded Bridge or Tunnel card is shuffled back
    into its deck (done before each draw from the deck and at the end of each turn)."""
    for deck in (BRIDGE, TUNNEL):
        back = ctx.s.discards.get(deck)
        if back:
            ctx.s.decks[deck].extend(back)
            back.clear()
            rng.shuffle(ctx.s, ctx.s.decks[deck])


def draw(ctx: Ctx, deck: str) -> str | None:
    fold_back(ctx)
    return ctx.draw(deck)


def drop_stack(ctx: Ctx, i: int, why: Text) -> None:
    """The stack's cards are discarded (and so shuffled back into the Tunnel deck)."""
    p = ctx.player(i)
    cards = ctx.s.decks.pop(stack_deck(p.name), None)
    p.flags.pop("dr-faceup", None)
    if not cards:
        return
    for card in cards:
        discard(ctx, card)
    ctx.emit("tunnel", msg("{player} discards the {count} Tunnel card{s} "
             "left in the stack ({why}).", player=p.name, count=len(cards), s='s' if len(cards) > 1 else '',
             why=why), player=p.name)
    fold_back(ctx)


def random_card(ctx: Ctx, deck: str) -> str | None:
    """A random card of a deck: the top of a shuffled one, else any (a faceup pile: the shops)."""
    if deck not in ctx.s.decks:
        return None
    if deck in ctx.content.shuffled:
        return ctx.draw(deck)
    cards = ctx.s.decks[deck]
    return cards.pop(rng.below(ctx.s, len(cards))) if cards else None
