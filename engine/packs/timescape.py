"""Timescape (timescape.txt): a board beside the main board, what its data cannot say.

A character in the Timescape is *apart* (`flags["apart"]` = its own name: each space is a
reality of its own, §2): nothing of another character reaches it, nor anything of its reaches
another (engine/rules/reach.py decides it for every effect, Spell, attack and pack's target
list). While there its Spells and Magic Objects do
not work (`flags["no-magic"]`: engine/rules/spells.py `blocked`, engine/rules/stats.py
`items`), except against Adventure cards it draws there (§7): the flag is lifted while they
are met.

The pack is `Timescape` (at the end); its hooks: `setup`, `public`, `scenario_setup`
(`imprisoned`), `turn_start` (its turns: imprisonment, a Toad reverting, the start-of-turn
window, the warp-line move, no Warlock quest), `arrived` (a Timescape space is met alone: no character encounters, §2),
`between_turns` and `killed` (cards left in the Timescape are discarded), `choose_options`
(the Mystic, Enchantress and Warlock open a Warp Gate, §3); space hooks `ts-*` named in
content/timescape/board.toml, whose `[timescape]` table holds this pack's lists.
"""
from __future__ import annotations

from typing import Any

from engine import ops, rng, words
from engine.config import ConfigError
from engine.content import die_row, pack_table
from engine.ops import WISHES
from engine.packs.base import Pack
from engine.rules import encounter, stats
from engine.rules.encounter import next_group, still_there
from engine.rules.items import discard, drop_excess
from engine.rules.machine import Ctx, on_answer, task
from engine.rules.movement import place
from engine.rules.rerolls import offer_reroll
from engine.state import Option, Prompt, Task, option
from engine.text import Msg, Text, msg, printed

RING = "timescape"
HOOKED = {"warp-belt"}  # card hooks this module reads (the pack's card_hooks: automated, engine/coverage.py)
# Timescape cards are met in this order (§6): Hand of Fate, Alien (Strength), Alien (Craft),
# Object, Follower.
TS_ORDER = {"event": 0, "object": 3, "magic-object": 3, "follower": 4}
# Adventure cards: the base order (Events, Enemies by number, Strangers, Objects and Followers, Places).
ADV_ORDER = {"event": 0, "enemy": 1, "stranger": 2, "follower": 3, "object": 3, "magic-object": 3, "place": 4}


def tables() -> dict[str, Any]:
    """The `[timescape]` table of this pack's board.toml (an owner's content folder included)."""
    return pack_table("timescape", "board.toml", "timescape")


def inside(ctx: Ctx, space: str | None) -> bool:
    if not space:
        return False
    return ctx.content.board.spaces[space].ring == RING


# -- entering and leaving ------------------------------------------------------------

def enter(ctx: Ctx, i: int, how: Text) -> None:
    """Into the Timescape at the Warp Gate (§3): beasts of burden stay behind on the space
    left, the Poltergeist is discarded, a Toad reverts; the turn ends there."""
    s, p, t = ctx.s, ctx.player(i), tables()
    if not p.alive or inside(ctx, p.space):
        return
    left = p.space
    for card in [c for c in p.followers + p.objects if c in t["leave_behind"]]:
        (p.followers if card in p.followers else p.objects).remove(card)
        s.spaces.setdefault(left, []).append(card)
        ctx.emit("leave-behind",
                 msg("{player} leaves {card} behind at {space}.", player=p.name, card=ctx.content.cards[card].name,
                     space=ctx.space(left).name),
                 player=p.name, card=card)
    for card in [c for c in p.followers + p.objects if c in t["discard_on_entry"]]:
        (p.followers if card in p.followers else p.objects).remove(card)
        discard(ctx, card)
        ctx.emit("discard",
                 msg("{card} cannot follow {player} and is discarded.", card=ctx.content.cards[card].name,
                     player=p.name), player=p.name)
    drop_excess(ctx, i)  # without the Mule, what is too much stays behind too
    if p.toad:
        p.toad = 0
        ctx.emit("toad", msg("{player} is no longer a Toad: the Timescape undoes it.", player=p.name), player=p.name)
    for flag in ("next-move", "held", "must-face", "came-from", "moved"):
        p.flags.pop(flag, None)
    p.flags["apart"] = p.name
    p.flags["no-magic"] = 1
    p.space = t["entry"]
    ctx.emit("timescape",
             msg("{player} {how} and enters the Timescape at the {space}.", player=p.name, how=how,
                 space=ctx.space(p.space).name),
             player=p.name, space=p.space)
    ctx.end_turn()


