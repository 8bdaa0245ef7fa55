"""Spaces whose text is more than data: the Portal, the Inner Region, the Crown, quests
(base-game.md §10, §11). Board data names these as `hook`s."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine import ops, rng, words
from engine.content import die_row
from engine.rules import reach, spells, stats
from engine.rules.items import discard
from engine.rules.machine import Ctx, TaskHandler, on_answer, task
from engine.rules.movement import place
from engine.rules.rerolls import fate_reroll, offer_reroll
from engine.rules.turn import finish, lose_life, one_effect
from engine.state import Prompt, Task, option
from engine.text import msg, printed, word


def args(ctx: Ctx, space: str) -> dict:
    """The numbers and tables a space's hook reads, editable in board.toml (`hook_args`)."""
    return ctx.space(space).hook_args


def hook(name: str) -> Callable[[TaskHandler], TaskHandler]:
    """Register what a space with `hook = "<name>"` does when encountered: the task `space:<name>`."""
    return task(f"space:{name}")


for _quiet in ("sentinel", "plain-of-peril", "valley-of-fire", "warlocks-cave"):
    task(f"space:{_quiet}")(lambda ctx, t: None)  # their text is in the data, or movement handles them


@hook("portal")
def portal_space(ctx: Ctx, t: Task) -> None:
    """Landing exactly on the Portal: the character may try to open it (rules-decisions)."""
    if ctx.player(t.p).quest:
        return
    ctx.ask(t.p, "portal-try", msg("You stand at the {portal_of_power}. Try to open it?",
                                   portal_of_power=printed("Portal of Power")),
            [option("portal-strength", msg("roll 2 dice against your Strength")),
             option("portal-craft", msg("roll 2 dice against your Craft")), option("no", msg("not now"))])


@on_answer("portal-try", "at the Portal of Power: `portal-strength` / `portal-craft` (try to open it) or `no`",
           default=("no",))
