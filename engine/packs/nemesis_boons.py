"""Nemesis: Boons. Drawn after the Nemesis's main turn and shared out among the heroes (at
most one each), used at the start of a hero's turn (the hooks `start_options` / `start_choice`).
"""
from __future__ import annotations

from engine.packs.nemesis_board import heroes, living
from engine.rules.items import discard
from engine.rules.machine import Ctx, on_answer, task
from engine.state import Option, Prompt, Task, option
from engine.text import msg


@task("boon-draw")
def boon_draw(ctx: Ctx, t: Task) -> None:
    drawn = [c for c in [ctx.draw("boon") for _ in range(len(heroes(ctx.s)) - 1)] if c]
    if drawn:  # they lie in the pile "boon" while the heroes share them out; the Nemesis sees a count
        ctx.s.piles["boon"] = drawn
        ctx.emit("boon", msg("{count} Boon(s) are drawn for the heroes to share.", count=len(drawn)))
        ctx.emit("boon", msg("Boons to share: {names}.", names=', '.join(ctx.content.cards[c].name for c in drawn)),
                 to=[ctx.name(i) for i in heroes(ctx.s)])
        ctx.push("boon-share", t.p, passed=[])


@task("boon-share")
def boon_share(ctx: Ctx, t: Task) -> None:
    """Every hero without a Boon who has not passed is asked at once; answers are settled in
    turn order from the Nemesis's left, so the order they come in changes nothing."""
    boons, passed = ctx.s.piles.get("boon", []), t.a["passed"]
    asked = [i for i in living(ctx.s) if not ctx.player(i).hand and i not in passed]
    if not boons or not asked:
        for c in ctx.s.piles.pop("boon", []):  # Boons nobody takes are discarded
            discard(ctx, c)
        return
    opts = ([option(c, msg("take {card}", card=ctx.content.cards[c].name)) for c in dict.fromkeys(boons)]
            + [option("pass", msg("take none"))])
    ctx.push("boon-share", t.p, passed=passed)
    if len(asked) == 1:
        ctx.ask(asked[0], "boon", msg("Boons to share: which do you take?"), opts)
    else:
        ctx.ask(asked, "boon", msg("Boons to share: which do you take? (a clash goes to the first in turn order)"),
                opts)


@on_answer("boon", "Boons to share: a Boon's slug to take, or `pass`", default=("pass",))
def boon_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    pending = ctx.s.stack[-1].a
    answers = prompt.answers or {who: key}
    for i in living(ctx.s):  # turn order decides clashes
        want = answers.get(ctx.name(i))
        if want is None:
            continue
        if want == "pass":
            pending["passed"].append(i)
        elif want in ctx.s.piles["boon"]:
            ctx.s.piles["boon"].remove(want)
            ctx.player(i).hand.append(want)
            ctx.emit("boon", msg("{player} takes a Boon.", player=ctx.name(i)), player=ctx.name(i))
            ctx.emit("boon", msg("You take {card}.", card=ctx.content.cards[want].name), to=[ctx.name(i)])


def start_options(ctx: Ctx, i: int) -> list[Option]:
    p = ctx.player(i)
    opts = [option(f"use-{c}", msg("use your Boon, {card}", card=ctx.content.cards[c].name)) for c in p.hand]
    return opts


def start_choice(ctx: Ctx, i: int, key: str) -> bool | None:
    p = ctx.player(i)
    if key.startswith("use-") and key[4:] in p.hand:  # "use-alchemist" is the base game's
        card = ctx.content.cards[key[4:]]
        p.hand.remove(card.slug)
        discard(ctx, card.slug)
        ctx.emit("boon", msg("{player} uses the Boon {card}.", player=p.name, card=card.name), player=p.name)
        ctx.push("effect", i, ops=card.effect or [{"op": "moderator", "text": card.text}], source=card.name)
        return True
    return None
