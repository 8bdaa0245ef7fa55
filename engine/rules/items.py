"""Objects, Followers and gold changing hands; where a card goes when discarded (§7)."""
from __future__ import annotations

from engine.rules import stats
from engine.rules.machine import Ctx


def discard(ctx: Ctx, card: str) -> None:
    """To its deck's discard pile; decks without one (faceup piles) take the card back."""
    pile = ctx.content.discard_pile(card)
    (ctx.s.discards[pile] if pile in ctx.s.discards else ctx.s.decks[pile]).append(card)


def may_hold(ctx: Ctx, i: int, card: str) -> bool:
    c = ctx.content.cards[card]
    forbid = c.prop("forbid")
    return not forbid or ctx.player(i).alignment != forbid


def gain_object(ctx: Ctx, i: int, card: str) -> bool:
    """Take an Object; over the carrying limit it is left on the character's space."""
    p = ctx.player(i)
    c = ctx.content.cards[card]
    if c.type == "follower":
        p.followers.append(card)
        return True
    if not may_hold(ctx, i, card) or stats.full(ctx, p, card):
        ctx.s.spaces.setdefault(p.space, []).append(card)
        ctx.emit("leave-object", f"{p.name} cannot carry {c.name}; it stays on the space.", player=p.name)
        return False
    p.objects.append(card)
    return True


def check_alignment_items(ctx: Ctx, i: int) -> None:
    """After an alignment change, cards the new alignment forbids are discarded."""
    p = ctx.player(i)
    for card in [c for c in p.objects + p.followers if not may_hold(ctx, i, c)]:
        (p.objects if card in p.objects else p.followers).remove(card)
        discard(ctx, card)
        ctx.emit("discard", f"{p.name} must give up {ctx.content.cards[card].name}.", player=p.name)


def drop_excess(ctx: Ctx, i: int) -> None:
    """Objects over the limit (a Mule lost) are left faceup on the space."""
    p = ctx.player(i)
    while stats.carried(ctx, p) > stats.carry_limit(ctx, p):
        card = next(c for c in reversed(p.objects) if not ctx.content.cards[c].prop("trinket"))
        p.objects.remove(card)
        ctx.s.spaces.setdefault(p.space, []).append(card)


def discard_spells_over_limit(ctx: Ctx, i: int) -> None:
    p = ctx.player(i)
    keep = max(stats.spell_limit(ctx, p), 1 if p.spells and stats.has_ability(ctx, p, "keep-one-spell") else 0)
    while len(p.spells) > keep and not p.toad:
        ctx.s.discards["spell"].append(p.spells.pop())
        ctx.emit("discard", f"{p.name} discards a Spell over the limit.", player=p.name)