def leave(ctx: Ctx, i: int, dest: str) -> None:
    """Back to the main board (the Vortex): the space reached is encountered at once."""
    p = ctx.player(i)
    for flag in [f for f in p.flags if f in ("apart", "no-magic") or f.startswith("ts-")]:
        p.flags.pop(flag)
    ctx.emit("teleport",
             msg("{player} is hurled out of the Timescape to {space}.", player=p.name, space=ctx.space(dest).name),
             player=p.name, space=dest)
    place(ctx, i, dest)
    ctx.end_turn()
    ctx.push("encounter", i)


@task("ts-enter-spell")
def enter_spell(ctx: Ctx, t: Task) -> None:
    enter(ctx, t.p, msg("opens a {warp_gate}", warp_gate=printed("Warp Gate")))


@task("ts-gate-mystic")
def gate_mystic(ctx: Ctx, t: Task) -> None:
    gate_roll(ctx, t.p, "Mystic")


@task("ts-gate-enchantress")
def gate_enchantress(ctx: Ctx, t: Task) -> None:
    gate_roll(ctx, t.p, "Enchantress")


def gate_roll(ctx: Ctx, i: int, who: str) -> None:
    """2 dice at or below the printed Strength + Craft (a Toad: exactly 2); failing ends the
    turn. A failed roll may be rerolled with fate, the highest die (base-game.md §4)."""
    p = ctx.player(i)
    ch = stats.character(ctx, p)
    need = 2 if p.toad else ch.strength + ch.craft
    dice = rng.dice(ctx.s, 2)
    rolled = {"player": p.name, "die": dice[0], "die2": dice[1], "who": who, "need": need}
    ctx.emit("roll", msg("{player} rolls {die}+{die2} for the {who}'s {warp_gate} (needs {need} or less, as a Toad).",
                         warp_gate=printed("Warp Gate"),
                         **rolled) if p.toad else
             msg("{player} rolls {die}+{die2} for the {who}'s {warp_gate} (needs {need} or less).",
                 warp_gate=printed("Warp Gate"), **rolled),
             player=p.name, dice=dice)
    if sum(dice) > need:
        offer_reroll(ctx, i, msg("You roll {dice}+{dice2} for the {player}'s {warp_gate} and need {need} or less. "
                     "Spend 1 fate to reroll your highest die?", dice=dice[0], dice2=dice[1], player=who, need=need,
                     warp_gate=printed("Warp Gate")),
                     "ts-gate-resolve", dice=dice, need=need, who=who,
                     low_is_good=True)
        return
    ctx.push("ts-gate-resolve", i, dice=dice, need=need, who=who)


@task("ts-gate-resolve")
def gate_resolve(ctx: Ctx, t: Task) -> None:
    i, dice, need, who = t.p, t.a["dice"], t.a["need"], t.a["who"]
    p = ctx.player(i)
    if sum(dice) <= need:
        p.flags[f"warp-sent-{who.lower()}"] = 1  # kept on leaving: once each per character
        enter(ctx, i, msg("is found worthy by the {who}", who=who))
    else:
        ctx.emit("timescape", msg("{player} is found unworthy; the turn ends.", player=p.name), player=p.name)
        ctx.end_turn()


@task("ts-gate-warlock")
def gate_warlock(ctx: Ctx, t: Task) -> None:
    """The Warlock's fee (1 die): 1-3 ignored; 4 a Follower; 5 a Magic Object; 6 2G. Had, it
    must be paid and the Gate opens; else ignored, the turn ends."""
    p = ctx.player(t.p)
    r = rng.die(ctx.s)
    fee = die_row(tables()["warlock_fee"], r)
    gold = tables()["warlock_gold"]
    ctx.emit("roll", msg("{player} rolls {r} for the Warlock's fee.", player=p.name, r=r), player=p.name, roll=r)
    if fee == "gold" and p.gold >= gold:
        p.gold -= gold
        ctx.emit("gold", msg("{player} pays the Warlock {gold}G.", player=p.name, gold=gold), player=p.name)
        enter(ctx, t.p, msg("pays the Warlock"))
        return
    cards = []
    if fee == "follower":
        cards = list(dict.fromkeys(p.followers))
    elif fee == "magic-object":
        cards = [c for c in dict.fromkeys(p.objects) if ctx.content.cards[c].type == "magic-object"]
    if not cards:
        ctx.emit("timescape", msg("The Warlock ignores {player}; the turn ends.", player=p.name), player=p.name)
        ctx.end_turn()
        return
    ctx.ask(t.p, "ts-fee", msg("The Warlock's fee: which do you pay?"),
            [option(c, msg("pay {card}", card=ctx.content.cards[c].name)) for c in cards])


