"""Casting Spells on your own turn (base-game.md §7, base-cards.md §3).

Windows: the start of your turn (`when = "start"` or `"any"`), instead of moving (`"move"`),
before a fight (`"combat"`, offered by the fight prompt). Reactions: Counterspell is offered
to its holder whenever another character casts a Spell; Preservation is cast for its holder
when a life loss would kill them (turn.lose_life). See docs/rules-decisions.md.
"""
from __future__ import annotations

from engine import packs
from engine.state import Option
from engine.rules import stats
from engine.rules.items import discard
from engine.rules.machine import Ctx, on_answer, task
from engine.packs import revised4 as hooks

HOOKS = {}


def spell_hook(name: str):
    def register(fn):
        HOOKS[name] = fn
        return fn
    return register


def castable_at_start(ctx: Ctx, i: int) -> list[str]:
    p = ctx.player(i)
    if p.toad or any(e["name"] == "destroy-magic" and e["by"] != p.name for e in ctx.s.effects):
        return []
    out = []
    for s in dict.fromkeys(p.spells):
        c = ctx.content.cards[s]
        if c.when in ("start", "any") and (c.hook in HOOKS or c.prop("target_effect") or (c.effect and not c.hook)):
            out.append(s)
    return out


@task("start-spells")
def start_spells(ctx: Ctx, t) -> None:
    """Before moving: cast Spells, or use a card that acts at the start of the turn."""
    p = ctx.player(t.p)
    if not (p.spells or p.objects or p.followers or p.hand or p.area):
        return
    opts = [Option(f"cast-{s}", f"cast {ctx.content.cards[s].name}") for s in castable_at_start(ctx, t.p)]
    opts += hooks.start_options(ctx, t.p) + (packs.call(ctx.s, "start_options", ctx, t.p) or [])
    if opts:
        ctx.ask(t.p, "start-spell", "Before you move: cast a Spell or use a card?", opts + [Option("done", "go on to move")])


@on_answer("start-spell")
def start_spell(ctx: Ctx, prompt, key, arg, who) -> None:
    if key == "done":
        return
    i = ctx.index(who)
    ctx.push("start-spells", i)  # ask again after this one: several may be cast
    if key.startswith("cast-"):
        cast(ctx, i, key[5:], None)
    elif not packs.call(ctx.s, "start_choice", ctx, i, key):
        hooks.start_choice(ctx, i, key)


def cast(ctx: Ctx, i: int, spell: str, target) -> None:
    """Discard the Spell, give a Counterspell holder the chance to cancel it, then resolve it."""
    p = ctx.player(i)
    card = ctx.content.cards[spell]
    p.spells.remove(spell)
    ctx.s.discards["spell"].append(spell)
    ctx.emit("cast", f"{p.name} casts {card.name}.", player=p.name, card=spell)
    ctx.push("spell-resolve", i, spell=spell, name=card.name)
    offer_counterspell(ctx, i, card.name)


def offer_counterspell(ctx: Ctx, i: int, name: str) -> None:
    """The spell just cast (its resolving task on top of the stack) may be cancelled by the
    next character in turn order who holds Counterspell: they are asked."""
    n = len(ctx.s.players)
    for j in sorted(stats.alive_players(ctx), key=lambda j: (j - i) % n):
        q = ctx.player(j)
        if j != i and "counterspell" in q.spells and not q.toad:
            ctx.ask(j, "counterspell", f"{ctx.name(i)} casts {name}. Cancel it with your Counterspell?",
                    [Option("counter", f"cast Counterspell on {name}"), Option("let", "let it happen")])
            return


@on_answer("counterspell")
def counterspell(ctx: Ctx, prompt, key, arg, who) -> None:
    if key == "let":
        return
    q = ctx.player(ctx.index(who))
    q.spells.remove("counterspell")
    ctx.s.discards["spell"].append("counterspell")
    resolve = ctx.s.stack.pop()
    ctx.emit("counterspell", f"{who} casts Counterspell: {resolve.a['name']} has no effect.", player=who)


@task("spell-resolve")
def resolve(ctx: Ctx, t) -> None:
    i = t.p
    card = ctx.content.cards[t.a["spell"]]
    if card.prop("target_effect") and card.hook not in HOOKS:
        targets = [j for j in stats.alive_players(ctx) if not hooks.shielded(ctx, j)]
        if targets:
            ctx.ask(i, "spell-target", f"On whom do you cast {card.name}?",
                    [Option(ctx.name(j), ctx.name(j)) for j in targets], ops=card.prop("target_effect"), source=card.name)
    elif card.hook in HOOKS:
        HOOKS[card.hook](ctx, i)
    elif card.effect:
        ctx.push("effect", i, ops=card.effect, source=card.name)


@on_answer("spell-target")
def spell_target(ctx: Ctx, prompt, key, arg, who) -> None:
    ctx.push("effect", ctx.index(key), ops=prompt.data["ops"], source=prompt.data["source"])


