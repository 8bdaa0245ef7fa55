"""Battle and psychic combat: against creatures and between characters (base-game.md §5, §6).

A fight is three tasks: `fight` (evade or cast first), `combat-roll` (dice, then a fate
reroll if it could help) and `combat-resolve`. The reroll answer edits the resolve task, which
sits on top of the stack while the question is open.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine import rng, words
from engine.rules import items, spells, stats
from engine.rules.machine import Ctx, on_answer, task
from engine.rules.movement import place
from engine.rules.rerolls import fate_reroll, offer_reroll
from engine.rules.turn import lose_life
from engine.state import Prompt, Task, option
from engine.text import msg, printed, word

EVADE_ABILITIES = {"woods": "elf-evade-woods", "hills": "dwarf-evade-hills"}


def can_evade(ctx: Ctx, i: int) -> bool:
    """Abilities and Followers (`evade = ["woods"]`) that let a character evade on its space."""
    p = ctx.player(i)
    if not p.space:
        return False
    kind = ctx.space(p.space).name.lower()
    if kind in EVADE_ABILITIES and stats.has_ability(ctx, p, EVADE_ABILITIES[kind]):
        return True
    return any(kind in c.prop("evade", ()) for c in stats.items(ctx, p))


def evade_spells(ctx: Ctx, i: int) -> list[str]:
    p = ctx.player(i)
    if not p.spells or not spells.may_cast(ctx, i):
        return []
    return [s for s in dict.fromkeys(p.spells) if ctx.content.cards[s].hook in ("invisibility", "immobility")]


@task("fight")
def fight(ctx: Ctx, t: Task) -> None:
    i, a = t.p, t.a
    p = ctx.player(i)
    if not p.alive:
        return
    kind = "battle" if a.get("strength") is not None else "psychic combat"
    value = a.get("strength") if kind == "battle" else a.get("craft")
    them = words.foe(ctx.content, a)
    opts = [option("fight", msg("fight {a} ({kind}, {value})", a=them, kind=word(kind), value=value))]
    cards = [ctx.content.cards[c] for c in a.get("cards", [])]
    # lost-realms.txt, Traps: no ability or effect avoids a Trap unless it says it works against Traps
    # (none of our cards or abilities says so)
    trap = any(c.prop("trap") for c in cards)
    if cards and not trap and all(c.kind in ("animal", "dragon") for c in cards) \
            and stats.has_ability(ctx, p, "minstrel-animals"):
        opts.append(option("evade", msg("{a} will not attack you: pass by", a=them)))
    elif a.get("evadable", True) and a.get("spells", True) and not trap:
        if can_evade(ctx, i):
            opts.append(option("evade", msg("evade {a}", a=them)))
        opts += [option(f"cast-{s}",
                        msg("cast {card} to evade", card=ctx.content.cards[s].name)) for s in evade_spells(ctx, i)]
    if kind == "battle" and p.spells and a.get("spells", True) and spells.may_cast(ctx, i):
        opts += [option(f"cast-{s}",
                        msg("cast {card}", card=ctx.content.cards[s].name)) for s in dict.fromkeys(p.spells)
                 if ctx.content.cards[s].hook == "psionic-blast"]
    # a card's options (the Potion, the Mercenary, the Cross); a trap is not destroyed either
    opts += [o for o in ctx.hooks.fight_options(ctx, i, a) if not (trap and o.key == "banish")]
    ctx.push("combat-roll", i, **a)
    ctx.ask(i, "fight", msg("{a} ({kind}, {value}) faces you.", a=them, kind=word(kind), value=value), opts)


@on_answer("fight", "a creature faces you: `fight`, `evade`, `cast-<spell>`, or a card's option (`use-<card>`...)",
           default=("fight",))
def fight_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    p = ctx.player(i)
    roll_task = ctx.s.stack[-1]
    if key == "fight":
        return
    chosen = ctx.hooks.fight_choice(ctx, i, key, roll_task.a)  # a card's option (the Potion, the Cross...)
    if chosen == "over":  # no fight: the roll goes
        ctx.s.stack.pop()
        return
    if chosen == "again":  # a bonus added: asked again, more may be added
        refight(ctx, i)
        return
    if key.startswith("cast-"):
        spell = key[5:]
        hook = ctx.content.cards[spell].hook
        spells.spend(ctx, i, spell)
        ctx.emit("cast", msg("{player} casts {card}.", player=p.name, card=ctx.content.cards[spell].name),
                 player=p.name, card=spell)
        if hook == "psionic-blast":
            roll_task.a["bonus"] = roll_task.a.get("bonus", 0) + stats.craft(ctx, p)
            refight(ctx, i)
            return
    ctx.s.stack.pop()
    ctx.emit("evade", msg("{player} evades {a}.", player=p.name, a=words.foe(ctx.content, roll_task.a)), player=p.name)
    if roll_task.a.get("evaded_to"):
        ctx.push(roll_task.a["evaded_to"], i)


def refight(ctx: Ctx, i: int) -> None:
    """Ask again after a bonus was added: more may be added before the dice are rolled."""
    a = ctx.s.stack.pop().a
    ctx.push("fight", i, **a)


@task("combat-roll")
def combat_roll(ctx: Ctx, t: Task) -> None:
    i, a = t.p, t.a
    p = ctx.player(i)
    battle = a.get("strength") is not None
    if not a.get("helpers_asked") and ctx.hooks.ask_helpers(ctx, i, a):
        return  # the pack asked others to join the fight; this roll is pushed again
    mine = rng.dice(ctx.s, 2 if battle and stats.has_ability(ctx, p, "warrior-two-dice") else 1)
    theirs = rng.die(ctx.s)
    base = (stats.strength(ctx, p, battle=True) if battle else stats.craft(ctx, p, psychic=True)) + a.get("bonus", 0)
    foe = (a.get("strength") if battle else a.get("craft")) or 0
    if a.get("mirror"):
        foe = base  # the Snowbeast: as strong as its fighter, bonuses included
    resolve = {**a, "roll": max(mine), "dice": mine, "foe_roll": theirs, "base": base, "foe": foe}
    ctx.push("combat-resolve", i, **resolve)
    ctx.hooks.foe_reroll(ctx, i)  # Nemesis: may reroll the creature's die, after the hero
    ctx.emit("combat", msg("{player} rolls {roll} (total {total}); {enemy} rolls {enemy_roll} (total {enemy_total}).",
                             player=p.name, roll=max(mine), total=max(mine) + base, enemy=words.foe(ctx.content, a),
                             enemy_roll=theirs, enemy_total=theirs + foe), player=p.name)
    if stats.fate(ctx, p) and max(mine) + base <= theirs + foe:
        ctx.ask(i, "combat-reroll",
                msg("You total {value} against {value2}. Spend 1 fate to reroll your die?", value=max(mine) + base,
                    value2=theirs + foe),
                [option("reroll", msg("spend 1 fate and roll your die again")), option("keep", msg("keep the result"))])


@on_answer("combat-reroll", "a fight is being lost: `reroll` (1 fate, your die) or `keep`", default=("keep",))
def combat_reroll(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    a = next(t for t in reversed(ctx.s.stack) if t.op == "combat-resolve").a
    die = [a["roll"]]
    if fate_reroll(ctx, key, who, die):
        a["roll"] = die[0]


@task("combat-resolve")
def combat_resolve(ctx: Ctx, t: Task) -> None:
    i, a = t.p, t.a
    p = ctx.player(i)
    mine, theirs = a["roll"] + a["base"], a["foe_roll"] + a["foe"]
    battle = a.get("strength") is not None
    if a.get("scored"):  # a pack's task that reads both attack scores once the fight is over (the Dungeon)
        ctx.push(a["scored"], i, mine=mine, theirs=theirs)
    if mine > theirs:
        ctx.emit("win", msg("{player} beats {a}.", player=p.name, a=words.foe(ctx.content, a)), player=p.name)
        for card in a.get("cards", []):
            ctx.s.spaces[p.space].remove(card)
            p.trophies.append(card)
        if a.get("quest_kill") is not False:
            p.flags["killed"] = p.flags.get("killed", 0) + 1
        if a.get("on_win"):
            ctx.push(a["on_win"], i, **a.get("on_win_args", {}))
        return
    if a.get("on_loss") == "stay" and a.get("where"):
        place(ctx, i, a["where"])
    if mine == theirs:
        ctx.emit("standoff", msg("{player} and {a} stand off.", player=p.name, a=words.foe(ctx.content, a)),
                 player=p.name)
        if a.get("on_standoff"):
            ctx.push(a["on_standoff"], i, **a.get("on_win_args", {}))
        if a.get("ends_turn", True):
            spells.finish_turn(ctx)
        return
    ctx.emit("lose-fight", msg("{a} beats {player}.", a=words.foe(ctx.content, a), player=p.name), player=p.name)
    # The turn's end comes first: what the loss still asks (an armour reroll, Healing) is
    # pushed above the end-turn task and runs before it.
    if a.get("ends_turn", True):
        spells.finish_turn(ctx)
    elif a.get("on_loss_task"):
        ctx.push("after-loss", i, task=a["on_loss_task"], args=a.get("on_win_args", {}))
    if a.get("damage", 1):  # a place (damage 0) takes no life
        hurt(ctx, i, a.get("damage", 1), f" to {a['name']}", battle)


@task("after-loss")
def after_loss(ctx: Ctx, t: Task) -> None:
    if ctx.player(t.p).alive:
        ctx.push(t.a["task"], t.p, **t.a["args"])


def armour_value(ctx: Ctx, i: int) -> int | None:
    """The best armour the character wears (battle only, one armour): the lowest roll that saves."""
    p = ctx.player(i)
    if not (p.objects or p.followers) or stats.has_ability(ctx, p, "no-weapons-armour"):
        return None
    values = [c.prop("armour") for c in stats.items(ctx, p) if c.prop("armour")]
    return min(values) if values else None


def hurt(ctx: Ctx, i: int, n: int, cause: str, battle: bool, then: tuple | None = None) -> None:
    """Lose `n` lives unless armour saves them (battle). The armour's roll is the holder's own
    die: when it fails and they hold fate, they may reroll it (§16.1). `then` = (op, player,
    args) runs after a life is really lost."""
    need = armour_value(ctx, i) if battle else None
    if need is None:
        lose_lives(ctx, i, n, cause, then)
        return
    roll = rng.die(ctx.s)
    p = ctx.player(i)
    args = {"dice": [roll], "need": need, "n": n, "cause": cause, "first": roll}
    if then:
        args["after"] = list(then)
    if roll < need and stats.fate(ctx, p):
        ctx.emit("armour", msg("{player}'s armour roll: {roll} (not saved).", player=p.name, roll=roll), player=p.name)
        offer_reroll(ctx, i,
                     msg("Your armour roll is {roll}: it saves on {need} or more. Spend 1 fate to reroll it?",
                         roll=roll, need=need),
                     "armour-resolve", **args)
        return
    args["first"] = None
    ctx.push("armour-resolve", i, **args)


@task("armour-resolve")
def armour_resolve(ctx: Ctx, t: Task) -> None:
    i, a = t.p, t.a
    p = ctx.player(i)
    roll = a["dice"][0]
    saved = roll >= a["need"]
    if roll != a.get("first"):  # not shown yet: no reroll was asked, or the reroll changed it
        ctx.emit("armour",
                 msg("{player}'s armour roll: {roll} (saved).", player=p.name, roll=roll) if saved else
                 msg("{player}'s armour roll: {roll} (not saved).", player=p.name, roll=roll), player=p.name)
    if not saved:
        lose_lives(ctx, i, a["n"], a["cause"], a.get("after"))


def lose_lives(ctx: Ctx, i: int, n: int, cause: str, then: Sequence[Any] | None) -> None:
    lose_life(ctx, i, n, cause)
    if ctx.s.over:
        return  # the last character standing has won
    spells.wounded(ctx, i)
    if then:
        ctx.push(then[0], then[1], **then[2])


# -- character against character -------------------------------------------------

@task("attack")
def attack(ctx: Ctx, t: Task) -> None:
    i, j = t.p, t.a["target"]
    p, q = ctx.player(i), ctx.player(j)
    opts = [option("battle", msg("attack {player} in battle", player=q.name))]
    if stats.has_ability(ctx, p, "psychic-attacks-on-characters") and not t.a.get("battle_only"):
        opts.append(option("psychic", msg("attack {player} in psychic combat", player=q.name)))
    immobile = t.a.get("immobile", False)
    if not immobile and "immobility" in p.spells and spells.may_cast(ctx, i) and not spells.shielded(ctx, i, j):
        opts.append(option("cast-immobility",
                           msg("first cast {immobility} on {player}: no evading, no Spells, no die",
                               immobility=printed("Immobility"), player=q.name)))
    ctx.ask(i, "attack-kind", msg("You attack {player}. Battle or psychic combat?", player=q.name), opts, target=j,
            life_only=t.a.get("life_only", False), battle_only=t.a.get("battle_only", False), immobile=immobile)


@on_answer("attack-kind", "attacking a character: `battle`, `psychic` or `cast-immobility` first", default=("battle",))
def attack_kind(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i, j = ctx.index(who), prompt.data["target"]
    if key == "cast-immobility":
        # Immobility on a character: "that character can do nothing this turn". In a duel
        # the defender neither evades nor casts, and rolls no die for its score.
        p = ctx.player(i)
        ctx.push("attack", i, target=j, battle_only=prompt.data.get("battle_only", False),
                 life_only=prompt.data.get("life_only", False))  # "immobile" once the Spell holds
        spells.spend(ctx, i, "immobility")
        ctx.emit("cast", msg("{player} casts {immobility} on {player2}.", immobility=printed("Immobility"),
                             player=p.name, player2=ctx.name(j)),
                 player=p.name, card="immobility")
        ctx.push("immobilise", i, target=j, name="Immobility")  # Counterspell cancels this task
        spells.offer_counterspell(ctx, i, "Immobility")
        return
    immobile = prompt.data.get("immobile", False)
    psychic = key == "psychic"
    attr = "Craft" if psychic else "Strength"
    # said to everyone, the defender first of all, whether or not it has anything to answer
    rolls = msg("each adding a die") if not (immobile or defenceless(ctx, i, psychic)) else \
        msg("{player} adding no die", player=ctx.name(j))
    scores = {"player": who, "target": ctx.name(j), "attr": word(attr.lower()), "score": duel_score(ctx, i, psychic, 0),
              "target_score": duel_score(ctx, j, psychic, 0), "rolls": rolls}
    ctx.emit("attack", msg("{player} attacks {target} in psychic combat: {attr} {score} against {target_score}, "
                           "{rolls}.", **scores) if psychic else
             msg("{player} attacks {target} in battle: {attr} {score} against {target_score}, {rolls}.", **scores),
             player=who)
    ctx.push("duel-roll", i, target=j, psychic=psychic, life_only=prompt.data.get("life_only", False),
             immobile=immobile)
    if immobile:
        return  # the defender can do nothing: no evading, no Spells
    opts = [option("defend", msg("defend yourself"))]
    opts += [option(f"cast-{s}",
                    msg("cast {card} to evade", card=ctx.content.cards[s].name)) for s in evade_spells(ctx, j)]
    if can_evade(ctx, j):
        opts.append(option("evade", msg("evade the attack")))
    ctx.ask(j, "defend",
            msg("{player} attacks you (psychic combat).", player=who) if key == "psychic" else
            msg("{player} attacks you (battle).", player=who), opts)


@task("immobilise")
def immobilise(ctx: Ctx, t: Task) -> None:
    attack_task = ctx.s.stack[-1]  # the attack, asked again below this task
    attack_task.a["immobile"] = True
    ctx.emit("immobility", msg("{player} is immobilised and can do nothing this turn.", player=ctx.name(t.a['target'])),
             player=ctx.name(t.a["target"]))


@on_answer("defend", "attacked by a character: `defend`, `evade` or `cast-<spell>` to evade", default=("defend",))
def defend(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    if key == "defend":
        return
    j = ctx.index(who)
    q = ctx.player(j)
    if key.startswith("cast-"):
        spells.spend(ctx, j, key[5:])
    duel = ctx.s.stack.pop()
    ctx.emit("evade", msg("{player} evades {player2}'s attack.", player=q.name, player2=ctx.name(duel.p)),
             player=q.name)


def duel_score(ctx: Ctx, i: int, psychic: bool, roll: int) -> int:
    p = ctx.player(i)
    return roll + (stats.craft(ctx, p, psychic=True) if psychic else stats.strength(ctx, p, battle=True))


def defenceless(ctx: Ctx, i: int, psychic: bool) -> bool:
    """The Assassin's victim may not roll for its attack score (in battle)."""
    return not psychic and stats.has_ability(ctx, ctx.player(i), "assassin-no-defence")


