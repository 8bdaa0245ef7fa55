"""Nemesis: the pack's ops (docs/effects.md, *Nemesis ops*), which the stand-in Action cards,
Boons, Nemesis Spells, Trial Rush cards and companion levels are written in: moving the adversary
and the villains, strengthening them, placing a villain, striking heroes, the Nemesis's hand and
the heroes' shared fate. Whoever an op runs for, a choice about the Nemesis's tokens is the
Nemesis's, unless the op says `chooser = "self"` (a hero's Boon or Spell).
"""
from __future__ import annotations

from typing import Any

from engine import rng
from engine.ops import op, run
from engine.packs.nemesis_board import BONUSES, adversary_space, living, nemesis, tokens
from engine.packs.nemesis_turn import adversary_steps, ask_place_villain, ask_villain_move, draw_action, step_adversary
from engine.rules.items import discard
from engine.rules.machine import Ctx, on_answer, task, useful
from engine.state import Option, Prompt, Task, option
from engine.text import msg

# -- the adversary ------------------------------------------------------------------------------

YOUR_CARD = msg("Your card")  # what a card is called when it does not say (msg() outside a call: extracted)


@op("adversary-move")
def adversary_move(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """The Nemesis moves the adversary up to `steps` spaces (default 1), one at a time."""
    ctx.push("adversary-steps", nemesis(ctx.s), left=o.get("steps", 1))


@task("adversary-steps")
def adversary_steps_task(ctx: Ctx, t: Task) -> None:
    opts = adversary_steps(ctx)
    if t.a["left"] > 0 and opts:
        ctx.ask(t.p, "adversary-step", msg("Move the adversary: up to {a} more space(s).", a=t.a['left']),
                opts + [option("stop", msg("leave it there"))], left=t.a["left"])


@on_answer("adversary-step", "a card moves the adversary: `adversary-<left|right|cross>` (1 space), or `stop`",
           default=("stop",))
def adversary_step(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    if key != "stop":
        step_adversary(ctx, key[len("adversary-"):])
        ctx.push("adversary-steps", ctx.index(who), left=prompt.data["left"] - 1)


@op("adversary-heal")
def adversary_heal(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """The adversary regains `n` lives (default 1), never above the lives printed on it."""
    s = ctx.s
    adv = adversary_space(s)
    if not adv:
        return
    most = ctx.content.cards[s.piles[f"adversary@{adv}"][0]].prop("life", 0)
    n = min(o.get("n", 1), most - s.counters.get("adversary-life", 0))
    if n > 0:
        s.counters["adversary-life"] = s.counters.get("adversary-life", 0) + n
        ctx.emit("adversary",
                 msg("The adversary regains {n} life ({counters} now).", n=n, counters=s.counters['adversary-life']))


@op("token-bonus")
def token_bonus(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """`who` = "adversary" or "villains" fight with `n` more Strength or Craft until the Nemesis's
    next main turn (a villain's trophy value stays the printed one: Key Rules 5)."""
    key = BONUSES[o["who"]]
    ctx.s.counters[key] = ctx.s.counters.get(key, 0) + o.get("n", 1)
    ctx.emit("bonus",
             msg("The adversary fights with +{counters} until the Nemesis's next turn.", counters=ctx.s.counters[key])
             if o["who"] == "adversary" else
             msg("Every villain fights with +{counters} until the Nemesis's next turn.", counters=ctx.s.counters[key]))


# -- the villains ---------------------------------------------------------------------------------

def _villain_sources(ctx: Ctx, here: str | None, moved: list[str]) -> list[str]:
    """Spaces with a villain not yet moved by this card (on `here` only, when given)."""
    spaces = tokens(ctx.s, "villain")
    return [sp for sp, vs in spaces.items() if (here is None or sp == here) and len(vs) > moved.count(sp)]


@op("villain-move")
def villain_move_op(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """Up to `n` villains (default 1; "all": every one) move up to `steps` spaces (default 3)
    along their ring. `from = "here"`: only a villain on the space of the one the op is for;
    `chooser = "self"`: that one chooses (a hero's Boon or Spell), else the Nemesis."""
    here = ctx.player(i).space if o.get("from") == "here" else None
    chooser = i if o.get("chooser") == "self" else nemesis(ctx.s)
    n = sum(len(v) for v in tokens(ctx.s, "villain").values()) if o.get("n") == "all" else o.get("n", 1)
    ctx.push("villain-steps", chooser, n=n, steps=o.get("steps", 3), here=here, moved=[])


@useful("villain-move")
def villain_move_useful(ctx: Ctx, i: int, o: dict[str, Any]) -> bool:
    return bool(_villain_sources(ctx, ctx.player(i).space if o.get("from") == "here" else None, []))


@task("villain-steps")
def villain_steps(ctx: Ctx, t: Task) -> None:
    sources = _villain_sources(ctx, t.a["here"], t.a["moved"])
    if t.a["n"] <= 0 or not sources:
        return
    ctx.push("villain-steps", t.p, **{**t.a, "n": t.a["n"] - 1})
    ctx.ask(t.p, "villain-pick",
            msg("Move a villain up to {a} spaces ({a2} more may move).", a=t.a['steps'], a2=t.a['n']),
            [option(f"villain-{sp}", msg("move a villain from {space}", space=ctx.space(sp).name)) for sp in sources]
            + [option("stop", msg("move no more villains"))], steps=t.a["steps"])


@on_answer("villain-pick", "a card moves villains: `villain-<space>` (the one there), or `stop`", default=("stop",))
def villain_pick(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    if key == "stop":
        ctx.s.stack.pop()  # the card's further villains with it
        return
    ask_villain_move(ctx, ctx.index(who), key[len("villain-"):], prompt.data["steps"])


@op("place-villain")
def place_villain_op(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """The Nemesis places a villain from the supply as the action does (a sacred site; none
    left: the adversary's space), and the turn goes on."""
    ask_place_villain(ctx, nemesis(ctx.s))


# -- heroes -------------------------------------------------------------------------------------

def _picked(ctx: Ctx, pick: str) -> list[int]:
    s = ctx.s
    alive = living(s)
    if pick == "all":
        return alive
    if pick == "x-token":
        return [j for j in alive if j == s.counters.get("x-token")]
    if pick == "with-adversary":
        return [j for j in alive if ctx.player(j).space in tokens(s, "adversary")]
    if pick == "with-villain":
        return [j for j in alive if ctx.player(j).space in tokens(s, "villain")]
    if pick == "fewest-lives":
        low = min((ctx.player(j).life for j in alive), default=0)
        return [j for j in alive if ctx.player(j).life == low]
    raise KeyError(pick)


@op("heroes")
def heroes_op(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """Run `then` for heroes picked by `pick`: "choose" (one the Nemesis chooses), "all",
    "x-token" (the bearer of the X token), "with-adversary", "with-villain" (those on such a
    space), "fewest-lives"."""
    pick = o.get("pick", "choose")
    if pick == "choose":
        alive = living(ctx.s)
        if alive:
            ctx.ask(nemesis(ctx.s), "nemesis-target", msg("{get}: on which hero?", get=meta.get('source', YOUR_CARD)),
                    [Option(ctx.name(j), ctx.name(j)) for j in alive], then=o.get("then", []),
                    meta={k: v for k, v in meta.items() if k != "o"})
        return
    for j in reversed(_picked(ctx, pick)):  # pushed last first: run in turn order
        run(ctx, j, o.get("then", []), meta)


@on_answer("nemesis-target", "which hero the Nemesis's card strikes: a player's name", default=())
def nemesis_target(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    run(ctx, ctx.index(key), prompt.data["then"], prompt.data["meta"])


@op("shared-fate")
def shared_fate(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """The heroes' shared fate pool gains `n` (a negative `n`: loses; never below 0)."""
    pools = ctx.s.pools
    if "shared_fate" in pools:
        before = pools["shared_fate"]
        pools["shared_fate"] = max(0, before + o.get("n", 1))
        if pools["shared_fate"] != before:
            ctx.emit("fate",
                     msg("The heroes' shared fate: {before} -> {pools}.", before=before, pools=pools['shared_fate']))


# -- the Nemesis's hand -----------------------------------------------------------------------------

@op("nemesis-draw")
def nemesis_draw(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """The Nemesis draws `n` Action cards (default 1)."""
    for _ in range(o.get("n", 1)):
        draw_action(ctx, nemesis(ctx.s))


@op("nemesis-discard")
def nemesis_discard(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """The Nemesis discards `n` Action cards (default 1) at random from their hand."""
    k = nemesis(ctx.s)
    hand = ctx.player(k).hand
    for _ in range(min(o.get("n", 1), len(hand))):
        card = hand.pop(rng.below(ctx.s, len(hand)))
        discard(ctx, card)
        ctx.emit("action", msg("The Nemesis discards {card} at random.", card=ctx.content.cards[card].name), card=card)


@useful("nemesis-discard")
def nemesis_discard_useful(ctx: Ctx, i: int, o: dict[str, Any]) -> bool:
    return bool(ctx.s.players[nemesis(ctx.s)].hand)
