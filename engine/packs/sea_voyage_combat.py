"""Sea Voyage: combat at sea. Ship-combat (the op `ship-combat`: dice and ship Strength, fate
to reroll, Wanted after two ships attacked) and a normal combat at sea (the op `sea-fight`).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine import rng, words
from engine.ops import op, run as run_ops
from engine.packs.sea_voyage_state import at_sea, bump, flag, ship_strength
from engine.rules.machine import Ctx, task
from engine.rules.rerolls import offer_reroll
from engine.state import Task
from engine.text import msg


@op("ship-combat")
def ship_combat(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """Each side rolls a die and adds its ship's Strength; the higher wins, a draw does
    nothing. No trophies, no Spells, no lives lost but by the card's own result."""
    p = ctx.player(i)
    if not at_sea(p):
        return
    foe = o["strength"]
    if foe == "die":
        foe = rng.die(ctx.s)
        ctx.emit("sea-combat", msg("{o} has Strength {foe}.", o=o['name'].capitalize(), foe=foe), player=p.name)
    mine, theirs = rng.die(ctx.s), rng.die(ctx.s)
    base = ship_strength(ctx, i)
    a = {"name": o["name"], "foe": foe, "base": base, "dice": [mine], "foe_roll": theirs, "win": o.get("win", []),
         "lose": o.get("lose", []), "attack": o.get("attack", False),
         "meta": {k: v for k, v in meta.items() if k != "o"}}
    ctx.emit("sea-combat", msg("Ship-combat: {player} rolls {mine} (ship Strength {base}, total {value}); "
             "{o} rolls {theirs} (total {value2}).", player=p.name, mine=mine, base=base, value=mine + base,
             o=words.foe(ctx.content, o), theirs=theirs, value2=theirs + foe), player=p.name)
    if mine + base <= theirs + foe:  # losing or drawn: the roller's own die may be rerolled with fate
        offer_reroll(ctx, i,
                     msg("Your ship totals {value} against {value2}. Spend 1 fate to reroll your die?",
                         value=mine + base, value2=theirs + foe),
                     "ship-combat-resolve", **a)
    else:
        ctx.push("ship-combat-resolve", i, **a)


@task("ship-combat-resolve")
def ship_combat_resolve(ctx: Ctx, t: Task) -> None:
    i, a = t.p, t.a
    p = ctx.player(i)
    mine, theirs = a["dice"][0] + a["base"], a["foe_roll"] + a["foe"]
    if mine == theirs:
        ctx.emit("sea-combat", msg("{player}'s ship and {a} part: nothing happens.", player=p.name,
                                   a=words.foe(ctx.content, a)), player=p.name)
        return
    won = mine > theirs
    ctx.emit("sea-combat",
             (msg("{player} wins the ship-combat against {a} ({mine} to {theirs}).", player=p.name,
                  a=words.foe(ctx.content, a), mine=mine, theirs=theirs) if won else
              msg("{player} loses the ship-combat against {a} ({mine} to {theirs}).", player=p.name,
                  a=words.foe(ctx.content, a), mine=mine, theirs=theirs)),
             player=p.name)
    if won and a.get("attack"):
        attacked(ctx, i)
    run_ops(ctx, i, a["win"] if won else a["lose"], a.get("meta", {}))


def attacked(ctx: Ctx, i: int) -> None:
    p = ctx.player(i)
    if bump(p, "sea-attacks", 1) >= 2 and not flag(p, "sea-wanted"):
        p.flags["sea-wanted"] = 1
        ctx.emit("sea-wanted", msg("{player} has attacked two ships and is known as a Pirate: Wanted.", player=p.name),
                 player=p.name)


# -- a normal combat at sea ----------------------------------------------------------------

@op("sea-fight")
def sea_fight(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """A normal combat at sea (battle): no evading, no trophy; the turn goes on."""
    outcome = {k: o.get(k, []) for k in ("win", "lose", "standoff")}
    ctx.push("fight", i, name=o["name"], strength=o["strength"], evadable=False, ends_turn=False,
             damage=o.get("damage", 1), quest_kill=False, on_win="sea-fight-win", on_standoff="sea-fight-standoff",
             on_loss_task="sea-fight-lose", on_win_args=outcome)


def _outcome(key: str) -> Callable[[Ctx, Task], None]:
    def handler(ctx: Ctx, t: Task) -> None:
        run_ops(ctx, t.p, t.a.get(key, []), {})
    return handler


for _key in ("win", "lose", "standoff"):
    task(f"sea-fight-{_key}")(_outcome(_key))
