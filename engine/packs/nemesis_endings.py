"""Nemesis: endings. A hero's death toward the Trial's objective (`killed`); To the Death,
when a hero reaches the Lair of the Beast: the champion and the final fight with the adversary.
"""
from __future__ import annotations

from engine.packs.nemesis_board import LAIR, adversary_space, living, move_token, nemesis, tokens, trial
from engine.packs.nemesis_combat import fight_adversary
from engine.rules.machine import Ctx, on_answer, task
from engine.rules.movement import place
from engine.rules.turn import finish
from engine.state import Option, Prompt, Task, option
from engine.text import msg, printed


def killed(ctx: Ctx, i: int) -> None:
    """Every hero death counts toward Trial 1's objective, however it came about."""
    s = ctx.s
    if ctx.player(i).role != "hero" or s.over:
        return
    s.counters["hero-deaths"] = s.counters.get("hero-deaths", 0) + 1
    if objective_met(ctx, i):
        ctx.emit("game-over", msg("The Nemesis completes the Trial's objective and wins!"))
        finish(ctx, [ctx.name(nemesis(s))])


def objective_met(ctx: Ctx, dead: int) -> bool:
    goal = trial(ctx).prop("objective")
    if goal == "kill-three":
        return ctx.s.counters.get("hero-deaths", 0) >= 3
    return goal == "kill-x" and ctx.s.counters.get("x-token") == dead


@task("space:lair-of-the-beast")
def lair(ctx: Ctx, t: Task) -> None:
    ctx.push("to-the-death", t.p)


@task("to-the-death")
def to_the_death(ctx: Ctx, t: Task) -> None:
    """To the Death: with a sacred site left the Nemesis wins; else the adversary goes to the
    Lair and heroes fight it one after another until one side meets its objective."""
    s = ctx.s
    s.stack.clear()  # nothing of the turn in progress goes on
    s.current = -1  # nobody's turn: a hero's death ends no turn
    ctx.emit("to-the-death", msg("To the Death!"))
    if tokens(s, "site"):
        ctx.emit("game-over", msg("A sacred site still stands: the Nemesis wins!"))
        finish(ctx, [ctx.name(nemesis(s))])
        return
    src = adversary_space(s)
    if src and src != LAIR:
        move_token(ctx, "adversary", src, LAIR, s.piles[f"adversary@{src}"][0])
    ctx.push("final-champion")


@task("final-champion")
def final_champion(ctx: Ctx, t: Task) -> None:
    s = ctx.s
    alive = living(s)
    if not alive:
        ctx.emit("game-over", msg("No hero is left to fight: the Nemesis wins!"))
        finish(ctx, [ctx.name(nemesis(s))])
        return
    there = [i for i in alive if ctx.player(i).space == LAIR]
    if there:
        ctx.push("final-attack", there[0])
        return
    ctx.ask(alive, "champion",
            msg("To the Death: which hero fights the adversary? (most named; a tie goes to the first "
            "in turn order)"), [Option(ctx.name(i), ctx.name(i)) for i in alive])


@on_answer("champion", "To the Death: which hero fights the adversary: a player's name", default=())
def champion(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    answers = prompt.answers or {who: key}
    votes = {i: list(answers.values()).count(ctx.name(i)) for i in living(ctx.s)}
    best = max(votes.values())
    i = next(i for i in living(ctx.s) if votes[i] == best)
    place(ctx, i, LAIR)
    ctx.emit("to-the-death", msg("{player} goes to the {lair_of_the_beast}.",
                                 lair_of_the_beast=printed("Lair of the Beast"), player=ctx.name(i)))
    ctx.push("final-attack", i)


@task("final-attack")
def final_attack(ctx: Ctx, t: Task) -> None:
    if not ctx.player(t.p).alive:
        ctx.push("final-champion")
        return
    ctx.ask(t.p, "final-attack", msg("Attack the adversary: with Strength or Craft?"),
            [option("battle", msg("battle (Strength)")), option("psychic", msg("psychic combat (Craft)"))])


@on_answer("final-attack", "attacking the adversary: `battle` (Strength) or `psychic` (Craft)", default=())
def final_attack_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    ctx.push("final-attack", i)  # continue attacking until one side is defeated
    fight_adversary(ctx, i, "strength" if key == "battle" else "craft", LAIR)
