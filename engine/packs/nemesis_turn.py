"""Nemesis: the Nemesis's turn. Its main turn and, with 4 or more heroes, an additional one
(the hook `between_turns`); its actions (Action cards, moving the adversary and villains,
placing a villain, attacking a hero); Action cards drawn at the end, then the companions act
(engine/packs/nemesis_companions.py) and the Boons are drawn.
"""
from __future__ import annotations

from engine.packs.nemesis_board import BONUSES, CROSSINGS, adversary_space, heroes, living, move_token, nemesis, tokens
from engine.packs.nemesis_combat import fight_adversary, fight_villain
from engine.rules.items import discard
from engine.rules.machine import Ctx, on_answer, task
from engine.rules.movement import DIRS, step
from engine.state import Option, Prompt, Task, option
from engine.text import msg


def draw_action(ctx: Ctx, k: int) -> None:
    card = ctx.draw("action")
    if card:
        ctx.player(k).hand.append(card)
        ctx.emit("action-drawn", msg("The Nemesis draws an Action card."))
        ctx.emit("action-drawn", msg("You draw {card}.", card=ctx.content.cards[card].name), to=[ctx.name(k)],
                 card=card)


def between_turns(ctx: Ctx, done: int, nxt: int) -> None:
    """With 4 or more heroes the Nemesis has an additional turn. Where it falls is not given:
    here halfway round, after the hero halfway from the Nemesis (docs/rules-decisions.md §8)."""
    hs = heroes(ctx.s)
    if len(hs) >= 4 and done == hs[len(hs) // 2 - 1]:
        ctx.push("nemesis-turn", nemesis(ctx.s), main=False)


@task("nemesis-turn")
def nemesis_turn(ctx: Ctx, t: Task) -> None:
    s = ctx.s
    s.current = t.p  # a death in this turn must not end a hero's turn still on the stack
    if not t.a["main"]:
        s.turn += 1  # the additional turn is a turn of its own (once-per-turn fate counts anew)
    else:  # what Action cards gave the adversary and the villains lasted until this turn
        for who in BONUSES:
            s.counters.pop(who, None)
    n = 2 if t.a["main"] else (2 if len(heroes(s)) == 4 else 3)
    ctx.emit("turn",
             msg("The Nemesis's main turn: {n} actions.", n=n) if t.a["main"] else
             msg("The Nemesis's additional turn: {n} actions.", n=n),
             player=ctx.name(t.p))
    ctx.push("nemesis-end", t.p, main=t.a["main"])
    ctx.push("nemesis-action", t.p, n=n, first=True)


def action_options(ctx: Ctx, k: int, first: bool) -> list[Option]:
    s, cards = ctx.s, ctx.content.cards
    p = ctx.player(k)
    opts = [option(f"play-{c}", msg("play {card}", card=cards[c].name)) for c in dict.fromkeys(p.hand)]
    opts += adversary_steps(ctx)
    opts += [option(f"villain-{sp}", msg("move a villain from {space} (up to 3 spaces)", space=ctx.space(sp).name))
             for sp in tokens(s, "villain")]
    if first:
        at = {sp: ["adversary"] for sp in tokens(s, "adversary")}
        for sp, vs in tokens(s, "villain").items():
            at.setdefault(sp, []).append(vs[0])
        for sp, who in at.items():
            for j in living(s):
                if ctx.player(j).space == sp:
                    for w in who:
                        weapon = msg("adversary") if w == "adversary" else cards[w].name
                        opts.append(option(f"attack-{ctx.name(j)}-with-{w}",
                                           msg("attack {player} with the {weapon} (ends the turn)", player=ctx.name(j),
                                               weapon=weapon)))
        if s.decks["villain"]:
            opts.append(option("place-villain", msg("place a villain (ends the turn)")))
    return opts + [option("done", msg("end your turn"))]


@task("nemesis-action")
def nemesis_action(ctx: Ctx, t: Task) -> None:
    if t.a["n"] <= 0 or ctx.s.over:
        return
    ctx.ask(t.p, "nemesis-action", msg("Nemesis: {a} action(s) left. What do you do?", a=t.a['n']),
            action_options(ctx, t.p, t.a["first"]), n=t.a["n"])


@on_answer("nemesis-action", "the Nemesis's action: `play-<card>`, `adversary-<dir>`, `villain-<space>`, "
           "`attack-<player>-with-<who>`, `place-villain`, or `done` (end the turn)", default=("done",))
def nemesis_action_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    k = ctx.index(who)
    more = prompt.data["n"] - 1
    if key == "done":
        return
    if key.startswith("attack-"):  # first and only action
        hero, _, w = key[len("attack-"):].partition("-with-")
        attack(ctx, ctx.index(hero), w)
        return
    if key == "place-villain":
        ask_place_villain(ctx, k)
        return
    ctx.push("nemesis-action", k, n=more, first=False)
    if key.startswith("play-"):
        card = ctx.content.cards[key[5:]]
        ctx.player(k).hand.remove(card.slug)
        discard(ctx, card.slug)
        ctx.emit("action", msg("The Nemesis plays {card}.", card=card.name), player=who, card=card.slug)
        ctx.push("effect", k, ops=card.effect or [{"op": "moderator", "text": card.text}], source=card.name)
    elif key.startswith("adversary-"):
        step_adversary(ctx, key[len("adversary-"):])
    elif key.startswith("villain-"):
        ask_villain_move(ctx, k, key[len("villain-"):], 3)


def adversary_steps(ctx: Ctx) -> list[Option]:
    """The adversary's one-space moves from where it stands (none while it is off the board)."""
    adv = adversary_space(ctx.s)
    if not adv:
        return []
    opts = [option(f"adversary-{d}", (msg("move the adversary 1 space counter-clockwise to {space}", space=to)
                                      if d == "left" else msg("move the adversary 1 space clockwise to {space}",
                                                              space=to)))
            for d in DIRS for to in [ctx.space(step(ctx, adv, DIRS[d])).name]]
    if adv in CROSSINGS:
        opts.append(option("adversary-cross",
                           msg("move the adversary across to {space}", space=ctx.space(CROSSINGS[adv]).name)))
    return opts


def step_adversary(ctx: Ctx, way: str) -> None:
    """Move the adversary one space: `left`, `right` or `cross` (adversary_steps' keys)."""
    src = adversary_space(ctx.s)
    assert src is not None  # offered only while the Adversary is on the board
    dest = CROSSINGS[src] if way == "cross" else step(ctx, src, DIRS[way])
    move_token(ctx, "adversary", src, dest, ctx.s.piles[f"adversary@{src}"][0])


def ask_villain_move(ctx: Ctx, k: int, src: str, steps: int) -> None:
    """Ask player k where the villain on `src` goes: up to `steps` spaces along its ring."""
    ring = ctx.content.board.rings[ctx.content.space(src).ring]
    idx = ctx.content.space(src).index
    reach = [d for d in range(-steps, steps + 1) if d]
    dests = list(dict.fromkeys(ring[(idx + d) % len(ring)] for d in reach))
    ctx.ask(k, "villain-move", msg("Move the villain where?"),
            [Option(d, ctx.space(d).name) for d in dests if d != src],
            src=src)


@on_answer("villain-move", "where a villain moves: a space id", default=())
def villain_move(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    src = prompt.data["src"]
    move_token(ctx, "villain", src, key, ctx.s.piles[f"villain@{src}"][0])
    pending = ctx.s.stack[-1] if ctx.s.stack else None
    if pending is not None and pending.op == "villain-steps":  # a card moving several: this one has moved
        pending.a["moved"] = pending.a["moved"] + [key]


def ask_place_villain(ctx: Ctx, k: int) -> None:
    """A villain from the supply goes on a sacred site (any, even one with a villain); with no
    site left, on the adversary's space. Nothing with the supply empty."""
    s = ctx.s
    sites = list(tokens(s, "site")) or [sp for sp in [adversary_space(s)] if sp]
    if s.decks["villain"] and sites:
        ctx.ask(k, "place-villain", msg("Place a villain where?"), [Option(sp, ctx.space(sp).name) for sp in sites])


@on_answer("place-villain", "where the Nemesis places a villain: a space id", default=())
def place_villain(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    card = ctx.s.decks["villain"].pop()
    ctx.s.piles.setdefault(f"villain@{key}", []).append(card)
    ctx.emit("token",
             msg("The Nemesis places a {card} on {space}.", card=ctx.content.cards[card].name,
                 space=ctx.space(key).name), card=card)


def attack(ctx: Ctx, j: int, w: str) -> None:
    """The adversary or a villain attacks a hero on its space: the hero fights it as a
    creature (the hero is not on their turn, so nothing ends a turn)."""
    s = ctx.s
    hero = ctx.player(j)
    if w == "adversary":
        card = ctx.content.cards[s.piles[f"adversary@{hero.space}"][0]]
        ctx.emit("attack", msg("The {card} attacks {player}.", card=card.name, player=hero.name))
        fight_adversary(ctx, j, "strength", hero.space)
    else:
        ctx.emit("attack", msg("The {card} attacks {player}.", card=ctx.content.cards[w].name, player=hero.name))
        fight_villain(ctx, j, w, hero.space)


@task("nemesis-end")
def nemesis_end(ctx: Ctx, t: Task) -> None:
    """End of a Nemesis turn: Action cards by the adversary's region (Inner 1, else 2); after
    the main turn, the Boons."""
    adv = adversary_space(ctx.s)
    for _ in range(1 if adv and ctx.content.space(adv).ring == "inner" else 2):
        draw_action(ctx, t.p)
    if t.a["main"]:  # then the companions act, then the Boons are drawn
        ctx.push("boon-draw", t.p)
        ctx.push("companion-turn", t.p)
