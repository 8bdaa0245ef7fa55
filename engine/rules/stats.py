"""Derived numbers: attributes with what a character carries, limits, regions."""
from __future__ import annotations

from engine.content import Card, Character
from engine.rules.machine import Ctx
from engine.state import Player


def character(ctx: Ctx, p: Player) -> Character:
    assert p.character is not None  # asked only of a hero in play
    return ctx.content.characters[p.character]


def has_ability(ctx: Ctx, p: Player, key: str) -> bool:
    return p.toad == 0 and p.character is not None and key in character(ctx, p).abilities


def items(ctx: Ctx, p: Player) -> list[Card]:
    """Objects and Followers that work for the character (a Toad's do not)."""
    if p.toad or not (p.objects or p.followers):
        return []
    if (p.flags and p.flags.get("no-magic")) or (ctx.s.effects and magic_destroyed(ctx, p)):
        # Magic Objects do not work now: a pack's rule (the Timescape), or another's Destroy Magic
        return [c for c in map(ctx.content.cards.__getitem__, p.objects + p.followers) if c.type != "magic-object"]
    return [ctx.content.cards[c] for c in p.objects + p.followers]


def holds(ctx: Ctx, i: int, hook: str) -> str | None:
    """The first card the character holds (and may use) with that card hook."""
    for c in items(ctx, ctx.player(i)):
        if c.hook == hook:
            return c.slug
    return None


def healing_barred(ctx: Ctx) -> bool:
    """Nobody heals or gains life (The Lost Realms' Pandora's Box, once the Crown is sealed)."""
    return bool(ctx.s.counters) and bool(ctx.s.counters.get("no-healing"))


def magic_destroyed(ctx: Ctx, p: Player) -> bool:
    """Another character's Destroy Magic lasts: nobody else casts Spells or uses Magic Objects."""
    return any(e["name"] == "destroy-magic" and e["by"] != p.name for e in ctx.s.effects)


def printed(ctx: Ctx, p: Player, attr: str) -> int:
    return getattr(character(ctx, p), attr)


def strength(ctx: Ctx, p: Player, battle: bool = False) -> int:
    """Strength with lasting bonuses; in battle also the best weapon (two for the Warrior)."""
    if p.toad:
        return 1
    total = p.strength + sum(c.prop("strength", 0) for c in items(ctx, p))
    if battle:
        if not has_ability(ctx, p, "no-weapons-armour"):
            weapons = sorted((c.prop("weapon", 0) for c in items(ctx, p) if c.prop("weapon")), reverse=True)
            total += sum(weapons[: 2 if has_ability(ctx, p, "two-weapons") else 1])
        if has_ability(ctx, p, "monk-craft-in-battle"):
            total += craft(ctx, p)
        total += p.flags.get("battle-bonus", 0)
    return total


def craft(ctx: Ctx, p: Player, psychic: bool = False) -> int:
    """Craft with lasting bonuses; in psychic combat also what lasts this turn (a Boon's)."""
    if p.toad:
        return 1
    total = p.craft + sum(c.prop("craft", 0) for c in items(ctx, p))
    return total + p.flags.get("psychic-bonus", 0) if psychic else total


def spell_limit(ctx: Ctx, p: Player) -> int:
    c = craft(ctx, p)
    return 0 if c <= 2 else 1 if c == 3 else 2 if c <= 5 else 3


def carried(ctx: Ctx, p: Player) -> int:
    """Objects that count toward the carrying limit: Trinkets do not (Cataclysm)."""
    return sum(1 for c in p.objects if not ctx.content.cards[c].prop("trinket"))


def full(ctx: Ctx, p: Player, card: str) -> bool:
    """No room for this Object (a Trinket always has room)."""
    return not ctx.content.cards[card].prop("trinket") and carried(ctx, p) >= carry_limit(ctx, p)


def carry_limit(ctx: Ctx, p: Player) -> int:
    return 4 + sum(c.prop("carry", 0) for c in items(ctx, p))


def region(ctx: Ctx, space: str | None) -> str | None:
    return ctx.content.board.spaces[space].ring if space else None


def has_prop(ctx: Ctx, p: Player, prop: str) -> bool:
    return bool(p.objects or p.followers) and any(ctx.content.cards[c].prop(prop) for c in p.objects + p.followers)


def has_talisman(ctx: Ctx, p: Player) -> bool:
    return any(ctx.content.cards[c].prop("talisman") for c in p.objects)


def shared(ctx: Ctx, p: Player) -> bool:
    return p.role == "hero" and "shared_fate" in ctx.s.pools


def fate(ctx: Ctx, p: Player) -> int:
    """Fate the player may spend now. Heroes sharing a pool (Nemesis) spend from it, one
    token per turn for the whole group."""
    if shared(ctx, p):
        return 0 if ctx.s.counters.get("fate-spent-turn") == ctx.s.turn else ctx.s.pools["shared_fate"]
    return p.fate


def spend_fate(ctx: Ctx, p: Player) -> None:
    if shared(ctx, p):
        ctx.s.pools["shared_fate"] -= 1
        ctx.s.counters["fate-spent-turn"] = ctx.s.turn
    else:
        p.fate -= 1


def gain_fate(ctx: Ctx, p: Player, n: int) -> None:
    if shared(ctx, p):
        ctx.s.pools["shared_fate"] = max(0, ctx.s.pools["shared_fate"] + n)
    else:
        p.fate = max(0, p.fate + n)


def alive_players(ctx: Ctx) -> list[int]:
    return [i for i, p in enumerate(ctx.s.players) if p.alive and p.character]
