"""Nemesis: fighting the Nemesis's creatures and places. Villains (taken as Strength or Craft
trophies: the hooks `trophy_value` / `trophy_spent`), the adversary (wounded only once every
sacred site is destroyed), the sacred sites; heroes fighting together (`ask_helpers`) and the
Nemesis's reroll of a creature's die (`foe_reroll`).
"""
from __future__ import annotations

from collections.abc import Callable

from engine import rng, words
from engine.packs.nemesis_board import BONUSES, heroes, living, nemesis, stat, tokens
from engine.rules.items import discard
from engine.rules.machine import Ctx, on_answer, task
from engine.rules.turn import finish
from engine.state import Player, Prompt, Task, option
from engine.text import msg, word


def fight_villain(ctx: Ctx, i: int, v: str, space: str) -> None:
    """A villain fights with its printed value and what Action cards add this round."""
    card = ctx.content.cards[v]
    attr = "strength" if stat(card, "strength") else "craft"
    value = stat(card, attr) + ctx.s.counters.get(BONUSES["villains"], 0)
    ctx.push("fight", i, name=card.name, **{attr: value}, ends_turn=ctx.s.current == i,
             on_win="villain-beaten", on_win_args={"space": space, "villain": v})


def fight_adversary(ctx: Ctx, i: int, attr: str, space: str) -> None:
    """Spells have no effect on an adversary and it never joins forces with other creatures."""
    card = ctx.content.cards[ctx.s.piles[f"adversary@{space}"][0]]
    value = stat(card, attr) + ctx.s.counters.get(BONUSES["adversary"], 0)
    ctx.push("fight", i, name=card.name, **{attr: value}, evadable=False, spells=False,
             ends_turn=ctx.s.current == i, adversary=True, on_win="adversary-hit", on_win_args={})


@task("site-destroyed")
def site_destroyed(ctx: Ctx, t: Task) -> None:
    space = t.a["space"]
    for c in ctx.s.piles.pop(f"site@{space}", []):
        discard(ctx, c)
    ctx.emit("site",
             msg("{player} destroys the sacred site at {space}.", player=ctx.name(t.p),
                 space=ctx.space(space).name), player=ctx.name(t.p))
    if not tokens(ctx.s, "site"):
        ctx.emit("site", msg("All sacred sites are destroyed: the adversary can now be wounded."))


@task("villain-beaten")
def villain_beaten(ctx: Ctx, t: Task) -> None:
    v, space = t.a["villain"], t.a["space"]
    pile = ctx.s.piles.get(f"villain@{space}", [])
    if v not in pile:
        return
    pile.remove(v)
    if not pile:
        del ctx.s.piles[f"villain@{space}"]
    ctx.player(t.p).trophies.append(v)
    ctx.ask(t.p, "villain-trophy",
            msg("The {card} is your trophy: toward Strength or Craft?", card=ctx.content.cards[v].name),
            [option("strength", msg("a Strength trophy")), option("craft", msg("a Craft trophy"))], villain=v)


