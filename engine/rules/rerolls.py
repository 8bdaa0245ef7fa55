"""Fate buys a reroll (base-game.md §4): one die, once, of a roll that fails; the question before
the roll's task (`offer_reroll`) and what a "reroll" answer does (`fate_reroll`). Apart from the
turn machine, which knows no fate, so that the machine imports no rules module."""
from __future__ import annotations

from typing import Any

from engine import rng
from engine.rules import stats
from engine.rules.machine import Ctx, on_answer
from engine.state import Prompt, option
from engine.text import Text, msg


def fate_reroll(ctx: Ctx, key: str, who: str, dice: list[int], low_is_good: bool = False) -> bool:
    """A "reroll"/"keep" answer: spend 1 fate and reroll the worst of `dice` in place (the
    lowest; the highest where a low total is good, as at the Portal): one die only, once
    (base-game.md §4). False when the player keeps the roll."""
    if key != "reroll":
        return False
    p = ctx.player(ctx.index(who))
    stats.spend_fate(ctx, p)
    worst = dice.index(max(dice) if low_is_good else min(dice))
    dice[worst] = rng.die(ctx.s)
    ctx.emit("fate",
             msg("{player} spends 1 fate and rerolls: {names}.", player=p.name,
                 names='+'.join(map(str, dice))), player=p.name, dice=list(dice))
    return True


def offer_reroll(ctx: Ctx, i: int, question: Text, then: str, **args: Any) -> None:
    """Push `then` (which reads args["dice"]) and, if the player has fate to spend, ask
    first whether to reroll (answered by the `dice-reroll` handler below)."""
    ctx.push(then, i, **args)
    if stats.fate(ctx, ctx.player(i)) > 0:
        ctx.ask(i, "dice-reroll", question,
                [option("reroll", msg("spend 1 fate and reroll one die")), option("keep", msg("keep the roll"))],
                low_is_good=args.get("low_is_good", False))


@on_answer("dice-reroll", "a roll that fails (armour, the Portal, the Crypt, the Mines...): `reroll` (1 fate) or "
           "`keep`", default=("keep",))
def dice_reroll(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    fate_reroll(ctx, key, who, ctx.s.stack[-1].a["dice"], prompt.data["low_is_good"])