@on_answer("ts-fee", "the Warlock's fee: the slug of the card paid", default=())
def fee_paid(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    p = ctx.player(i)
    (p.followers if key in p.followers else p.objects).remove(key)
    discard(ctx, key)
    drop_excess(ctx, i)
    ctx.emit("discard", msg("{player} pays the Warlock with {card}.", player=who, card=ctx.content.cards[key].name),
             player=who)
    enter(ctx, i, msg("pays the Warlock"))


# -- turns in the Timescape -----------------------------------------------------------

@task("ts-prison")
def prison_roll(ctx: Ctx, t: Task) -> None:
    """Rule 8: 2 dice at or below Craft, rolled at the start of the turn. A failed roll may be
    rerolled with 1 fate, the highest die (base-game.md §4: a roll a space asks for)."""
    i = t.p
    p = ctx.player(i)
    dice = rng.dice(ctx.s, tables()["prison"]["dice"])
    craft = stats.craft(ctx, p)
    ctx.emit("roll",
             msg("{player} rolls {names} against Craft {craft} to escape the Sentinels.", player=p.name,
                 names='+'.join(map(str, dice)), craft=craft),
             player=p.name, dice=dice)
    if sum(dice) > craft:
        offer_reroll(ctx, i, msg("Imprisoned: you roll {names} and need {craft} or less to escape. "
                     "Spend 1 fate to reroll your highest die?", names='+'.join(map(str, dice)), craft=craft),
                     "ts-prison-resolve", dice=dice, need=craft,
                     low_is_good=True)
        return
    ctx.push("ts-prison-resolve", i, dice=dice, need=craft)


@task("ts-prison-resolve")
def prison_resolve(ctx: Ctx, t: Task) -> None:
    """Free: the turn goes on. Else the turn is missed; after 3 missed turns the prisoner is
    released whatever the rolls."""
    p = ctx.player(t.p)
    dice, need = t.a["dice"], t.a["need"]
    if sum(dice) <= need:
        del p.flags["ts-prison"]
        ctx.emit("prison", msg("{player} escapes the Sentinels.", player=p.name), player=p.name)
        return
    missed = p.flags["ts-prison"] + 1
    ctx.emit("prison", msg("{player} is still Imprisoned: the turn is missed.", player=p.name), player=p.name)
    if missed >= tables()["prison"]["turns"]:
        del p.flags["ts-prison"]
        ctx.emit("prison", msg("{player} has missed {missed} turns and is released.", player=p.name, missed=missed),
                 player=p.name)
    else:
        p.flags["ts-prison"] = missed
    ctx.end_turn()


@task("ts-abandoned")
def abandoned(ctx: Ctx, t: Task) -> None:
    """A card left on the space at the start of the turn (`ditch`) is discarded: cards
    abandoned in the Timescape are (§5 iii). The space was tidied before the window."""
    p = ctx.player(t.p)
    for card in ctx.s.spaces.pop(p.space, []):
        discard(ctx, card)
        ctx.emit("discard", msg("{card}, abandoned in the Timescape, is discarded.", card=ctx.content.cards[card].name),
                 player=p.name, card=card)


@task("ts-move")
def ts_move(ctx: Ctx, t: Task) -> None:
    """A die read on the warp lines; no control (§4): no fate, no Spell, no ability. The Warp
    Belt moves as a roll of 1-2. The Sentinels may have decided this move already."""
    p = ctx.player(t.p)
    p.flags.pop("moved", None)
    nxt = p.flags.pop("ts-next", None)
    if nxt == "any":
        ring = ctx.content.board.rings[RING]
        ctx.ask(t.p, "ts-any", msg("Judged innocent: to which space of the Timescape do you move?"),
                [Option(sp, ctx.space(sp).name) for sp in dict.fromkeys(ring) if sp != p.space])
        return
    if nxt:
        warp_to(ctx, t.p, nxt, msg("as the Sentinels ordered"))
        return
    if any(ctx.content.cards[c].hook == "warp-belt" for c in p.objects):
        belt = msg("follow the 1-2 line to {space}", space=ctx.space(line(ctx, p.space, 1)).name)
        ctx.ask(t.p, "ts-warp",
                msg("You are in the Timescape. Roll for the warp line, or use the {warp_belt} (as a roll of 1-2)?",
                    warp_belt=printed("Warp Belt")),
                [option("roll", msg("roll a die for the warp line")), option("warp-belt", belt)])
        return
    roll_line(ctx, t.p)


def line(ctx: Ctx, space: str, roll: int) -> str:
    """The space the warp line for that roll leads to (board.toml `hook_args.warp`)."""
    dest = die_row(ctx.content.space(space).hook_args.get("warp", {}), roll)
    if dest:
        return dest
    ring = ctx.content.board.rings[RING]  # a row missing: the next space clockwise
    return ring[(ctx.content.space(space).index + 1) % len(ring)]


def roll_line(ctx: Ctx, i: int) -> None:
    p = ctx.player(i)
    r = rng.die(ctx.s)
    ctx.emit("roll", msg("{player} rolls {r} for the warp lines.", player=p.name, r=r), player=p.name, roll=r, dice=[r])
    warp_to(ctx, i, line(ctx, p.space, r), msg("along the warp line"))


def warp_to(ctx: Ctx, i: int, dest: str, how: Text) -> None:
    p = ctx.player(i)
    ctx.emit("move", msg("{player} is drawn {how} to {space}.", player=p.name, how=how, space=ctx.space(dest).name),
             player=p.name, space=dest)
    place(ctx, i, dest)


@on_answer("ts-warp", "in the Timescape: `roll` for the warp line or use the `warp-belt`", default=())
def warp_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    if key == "roll":
        roll_line(ctx, i)
    else:
        warp_to(ctx, i, line(ctx, ctx.player(i).space, 1), msg("by the {warp_belt}", warp_belt=printed("Warp Belt")))


@on_answer("ts-any", "judged innocent: the Timescape space to move to (a space id)", default=())
def any_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    warp_to(ctx, ctx.index(who), key, msg("as the Sentinels allow"))


def tidy(ctx: Ctx, i: int) -> None:
    """Cards lying in the Timescape after they were met are discarded (§2, §5 iii, §6), gold
    left there is gone; a living character there has no magic again."""
    s, p = ctx.s, ctx.player(i)
    for card in s.spaces.pop(p.space, []):
        discard(ctx, card)
    s.space_gold.pop(p.space, None)
    if p.alive and p.character:
        p.flags["no-magic"] = 1
        p.flags["apart"] = p.name


# -- the spaces -----------------------------------------------------------------------

@task("space:ts-card")
def timescape_card(ctx: Ctx, t: Task) -> None:
    p = ctx.player(t.p)
    card = ctx.draw("timescape")
    if card is None:
        ctx.emit("draw", msg("No Timescape card is left to draw."))
        return
    ctx.s.spaces.setdefault(p.space, []).append(card)
    ctx.emit("draw",
             msg("{player} draws the Timescape card {card}.", player=p.name,
                 card=ctx.content.cards[card].name), player=p.name, card=card)
    ctx.push("ts-cleanup", t.p)
    ctx.push("ts-resolve", t.p, deck="timescape")


@task("space:ts-nexus")
def nexus(ctx: Ctx, t: Task) -> None:
    """Draw five Adventure cards, encounter one of them, discard the others."""
    p = ctx.player(t.p)
    drawn = []
    for _ in range(ctx.space(p.space).hook_args.get("draw", 5)):
        card = ctx.draw("adventure")
        if card is None:
            break
        drawn.append(card)
    if not drawn:
        return
    ctx.s.spaces.setdefault(p.space, []).extend(drawn)
    ctx.emit("draw",
             msg("{player} draws {names} at the Nexus.", player=p.name,
                 names=', '.join(ctx.content.cards[c].name for c in drawn)),
             player=p.name)
    ctx.ask(t.p, "ts-nexus", msg("The Nexus: which card do you encounter? (The others are discarded.)"),
            [option(c,
                    msg("encounter {card}",
                        card=ctx.content.cards[c].name)) for c in dict.fromkeys(drawn)], drawn=drawn)


@on_answer("ts-nexus", "the Nexus: which card drawn to encounter (a card slug)", default=())
def nexus_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    lying = ctx.s.spaces.setdefault(ctx.player(i).space, [])
    rest = list(prompt.data["drawn"])
    rest.remove(key)
    for card in rest:
        if card in lying:
            lying.remove(card)
            discard(ctx, card)
    lying.remove(key)
    ctx.emit("nexus",
             msg("{player} encounters {card}; the others are discarded.", player=who,
                 card=ctx.content.cards[key].name), player=who)
    ctx.push("ts-cleanup", i)
    ctx.push("ts-resolve", i, deck="adventure")
    adventure_card(ctx, i, key)


def adventure_card(ctx: Ctx, i: int, card: str) -> None:
    """An Adventure card drawn in the Timescape (§5 iv): the listed cards are dealt with at
    once; any other lies on the space to be met. A Dungeon Door brings another card."""
    s, p, rules = ctx.s, ctx.player(i), tables()["adventure"]
    for _ in range(100):  # a redraw at most as many times as the deck has Doors
        c = ctx.content.cards[card]
        name = c.name
        if card in rules["redraw"]:
            discard(ctx, card)
            ctx.emit("timescape", msg("{name} is discarded; {player} draws another.", name=name, player=p.name),
                     player=p.name)
            again = ctx.draw("adventure")
            if again is None:
                return
            card = again
            ctx.emit("draw", msg("{player} draws {card}.", player=p.name, card=ctx.content.cards[card].name),
                     player=p.name, card=card)
            continue
        if card in rules["discard"]:
            discard(ctx, card)
            ctx.emit("timescape", msg("{name} has no place in the Timescape and is discarded.", name=name),
                     player=p.name)
        elif card in rules["talisman"]:
            discard(ctx, card)
            ctx.emit("timescape",
                     msg("{name} is discarded; {player} gains a Talisman instead.", name=name,
                         player=p.name), player=p.name)
            ops.talisman(ctx, i, {}, {})
        elif card in rules["attribute"]:
            discard(ctx, card)
            what = next((o.get("what") for o in c.effect if isinstance(o, dict) and o.get("op") == "take-counter"),
                        None) or rules["attribute"][card]
            ctx.emit("timescape",
                     msg("{name} is discarded; {player} gains 1 {what}.", name=name, player=p.name,
                         what=what), player=p.name)
            ops.change(ctx, i, what, 1)
        elif card in rules["raiders"]:
            discard(ctx, card)
            for o in p.objects:
                discard(ctx, o)
            p.objects = []
            p.gold = 0
            ctx.emit("timescape", msg("{name}: {player} loses all Objects and gold.", name=name, player=p.name),
                     player=p.name)
        else:
            s.spaces.setdefault(p.space, []).append(card)
        return


def draw_adventure(ctx: Ctx, i: int, n: int) -> None:
    p = ctx.player(i)
    ctx.push("ts-cleanup", i)
    ctx.push("ts-resolve", i, deck="adventure")
    for _ in range(n):
        card = ctx.draw("adventure")
        if card is None:
            return
        ctx.emit("draw", msg("{player} draws {card}.", player=p.name, card=ctx.content.cards[card].name),
                 player=p.name, card=card)
        adventure_card(ctx, i, card)


@task("ts-adventure-1")
def adventure_1(ctx: Ctx, t: Task) -> None:
    draw_adventure(ctx, t.p, 1)


@task("ts-adventure-2")
def adventure_2(ctx: Ctx, t: Task) -> None:
    draw_adventure(ctx, t.p, 2)


@task("ts-adventure-3")
def adventure_3(ctx: Ctx, t: Task) -> None:
    draw_adventure(ctx, t.p, 3)


def strip(ops: list) -> list:
    """An Adventure card's ops as they work in the Timescape: movement and what reaches the
    main board are ignored (board.toml `ignored_ops`); a wish has no teleport."""
    ignored = tables()["adventure"]["ignored_ops"]
    out = []
    for o in ops:
        if not isinstance(o, dict) or o.get("op") in ignored:
            continue
        o = dict(o)
        if o.get("op") == "wish":  # the wish without its teleport
            # content data (it may be kept in a saved game's stack): the texts as the message ids they are
            choice = {"op": "choose", "question": msg("A wish is granted: choose one.").id, "options": [
                {"key": k, "text": said.id, "then": [{"op": "spell"} if k == "spell" else {"op": "gain", "what": k}]}
                for k, said in WISHES.items()]}
            o = {"op": "if", "test": o["test"], "then": [choice]} if o.get("test") else choice
        for key in ("then", "else"):
            if key in o:
                o[key] = strip(o[key])
        if isinstance(o.get("table"), dict):
            o["table"] = {k: strip(v) for k, v in o["table"].items()}
        if isinstance(o.get("options"), list):
            o["options"] = [{**c, "then": strip(c.get("then", []))} for c in o["options"]]
        out.append(o)
    return out


def order(ctx: Ctx, space: str, deck: str) -> list[str]:
    cards = ctx.content.cards

    def rank(c: str) -> tuple[int, int] | int:
        card = cards[c]
        if deck == "timescape":
            return (1 if card.strength else 2) if card.type == "enemy" else TS_ORDER.get(card.type, 5)
        return (ADV_ORDER.get(card.type, 5), card.number if card.type == "enemy" else 0)
    return sorted(ctx.s.spaces.get(space, []), key=rank)


@task("ts-resolve")
def resolve(ctx: Ctx, t: Task) -> None:
    """Meet the cards drawn here, one at a time, in their deck's order. Against Adventure
    cards Spells and Magic Objects work (§7); against Timescape cards they do not."""
    i, deck = t.p, t.a["deck"]
    p = ctx.player(i)
    if not p.alive:
        return
    lying = ctx.s.spaces.get(p.space, [])
    todo = t.a.get("todo")
    if todo is None:  # the cards to meet, fixed when the first is met: copies of a card are each met
        todo = order(ctx, p.space, deck)
        for c in t.a.get("met", []):  # a game saved before 0.7 counted what it had met
            if c in todo:
                todo.remove(c)
    group: list[str] = []
    while todo and not group:  # Strength enemies sharing a number fight as one
        group, todo = next_group(ctx, todo)
        group = still_there(ctx, p.space, group)
    if not group:
        return
    card = ctx.content.cards[group[0]]
    if deck == "adventure":
        p.flags.pop("no-magic", None)
    ctx.push("ts-resolve", i, deck=deck, todo=todo)
    if card.type == "enemy":
        fight: dict[str, Any] = {"name": " and ".join(ctx.content.cards[c].name for c in group), "cards": group}
        if card.strength:
            fight["strength"] = sum(ctx.content.cards[c].strength for c in group)
        else:
            fight["craft"] = card.craft
        if deck == "timescape":
            fight.update(spells=False, on_win="ts-alien-won", on_win_args={"cards": group})
        ctx.push("fight", i, **fight)
        if card.effect:
            ctx.push("effect", i, ops=strip(card.effect), source=card.name, card=card.slug)
        return
    if card.type in ("follower", "object", "magic-object"):
        encounter.take(ctx, i, card.slug)
        return
    if card.type == "event":
        lying.remove(card.slug)
        discard(ctx, card.slug)
    ops = strip(card.effect) if card.effect else [{"op": "moderator", "text": card.text}]
    ctx.push("effect", i, ops=ops, source=card.name, card=card.slug)


@task("ts-alien-won")
def alien_won(ctx: Ctx, t: Task) -> None:
    """Only Aliens that fight with Strength may be kept for trading in (§6)."""
    p = ctx.player(t.p)
    for c in t.a["cards"]:
        if not ctx.content.cards[c].strength and c in p.trophies:
            p.trophies.remove(c)
            discard(ctx, c)
            ctx.emit("discard",
                     msg("{card} is not kept: only Strength Aliens are trophies.", card=ctx.content.cards[c].name),
                     player=p.name)


@task("ts-cleanup")
def cleanup(ctx: Ctx, t: Task) -> None:
    tidy(ctx, t.p)


@task("space:ts-vortex")
def vortex(ctx: Ctx, t: Task) -> None:
    """Roll one die and teleport (no fate: no control over movement, §4). 1-5 lead back to the
    main board, where the space is encountered at once; 6 to the Warp Gate."""
    p = ctx.player(t.p)
    r = rng.die(ctx.s)
    dest = die_row(ctx.space(p.space).hook_args["table"], r)
    ctx.emit("roll", msg("{player} rolls {r} in the {vortex}.", vortex=printed("Vortex"), player=p.name, r=r),
                         player=p.name, roll=r)
    if inside(ctx, dest):
        warp_to(ctx, t.p, dest, msg("through the {vortex}", vortex=printed("Vortex")))
        p.flags.pop("moved", None)
        return
    if ctx.covered(dest):  # the Cataclysm: a space under Terrain is no longer on the board
        ctx.emit("terrain",
                 msg("{space} lies under a Terrain card: {player} stays in the {vortex}.", vortex=printed("Vortex"),
                     space=ctx.content.space(dest).name, player=p.name),
                 player=p.name)
        return
    leave(ctx, t.p, dest)


@task("space:ts-warp-demon")
def warp_demon(ctx: Ctx, t: Task) -> None:
    a = ctx.space(ctx.player(t.p).space).hook_args
    ctx.ask(t.p, "ts-demon",
            msg("The {warp_demon} (Strength {a}, Craft {a2}) attacks. Which combat do you fight?",
                warp_demon=printed("Warp Demon"), a=a['strength'],
                a2=a['craft']),
            [option("battle", msg("battle against Strength {a}", a=a['strength'])),
             option("psychic", msg("psychic combat against Craft {a}", a=a['craft']))])


@on_answer("ts-demon", "the Warp Demon attacks: `battle` or `psychic`", default=())
def demon_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    a = ctx.space(ctx.player(i).space).hook_args
    attr = "strength" if key == "battle" else "craft"
    ctx.push("fight", i, name="the Warp Demon", evadable=False, spells=False, on_win="ts-reward",
             on_win_args={"attr": attr, "n": a["reward"], "foe": "the Warp Demon"}, **{attr: a[attr]})


def alien_fight(ctx: Ctx, i: int, attr: str) -> None:
    a = ctx.space(ctx.player(i).space).hook_args
    ctx.push("fight", i, name="an Alien", evadable=False, spells=False, on_win="ts-reward",
             on_win_args={"attr": attr, "n": a["reward"], "foe": "the Alien"}, **{attr: a["alien"]})


@task("ts-alien-craft")
def alien_craft(ctx: Ctx, t: Task) -> None:
    alien_fight(ctx, t.p, "craft")


@task("ts-alien-strength")
def alien_strength(ctx: Ctx, t: Task) -> None:
    alien_fight(ctx, t.p, "strength")


@task("ts-reward")
def reward(ctx: Ctx, t: Task) -> None:
    """+n of the attribute fought with, unless a Follower's bonus fought too (§9)."""
    p = ctx.player(t.p)
    attr, n = t.a["attr"], t.a["n"]
    helpers = [c.name for c in stats.items(ctx, p) if c.type == "follower"
               and (c.prop(attr) or (attr == "strength" and c.prop("weapon")))]
    if helpers:
        ctx.emit("timescape",
                 msg("{names} fought beside {player}: no gain for beating {a}.", names=words.listing(helpers),
                     player=p.name, a=words.foe(ctx.content, {"name": t.a["foe"]})),
                 player=p.name)
        return
    ops.change(ctx, t.p, attr, n)


@task("ts-to-vortex")
def to_vortex(ctx: Ctx, t: Task) -> None:
    p = ctx.player(t.p)
    p.flags["ts-next"] = tables()["exit"]
    ctx.emit("timescape", msg("The Sentinels judge {player} a threat: to the {vortex} next turn.",
                              vortex=printed("Vortex"), player=p.name),
             player=p.name)


@task("ts-free-move")
def free_move(ctx: Ctx, t: Task) -> None:
    p = ctx.player(t.p)
    p.flags["ts-next"] = "any"
    ctx.emit("timescape",
             msg("The Sentinels judge {player} innocent: any space of the Timescape next turn.", player=p.name),
             player=p.name)


@task("ts-imprison")
def imprison(ctx: Ctx, t: Task) -> None:
    p = ctx.player(t.p)
    p.flags["ts-prison"] = 0
    p.flags.pop("ts-next", None)
    ctx.emit("prison", msg("The Sentinels imprison {player}.", player=p.name), player=p.name)


class Timescape(Pack):
    name = "timescape"
    title = "Timescape"
    card_hooks = frozenset(HOOKED)
    tables = frozenset({("board.toml", "timescape")})
    regions = {RING: "The Timescape"}

    def setup(self, ctx: Ctx, config: Any) -> None:
        """Nothing to deal: the Timescape and its Purchase cards are decks like any other."""

    def public(self, ctx: Ctx) -> dict[str, Any]:
        """Who is in the Timescape (and where), who is Imprisoned (turns missed so far), and the
        Timescape Purchase cards left at the Rogue Trader."""
        state, content = ctx.s, ctx.content
        spaces = content.board.spaces
        there = {p.name: p.space for p in state.players
                 if p.alive and p.space and spaces[p.space].ring == RING}
        prison = {p.name: p.flags["ts-prison"] for p in state.players if p.alive and "ts-prison" in p.flags}
        left: dict[str, int] = {}
        for c in state.decks.get("timescape-purchase", []):
            left[c] = left.get(c, 0) + 1
        return {"characters": there, "imprisoned": prison, "purchase": dict(sorted(left.items()))}

    def public_text(self, ctx: Ctx) -> list[Msg]:
        pub, content = self.public(ctx), ctx.content
        lines = []
        if pub["characters"]:
            lines.append(msg("In the Timescape, out of everyone else's reach: {players}.",
                             players=words.placed(content, pub["characters"])))
        if pub["imprisoned"]:
            held = words.listing(msg("{player} ({n} turn{s} missed)", player=name, n=n, s="s" if n != 1 else "")
                                 for name, n in pub["imprisoned"].items())
            lines.append(msg("Imprisoned by the Sentinels: {players}.", players=held))
        if pub["purchase"]:
            sold = words.counted(content, [c for c, n in pub["purchase"].items() for _ in range(n)])
            lines.append(msg("The Rogue Trader sells: {cards}.", cards=sold))
        return lines

    def scenario_setup(self, state: Any, content: Any, p: Any, key: str, value: Any) -> bool | None:
        """A scenario's `space` on the Timescape: the character is in the Timescape at once, apart
        and without magic, as one who entered (§9); `imprisoned = N` in [setup.<player>] (after
        `space`): held by the Sentinels, N turns missed so far (rule 8)."""
        if key == "space" and content.board.spaces[value].ring == RING:
            p.space = value
            p.flags = {**p.flags, "apart": p.name, "no-magic": 1}
            return True
        if key != "imprisoned":
            return None
        if not p.space or content.board.spaces[p.space].ring != RING:
            raise ConfigError("imprisoned: only a character in the Timescape can be (set its space first)")
        p.flags["ts-prison"] = int(value)
        return True

    def choose_options(self, ctx: Ctx, i: int, o: dict, meta: dict) -> list[dict] | None:
        """Beside a visit to the Mystic, the Enchantress or the Warlock: ask them for a Warp Gate.
        The Mystic and the Enchantress send a character once each."""
        p = ctx.player(i)
        if inside(ctx, p.space):
            return None
        keys = {c.get("key") for c in o.get("options", [])}
        source = meta.get("source")
        out = []
        for g in tables()["gates"]:
            if not (keys & set(g["keys"]) or source in g["sources"]) or p.flags.get(f"warp-sent-{g['name']}"):
                continue
            asked = msg("ask the {who} to open a {warp_gate} to the Timescape (roll 2 dice against your starting "
                        "Strength + Craft)", who=g["who"], warp_gate=printed("Warp Gate")) \
                if g["name"] != "warlock" else \
                msg("ask the {who} to open a {warp_gate} to the Timescape (roll 1 die for his fee instead of a quest)",
                    warp_gate=printed("Warp Gate"),
                    who=g["who"])
            out.append({"key": f"warp-{g['name']}", "text": asked,
                        "then": [{"op": "hook", "name": f"ts-gate-{g['name']}"}]})
        return out or None

    def turn_start(self, ctx: Ctx, i: int) -> bool | None:
        """A turn in the Timescape: leftovers discarded, a Toad reverts, an Imprisoned character
        rolls to escape (rule 8); then the start of the turn as on the main board (`start-spells`:
        no Spell is castable there, the `no-magic` flag sees to that, §7; what a Follower does at
        the start of a turn, leaving a card), the warp-line move and the space. No Warlock quest
        is checked: the main board cannot reach the character."""
        p = ctx.player(i)
        if not inside(ctx, p.space):
            return None
        tidy(ctx, i)
        if p.toad:  # a Toad in the Timescape stays one only to the end of that turn (§9)
            p.toad = 0
            ctx.emit("toad", msg("{player} is no longer a Toad.", player=p.name), player=p.name)
        work: list[tuple[str, int, dict[str, Any]]] = [
            ("start-spells", i, {}), ("ts-abandoned", i, {}), ("ts-move", i, {}), ("encounter", i, {})]
        if "ts-prison" in p.flags:  # rolled first: failing misses the whole turn
            work.insert(0, ("ts-prison", i, {}))
        ctx.push_all(work)
        return True

    def arrived(self, ctx: Ctx, i: int) -> bool | None:
        """A Timescape space is met alone: never another character there (§2, §9)."""
        if not inside(ctx, ctx.player(i).space):
            return None
        ctx.push("encounter-space", i)
        return True

    def between_turns(self, ctx: Ctx, done: int, nxt: int) -> None:
        if inside(ctx, ctx.player(done).space):
            tidy(ctx, done)

    def killed(self, ctx: Ctx, i: int) -> None:
        """What a character leaves in the Timescape is discarded (§5 iii)."""
        p = ctx.player(i)
        if inside(ctx, p.space):
            tidy(ctx, i)


PACK: Pack = Timescape()