@on_answer("villain-trophy", "a beaten villain as a trophy: `strength` or `craft`", default=())
def villain_trophy(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    p = ctx.player(ctx.index(who))
    # A new list: `engine.clone` copies flags shallowly, and apply must not change its input.
    p.flags["villain-pools"] = p.flags.get("villain-pools", []) + [[prompt.data["villain"], key]]


def trophy_value(ctx: Ctx, p: Player) -> Callable[[str, str], int]:
    """A villain counts at its printed value toward the pool its taker chose, never both."""
    pools = p.flags.get("villain-pools", [])

    def value(c: str, attr: str) -> int:
        card = ctx.content.cards[c]
        if card.type != "villain":
            return getattr(card, attr)
        return max(stat(card, "strength"), stat(card, "craft")) if [c, attr] in pools else 0
    return value


def trophy_spent(ctx: Ctx, p: Player, c: str, attr: str) -> None:
    pools = list(p.flags.get("villain-pools", []))
    if [c, attr] in pools:
        pools.remove([c, attr])
        p.flags["villain-pools"] = pools


@task("adversary-hit")
def adversary_hit(ctx: Ctx, t: Task) -> None:
    s = ctx.s
    if tokens(s, "site"):
        ctx.emit("adversary", msg("No life can be taken from the adversary while a sacred site stands."))
        return
    s.counters["adversary-life"] -= 1
    ctx.emit("adversary", msg("The adversary loses 1 life ({counters} left).", counters=s.counters['adversary-life']))
    if s.counters["adversary-life"] <= 0:
        ctx.emit("game-over", msg("The adversary is defeated and every sacred site destroyed: the heroes win!"))
        finish(ctx, [ctx.name(i) for i in heroes(s)])


# -- fighting together, the Nemesis's reroll -------------------------------------------------

def ask_helpers(ctx: Ctx, i: int, a: dict) -> bool | None:
    """Fight Together: other heroes on the space may add their Strength or Craft (no
    abilities, rolls or weapons). Asked all at once; the sum does not depend on the order."""
    if ctx.player(i).role != "hero" or ctx.s.current != i:
        return None  # "on your turn": not when the Nemesis attacks, nor To the Death
    helpers = [j for j in living(ctx.s) if j != i and ctx.player(j).space == ctx.player(i).space]
    if not helpers:
        return None
    ctx.push("combat-roll", i, **{**a, "helpers_asked": True})
    kind = "battle" if a.get("strength") is not None else "psychic combat"
    ctx.ask(helpers, "join-forces",
            msg("{player} fights {a} ({kind}) on your space. Join forces?", player=ctx.name(i),
                a=words.foe(ctx.content, a), kind=word(kind)),
            [option("join", msg("add your Strength or Craft to the attack")), option("no", msg("stay out"))])
    return True


@on_answer("join-forces", "another hero fights on your space: `join` (add your Strength or Craft) or `no`",
           default=("no",))
def join_forces(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    a = ctx.s.stack[-1].a
    battle = a.get("strength") is not None
    answers = prompt.answers or {who: key}
    for name, k in answers.items():
        if k == "join":
            q = ctx.player(ctx.index(name))
            a["bonus"] = a.get("bonus", 0) + (q.strength if battle else q.craft)
            ctx.emit("join", msg("{name} joins forces.", name=name), player=name)


def foe_reroll(ctx: Ctx, i: int) -> bool | None:
    """Once per turn the Nemesis may spend 1 fate to reroll the die of the adversary, a villain
    or any enemy: asked after the hero's own reroll, only if it could help the creature."""
    s = ctx.s
    k = nemesis(s)
    if ctx.player(i).role != "hero" or not s.players[k].fate or s.counters.get("nemesis-fate-turn") == s.turn:
        return None
    if s.stack[-1].a.get("damage") == 0:
        return None  # a sacred site is a place, not a creature
    ctx.push("foe-reroll", k)
    return True


@task("foe-reroll")
def foe_reroll_task(ctx: Ctx, t: Task) -> None:
    a = ctx.s.stack[-1].a  # the combat-resolve task under this one
    if a["roll"] + a["base"] < a["foe_roll"] + a["foe"] or a["foe_roll"] == 6:
        return
    ctx.ask(t.p, "foe-reroll", msg("{a} totals {value} against {value2}. "
            "Spend 1 fate to reroll its die?", a=words.foe(ctx.content, a), value=a['foe_roll'] + a['foe'],
            value2=a['roll'] + a['base']),
            [option("reroll", msg("spend 1 fate and reroll")), option("keep", msg("keep it"))])


@on_answer("foe-reroll", "the Nemesis may reroll the foe's die: `reroll` (1 fate) or `keep`", default=("keep",))
def foe_reroll_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    if key != "reroll":
        return
    s, p = ctx.s, ctx.player(ctx.index(who))
    a = s.stack[-1].a
    p.fate -= 1
    s.counters["nemesis-fate-turn"] = s.turn
    a["foe_roll"] = rng.die(s)
    ctx.emit("fate", msg("The Nemesis spends 1 fate and rerolls {a}'s die: {a2}.", a=words.foe(ctx.content, a),
                         a2=a['foe_roll']))
