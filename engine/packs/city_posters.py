"""The City's Wanted Posters (city-and-dungeon.md, "The City": Wanted Posters): up to 3 faceup at
the City Gate (the pile `wanted-poster@city-gate`), refilled from their shuffled deck; there a
character may claim a bounty or buy posters to keep (in its play area, `Player.area`, public).

- A creature poster (`hook = CREATURE`, an Enemy kind in its `kind`) pays gold equal to the
  trophy value of the claimant's matching trophies (their Strength or Craft), which are
  discarded. It is claimed on a poster lying at the Gate or kept by the claimant.
- An alignment poster (`hook = ALIGNMENT`, an alignment in its `kind`) pays a die of gold when
  its owner defeats a character of that alignment (the `duel_won` hook).
- Two posters naming the same target pay one bounty: every poster of that target the claim
  could use (lying at the Gate, kept by the claimant) pays once and is discarded (a stand-in).
"""
from __future__ import annotations

from typing import Any

from engine import rng
from engine.content import pack_table
from engine.rules.items import discard
from engine.rules.machine import Ctx
from engine.rules.turn import spend_trophy
from engine.state import Option, option
from engine.text import Msg, msg, printed, word

DECK = "wanted-poster"
# the Enemy kinds a poster names, as the bounty's option says them (a kind not here: "Kinds")
KINDS = {"dragon": msg("Dragons"), "animal": msg("Animals"), "monster": msg("Monsters"), "spirit": msg("Spirits"),
         "alien": msg("Aliens")}
PILE = "wanted-poster@city-gate"
# the posters' card hooks; one annotated name a line: mypyc, reading city.py in an import cycle with this
# module, cannot infer a tuple-unpacked constant ("Cannot determine type", the wheel falls back to pure)
CREATURE: str = "city-creature-poster"
ALIGNMENT: str = "city-alignment-poster"


def _tables() -> dict[str, Any]:
    """The `[city]` table of the City's board.toml, as engine/packs/city.py `tables` reads it."""
    return pack_table("city", "board.toml", "city")


def refill(ctx: Ctx) -> None:
    pile = ctx.s.piles.setdefault(PILE, [])
    while len(pile) < _tables()["posters_faceup"]:
        card = ctx.draw(DECK)
        if card is None:
            return
        pile.append(card)
        ctx.emit("poster", msg("A Wanted Poster goes up at the {city_gate}: {card}.", city_gate=printed("City Gate"),
                               card=ctx.content.cards[card].name),
                 card=card)


def kept(ctx: Ctx, i: int) -> list[str]:
    return [c for c in ctx.player(i).area if ctx.content.cards[c].deck == DECK]


def target(ctx: Ctx, poster: str, hook: str) -> str | None:
    """The Enemy kind or the alignment a poster names, if it is a poster of that sort."""
    card = ctx.content.cards[poster]
    return card.kind if card.hook == hook else None


def _bounty(ctx: Ctx, i: int, kind: str) -> list[str]:
    """The claimant's trophies a creature poster of that Enemy kind pays for."""
    cards = ctx.content.cards
    return [c for c in ctx.player(i).trophies if cards[c].type == "enemy" and cards[c].kind == kind]


def _value(ctx: Ctx, trophies: list[str]) -> int:
    return sum(ctx.content.cards[c].strength or ctx.content.cards[c].craft for c in trophies)


def gate_options(ctx: Ctx, i: int) -> list[Option]:
    cards, p = ctx.content.cards, ctx.player(i)
    lying = ctx.s.piles.get(PILE, [])
    opts = []
    for kind in dict.fromkeys(target(ctx, c, CREATURE) for c in lying + kept(ctx, i)):
        trophies = _bounty(ctx, i, kind) if kind else []
        if kind and trophies:
            kinds = KINDS.get(kind) or Msg(f"{kind.title()}s")  # a kind of a moderator's own cards: as it is
            opts.append(option(f"claim-{kind}", msg("claim the bounty on {kinds}: {_value} gold "
                               "for {count} trophies", kinds=kinds, _value=_value(ctx, trophies),
                               count=len(trophies))))
    price = _tables()["poster_price"]
    if p.gold >= price:
        opts += [option(f"buy-{c}",
                        msg("buy {card} for {price} gold to keep", card=cards[c].name,
                            price=price)) for c in dict.fromkeys(lying)]
    return opts


def gate_choice(ctx: Ctx, i: int, key: str) -> None:
    verb, _, what = key.partition("-")
    p = ctx.player(i)
    pile = ctx.s.piles.setdefault(PILE, [])
    if verb == "buy":
        p.gold -= _tables()["poster_price"]
        pile.remove(what)
        p.area.append(what)
        ctx.emit("poster",
                 msg("{player} buys the Wanted Poster {card}.", player=p.name,
                     card=ctx.content.cards[what].name), player=p.name, card=what)
    else:
        trophies = _bounty(ctx, i, what)
        gold = _value(ctx, trophies)
        for c in trophies:  # spent as any trophy is (The Hunt keeps a Nether Enemy in the play area)
            spend_trophy(ctx, p, c, "strength" if ctx.content.cards[c].strength else "craft")
        used = [c for c in pile + kept(ctx, i) if target(ctx, c, CREATURE) == what]
        for c in used:
            (pile if c in pile else p.area).remove(c)
            discard(ctx, c)
        p.gold += gold
        ctx.emit("bounty", msg("{player} claims the bounty on {what}s: {gold} gold for {count} trophies "
                 "({count2} poster{s}, one bounty).", player=p.name, what=what.title(), gold=gold,
                 count=len(trophies), count2=len(used), s='s' if len(used) > 1 else ''), player=p.name)
    refill(ctx)


def alignment_bounty(ctx: Ctx, winner: int, loser: int) -> None:
    """The winner's posters naming the loser's alignment: one die of gold, however many."""
    w = ctx.player(winner)
    align = ctx.player(loser).alignment
    used = [c for c in kept(ctx, winner) if target(ctx, c, ALIGNMENT) == align]
    if not used:
        return
    dice = rng.dice(ctx.s, _tables()["alignment_bounty_dice"])
    for c in used:
        w.area.remove(c)
        discard(ctx, c)
    w.gold += sum(dice)
    ctx.emit("bounty", msg("{w} defeats {player}, a wanted {align} character, and claims the "
             "bounty: rolls "
             "{names}, {sum} gold ({count} poster{s}, "
             "one bounty).", w=w.name, player=ctx.name(loser), align=word(align, align.title()),
             names='+'.join(map(str, dice)),
             sum=sum(dice), count=len(used), s='s' if len(used) > 1 else ''), player=w.name, dice=dice)


def drop(ctx: Ctx, i: int) -> None:
    """A dying character's posters are discarded with what it held."""
    p = ctx.player(i)
    for c in kept(ctx, i):
        p.area.remove(c)
        discard(ctx, c)
