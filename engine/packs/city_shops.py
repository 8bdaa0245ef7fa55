"""The City's shops and cards (city-and-dungeon.md, "The City": Streets and shops, Shops, City
cards named): what a character meets inside a shop, the Potions it drinks, the City cards a
street draws. Stand-ins: docs/rules-decisions.md, "The City".

- A shop (`hook = "city-shop"`) sells the cards of its deck (`hook_args.deck`), which lie
  faceup as the base game's Purchase cards do, each at the `price` its deck file gives: the
  base `shop` op (engine/ops.py) with that price list.
- A Potion (`hook = POTION`) is an Object until drunk: before a move (the start-of-turn
  question, the City pack's `start_options`) its effect is applied and it goes back to the
  Apothecary's pile.
- A street with `hook = "city-draw"` draws City cards up to `hook_args.n`, met as Adventure
  cards are (engine/rules/encounter.py `resolve-cards`), after any already lying there.
"""
from __future__ import annotations

from engine import ops
from engine.rules.encounter import ORDER
from engine.rules.items import gain_object
from engine.rules.machine import Ctx, task
from engine.state import Task
from engine.text import Text, msg

POTIONS = "potion"
POTION = "city-potion"  # the Potions' card hook
FREE_SAMPLES = 3  # Free Samples: "draw 3 Potion cards free"


def worth_entering(ctx: Ctx, i: int, shop: str) -> bool:
    """Something to do inside: a card the character can pay for, or another character there."""
    p = ctx.player(i)
    deck = ctx.content.space(shop).hook_args["deck"]
    cards = ctx.content.cards
    return any(cards[c].prop("price", 0) <= p.gold for c in ctx.s.decks[deck]) or any(
        q.alive and q.space == shop for q in ctx.s.players if q is not p)


@task("space:city-shop")
def shop(ctx: Ctx, t: Task) -> None:
    deck = ctx.space(ctx.player(t.p).space).hook_args["deck"]
    cards = ctx.content.cards
    prices = {c: cards[c].prop("price", 0) for c in dict.fromkeys(ctx.content.decks[deck])}
    ops.shop(ctx, t.p, {"deck": deck, "items": prices}, {"source": ctx.space(ctx.player(t.p).space).name})


@task("space:city-draw")
def draw(ctx: Ctx, t: Task) -> None:
    """City cards up to the street's number; those drawn are then met in their order."""
    p = ctx.player(t.p)
    lying = ctx.s.spaces.setdefault(p.space, [])
    drawn = []
    for _ in range(max(0, ctx.space(p.space).hook_args.get("n", 1) - len(lying))):
        card = ctx.draw("city")
        if card is None:
            break
        lying.append(card)
        drawn.append(card)
        ctx.emit("draw", msg("{player} draws the City card {card}.", player=p.name, card=ctx.content.cards[card].name),
                 player=p.name, card=card)
    if drawn:
        cards = ctx.content.cards
        ctx.push("resolve-cards", t.p, todo=sorted(drawn, key=lambda c: (ORDER.get(cards[c].type, 5), cards[c].number)))


@task("city-free-samples")
def free_samples(ctx: Ctx, t: Task) -> None:
    """Free Samples: 3 Potions from the Apothecary's pile (its top: the last laid there)."""
    p = ctx.player(t.p)
    pile = ctx.s.decks[POTIONS]
    taken = [pile.pop() for _ in range(min(FREE_SAMPLES, len(pile)))]
    for card in taken:
        gain_object(ctx, t.p, card)
    names = ", ".join(ctx.content.cards[c].name for c in taken) or "nothing: the Apothecary has none left"
    ctx.emit("city", msg("{player} is given free samples: {names}.", player=p.name, names=names), player=p.name)


def give(ctx: Ctx, i: int, value: str) -> bool | Text:
    """Trading Day's trades, recorded by the moderator: `alice give bob:sword` (an Object or a
    Follower changes hands), `alice give bob:gold:2`."""
    to, _, what = value.partition(":")
    try:
        j = ctx.index(to)
    except KeyError:
        return msg("give: no player called {to!r} (write give <player>:<card> or give <player>:gold:<n>)", to=to)
    p, q = ctx.player(i), ctx.player(j)
    if what.startswith("gold:"):
        n = int(what[5:]) if what[5:].isdigit() else 0
        if not 0 < n <= p.gold:
            return msg("give: {player} has {gold} gold to give, not {asked!r}", player=p.name, gold=p.gold,
                       asked=what[5:])
        p.gold -= n
        q.gold += n
        return True
    if what not in p.objects + p.followers:
        return msg("give: {player} holds no {card!r}", player=p.name, card=what)
    (p.objects if what in p.objects else p.followers).remove(what)
    gain_object(ctx, j, what)  # over the limit it is left on the receiver's space
    return True