def choose_character(ctx: Ctx, i: int, kind: str, question: str, include_self: bool = False) -> None:
    targets = [j for j in stats.alive_players(ctx) if (include_self or j != i) and not hooks.shielded(ctx, j)]
    if targets:
        ctx.ask(i, kind, question, [Option(ctx.name(j), ctx.name(j)) for j in targets])


@spell_hook("teleport")
def teleport(ctx: Ctx, i: int) -> None:
    ctx.push("teleport-choose", i, choose=stats.region(ctx, ctx.player(i).space))


@spell_hook("temporal-warp")
def temporal_warp(ctx: Ctx, i: int) -> None:
    ctx.player(i).flags["extra-turns"] = 2  # this turn and two more: three in a row


@spell_hook("destroy-magic")
def destroy_magic(ctx: Ctx, i: int) -> None:
    ctx.s.effects.append({"name": "destroy-magic", "rounds": 1, "by": ctx.name(i)})


@spell_hook("healing")
def healing(ctx: Ctx, i: int) -> None:
    choose_character(ctx, i, "spell-healing", "Whom do you heal?", include_self=True)


@on_answer("spell-healing")
def healing_target(ctx: Ctx, prompt, key, arg, who) -> None:
    q = ctx.player(ctx.index(key))
    if ctx.s.counters.get("no-healing"):  # Pandora's Box (The Lost Realms): nobody heals
        ctx.emit("heal", f"Nobody may heal now: {q.name} is not healed.", player=q.name)
        return
    q.life = max(q.life, q.max_life)
    ctx.emit("heal", f"{q.name} is healed to full life.", player=q.name)


@spell_hook("nullify")
def nullify(ctx: Ctx, i: int) -> None:
    choose_character(ctx, i, "spell-nullify", "Whose Spells are nullified?")


@on_answer("spell-nullify")
def nullify_target(ctx: Ctx, prompt, key, arg, who) -> None:
    q = ctx.player(ctx.index(key))
    ctx.s.discards["spell"].extend(q.spells)
    q.spells = []
    ctx.emit("discard", f"{q.name} discards all Spells.", player=q.name)


@spell_hook("acquisition")
def acquisition(ctx: Ctx, i: int) -> None:
    choose_character(ctx, i, "spell-acquisition", "From whom do you take 1 gold or an Object?")


@on_answer("spell-acquisition")
def acquisition_target(ctx: Ctx, prompt, key, arg, who) -> None:
    j = ctx.index(key)
    ctx.push("take-from", ctx.index(who), loser=j)


@task("take-from")
def take_from(ctx: Ctx, t) -> None:
    loser = ctx.player(t.a["loser"])
    opts = ([Option("gold", f"take 1 gold from {loser.name}")] if loser.gold else []) + \
        [Option(o, f"take {ctx.content.cards[o].name}") for o in dict.fromkeys(loser.objects)]
    if opts:
        ctx.ask(t.p, "reward", f"What do you take from {loser.name}?", opts, loser=t.a["loser"], psychic=True)


@spell_hook("alchemy")
def alchemy(ctx: Ctx, i: int) -> None:
    ctx.push("effect", i, ops=[{"op": "sell-objects", "price": 1}], source="Alchemy")


@spell_hook("destruction")
def destruction(ctx: Ctx, i: int) -> None:
    cards = [(sp, c) for sp, cs in ctx.s.spaces.items() if sp in ctx.content.board.spaces
             for c in cs if ctx.content.adventure(c)]
    if cards:
        choices = {f"{c}-on-{sp}": (c, sp) for sp, c in dict.fromkeys(cards)}  # keys are slugs players can type
        ctx.ask(i, "spell-destruction", "Which card on the board is destroyed?",
                [Option(k, f"{ctx.content.cards[c].name} on {ctx.space(sp).name}") for k, (c, sp) in choices.items()],
                choices=choices)


@on_answer("spell-destruction")
def destruction_target(ctx: Ctx, prompt, key, arg, who) -> None:
    card, space = prompt.data["choices"][key]
    ctx.s.spaces[space].remove(card)
    discard(ctx, card)  # its own deck's pile (a Nether card counts as an Adventure card, not of that deck)
    ctx.emit("destroy", f"{ctx.content.cards[card].name} on {ctx.space(space).name} is destroyed.")


@spell_hook("divination")
def divination(ctx: Ctx, i: int) -> None:
    top = ctx.s.decks["adventure"][-5:][::-1]
    names = ", ".join(ctx.content.cards[c].name for c in top) or "nothing"
    ctx.emit("divination", f"The top Adventure cards are: {names}.", to=[ctx.name(i)])


@spell_hook("hex")
def hex_(ctx: Ctx, i: int) -> None:
    ctx.s.effects.append({"name": "hex", "rounds": 3, "by": ctx.name(i), "space": ctx.player(i).space})
    ctx.emit("hex", f"{ctx.name(i)} places a Hex on {ctx.space(ctx.player(i).space).name}.")
