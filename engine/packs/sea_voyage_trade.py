"""Sea Voyage: trade at sea, the ops the Captain's tables trade in: the vessel from Cathay
(`sea-cathay`), buying and selling Cargo (`sea-buy-cargo`, `sea-sell`), buying Rations
(`sea-buy-rations`).
"""
from __future__ import annotations

from typing import Any

from engine import rng
from engine.ops import op
from engine.packs.sea_voyage_state import add_rations, at_sea, bump, flag, hold, settings
from engine.rules import stats
from engine.rules.machine import Ctx, on_answer
from engine.rules.setup import draw_spell
from engine.state import Prompt, option
from engine.text import Text, msg


@op("sea-cathay")
def cathay(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """Each Cargo may buy one of: a Talisman, 4 gold, a Spell, a Hornet, a Foliant."""
    p = ctx.player(i)
    if not flag(p, "sea-cargo"):
        return
    cards = ctx.content.cards
    room = not stats.full(ctx, p, "hornet")
    opts = []
    if room and (ctx.s.decks.get("talisman") or ctx.s.discards.get("talisman")):
        opts.append(option("talisman", msg("a Talisman")))
    opts.append(option("gold", msg("{get} gold", get=o.get('gold', 4))))
    if (not p.toad and len(p.spells) < stats.spell_limit(ctx, p)
            and (ctx.s.decks.get("spell") or ctx.s.discards.get("spell"))):
        opts.append(option("spell", msg("a Spell")))
    if room:
        opts += [option(c, msg("a {card}", card=cards[c].name)) for c in dict.fromkeys(ctx.s.decks.get("cathay", []))]
    ctx.ask(i, "sea-cathay", msg("The vessel from Cathay trades for your Cargo ({flag} aboard). "
            "What do you take for one Cargo?", flag=flag(p,
                                                         'sea-cargo')), opts + [option("done",
                                                                                       msg("trade no more"))],
                                                                                       gold=o.get("gold", 4))


@on_answer("sea-cathay", "the vessel from Cathay: what to take for one Cargo (the options' keys), or `done`",
           default=("done",))
def cathay_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    if key == "done":
        return
    i = ctx.index(who)
    p = ctx.player(i)
    bump(p, "sea-cargo", -1)
    if key == "gold":
        p.gold += prompt.data["gold"]
        got: Text = msg("{n} gold", n=prompt.data["gold"])
    elif key == "spell":
        draw_spell(ctx, i)
        got = msg("a Spell")
    else:
        card = ctx.draw(key) if key == "talisman" else key
        assert card is not None  # a Talisman is offered only while one is left
        if key != "talisman":
            ctx.s.decks["cathay"].remove(key)
        p.objects.append(card)
        got = ctx.content.cards[card].name
    ctx.emit("sea-trade", msg("{player} trades 1 Cargo for {got}.", player=who, got=got), player=who)
    cathay(ctx, i, {"gold": prompt.data["gold"]}, {})


@op("sea-buy-cargo")
def buy_cargo(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    p = ctx.player(i)
    price = o.get("price", 1)
    if not at_sea(p) or flag(p, "sea-cargo") >= hold(ctx, p) or p.gold < price:
        return
    ctx.ask(i, "sea-buy-cargo", msg("A coastal trader offers one Cargo for {price} gold. Buy it?", price=price),
            [option("buy", msg("buy 1 Cargo for {price} gold", price=price)), option("no", msg("no"))], price=price)


@on_answer("sea-buy-cargo", "a coastal trader's Cargo: `buy` or `no`", default=("no",))
def cargo_bought(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    if key == "buy":
        p = ctx.player(ctx.index(who))
        p.gold -= prompt.data["price"]
        bump(p, "sea-cargo", 1)
        ctx.emit("sea-trade", msg("{player} buys 1 Cargo ({flag} aboard).", player=who, flag=flag(p, 'sea-cargo')),
                 player=who)


@op("sea-sell")
def sell_cargo(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """Sell any number of Cargo at a price, or at a die roll less 1 ("die-1")."""
    p = ctx.player(i)
    n = flag(p, "sea-cargo")
    if not n:
        return
    price = o.get("price", 2)
    if price == "die-1":
        r = rng.die(ctx.s)
        price = r - 1
        ctx.emit("sea-trade",
                 msg("{player} rolls {r}: the traders pay {price} gold for each Cargo.", player=p.name, r=r,
                     price=price),
                 player=p.name, dice=[r])
        if price <= 0:
            return
    ctx.ask(i, "sea-sell", msg("Sell Cargo at {price} gold each? ({n} aboard)", price=price, n=n),
            [option(f"sell-{k}", msg("sell {k} for {value} gold", k=k, value=k * price)) for k in range(n, 0, -1)]
            + [option("keep", msg("sell none"))], price=price)


@on_answer("sea-sell", "selling Cargo: `sell-<n>` or `keep`", default=("keep",))
def sold(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    if key == "keep":
        return
    p = ctx.player(ctx.index(who))
    k = int(key.split("-")[1])
    bump(p, "sea-cargo", -k)
    p.gold += k * prompt.data["price"]
    ctx.emit("sea-trade",
             msg("{player} sells {k} Cargo for {value} gold.", player=who, k=k,
                 value=k * prompt.data['price']), player=who)


@op("sea-buy-rations")
def buy_rations(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """At 1 gold a Ration, or (`bundle` = 3, the friendly tribe) up to 3 Rations for 1 gold."""
    p = ctx.player(i)
    price = o.get("price", 1)
    room = settings()["rations_max"] - flag(p, "sea-rations")
    if not at_sea(p) or room <= 0 or p.gold < price:
        return
    bundle = o.get("bundle")
    if bundle:
        k = min(bundle, room)
        ctx.ask(i, "sea-rations", msg("Buy up to {bundle} Rations for {price} gold?", bundle=bundle, price=price),
                [option(f"buy-{k}",
                        msg("{k} Ration{s} for {price} gold", k=k, s='s' if k != 1 else '',
                            price=price)), option("none", msg("buy none"))],
                price=price, per=False)
        return
    most = min(room, p.gold // price)
    amounts = list(range(1, most + 1)) if most <= 10 else list(range(1, 10)) + [most]
    ctx.ask(i, "sea-rations",
            msg("Buy Rations at {price} gold each? ({flag} aboard, at most 15)", price=price,
                flag=flag(p, 'sea-rations')),
            [option(f"buy-{k}",
                    msg("{k} for {value} gold", k=k,
                        value=k * price)) for k in amounts[::-1]] + [option("none", msg("buy none"))],
            price=price, per=True)


@on_answer("sea-rations", "buying Rations: `buy-<n>` or `none`", default=("none",))
def rations_bought(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    if key == "none":
        return
    i = ctx.index(who)
    k = int(key.split("-")[1])
    cost = k * prompt.data["price"] if prompt.data["per"] else prompt.data["price"]
    ctx.player(i).gold -= cost
    ctx.emit("sea-trade", msg("{player} pays {cost} gold for Rations.", player=who, cost=cost), player=who)
    add_rations(ctx, i, k)