@task("duel-roll")
def duel_roll(ctx: Ctx, t: Task) -> None:
    i, j, psychic = t.p, t.a["target"], t.a["psychic"]
    p = ctx.player(i)
    a_roll = max(rng.dice(ctx.s, 2 if not psychic and stats.has_ability(ctx, p, "warrior-two-dice") else 1))
    d_roll = 0 if t.a.get("immobile") or defenceless(ctx, i, psychic) else \
        max(rng.dice(ctx.s, 2 if not psychic and stats.has_ability(ctx, ctx.player(j), "warrior-two-dice") else 1))
    ctx.push("duel-resolve", i, target=j, psychic=psychic, a=a_roll, d=d_roll, life_only=t.a.get("life_only", False))
    ctx.emit("combat",
             msg("{player} rolls {a_roll}; {player2} rolls {d_roll}.", player=p.name, a_roll=a_roll,
                 player2=ctx.name(j), d_roll=d_roll))
    # Attacker decides on fate first, then the defender (base-game.md §5.1).
    ctx.push("duel-fate", j, side="d")
    ctx.push("duel-fate", i, side="a")


def pending_duel(ctx: Ctx) -> Task:
    return next(t for t in reversed(ctx.s.stack) if t.op == "duel-resolve")


@task("duel-fate")
def duel_fate(ctx: Ctx, t: Task) -> None:
    duel = pending_duel(ctx)
    res = duel.a
    i, side = t.p, t.a["side"]
    p = ctx.player(i)
    att = duel_score(ctx, duel.p, res["psychic"], res["a"])
    dfn = duel_score(ctx, res["target"], res["psychic"], res["d"])
    losing = att <= dfn if side == "a" else dfn <= att
    if stats.fate(ctx, p) and losing and not (side == "d" and res["d"] == 0):
        ctx.ask(i, "duel-reroll",
                msg("The attack stands {att} to {dfn}. Spend 1 fate to reroll your die?", att=att, dfn=dfn),
                [option("reroll", msg("spend 1 fate and reroll")), option("keep", msg("keep the result"))], side=side)


