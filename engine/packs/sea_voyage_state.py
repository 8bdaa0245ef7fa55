"""Sea Voyage: a voyage's state, read and written by every other sea_voyage_* module.

The pack's data files (ships.toml `[voyage]`, captain.toml's tables), the voyage flags in
`Player.flags` (listed in engine/packs/sea_voyage.py), the ship and its Strength, and the
small steps several topics take: clearing the Captain's cards, leaving the board, clearing a
voyage, selling prisoners, taking Rations aboard.
"""
from __future__ import annotations

from engine.content import pack_table
from engine.rules import stats
from engine.rules.items import discard
from engine.rules.machine import Ctx
from engine.state import Player
from engine.text import msg

PACK = "sea-voyage"
TABLE = "captain"  # the pile of Captain's cards being resolved
VOYAGE_FLAGS = ("sea", "sea-rations", "sea-cargo", "sea-home", "sea-wizard", "sea-starving", "sea-starve",
                "sea-explore", "sea-prisoners", "sea-wreck-turn", "sea-rescued", "sea-fed", "sea-prison")


def settings() -> dict:
    return pack_table(PACK, "ships.toml", "voyage")


def tables() -> dict:
    return pack_table(PACK, "captain.toml", "table")


# -- reading the voyage ----------------------------------------------------------------

def phase(p: Player) -> str | None:
    return p.flags.get("sea")


def at_sea(p: Player) -> bool:
    return phase(p) in ("out", "home")


def flag(p: Player, key: str) -> int:
    return p.flags.get(key, 0)


def bump(p: Player, key: str, n: int) -> int:
    p.flags[key] = max(0, p.flags.get(key, 0) + n)
    return p.flags[key]


def ship_of(ctx: Ctx, p: Player) -> str | None:
    return next((c for c in p.objects if ctx.content.cards[c].prop("ship")), None)


def hold(ctx: Ctx, p: Player) -> int:
    ship = ship_of(ctx, p)
    return ctx.content.cards[ship].prop("hold", 0) if ship else 0


def ship_strength(ctx: Ctx, i: int) -> int:
    """The ship's basic Strength, plus Naval Objects, Followers and cards with a ship-Strength
    modifier, plus 1 for your own Strength (objects and followers counted) of 4-7 or 2 above
    7, plus 1 for the Pirate; less 1 for each turn starved since a mutiny."""
    p = ctx.player(i)
    cards = ctx.content.cards
    total = sum(cards[c].prop("ship_strength", 0) for c in p.objects + p.followers)
    own = stats.strength(ctx, p, battle=True)
    for at_least, bonus in reversed(settings()["own_strength_bonus"]):
        if own >= at_least:
            total += bonus
            break
    if p.character in settings()["pirate_characters"]:
        total += 1
    return max(0, total - flag(p, "sea-starve"))


def harbour(ctx: Ctx) -> str:
    """Where ships are hired and voyages end: "the Harbour Space in the City (or the City-Space on
    the Mainboard if you are not using the City-Expansion)" -- the City's when its board is in play."""
    t = settings()
    return t["city_harbour"] if t["city_harbour"] in ctx.content.board.spaces else t["harbour"]


def main_city(ctx: Ctx) -> str:
    """The City space of the main board: where the Pirate Hunter's prison releases a character,
    and where a shipwrecked one counts the spaces it washes ashore from."""
    return settings()["harbour"]


def clear_table(ctx: Ctx) -> None:
    """Captain's cards left unresolved (a wreck or a death ended the turn) are discarded."""
    for card in ctx.s.piles.pop(TABLE, []):
        discard(ctx, card)


def end_turn_if_current(ctx: Ctx, i: int) -> None:
    if ctx.s.current == i:
        ctx.end_turn()


# -- leaving the board, ending a voyage, Rations -------------------------------------------

def clear_voyage(p: Player) -> None:
    for key in VOYAGE_FLAGS:
        p.flags.pop(key, None)
    if str(p.flags.get("apart", "")).startswith("sea:"):
        del p.flags["apart"]


def off_board(p: Player) -> None:
    """At sea, adrift or in prison: off the board and apart (engine/rules/reach.py):
    no effect of the board, no other character's Spell, not the Crown's command reaches it."""
    p.space = None
    p.flags["apart"] = "sea:" + p.name


def sell_prisoners(ctx: Ctx, i: int) -> None:
    p = ctx.player(i)
    n = p.flags.pop("sea-prisoners", 0)
    if n:
        gold = n * settings()["prisoner_reward"]
        p.gold += gold
        ctx.emit("sea-prisoner",
                 msg("{player} hands the Pirate over to the authorities for {gold} gold.", player=p.name,
                     gold=gold), player=p.name)


def add_rations(ctx: Ctx, i: int, n: int) -> int:
    p = ctx.player(i)
    room = settings()["rations_max"] - flag(p, "sea-rations")
    n = max(0, min(n, room))
    if n:
        bump(p, "sea-rations", n)
        ctx.emit("sea-ration",
                 msg("{player} takes {n} Ration{s} aboard ({flag}).", player=p.name, n=n,
                     s='s' if n != 1 else '', flag=flag(p, 'sea-rations')),
                 player=p.name)
    return n
