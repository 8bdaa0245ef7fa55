"""Nemesis: what a hero does differently. Moving zero or by shared fate (`move_options` /
`move_choice`), reaching the Lair (`arrived`), the encounter choices on landing: a villain, the
adversary, a sacred site, or an exchange with another hero (`encounter_options` /
`encounter_choice`).
"""
from __future__ import annotations

from engine.packs.nemesis_board import LAIR, living, tokens
from engine.packs.nemesis_combat import fight_adversary, fight_villain
from engine.rules import stats
from engine.rules.items import gain_object
from engine.rules.machine import Ctx, on_answer, task
from engine.rules.movement import DIRS, place
from engine.state import Option, Prompt, Task, option
from engine.text import msg


def quest_possible(ctx: Ctx, i: int, goal: str) -> bool | None:
    """Heroes never attack each other: a quest to take a life from a character cannot be done."""
    return False if goal == "take-life" else None


def move_options(ctx: Ctx, i: int) -> list[Option]:
    p, s = ctx.player(i), ctx.s
    opts = []
    if p.space in tokens(s, "villain") or p.space in tokens(s, "adversary"):
        opts.append(option("zero", msg("move zero and encounter the villain or adversary here")))
    if stats.fate(ctx, p):
        opts.append(option("fate-move", msg("spend 1 shared fate to move up to 6 spaces instead")))
    return opts


def move_choice(ctx: Ctx, i: int, key: str) -> bool:
    p = ctx.player(i)
    if key == "zero":
        place(ctx, i, p.space)
        p.flags["zero"] = 1
    elif key == "fate-move":
        ctx.ask(i, "fate-move", msg("Move how far, and which way?"),
                [option(f"{d}-{n}", msg("{n} counter-clockwise", n=n) if d == "left" else
                        msg("{n} clockwise", n=n))
                 for d in DIRS for n in range(1, 7)])
    return True


@on_answer("fate-move", "a move by fate: `<left|right>-<n>`, the way and the number of spaces", default=())
def fate_move(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    stats.spend_fate(ctx, ctx.player(i))
    d, _, n = key.partition("-")
    ctx.emit("fate", msg("{player} spends 1 shared fate to move {n}.", player=who, n=n), player=who)
    ctx.push("walk", i, space=ctx.player(i).space, d=DIRS[d], steps=int(n), start=ctx.player(i).space)


def arrived(ctx: Ctx, i: int) -> bool | None:
    if ctx.player(i).space == LAIR:  # To the Death: a hero moves onto the Lair of the Beast
        ctx.push("to-the-death", i)
        return True
    return None


def encounter_options(ctx: Ctx, i: int) -> list[Option]:
    """A hero's choices on landing: the space, a villain, the adversary, the sacred site, or
    another hero (never an attack: an exchange). Moving zero allows only a villain or the
    adversary. An empty list: just the space."""
    s, p = ctx.s, ctx.player(i)
    here = p.space
    zero = p.flags.pop("zero", None)
    opts = []
    for v in dict.fromkeys(s.piles.get(f"villain@{here}", [])):
        opts.append(option(f"fight-{v}", msg("fight the {card}", card=ctx.content.cards[v].name)))
    if s.piles.get(f"adversary@{here}"):
        card = ctx.content.cards[s.piles[f"adversary@{here}"][0]]
        opts += [option("adversary-battle", msg("attack the {card} in battle", card=card.name)),
                 option("adversary-psychic", msg("attack the {card} in psychic combat", card=card.name))]
    if zero:
        return opts
    if s.piles.get(f"site@{here}"):
        opts += [option("site-strength", msg("try to destroy the sacred site with Strength")),
                 option("site-craft", msg("try to destroy the sacred site with Craft"))]
    opts += [option(f"exchange-{ctx.name(j)}", msg("meet {player} to exchange objects and gold", player=ctx.name(j)))
             for j in living(s) if j != i and ctx.player(j).space == here]
    return [option("encounter-space", msg("encounter {space}", space=ctx.space(here).name))] + opts if opts else []


def encounter_choice(ctx: Ctx, i: int, key: str) -> bool | None:
    here = ctx.player(i).space
    if key.startswith("fight-"):
        fight_villain(ctx, i, key[6:], here)
    elif key.startswith("adversary-"):
        fight_adversary(ctx, i, "strength" if key.endswith("battle") else "craft", here)
    elif key.startswith("site-"):
        site = ctx.content.cards[ctx.s.piles[f"site@{here}"][0]]
        attr = key[5:]
        ctx.push("fight", i, name=site.name, **{attr: site.prop("value")}, damage=0, evadable=False, spells=False,
                 on_win="site-destroyed", on_win_args={"space": here})
    elif key.startswith("exchange-"):
        j = ctx.index(key[9:])
        ctx.push("exchange", j, other=i)  # then the other hero gives
        ctx.push("exchange", i, other=j)
    else:
        return None
    return True


# -- exchanging ----------------------------------------------------------------------------

@task("exchange")
def exchange(ctx: Ctx, t: Task) -> None:
    p, other = ctx.player(t.p), t.a["other"]
    if not p.alive or not ctx.player(other).alive:
        return
    opts = ([option("give-gold", msg("give 1 gold to {player}", player=ctx.name(other)))] if p.gold else [])
    opts += [option(f"give-{c}", msg("give {card}", card=ctx.content.cards[c].name)) for c in dict.fromkeys(p.objects)]
    if opts:
        ctx.ask(t.p, "exchange", msg("Exchange with {player}: what do you give?", player=ctx.name(other)),
                opts + [option("done", msg("give nothing more"))], other=other)


@on_answer("exchange", "what to give the hero you exchange with: a card slug, or `done`", default=("done",))
def exchange_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    if key == "done":
        return
    i, j = ctx.index(who), prompt.data["other"]
    p, q = ctx.player(i), ctx.player(j)
    if key == "give-gold":
        p.gold -= 1
        q.gold += 1
        ctx.emit("exchange", msg("{player} gives 1 gold to {player2}.", player=who, player2=q.name))
    else:
        card = key[5:]
        p.objects.remove(card)
        gain_object(ctx, j, card)
        ctx.emit("exchange",
                 msg("{player} gives {card} to {player2}.", player=who, card=ctx.content.cards[card].name,
                     player2=q.name))
    ctx.push("exchange", i, other=j)
