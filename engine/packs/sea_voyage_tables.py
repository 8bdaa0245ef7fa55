"""Sea Voyage: the other ops the Captain's tables (engine/content/sea-voyage/captain.toml) are
written in: rolling on a table, shipwreck and prison, losses, Rations and prisoners taken, the
Pirate's ship, the Exploration Vessel, plunder, the travelling Wizard, a seaside harbour.
Combat is in sea_voyage_combat.py, trade in sea_voyage_trade.py.
"""
from __future__ import annotations

from typing import Any

from engine import rng
from engine.ops import OPS, op
from engine.packs.sea_voyage_state import add_rations, at_sea, bump, flag, hold, phase, sell_prisoners, ship_of, tables
from engine.packs.sea_voyage_wreck_prison import prison, wreck
from engine.rules.items import discard
from engine.rules.machine import Ctx, on_answer
from engine.state import Prompt, option
from engine.text import msg

# The tables as a sentence names them ("rolls 4 for Ship Table A"): messages (ops.with_source revives one)
TITLES = {"ship-a": msg("Ship Table A"), "ship-b": msg("Ship Table B"), "attack-a": msg("Ship Attack Table A"),
          "attack-b": msg("Ship Attack Table B"), "isle-a": msg("Isle Table A"), "isle-b": msg("Isle Table B")}


@op("sea-table")
def sea_table(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    name = o["name"]
    title = TITLES.get(name, name)
    OPS["roll"](ctx, i, {"op": "roll", "table": tables()[name]},
                {**{k: v for k, v in meta.items() if k != "o"}, "source": title})


@op("sea-wreck")
def sea_wreck(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    if at_sea(ctx.player(i)):
        wreck(ctx, i, rolls=o.get("rolls", True), fed=o.get("fed", False))


@op("sea-prison")
def sea_prison(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    if at_sea(ctx.player(i)):
        prison(ctx, i)


@op("sea-lose-all")
def lose_all(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    p = ctx.player(i)
    what = o["what"]
    n = p.gold if what == "gold" else flag(p, "sea-cargo")
    if not n:
        return
    if what == "gold":
        p.gold = 0
    else:
        p.flags["sea-cargo"] = 0
    ctx.emit("sea-lose",
             msg("{player} loses all {n} gold.", player=p.name, n=n) if what == "gold" else
             msg("{player} loses all {n} Cargo.", player=p.name, n=n), player=p.name)


@op("sea-rations")
def rations_op(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """Take up to n Rations, never above the maximum of 15 (always as many as fit)."""
    if at_sea(ctx.player(i)):
        add_rations(ctx, i, o.get("n", 1))


@op("sea-prisoner")
def take_prisoner(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    p = ctx.player(i)
    bump(p, "sea-prisoners", 1)
    ctx.emit("sea-prisoner", msg("{player} takes the Pirate prisoner, to sell at the next harbour.", player=p.name),
             player=p.name)


@op("sea-swap-ship")
def swap_ship(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    p = ctx.player(i)
    ship, to = ship_of(ctx, p), o["to"]
    if not ship or ship == to or to not in ctx.s.decks.get("ship", []):
        return
    name = ctx.content.cards[to].name
    ctx.ask(i, "sea-swap",
            msg("Exchange your ship for the Pirate's {name}, keeping all your Objects, Rations and Cargo?", name=name),
            [option("swap",
                    msg("take the {name} (Cargo space {prop})", name=name, prop=ctx.content.cards[to].prop('hold', 0))),
             option("keep", msg("keep your ship"))], to=to)


@on_answer("sea-swap", "the Pirate's ship: `swap` (take it) or `keep` your own", default=("keep",))
def swapped(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    if key != "swap":
        return
    i = ctx.index(who)
    p = ctx.player(i)
    old, new = ship_of(ctx, p), prompt.data["to"]
    assert old is not None  # asked only of a captain
    p.objects.remove(old)
    discard(ctx, old)
    ctx.s.decks["ship"].remove(new)
    p.objects.append(new)
    p.flags["sea-cargo"] = min(flag(p, "sea-cargo"), hold(ctx, p))
    ctx.emit("sea-swap", msg("{player} sails on in the {card}.", player=who, card=ctx.content.cards[new].name),
             player=who)


@op("sea-explorer")
def explorer(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    p = ctx.player(i)
    p.flags["sea-explore"] = 1
    ctx.emit("sea-explore", msg("{player} exchanges news with a Royal Exploration Vessel: "
             "next turn, three cards to choose from.", player=p.name), player=p.name)


@op("sea-plunder")
def plunder(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    p = ctx.player(i)
    r = rng.die(ctx.s)
    p.gold += r
    ctx.emit("sea-plunder", msg("{player} rolls {r} and plunders {r} gold.", player=p.name, r=r), player=p.name,
             dice=[r])


@op("sea-wizard")
def wizard(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """Teleported to unknown waters: 6 more to the homecoming roll (on the way home already:
    6 more turns)."""
    p = ctx.player(i)
    n = o.get("n", 6)
    bump(p, "sea-home" if phase(p) == "home" else "sea-wizard", n)
    ctx.emit("sea-wizard", msg("A travelling Wizard teleports {player}'s ship to unknown waters: "
             "the way home is {n} turns longer.", player=p.name, n=n), player=p.name)


@op("sea-harbour")
def seaside_harbour(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    sell_prisoners(ctx, i)