def portal_try(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    if key != "no":
        ctx.push("portal", ctx.index(who), attr=key.split("-")[1])


@hook("crypt")
@hook("mines")
def thrown(ctx: Ctx, t: Task) -> None:
    """Crypt and Mines: dice minus an attribute; the result may throw you out ([M] tables)."""
    i = t.p
    p = ctx.player(i)
    a = args(ctx, p.space)
    attr = a.get("subtract", "strength")
    n = a.get("dice", 3)
    if attr == "craft" and (stats.has_ability(ctx, p, "dwarf-mines") or stats.holds(ctx, i, "gnome")):
        n = 2
    dice = rng.dice(ctx.s, n)
    value = stats.strength(ctx, p) if attr == "strength" else stats.craft(ctx, p)
    if sum(dice) - value > 0:  # thrown out unless a fate reroll of the highest die helps
        offer_reroll(ctx, i, msg("You roll {names} − {attr} {value} at "
                     "{space}. Spend 1 fate to reroll your highest die?", names='+'.join(map(str, dice)),
                     attr=word(attr), value=value, space=ctx.space(p.space).name),
                     "thrown-resolve", dice=dice, low_is_good=True)
        return
    ctx.push("thrown-resolve", i, dice=dice)


@task("thrown-resolve")
def thrown_resolve(ctx: Ctx, t: Task) -> None:
    i, dice = t.p, t.a["dice"]
    p = ctx.player(i)
    a = args(ctx, p.space)
    attr = a.get("subtract", "strength")
    value = stats.strength(ctx, p) if attr == "strength" else stats.craft(ctx, p)
    result = sum(dice) - value
    ctx.emit("roll", msg("{player} rolls {dice} − {attr} {value} = {result} at {space}.", player=p.name,
                             dice="+".join(map(str, dice)), attr=word(attr), value=value, result=result,
                             space=ctx.space(p.space).name), player=p.name, dice=list(dice))
    for row in a.get("outcomes", []):
        if "upto" not in row or result <= row["upto"]:
            if row.get("then"):
                ctx.push("effect", i, ops=row["then"], source=ctx.space(p.space).name)
            return


@hook("vampires-tower")
def vampires_tower(ctx: Ctx, t: Task) -> None:
    """Roll for the lives the Vampire drinks; Followers may be given up instead, one a life.
    The Cataclysm's Lich is the same hook with its own table and name."""
    p = ctx.player(t.p)
    r = rng.die(ctx.s)
    table = args(ctx, p.space).get("lose_life", {"1-2": 1, "3-4": 2, "5-6": 3})
    n = die_row(table, r, 0)
    ctx.emit("roll",
             msg("{player} rolls {r} at {space}: {n} to lose.", player=p.name, r=r, space=ctx.space(p.space).name,
                 n=n), player=p.name)
    ctx.push("vampire-drink", t.p, n=n, foe=args(ctx, p.space).get("name", "the Vampire"))


@task("vampire-drink")
def vampire_drink(ctx: Ctx, t: Task) -> None:
    p = ctx.player(t.p)
    n = t.a["n"]
    if n <= 0 or not p.alive:
        return
    foe = t.a.get("foe", "the Vampire")
    if not p.followers:
        lose_life(ctx, t.p, n, f" to {foe}")
        return
    opts = ([option("life", msg("lose a life"))]
            + [option(f, msg("give up {card}", card=ctx.content.cards[f].name)) for f in dict.fromkeys(p.followers)])
    ctx.push("vampire-drink", t.p, n=n - 1, foe=foe)
    ctx.ask(t.p, "vampire",
            msg("{value} drinks ({n} to go): a life or a Follower?",
                value=words.FOES_START.get(foe) or foe[0].upper() + foe[1:], n=n), opts, foe=foe)


@on_answer("vampire", "the Vampire drinks: `life` (lose a life) or a Follower's slug (give it up)", default=())
def vampire_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    foe = prompt.data.get("foe", "the Vampire")
    if key == "life":
        lose_life(ctx, i, 1, f" to {foe}")
        if not ctx.player(i).alive:
            return
    else:
        ctx.player(i).followers.remove(key)
        discard(ctx, key)
        ctx.emit("vampire",
                 msg("{player} gives up {card} to {foe}.", player=who, card=ctx.content.cards[key].name,
                     foe=words.FOES.get(foe, foe)), player=who)


def must_face(ctx: Ctx, i: int, key: str, value: Any) -> None:
    p = ctx.player(i)
    p.flags[key] = value
    p.flags["must-face"] = 1


def beaten(ctx: Ctx, i: int, key: str) -> None:
    p = ctx.player(i)
    p.flags.pop(key, None)
    p.flags.pop("must-face", None)


@hook("pits")
def pits(ctx: Ctx, t: Task) -> None:
    """Pit Fiends ([M] Strength 4), fought one at a time until one wins or all are dead."""
    p = ctx.player(t.p)
    left = p.flags.get("pit-fiends") or rng.die(ctx.s)
    ctx.emit("pits", msg("{player} faces {left} Pit Fiend(s).", player=p.name, left=left), player=p.name)
    must_face(ctx, t.p, "pit-fiends", left)
    ctx.push("pit-fiend", t.p)


@task("pit-fiend")
def pit_fiend(ctx: Ctx, t: Task) -> None:
    p = ctx.player(t.p)
    if p.flags.get("pit-fiends", 0) <= 0:
        beaten(ctx, t.p, "pit-fiends")
        return
    strength = args(ctx, p.space).get("fiend_strength", 4)
    ctx.push("fight", t.p, name="Pit Fiend", strength=strength, evadable=False, on_win="pit-fiend-dead")


@task("pit-fiend-dead")
def pit_fiend_dead(ctx: Ctx, t: Task) -> None:
    p = ctx.player(t.p)
    p.flags["pit-fiends"] -= 1
    ctx.push("pit-fiend", t.p)


@hook("werewolf-den")
def werewolf_den(ctx: Ctx, t: Task) -> None:
    """A creature of dice Strength; the Werewolf keeps its Strength, the Cataclysm's Mutant
    (`reroll`) has it rolled again at every encounter."""
    p = ctx.player(t.p)
    a = args(ctx, p.space)
    strength = (not a.get("reroll") and p.flags.get("werewolf")) or sum(rng.dice(ctx.s, a.get("dice", 2)))
    must_face(ctx, t.p, "werewolf", strength)
    ctx.push("fight", t.p, name=a.get("name", "Werewolf"), strength=strength, evadable=False,
             spells=a.get("spells", True), on_win="werewolf-dead")


@task("werewolf-dead")
def werewolf_dead(ctx: Ctx, t: Task) -> None:
    beaten(ctx, t.p, "werewolf")


@hook("death")
def death(ctx: Ctx, t: Task) -> None:
    """Dice with Death: 2 dice each; lower loses a life, equal faces Death again, higher passes."""
    p = ctx.player(t.p)
    mine, his = rng.dice(ctx.s, 2), rng.dice(ctx.s, 2)
    ctx.push("death-resolve", t.p, mine=mine, his=his)
    if stats.fate(ctx, p) and sum(mine) <= sum(his):
        ctx.ask(t.p, "death-reroll", msg("You roll {mine}+{mine2}, Death rolls {his}+{his2}. "
                "Spend 1 fate to reroll one of your dice?", mine=mine[0], mine2=mine[1], his=his[0], his2=his[1]),
                [option("reroll-low", msg("reroll your lower die")), option("keep", msg("keep the result"))])


@on_answer("death-reroll", "against Death: `reroll-low` (1 fate, your lower die) or `keep`", default=("keep",))
def death_reroll(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    fate_reroll(ctx, key, who, ctx.s.stack[-1].a["mine"])


@task("death-resolve")
def death_resolve(ctx: Ctx, t: Task) -> None:
    p = ctx.player(t.p)
    mine, his = sum(t.a["mine"]), sum(t.a["his"])
    ctx.emit("death", msg("{player} rolls {mine} against Death's {his}.", player=p.name, mine=mine, his=his),
             player=p.name)
    if mine > his:
        beaten(ctx, t.p, "death")
        return
    must_face(ctx, t.p, "death", 1)
    if mine < his:
        lose_life(ctx, t.p, 1, " to Death")


@task("space:crown")
@task("crown")
def crown(ctx: Ctx, t: Task) -> None:
    s = ctx.s
    p = ctx.player(t.p)
    if not s.crown_reached:
        s.crown_reached = True
        ctx.emit("crown", msg("{player} reaches the {crown_of_command}! From now on death is final.",
                              crown_of_command=printed("Crown of Command"), player=p.name),
                 player=p.name)
        if s.options.get("sudden_death"):
            finish(ctx, [p.name])
            return
    # An Alternative Ending card on the Crown (the Cataclysm) is encountered instead of the
    # Command Spell, and instead of the others there unless it says so (`meet_others`).
    ending = ctx.content.cards[s.piles["ending"][0]] if s.piles.get("ending") else None
    others = [j for j in reach.others(ctx, t.p) if ctx.player(j).space == p.space]
    if others and (ending is None or ending.prop("meet_others")):
        ctx.ask(t.p, "crown-attack", msg("Others stand on the Crown with you: whom do you attack?"),
                [option(f"encounter-{ctx.name(j)}", msg("attack {player}", player=ctx.name(j))) for j in others])
        return
    if p.toad:
        ctx.emit("command", msg("{player}, a Toad, cannot cast the Command Spell.", player=p.name), player=p.name)
        return
    if ending and ending.prop("at_turn_start") and t.a.get("arrived"):
        # The Eternal Crown: cast "at the start of each of his turns", so not on arriving
        ctx.emit("ending",
                 msg("{player} will cast the Command Spell of {ending} from the start of the next turn.",
                     player=p.name, ending=ending.name),
                 player=p.name)
        return
    if ending:
        ctx.emit("ending",
                 msg("{player} encounters the Alternative Ending: {ending}.", player=p.name,
                     ending=ending.name), player=p.name)
        ctx.push("effect", t.p, ops=ending.effect or [{"op": "moderator", "text": ending.text}], source=ending.name)
        return
    ctx.emit("command", msg("{player} casts the Command Spell.", player=p.name), player=p.name)
    ctx.push("command-spell", t.p, name="the Command Spell")
    spells.offer_counterspell(ctx, t.p, "the Command Spell")  # Counterspell can cancel it too


@task("command-spell")
def command_spell(ctx: Ctx, t: Task) -> None:
    r = rng.die(ctx.s)
    ctx.emit("command", msg("{player} rolls {r} for the Command Spell.", player=ctx.name(t.p), r=r),
             player=ctx.name(t.p), roll=r)
    if r >= command_spell_low(ctx):
        hit = reach.others(ctx, t.p)  # not those in the Timescape (engine/rules/reach.py)
        with one_effect(ctx):
            for j in hit:
                lose_life(ctx, j, 1, " to the Command Spell")
        spells.all_wounded(ctx, hit)


def command_spell_low(ctx: Ctx) -> int:
    """The lowest roll that strikes: 4, or with the easier variant 3 (5 players) or 2 (6+)."""
    n = len([q for q in ctx.s.players if q.character])
    if ctx.s.options.get("command_spell") == "easier" and n >= 5:
        return 3 if n == 5 else 2
    return 4


@on_answer("crown-attack", "others stand on the Crown: `encounter-<player>`, whom to attack", default=())
def crown_attack(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    ctx.push("attack", ctx.index(who), target=ctx.index(key[len("encounter-"):]))


@task("quest-check")
def quest_check(ctx: Ctx, t: Task) -> None:
    """A Warlock quest done: teleport to the Cave and gain a Talisman if one remains."""
    p = ctx.player(t.p)
    spells.turn_ends(ctx, t.p)  # the last task of a whole turn: the end-of-turn Spell window
    if not p.alive or not p.quest:
        return
    card = ctx.content.cards.get(p.quest)  # a Warlock Quest card, or a roll of the table
    q = card.props if card else ctx.content.quests.get(int(p.quest), {})
    goal, n = q.get("goal"), q.get("n", 1)
    done = False
    if goal == "take-life":
        done = bool(p.flags.get("took-life"))
    elif goal == "kill-enemy":
        done = bool(p.flags.get("killed"))
    elif goal == "deliver-follower" and p.followers:
        discard(ctx, p.followers.pop())
        done = True
    elif goal == "deliver-magic-object":
        magic = [c for c in p.objects
                 if ctx.content.cards[c].type == "magic-object" and not ctx.content.cards[c].prop("talisman")]
        if magic:
            p.objects.remove(magic[0])
            discard(ctx, magic[0])
            done = True
    elif goal == "deliver-gold" and p.gold >= n:
        p.gold -= n
        done = True
    if done:
        p.quest = None
        if card:
            discard(ctx, card.slug)
        ctx.emit("quest-done", msg("{player} completes the Warlock's quest and returns to the Cave.", player=p.name),
                 player=p.name)
        if not ctx.covered("warlocks-cave"):
            place(ctx, t.p, "warlocks-cave")
        p.flags.pop("moved", None)
        ops.talisman(ctx, t.p, {}, {})