@on_answer("duel-reroll", "an attack on a character: `reroll` (1 fate, your die) or `keep`", default=("keep",))
def duel_reroll(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    res, side = pending_duel(ctx).a, prompt.data["side"]
    die = [res[side]]
    if fate_reroll(ctx, key, who, die):
        res[side] = die[0]


@task("duel-resolve")
def duel_resolve(ctx: Ctx, t: Task) -> None:
    i, j, psychic = t.p, t.a["target"], t.a["psychic"]
    att = duel_score(ctx, i, psychic, t.a["a"])
    dfn = duel_score(ctx, j, psychic, t.a["d"])
    if att == dfn:
        ctx.emit("standoff",
                 msg("{player} ({att}) and {player2} ({dfn}) stand off.", player=ctx.name(i), att=att,
                     player2=ctx.name(j), dfn=dfn))
        return
    win, lose = (i, j) if att > dfn else (j, i)
    ctx.emit("duel",
             msg("{player} beats {player2} ({max} to {min}).", player=ctx.name(win), player2=ctx.name(lose),
                 max=max(att, dfn), min=min(att, dfn)))
    ctx.hooks.duel_won(ctx, win, lose)  # the City's alignment Wanted Posters
    loser = ctx.player(lose)
    opts = [option("life", msg("{player} loses 1 life", player=loser.name))]
    if not t.a.get("life_only"):  # the Cataclysm's Plain of Peril: the winner takes a life
        if loser.gold:
            opts.append(option("gold", msg("take 1 gold from {player}", player=loser.name)))
        opts += [option(o,
                        msg("take {card} from {player}", card=ctx.content.cards[o].name,
                            player=loser.name)) for o in dict.fromkeys(loser.objects)]
    ctx.ask(win, "reward", msg("You beat {player}. Choose your reward.", player=loser.name), opts, loser=lose,
            psychic=psychic)


@on_answer("reward", "the spoils of a won attack on a character: `life` (it loses 1 life), `gold`, or an Object's slug",
           default=())
def reward(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    w, lose = ctx.index(who), prompt.data["loser"]
    winner, loser = ctx.player(w), ctx.player(lose)
    if key == "life":
        if ctx.s.current == lose:
            spells.finish_turn(ctx)  # first: what the loss still asks runs before the turn's end
        # What the loser holds now is what a death leaves for the winner to loot (life-taken).
        held = {"loser": lose, "psychic": prompt.data["psychic"], "held": loser.objects + loser.followers,
                "gold": loser.gold}
        hurt(ctx, lose, 1, f" to {winner.name}", not prompt.data["psychic"], then=("life-taken", w, held))
        return
    elif key == "gold":
        loser.gold -= 1
        winner.gold += 1
        ctx.emit("take", msg("{player} takes 1 gold from {player2}.", player=winner.name, player2=loser.name))
    else:
        (loser.objects if key in loser.objects else loser.followers).remove(key)
        items.gain_object(ctx, w, key)
        ctx.emit("take",
                 msg("{player} takes {card} from {player2}.", player=winner.name, card=ctx.content.cards[key].name,
                     player2=loser.name))
    if ctx.s.current == lose:
        spells.finish_turn(ctx)


@task("life-taken")
def life_taken(ctx: Ctx, t: Task) -> None:
    """The winner of a duel took a life (armour did not save it)."""
    w, lose = t.p, t.a["loser"]
    winner, loser = ctx.player(w), ctx.player(lose)
    if stats.has_ability(ctx, winner, "ghoul-life-drain") and not stats.healing_barred(ctx):  # Pandora's Box
        winner.life += 1
    ctx.hooks.life_taken(ctx, w, not t.a["psychic"])
    winner.flags["took-life"] = 1
    if not loser.alive and not ctx.s.options.get("inherited_items"):  # inherited: nobody loots (§9)
        ctx.emit("loot", msg("{player} may take what {player2} left.", player=winner.name, player2=loser.name),
                 player=winner.name)
        ctx.push("loot", w, cards=list(t.a.get("held", [])), gold=t.a.get("gold", 0), dead=loser.name)


@task("loot")
def loot(ctx: Ctx, t: Task) -> None:
    """The killer's first pick of what the dead character left on the space (base-game.md §9,
    docs/rules-decisions.md §16.8): its Objects and Followers one at a time, its gold, until
    `done`. Only what is still there and the killer may hold and carry is offered."""
    i, a = t.p, t.a
    p = ctx.player(i)
    lying = ctx.s.spaces.get(p.space, [])
    cards = [c for c in a["cards"] if c in lying]
    a["cards"] = cards
    gold = min(a["gold"], ctx.s.space_gold.get(p.space, 0))
    opts = [option(c, msg("take {card}", card=ctx.content.cards[c].name)) for c in dict.fromkeys(cards)
            if items.may_hold(ctx, i, c) and (ctx.content.cards[c].type == "follower" or not stats.full(ctx, p, c))]
    if gold:
        opts.append(option("gold", msg("take {gold} gold", gold=gold)))
    if not opts:
        return
    ctx.push("loot", i, **a)
    ctx.ask(i, "loot", msg("What do you take of what {a} left?", a=a['dead']),
            opts + [option("done", msg("take nothing more"))])


@on_answer("loot", "what to take of what a dead character left: a card slug, or `done`", default=("done",))
def loot_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i, a = ctx.index(who), ctx.s.stack[-1].a
    p = ctx.player(i)
    if key == "done":
        ctx.s.stack.pop()
        return
    if key == "gold":
        gold = min(a["gold"], ctx.s.space_gold.get(p.space, 0))
        ctx.s.space_gold[p.space] -= gold
        if not ctx.s.space_gold[p.space]:
            del ctx.s.space_gold[p.space]
        p.gold += gold
        a["gold"] = 0
        ctx.emit("take", msg("{player} takes {gold} gold {a} left.", player=p.name, gold=gold, a=a['dead']),
                 player=p.name)
        return
    ctx.s.spaces[p.space].remove(key)
    a["cards"].remove(key)
    items.gain_object(ctx, i, key)
    ctx.emit("take",
             msg("{player} takes {card}, which {a} left.", player=p.name, card=ctx.content.cards[key].name,
                 a=a['dead']), player=p.name)
