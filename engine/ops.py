"""The effect vocabulary (docs/effects.md): content data's ops, run one after another.

An `effect` task pushes one `op` task per op; each op is a small function. Ops that need a
die or a decision ask, with the rest of the effect still on the stack.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from engine import rng
from engine.content import die_rows
from engine.rules import reach, spells, stats
from engine.rules.items import check_alignment_items, discard, discard_spells_over_limit, drop_excess, gain_object
from engine.rules.machine import TASKS, Ctx, on_answer, registrar, task
from engine.rules.movement import place
from engine.rules.rerolls import fate_reroll
from engine.rules.setup import draw_spell
from engine.rules.turn import effect_name, kill, lose_life, one_effect
from engine.state import Option, Prompt, Task, option
from engine.text import content_text, msg, revived, word

OpHandler = Callable[[Ctx, int, dict[str, Any], dict[str, Any]], None]  # (ctx, player, op, meta)
OPS: dict[str, OpHandler] = {}


def op(name: str) -> Callable[[OpHandler], OpHandler]:
    """Register the op `name` of the effect vocabulary (docs/effects.md); a name taken is an error."""
    return registrar(OPS, "op", name)


def automated(ops: list) -> bool:
    """Whether the engine can run these ops without the moderator."""
    for o in ops:
        if not isinstance(o, dict) or o.get("op") not in OPS or o.get("op") == "moderator":
            return False
        if o["op"] == "hook" and o.get("name") not in TASKS:
            return False
        for key in ("then", "else"):
            if not automated(o.get(key, [])):
                return False
        for row in (o.get("table") or {}).values():
            if not automated(row):
                return False
        for choice in o.get("options", []) if isinstance(o.get("options"), list) else []:
            if not automated(choice.get("then", [])):
                return False
    return True


@task("effect")
def effect(ctx: Ctx, t: Task) -> None:
    meta = {k: v for k, v in t.a.items() if k not in ("ops", "o")}
    ctx.push_all([("op", t.p, {**meta, "o": o}) for o in t.a["ops"]])


@task("op")
def run_op(ctx: Ctx, t: Task) -> None:
    o = t.a["o"]
    if not ctx.player(t.p).alive and o.get("who", "self") == "self":
        return
    OPS.get(o["op"], OPS["moderator"])(ctx, t.p, o, with_source(t.a))


def with_source(meta: dict[str, Any]) -> dict[str, Any]:
    """An effect's `meta` with its `source` a message again where a saved game kept one as `[id, args]`
    (a Nemesis companion's level, a Sea Voyage table)."""
    return meta if not isinstance(meta.get("source"), list) else {**meta, "source": revived(meta["source"])}


def run(ctx: Ctx, i: int, ops: list, meta: dict) -> None:
    if ops:
        ctx.push("effect", i, ops=ops, **{k: v for k, v in meta.items() if k not in ("o", "ops")})


def targets(ctx: Ctx, i: int, who: str) -> list[int]:
    if who == "self":  # nearly every effect: answered without looking at anyone else
        return [i]
    p = ctx.player(i)
    living = reach.within(ctx, i, stats.alive_players(ctx))  # the Timescape: a reality of its own
    others = [j for j in living if j != i]
    if who == "all":
        return living
    if who == "others":
        return others
    if who == "others-lowest-life":
        return lowest_life(ctx, others)
    if who == "space-others":
        return [j for j in others if ctx.player(j).space == p.space]
    region = stats.region(ctx, p.space)
    near = [j for j in living if stats.region(ctx, ctx.player(j).space) == region]
    if who == "region":
        return near
    if who == "region-others":
        return [j for j in near if j != i]
    raise KeyError(who)


def lowest_life(ctx: Ctx, js: list[int]) -> list[int]:
    low = min((ctx.player(j).life for j in js), default=0)
    return [j for j in js if ctx.player(j).life == low]


# -- attributes ------------------------------------------------------------------

def change(ctx: Ctx, j: int, what: str, n: int) -> None:
    p = ctx.player(j)
    if what == "life":
        if n < 0:
            lose_life(ctx, j, -n)
            return
        if stats.healing_barred(ctx):  # Pandora's Box (The Lost Realms): no life is gained
            return
        p.life += n
    elif what in ("strength", "craft"):
        floor = stats.printed(ctx, p, what)
        setattr(p, what, max(floor, getattr(p, what) + n))
        if what == "craft":
            discard_spells_over_limit(ctx, j)
    elif what == "fate":
        stats.gain_fate(ctx, p, n)
    elif what == "gold":
        p.gold = max(0, p.gold + n)
    ctx.emit(what,
             msg("{player} gains {n} {what}.", player=p.name, n=n, what=word(what)) if n > 0 else
             msg("{player} loses {n} {what}.", player=p.name, n=-n, what=word(what)),
             player=p.name, what=what, n=n)


# what a roll or a choice is for when its card does not say (msg() outside a call: pybabel extracts it)
THE_TABLE, CHOOSE, A_CARD = msg("the table"), msg("Choose"), msg("A card")


@op("gain")
def gain(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    for j in targets(ctx, i, o.get("who", "self")):
        what = o["what"]
        if what == "spell":
            for _ in range(o.get("n", 1)):
                spell(ctx, j, {}, meta)
        elif what == "talisman":
            talisman(ctx, j, o, meta)
        else:
            change(ctx, j, what, o.get("n", 1))


@op("lose")
def lose(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    js = targets(ctx, i, o.get("who", "self"))
    with one_effect(ctx):
        for j in js:
            change(ctx, j, o["what"], -o.get("n", 1))
    if o["what"] == "life":  # after every loss (the drawer's may end the turn): Healing windows
        spells.all_wounded(ctx, js)


@op("heal")
def heal(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    for j in targets(ctx, i, o.get("who", "self")):
        p = ctx.player(j)
        n = p.max_life - p.life if o.get("n", 1) == "full" else min(o.get("n", 1), p.max_life - p.life)
        if n > 0 and not stats.healing_barred(ctx):  # Pandora's Box: nobody heals
            p.life += n
            ctx.emit("heal",
                     msg("{player} is healed 1 life.", player=p.name) if n == 1 else
                     msg("{player} is healed {n} lives.", player=p.name, n=n), player=p.name)


@op("replenish")
def replenish(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    p = ctx.player(i)
    if stats.shared(ctx, p):  # Nemesis: collect 1, or 2 while the pool is below its start
        n = 2 if ctx.s.pools["shared_fate"] < ctx.s.counters.get("shared-fate-start", 0) else 1
        change(ctx, i, "fate", n)
        return
    if p.fate < p.max_fate:
        ctx.emit("fate", msg("{player}'s fate is replenished to {max_fate}.", player=p.name, max_fate=p.max_fate),
                 player=p.name)
        p.fate = p.max_fate


@op("spell")
def spell(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    p = ctx.player(i)
    for _ in range(o.get("n", 1)):
        if p.toad or len(p.spells) >= stats.spell_limit(ctx, p) or not draw_spell(ctx, i):
            return


@op("spells-to-limit")
def spells_to_limit(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    spell(ctx, i, {"n": 3}, meta)


@op("discard-spells")
def discard_spells(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    for j in targets(ctx, i, o.get("who", "self")):
        p = ctx.player(j)
        if p.spells:
            ctx.s.discards["spell"].extend(p.spells)
            p.spells = []
            ctx.emit("discard", msg("{player} discards all Spells.", player=p.name), player=p.name)


@op("talisman")
def talisman(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    p = ctx.player(i)
    card = ctx.draw("talisman")  # a faceup pile in the base game; a shuffled deck in the Cataclysm
    if card:
        gain_object(ctx, i, card)
        ctx.emit("talisman", msg("{player} gains a Talisman.", player=p.name), player=p.name)
    else:
        ctx.emit("talisman", msg("No Talisman is left to take."))


# -- dice and choices ------------------------------------------------------------

@op("roll")
def roll(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """Roll for a table. The roller may spend 1 fate to reroll one die (the lowest: tables
    read higher as better) unless the roll is already the table's best."""
    p = ctx.player(i)
    dice = rng.dice(ctx.s, o.get("dice", 1))
    table = {**meta, "o": o}
    if stats.fate(ctx, p) and sum(dice) < 6 * len(dice) and o.get("reroll", True):
        ctx.push("roll-table", i, dice=dice, **{k: v for k, v in table.items() if k != "dice"})
        ctx.ask(i, "table-reroll", msg("You roll {dice} for {source}. Spend 1 fate to reroll your lowest die?",
                    dice="+".join(map(str, dice)), source=meta.get("source", THE_TABLE)),
                [option("reroll", msg("spend 1 fate and reroll")), option("keep", msg("keep it"))])
        return
    read_table(ctx, i, o, meta, dice)


@on_answer("table-reroll", "a roll on a card's table: `reroll` (1 fate, the lowest die) or `keep`", default=("keep",))
def table_reroll(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    fate_reroll(ctx, key, who, ctx.s.stack[-1].a["dice"])


@task("roll-table")
def roll_table(ctx: Ctx, t: Task) -> None:
    meta = with_source({k: v for k, v in t.a.items() if k not in ("dice", "o")})
    read_table(ctx, t.p, t.a["o"], meta, t.a["dice"])


def read_table(ctx: Ctx, i: int, o: dict, meta: dict, dice: list[int]) -> None:
    p = ctx.player(i)
    total = sum(dice)
    if o.get("prayer") and stats.has_ability(ctx, p, "prayer-bonus"):
        total += 1
    for attr in ("add", "subtract"):
        if o.get(attr):
            v = stats.strength(ctx, p) if o[attr] == "strength" else stats.craft(ctx, p)
            total += v if attr == "add" else -v
    ctx.emit("roll",
             msg("{player} rolls {names} for {get}: {total}.", player=p.name, names='+'.join(map(str, dice)),
                 get=meta.get('source', THE_TABLE), total=total),
             player=p.name, dice=dice)
    ops = table_row(die_rows(o.get("table", {})), total, len(dice))
    if ops:
        run(ctx, i, ops, meta)


def table_row(rows: list[tuple[int, int, list]], total: int, n: int) -> list | None:
    """The ops of the row a total reads. Every total the dice can show has its row (a row `[]`:
    nothing happens; tests/test_content_tables.py holds every table to it). Only a total beyond
    the dice's range (a +1 on a 6) reads the table's edge row, where that row reaches the edge
    of the range; any other unlisted total does nothing."""
    for a, b, ops in rows:
        if a <= total <= b:
            return ops
    if rows and total > 6 * n:
        a, b, ops = max(rows, key=lambda r: r[1])
        return ops if b >= 6 * n else None
    if rows and total < n:
        a, b, ops = min(rows, key=lambda r: r[0])
        return ops if a <= n else None
    return None


_TEST = re.compile(r"^(strength|craft|life|fate|gold|spells|objects|followers)\s*(<=|>=|==|<|>)\s*(\d+|limit)$")


def test(ctx: Ctx, i: int, expr: str) -> bool:
    p = ctx.player(i)
    if expr in ("good", "evil", "neutral"):
        return p.alignment == expr
    if expr.startswith("ability:"):
        return stats.has_ability(ctx, p, expr[8:])
    if expr.startswith("covered:"):  # a named space under a Terrain card (the Cataclysm)
        return ctx.covered(expr[8:])
    if expr.startswith("has:"):
        return expr[4:] in p.objects or expr[4:] in p.followers
    if expr.startswith("not "):
        return not test(ctx, i, expr[4:])
    m = _TEST.match(expr.replace(" ", ""))
    if not m:
        raise ValueError(f"unknown test {expr!r}")
    attr, cmp, val = m.groups()
    have = {"strength": stats.strength(ctx, p), "craft": stats.craft(ctx, p), "life": p.life,
            "fate": stats.fate(ctx, p), "gold": p.gold, "spells": len(p.spells), "objects": len(p.objects),
            "followers": len(p.followers)}[attr]
    want = stats.spell_limit(ctx, p) if val == "limit" else int(val)
    return {"<": have < want, "<=": have <= want, ">": have > want, ">=": have >= want, "==": have == want}[cmp]


@op("bonus")
def bonus(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """+`n` Strength in battle (`what = "battle"`) or Craft in psychic combat (`"psychic"`) until
    the end of the character's turn: this one, or its next when given on another's turn."""
    what = o.get("what", "battle")
    for j in targets(ctx, i, o.get("who", "self")):
        p = ctx.player(j)
        p.flags[f"{what}-bonus"] = p.flags.get(f"{what}-bonus", 0) + o.get("n", 1)
        kind = msg("Strength in battle") if what == "battle" else msg("Craft in psychic combat")
        ctx.emit("bonus",
                 msg("{player} has +{flags} {kind} until the end of their turn.", player=p.name,
                     flags=p.flags[f'{what}-bonus'], kind=kind),
                 player=p.name)


@op("if")
def if_(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    run(ctx, i, o.get("then", []) if test(ctx, i, o["test"]) else o.get("else", []), meta)


@op("choose")
def choose(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    choices = [c for c in o["options"] if not c.get("test") or test(ctx, i, c["test"])]
    if ctx.s.packs:  # a pack's further choice beside these (the Timescape's Warp Gate at the Mystic)
        choices += ctx.hooks.choose_options(ctx, i, o, meta)
    opts = [option(c["key"], content_text(c["text"])) if "text" in c else Option(c["key"], c["key"]) for c in choices]
    if o.get("optional"):
        opts.append(option("no", msg("do nothing")))
    if not opts:
        return
    ctx.ask(i, "choose", content_text(o["question"]) if "question" in o else
            msg("{source}: what do you do?", source=meta.get("source", CHOOSE)), opts,
            choices={c["key"]: c.get("then", []) for c in choices}, meta={k: v for k, v in meta.items() if k != "o"})


@on_answer("choose", "a card's choice: its options' keys (engine/content), or `no` (do nothing)", default=("no",))
def choose_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    if key != "no":
        run(ctx, ctx.index(who), prompt.data["choices"][key], prompt.data["meta"])


# -- turns, toads, places ---------------------------------------------------------

@op("kill")
def kill_op(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    with one_effect(ctx):
        for j in targets(ctx, i, o.get("who", "self")):
            if ctx.player(j).alive:
                kill(ctx, j)


@op("miss-turn")
def miss_turn(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    for j in targets(ctx, i, o.get("who", "self")):
        p = ctx.player(j)
        p.miss += o.get("n", 1)
        ctx.emit("miss", msg("{player} will miss {get} turn(s).", player=p.name, get=o.get('n', 1)), player=p.name)
    if i in targets(ctx, i, o.get("who", "self")) and ctx.s.current == i:
        # Losing a turn ends this one at once; it counts as the missed turn only when cards
        # are left unresolved, else the next turn is missed (base-game.md §3.1).
        if any(t.op == "resolve-cards" and t.a.get("todo") for t in ctx.s.stack):
            ctx.player(i).miss -= 1
        spells.finish_turn(ctx)


@op("end-turn")
def end_turn(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    if ctx.s.current == i:  # a card met on another's turn (Pandora's Box) ends nobody's turn
        spells.finish_turn(ctx)


@op("toad")
def toad(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    for j in targets(ctx, i, o.get("who", "self")):
        p = ctx.player(j)
        p.toad = o.get("turns", 3)
        ctx.emit("toad", msg("{player} is turned into a Toad for {toad} turns.", player=p.name, toad=p.toad),
                 player=p.name)


@op("teleport")
def teleport(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    p = ctx.player(i)
    if o.get("to") and ctx.covered(o["to"]):
        return  # the space lies under a Terrain card: no longer on the board
    if o.get("to"):
        ctx.emit("teleport", msg("{player} is taken to {space}.", player=p.name, space=ctx.space(o['to']).name),
                 player=p.name)
        p.flags.pop("came-from", None)  # no step leads back along a teleport
        place(ctx, i, o["to"])
        if o.get("encounter", True):
            ctx.end_turn()
            ctx.push("encounter", i)
        return
    choose_from = o.get("choose", "region")
    if choose_from == "region":
        choose_from = stats.region(ctx, p.space)
    if o.get("encounter", True):
        ctx.end_turn()
    ctx.push("teleport-choose", i, choose=choose_from, encounter=o.get("encounter", True))


@op("next-move")
def next_move(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """The character's next move is decided already (the Tavern's wizard and boatman)."""
    p = ctx.player(i)
    p.flags["next-move"] = o["to"]
    where = msg("a space of the Outer Region they choose then") if o["to"] == "outer" else ctx.space(o["to"]).name
    ctx.emit("next-move",
             msg("{player}'s next move takes them to {where}, instead of a movement roll.", player=p.name,
                 where=where), player=p.name)


@op("align")
def align(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    p = ctx.player(i)
    if p.alignment == o["to"] or p.flags.get("alignment-changed"):
        return
    p.alignment = o["to"]
    p.flags["alignment-changed"] = 1
    ctx.emit("alignment", msg("{player} becomes {o}.", player=p.name, o=word(o['to'], o['to'].title())), player=p.name)
    check_alignment_items(ctx, i)


@op("fight")
def fight(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    args = {k: v for k, v in o.items() if k in ("name", "strength", "craft", "evadable", "pay")}
    if o.get("trophy") and meta.get("card"):
        args["cards"] = [meta["card"]]
    ctx.push("fight", i, **args)


# -- gold, shops, healing ---------------------------------------------------------

def shop_prices(ctx: Ctx, o: dict) -> dict[str, int]:
    """A shop's price list: `prices = "price"` (the Blacksmith's) or `"market_price"` (the
    Market's) reads purchase.toml, the one place prices are written; `items` lists its own."""
    if "prices" in o:
        return ctx.content.market_prices if o["prices"] == "market_price" else ctx.content.purchase_prices
    return o["items"]


def _buy_options(ctx: Ctx, i: int, o: dict) -> list[Option]:
    p = ctx.player(i)
    have = ctx.s.decks[o.get("deck", "purchase")]
    opts = [option(slug, msg("buy {card} for {price} gold", card=ctx.content.cards[slug].name, price=price))
            for slug, price in shop_prices(ctx, o).items() if price <= p.gold and slug in have]
    return opts + [option("done", msg("buy nothing more"))] if opts else []


def clockwise(ctx: Ctx, i: int, js: list[int], drawer_last: bool = False) -> list[int]:
    """Characters in turn order from i. The drawer goes last where its effect may end the
    turn (which drops the work still queued for this turn)."""
    n = len(ctx.s.players)
    return sorted(js, key=lambda j: (j - i - (1 if drawer_last else 0)) % n)


def for_each(ctx: Ctx, i: int, o: dict, meta: dict) -> bool:
    """Ops that are choices can't serve several characters at once: queue one per character,
    the drawer first and then clockwise. True if it queued them."""
    who = o.get("who", "self")
    if who == "self":
        return False
    one = {k: v for k, v in o.items() if k != "who"}
    order = clockwise(ctx, i, targets(ctx, i, who))
    ctx.push_all([("op", j, {**meta, "o": one}) for j in order])
    return True


@op("each")
def each(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """Run `then` for every character of `who` that passes `test` (e.g. Evil Darkness)."""
    order = clockwise(ctx, i, targets(ctx, i, o.get("who", "all")), drawer_last=True)
    ctx.push_all([("effect", j, {**meta, "ops": o.get("then", [])}) for j in order
                  if not o.get("test") or test(ctx, j, o["test"])])


@op("hold")
def hold(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """Held on the space (the Temple's slavers) until a movement roll of `until` or more."""
    p = ctx.player(i)
    p.flags["held"] = o.get("until", 4)
    ctx.emit("held",
             msg("{player} is held here until rolling {flags} or more to move.", player=p.name,
                 flags=p.flags['held']), player=p.name)


@op("shop")
def shop(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    if for_each(ctx, i, o, meta):
        return
    opts = _buy_options(ctx, i, o)
    if opts:
        ctx.ask(i, "shop", msg("What do you buy?"), opts, o=o)


@on_answer("shop", "what to buy: a card slug, or `done`", default=("done",))
def shop_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    if key == "done":
        return
    i = ctx.index(who)
    p = ctx.player(i)
    o = prompt.data["o"]
    p.gold -= shop_prices(ctx, o)[key]
    ctx.s.decks[o.get("deck", "purchase")].remove(key)
    gain_object(ctx, i, key)
    ctx.emit("buy", msg("{player} buys {card}.", player=p.name, card=ctx.content.cards[key].name), player=p.name,
             card=key)
    shop(ctx, i, o, {})


def pay_for(ctx: Ctx, i: int, what: str, room: int, price: int) -> None:
    """Buy up to `room` lives or fate at `price` gold each (healers, the Graveyard)."""
    most = min(room, ctx.player(i).gold // max(1, price))
    if most <= 0 or (what == "life" and stats.healing_barred(ctx)):  # Pandora's Box: no healing
        return
    unit = "life" if what == "life" else "fate"
    opts = [option(f"{'heal' if unit == 'life' else 'fate'}-{n}",
                   msg("{n} {unit} for {value} gold", n=n, unit=word(unit), value=n * price))
            for n in range(most, 0, -1)]
    ctx.ask(i, "pay-for", msg("How much {unit} do you pay for?", unit=word(unit)), opts + [option("none", msg("none"))],
            price=price, what=what)


@on_answer("pay-for", "how much life or fate to buy: `heal-<n>` / `fate-<n>`, or `none`", default=("none",))
def pay_for_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    n = 0 if key == "none" else int(key.split("-")[1])
    if n:
        p = ctx.player(ctx.index(who))
        p.gold -= n * prompt.data["price"]
        what = prompt.data["what"]
        if what == "fate":
            stats.gain_fate(ctx, p, n)
        else:
            setattr(p, what, getattr(p, what) + n)
        ctx.emit(what,
                 msg("{player} pays {value} gold for {n} {what}.", player=p.name, value=n * prompt.data['price'], n=n,
                     what=word(what)), player=p.name)


@op("pay-heal")
def pay_heal(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    p = ctx.player(i)
    room = p.max_life - p.life if o.get("max", "full") == "full" else min(o["max"], p.max_life - p.life)
    pay_for(ctx, i, "life", room, o.get("price", 1))


@op("pay-fate")
def pay_fate(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    p = ctx.player(i)
    if stats.shared(ctx, p):
        room = ctx.s.counters.get("shared-fate-start", 0) - ctx.s.pools["shared_fate"]
    else:
        room = p.max_fate - p.fate
    pay_for(ctx, i, "fate", room, o.get("price", 1))


@op("sell-objects")
def sell_objects(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    p = ctx.player(i)
    opts = [option(c, msg("sell {card} for {get} gold", card=ctx.content.cards[c].name, get=o.get('price', 1)))
            for c in dict.fromkeys(p.objects)]
    if opts:
        ctx.ask(i, "sell", msg("Which Object do you sell?"), opts + [option("done", msg("sell nothing more"))],
                price=o.get("price", 1))


@on_answer("sell", "which Object to sell: a card slug, or `done`", default=("done",))
def sell_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    if key == "done":
        return
    i = ctx.index(who)
    p = ctx.player(i)
    p.objects.remove(key)
    discard(ctx, key)
    p.gold += prompt.data["price"]
    ctx.emit("sell", msg("{player} sells {card}.", player=p.name, card=ctx.content.cards[key].name), player=p.name)
    sell_objects(ctx, i, {"price": prompt.data["price"]}, {})


@op("lose-follower")
def lose_follower(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    p = ctx.player(i)
    if not p.followers:
        return
    opts = [option(c, msg("lose {card}", card=ctx.content.cards[c].name)) for c in dict.fromkeys(p.followers)]
    ctx.ask(i, "lose-follower", msg("Which Follower do you lose?"), opts)


@on_answer("lose-follower", "which Follower is lost: a card slug", default=())
def lose_follower_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    ctx.player(i).followers.remove(key)
    discard(ctx, key)
    drop_excess(ctx, i)
    ctx.emit("lose-follower", msg("{player} loses {card}.", player=who, card=ctx.content.cards[key].name), player=who)


@op("stash-gold")
def stash_gold(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    p = ctx.player(i)
    if p.gold and not ctx.covered(o["to"]):  # the space under Terrain: the effect is ignored
        ctx.s.space_gold[o["to"]] = ctx.s.space_gold.get(o["to"], 0) + p.gold
        ctx.emit("gold",
                 msg("{player}'s {gold} gold is taken to {space}.", player=p.name, gold=p.gold,
                     space=ctx.space(o['to']).name), player=p.name)
        p.gold = 0


@op("lasting")
def lasting(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    e = {"name": o["name"], "rounds": o.get("rounds", 1), "by": ctx.name(i)}
    if o["name"] == "hex":
        e["space"] = ctx.player(i).space
    ctx.s.effects.append(e)
    ctx.emit("lasting",
             msg("{replace} takes hold for {e} round(s).", replace=effect_name(ctx, o['name']), e=e['rounds']))


def quest_possible(ctx: Ctx, i: int, goal: str | None) -> bool:
    """Whether the character can complete a quest of that goal under the game's rules: taking
    a life needs another character it may attack (none in a Nemesis game, where heroes never
    attack each other, nor in a game of one)."""
    if goal != "take-life":
        return True
    if not any(j != i and q.role == "hero" and not q.out for j, q in enumerate(ctx.s.players)):
        return False
    return ctx.hooks.quest_possible(ctx, i, goal)


@op("quest")
def quest(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """Take a Warlock quest: a card from a pack's deck, else a roll of the table. A quest this
    character cannot complete is not dealt: the card is discarded and the next drawn, the
    table rolled again (issue 13: an impossible quest would bar the Portal for good)."""
    p = ctx.player(i)
    if p.quest:
        return
    if "quest" in ctx.s.decks:  # a pack's Warlock Quest deck replaces the die table
        card = ctx.draw("quest")
        tries = len(ctx.content.decks["quest"])  # every card once at most
        while card and not quest_possible(ctx, i, ctx.content.cards[card].prop("goal")):
            ctx.emit("quest", msg("{card} cannot be done in this game: discarded.", card=ctx.content.cards[card].name))
            ctx.s.discards["quest"].append(card)
            tries -= 1
            card = ctx.draw("quest") if tries else None
        if card:
            p.quest = card
            p.flags.pop("killed", None)
            p.flags.pop("took-life", None)
            ctx.emit("quest",
                     msg("{player} draws a Warlock Quest: {text}", player=p.name,
                         text=content_text(ctx.content.cards[card].text)), player=p.name)
        return
    dealt = [r for r, q in ctx.content.quests.items() if quest_possible(ctx, i, q.get("goal"))]
    if not dealt:
        return
    r = rng.die(ctx.s)
    while r in ctx.content.quests and r not in dealt:
        ctx.emit("quest",
                 msg("{player} rolls {r}: that quest cannot be done in this game, and rolls again.", player=p.name,
                     r=r),
                 player=p.name)
        r = rng.die(ctx.s)
    q = ctx.content.quests.get(r)
    if q:
        p.quest = str(r)
        p.flags.pop("killed", None)
        p.flags.pop("took-life", None)
        ctx.emit("quest",
                 msg("{player} rolls {r} and takes a Warlock quest: {get}", player=p.name, r=r,
                     get=content_text(q.get("text", q.get("name", "")))),
                 player=p.name)


# A wish's gains (the Timescape's wish has these without the teleport: engine/packs/timescape.py)
WISHES = {"spell": msg("gain 1 Spell"), "gold": msg("gain 1 gold"), "strength": msg("gain 1 Strength"),
          "craft": msg("gain 1 Craft"), "life": msg("gain 1 life"), "fate": msg("gain 1 fate")}


@op("wish")
def wish(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    p = ctx.player(i)
    region = stats.region(ctx, p.space)
    choices = [{"key": k, "text": said, "then": [{"op": "spell"} if k == "spell" else {"op": "gain", "what": k}]}
               for k, said in WISHES.items()]
    choices.append({"key": "teleport", "text": msg("go to any space in this region"),
                    "then": [{"op": "teleport", "choose": region}]})
    if o.get("test") and not test(ctx, i, o["test"]):
        return
    leave(ctx, i, o, meta)
    source = meta.get("source")
    choose(ctx, i, {"options": choices, "question": msg("{card} grants you a wish.", card=source) if source
                    else msg("A stranger grants you a wish.")}, meta)


@op("take-counter")
def take_counter(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    key = f"{meta.get('card')}@{ctx.player(i).space}"
    left = ctx.s.counters.get(key, o.get("start", 4))
    if left <= 0:
        return
    change(ctx, i, o["what"], 1)
    ctx.s.counters[key] = left - 1
    if left - 1 <= 0:
        ctx.s.counters.pop(key)
        leave(ctx, i, o, meta)


@op("leave")
def leave(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """The card that caused this effect leaves the board."""
    card, space = meta.get("card"), ctx.player(i).space
    if card and card in ctx.s.spaces.get(space, []):
        ctx.s.spaces[space].remove(card)
        discard(ctx, card)


@op("hook")
def hook_op(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """A pack's named rule (a task in engine/packs/<pack>.py), e.g. the Nemesis's To the Death."""
    ctx.push(o["name"], i)


@op("moderator")
def moderator(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """The engine cannot settle this: the moderator does, with an `adjudicate` move."""
    text = o.get("text") or f"settle {meta.get('source', 'this card')}"
    ctx.s.prompt = None
    ctx.ask_moderator(i,
                      msg("{get} for {player}: {text}", get=meta.get('source', A_CARD), player=ctx.name(i),
                          text=text))

