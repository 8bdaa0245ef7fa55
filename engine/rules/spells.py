"""Casting Spells (base-game.md §7, base-cards.md §3).

Windows on your own turn: the start (`when = "start"` or `"any"`), instead of moving
(`"move"`), before a fight (`"combat"`, offered by the fight prompt), after the move
(Destruction, encounter.py) and at the end (Destroy Magic). On another player's turn:
Counterspell whenever someone casts a Spell; Healing after you lose a life; evading or
Immobility when attacked; Preservation when a life loss would kill (turn.lose_life). On
another player's turn each character casts at most one Spell (`may_cast`). See
docs/rules-decisions.md §16.2.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine import words
from engine.questions import OTHER, SELF
from engine.rules import items, reach, stats
from engine.rules.machine import Ctx, could_change, on_answer, registrar, task
from engine.state import Option, Prompt, Task, option
from engine.text import Text, msg, printed

HOOKS: dict[str, Callable[..., Any]] = {}


def spell_hook(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register what a Spell's hook does when cast (engine/content: `hook = "<name>"`)."""
    return registrar(HOOKS, "Spell hook", name)


def blocked(ctx: Ctx, j: int) -> bool:
    """A Toad casts nothing; while another's Destroy Magic lasts nobody casts."""
    p = ctx.player(j)
    if p.toad or (p.flags and p.flags.get("no-magic")):  # no-magic: a pack's rule (the Timescape)
        return True
    return bool(ctx.s.effects) and stats.magic_destroyed(ctx, p)


def shielded(ctx: Ctx, i: int, j: int) -> bool:
    """No Spell of character i's affects character j: j is out of i's reach (engine/rules/reach.py:
    the Timescape), or a card shields it (a pack's `shielded`: the Amulet)."""
    return not reach.reaches(ctx, i, j) or ctx.hooks.shielded(ctx, j)


def may_cast(ctx: Ctx, j: int) -> bool:
    """Whether j may cast a Spell now: on another player's turn only one per turn (§7; a
    Counterspell counts, the Command Spell is not a card)."""
    if blocked(ctx, j):
        return False
    return j == ctx.s.current or ctx.player(j).flags.get("cast-turn") != ctx.s.turn


def casting(ctx: Ctx, j: int) -> None:
    """Count a Spell cast: on another player's turn it is that turn's one."""
    if j != ctx.s.current:
        ctx.player(j).flags["cast-turn"] = ctx.s.turn


def spend(ctx: Ctx, j: int, spell: str) -> None:
    """j casts `spell`: the card goes to the discards, and the cast is counted."""
    ctx.player(j).spells.remove(spell)
    ctx.s.discards["spell"].append(spell)
    casting(ctx, j)


def castable_at_start(ctx: Ctx, i: int) -> list[str]:
    p = ctx.player(i)
    if blocked(ctx, i):
        return []
    out = []
    for s in dict.fromkeys(p.spells):
        c = ctx.content.cards[s]
        if c.when in ("start", "any") and (c.hook in HOOKS or c.prop("target_effect")
                                           or (c.effect and not c.hook and could_change(ctx, i, c.effect))):
            out.append(s)
    return out


@task("start-spells")
def start_spells(ctx: Ctx, t: Task) -> None:
    """Before moving: cast Spells, or use a card that acts at the start of the turn."""
    p = ctx.player(t.p)
    if ctx.s.effects:
        own_destroy_magic_ends(ctx, t.p)
    if not (p.spells or p.objects or p.followers or p.hand or p.area):
        return
    opts = [option(f"cast-{s}", msg("cast {card}", card=ctx.content.cards[s].name)) for s in castable_at_start(ctx,
                                                                                                               t.p)]
    used = used_at_start(ctx, t.p)  # a card's use is offered once a turn (the Alchemist after `done`)
    opts += [o for o in ctx.hooks.start_options(ctx, t.p) if o.key not in used]
    if opts:
        ctx.ask(t.p, "start-spell", msg("Before you move: cast a Spell or use a card?"),
                opts + ditch_option(ctx, t.p) + [option("done", msg("go on to move"))])


def used_at_start(ctx: Ctx, i: int) -> list[str]:
    """The start-of-turn uses of cards (not Spells) the character made this turn."""
    mark = ctx.player(i).flags.get("start-used")
    return mark[1] if mark and mark[0] == ctx.s.turn else []


def own_destroy_magic_ends(ctx: Ctx, i: int) -> None:
    """Destroy Magic lasts until the start of its caster's next turn (not the turn it was cast in)."""
    name, turn = ctx.name(i), ctx.s.turn

    def ending(e: dict[str, Any]) -> bool:
        return e["name"] == "destroy-magic" and e["by"] == name and e.get("turn") != turn
    if any(ending(e) for e in ctx.s.effects):
        ctx.s.effects = [e for e in ctx.s.effects if not ending(e)]
        ctx.emit("lasting-ends", msg("{name}'s {destroy_magic} ends.", destroy_magic=printed("Destroy Magic"),
                                     name=name))


@on_answer("start-spell", "before moving: `cast-<spell>`, a card's use (`use-<card>`...), `ditch`, or `done`",
           default=("done",))
def start_spell(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    if key == "done":
        return
    i = ctx.index(who)
    if key == "ditch":
        items.ditch_answer(ctx, prompt, arg, i, again="start-spells")  # a Spell may go with the Craft
        return
    ctx.push("start-spells", i)  # ask again after this one: several may be cast
    if key.startswith("cast-"):
        cast(ctx, i, key[5:], arg)
        return
    ctx.player(i).flags["start-used"] = [ctx.s.turn, used_at_start(ctx, i) + [key]]  # a new list: flags are shallow
    ctx.hooks.start_choice(ctx, i, key)


def ditch_option(ctx: Ctx, i: int) -> list[Option]:
    return [option("ditch", msg("leave an Object or Follower on your space (write: ditch <card>)"))] \
        if items.ditchable(ctx, i) else []


def cast(ctx: Ctx, i: int, spell: str, target: str | None = None) -> None:
    """Discard the Spell, give a Counterspell holder the chance to cancel it, then resolve it.
    `target`: what the caster named with the answer (`cast-hex crags`, `cast-healing bob`),
    read by the Spells that choose something; otherwise they ask."""
    p = ctx.player(i)
    card = ctx.content.cards[spell]
    spend(ctx, i, spell)
    ctx.emit("cast", msg("{player} casts {card}.", player=p.name, card=card.name), player=p.name, card=spell)
    if target is not None and card.hook in TARGETED:
        ctx.push("spell-resolve", i, spell=spell, name=card.name, target=target)
    else:
        ctx.push("spell-resolve", i, spell=spell, name=card.name)
    offer_counterspell(ctx, i, card.name)


def offer_counterspell(ctx: Ctx, i: int, name: str) -> None:
    """The spell just cast (its resolving task on top of the stack) may be cancelled by the
    next character in turn order who holds Counterspell: they are asked."""
    n = len(ctx.s.players)
    for j in sorted(stats.alive_players(ctx), key=lambda j: (j - i) % n):
        q = ctx.player(j)
        if j != i and "counterspell" in q.spells and may_cast(ctx, j) and reach.reaches(ctx, j, i):
            ctx.ask(j, "counterspell",
                    msg("{player} casts {name}. Cancel it with your {counterspell}?",
                        counterspell=printed("Counterspell"), player=ctx.name(i), name=name),
                    [option("counter", msg("cast {counterspell} on {name}", counterspell=printed("Counterspell"),
                                           name=name)),
                     option("let", msg("let it happen"))])
            return


@on_answer("counterspell", "another casts a Spell: `counter` (cast Counterspell on it) or `let`", default=("let",))
def counterspell(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    if key == "let":
        return
    spend(ctx, ctx.index(who), "counterspell")
    resolve = ctx.s.stack.pop()
    ctx.emit("counterspell", msg("{player} casts {counterspell}: {a} has no effect.",
                                 counterspell=printed("Counterspell"), player=who,
                                 a=words.foe(ctx.content, resolve.a)), player=who)


@task("spell-resolve")
def resolve(ctx: Ctx, t: Task) -> None:
    i = t.p
    card = ctx.content.cards[t.a["spell"]]
    if card.prop("target_effect") and card.hook not in HOOKS:
        targets = [j for j in stats.alive_players(ctx) if not shielded(ctx, i, j)]
        if targets:
            ctx.ask(i, "spell-target", msg("On whom do you cast {card}?", card=card.name),
                    [Option(ctx.name(j), ctx.name(j)) for j in targets],
                    ops=card.prop("target_effect"), source=card.name)
    elif card.hook in HOOKS:
        if "target" in t.a:
            HOOKS[card.hook](ctx, i, t.a["target"])
        else:
            HOOKS[card.hook](ctx, i)
    elif card.effect:
        ctx.push("effect", i, ops=card.effect, source=card.name)


@on_answer("spell-target", "on whom a Spell is cast: a player's name", default=(OTHER,))
def spell_target(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    ctx.push("effect", ctx.index(key), ops=prompt.data["ops"], source=prompt.data["source"])


def choose_character(ctx: Ctx, i: int, kind: str, question: Text, include_self: bool = False) -> None:
    targets = [j for j in stats.alive_players(ctx) if (include_self or j != i) and not shielded(ctx, i, j)]
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
    """Until the start of the caster's next turn (start_spells ends it; two round ends at most,
    should the caster miss that turn or be out)."""
    ctx.s.effects.append({"name": "destroy-magic", "rounds": 2, "by": ctx.name(i), "turn": ctx.s.turn})
    ctx.emit("lasting",
             msg("{destroy_magic}: nobody else may cast Spells until {player}'s next turn.",
                 destroy_magic=printed("Destroy Magic"), player=ctx.name(i)))


@spell_hook("healing")
def healing(ctx: Ctx, i: int, target: str | None = None) -> None:
    j = named_character(ctx, target)
    if j is not None and not shielded(ctx, i, j):
        heal_full(ctx, j)
        return
    choose_character(ctx, i, "spell-healing", msg("Whom do you heal?"), include_self=True)


@on_answer("spell-healing", "on whom Healing is cast: a player's name (oneself included)", default=(SELF,))
def healing_target(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    heal_full(ctx, ctx.index(key))


def heal_full(ctx: Ctx, j: int) -> None:
    q = ctx.player(j)
    if stats.healing_barred(ctx):  # Pandora's Box (The Lost Realms): nobody heals
        ctx.emit("heal", msg("Nobody may heal now: {player} is not healed.", player=q.name), player=q.name)
        return
    q.life = max(q.life, q.max_life)
    ctx.emit("heal", msg("{player} is healed to full life.", player=q.name), player=q.name)


def named_character(ctx: Ctx, name: str | None) -> int | None:
    """The living character a player named in an answer's argument, if any."""
    if not name:
        return None
    name = name.strip().lower()
    for j in stats.alive_players(ctx):
        if ctx.name(j) == name:
            return j
    return None


# -- Healing on another player's turn ------------------------------------------------------

def wounded(ctx: Ctx, j: int) -> None:
    """j has just lost a life. On another player's turn a holder of Healing may cast it at
    once, on anyone wounded (a window asked only of that holder, after the loss resolves)."""
    if j != ctx.s.current and "healing" in ctx.player(j).spells and not ctx.s.over:
        ctx.push("healing-window", j)


def all_wounded(ctx: Ctx, js: list[int]) -> None:
    """Several lost a life at once: their windows open in turn order from the current player."""
    n = len(ctx.s.players)
    for j in sorted(js, key=lambda j: (ctx.s.current - j) % n):  # pushed last-first
        wounded(ctx, j)


@task("healing-window")
def healing_window(ctx: Ctx, t: Task) -> None:
    j = t.p
    p = ctx.player(j)
    if not p.alive or "healing" not in p.spells or j == ctx.s.current or not may_cast(ctx, j):
        return
    hurt = [k for k in stats.alive_players(ctx)
            if ctx.player(k).life < ctx.player(k).max_life and not shielded(ctx, j, k)]
    if not hurt:
        return
    opts = [option(f"heal-{ctx.name(k)}", msg("cast {healing} on yourself", healing=printed("Healing")) if k == j else
                   msg("cast {healing} on {value}", healing=printed("Healing"), value=ctx.name(k))) for k in hurt]
    ctx.ask(j, "healing-window", msg("You have lost a life on another's turn. Cast Healing now "
            "(your one Spell this turn)?"), opts + [option("no", msg("not now"))])


@on_answer("healing-window", "a life lost on another's turn: `cast-<healing>` now, or `no`", default=("no",))
def healing_window_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    if key != "no":
        cast(ctx, ctx.index(who), "healing", key[len("heal-"):])


# -- the end of your turn -----------------------------------------------------------------

def turn_ends(ctx: Ctx, i: int) -> None:
    """Open the end-of-turn window (Destroy Magic: "start or end of your turn") when the
    player holds it. Pushed above the end-turn task, so it runs before the next turn."""
    p = ctx.player(i)
    if "destroy-magic" in p.spells and p.alive:
        ctx.push("end-spells", i)


def finish_turn(ctx: Ctx) -> None:
    """The current turn ends now (a lost fight, a lost turn): drop its work, keep its end."""
    ctx.end_turn()
    turn_ends(ctx, ctx.s.current)


@task("end-spells")
def end_spells(ctx: Ctx, t: Task) -> None:
    p = ctx.player(t.p)
    if not p.alive or "destroy-magic" not in p.spells or blocked(ctx, t.p):
        return
    ctx.ask(t.p, "end-spell",
            msg("Your turn ends. Cast {destroy_magic} (nobody else casts Spells until your next turn)?",
                destroy_magic=printed("Destroy Magic")),
            [option("cast-destroy-magic", msg("cast {destroy_magic}", destroy_magic=printed("Destroy Magic"))),
                                              option("done", msg("end the turn"))])


@on_answer("end-spell", "at the end of the turn: `cast-destroy-magic` or `done`", default=("done",))
def end_spell(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    if key == "cast-destroy-magic":
        cast(ctx, ctx.index(who), "destroy-magic")


@spell_hook("nullify")
def nullify(ctx: Ctx, i: int) -> None:
    choose_character(ctx, i, "spell-nullify", msg("Whose Spells are nullified?"))


@on_answer("spell-nullify", "on whom Nullify is cast: a player's name", default=(OTHER,))
def nullify_target(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    q = ctx.player(ctx.index(key))
    ctx.s.discards["spell"].extend(q.spells)
    q.spells = []
    ctx.emit("discard", msg("{player} discards all Spells.", player=q.name), player=q.name)


@spell_hook("acquisition")
def acquisition(ctx: Ctx, i: int) -> None:
    choose_character(ctx, i, "spell-acquisition", msg("From whom do you take 1 gold or an Object?"))


@on_answer("spell-acquisition", "from whom Acquisition takes: a player's name", default=(OTHER,))
def acquisition_target(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    j = ctx.index(key)
    ctx.push("take-from", ctx.index(who), loser=j)


@task("take-from")
def take_from(ctx: Ctx, t: Task) -> None:
    loser = ctx.player(t.a["loser"])
    opts = ([option("gold", msg("take 1 gold from {player}", player=loser.name))] if loser.gold else []) + \
        [option(o, msg("take {card}", card=ctx.content.cards[o].name)) for o in dict.fromkeys(loser.objects)]
    if opts:
        ctx.ask(t.p, "reward", msg("What do you take from {player}?", player=loser.name), opts, loser=t.a["loser"],
                psychic=True)


@spell_hook("alchemy")
def alchemy(ctx: Ctx, i: int) -> None:
    ctx.push("effect", i, ops=[{"op": "sell-objects", "price": 1}], source="Alchemy")


@spell_hook("destruction")
def destruction(ctx: Ctx, i: int) -> None:
    board = ctx.content.board.spaces
    cards = [(sp, c) for sp, cs in ctx.s.spaces.items() if sp in board and board[sp].ring in ("outer", "middle")
             for c in cs if ctx.content.adventure(c)]
    if cards:
        choices = {f"{c}-on-{sp}": (c, sp) for sp, c in dict.fromkeys(cards)}  # keys are slugs players can type
        ctx.ask(i, "spell-destruction", msg("Which card on the board is destroyed?"),
                [option(k, msg("{card} on {space}", card=ctx.content.cards[c].name, space=ctx.space(sp).name)) for k,
                 (c, sp) in choices.items()],
                choices=choices)


@on_answer("spell-destruction", "which faceup card on the board Destruction destroys: a key of the options", default=())
def destruction_target(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    card, space = prompt.data["choices"][key]
    ctx.s.spaces[space].remove(card)
    items.discard(ctx, card)  # its own deck's pile (a Nether card counts as an Adventure card, not of that deck)
    ctx.emit("destroy",
             msg("{card} on {space} is destroyed.", card=ctx.content.cards[card].name, space=ctx.space(space).name))


@spell_hook("divination")
def divination(ctx: Ctx, i: int) -> None:
    top = ctx.s.decks["adventure"][-5:][::-1]
    names = ", ".join(ctx.content.cards[c].name for c in top) or "nothing"
    ctx.emit("divination", msg("The top Adventure cards are: {names}.", names=names), to=[ctx.name(i)])


# -- the Hex ---------------------------------------------------------------------------------

def empty_spaces(ctx: Ctx, ring: str) -> list[str]:
    """Spaces of a ring with no character, no card lying there and no Hex already."""
    s = ctx.s
    taken: set[str | None] = {q.space for q in s.players if q.alive and q.space}
    taken.update(e.get("space") for e in s.effects if e["name"] == "hex")
    return [sp for sp in ctx.content.board.rings.get(ring, ()) if sp not in taken and not s.spaces.get(sp)]


@spell_hook("hex")
def hex_(ctx: Ctx, i: int, target: str | None = None) -> None:
    """The caster lays the Hex on an empty Outer or Middle space: named with the answer
    (`cast-hex crags`), or chosen in two short questions: a side of a region, then a space."""
    if target:
        space = target.strip().lower().replace(" ", "-").replace("'", "")
        ring = ctx.content.board.spaces[space].ring if space in ctx.content.board.spaces else None
        if ring in ("outer", "middle") and space in empty_spaces(ctx, ring):
            lay_hex(ctx, i, space)
            return
    sides = hex_sides(ctx)
    if not sides:
        ctx.emit("hex", msg("No empty space is left for the {hex}; it is lost.", hex=printed("Hex")))
        return
    ctx.ask(i, "hex-space", msg("Where do you lay the {hex}? Choose a side of a region (next time you may write "
            "cast-hex <space>):", hex=printed("Hex")),
            [option(f"side-{first}", msg("Outer Region: {spaces}", spaces=names) if ring == "outer" else
                    msg("Middle Region: {spaces}", spaces=names))
             for ring, first, spaces in sides for names in [", ".join(ctx.space(sp).name for sp in spaces)]],
            sides={f"side-{first}": spaces for ring, first, spaces in sides})


def hex_sides(ctx: Ctx) -> list[tuple[str, str, list[str]]]:
    """The empty spaces of the Outer and Middle Regions in the four sides of each ring (at
    most 8 choices of at most 6 spaces: short lists for mail), each side named after its
    first space (a corner on the base board)."""
    out = []
    for ring in ("outer", "middle"):
        empty = set(empty_spaces(ctx, ring))
        spaces = ctx.content.board.rings.get(ring, [])
        size = -(-len(spaces) // 4)
        for k in range(0, len(spaces), size or 1):
            side = [sp for sp in spaces[k:k + size] if sp in empty]
            if side:
                out.append((ring, spaces[k], side))
    return out


@on_answer("hex-space", "where the Hex is laid: `side-<space>` (a side of a region), then a space id", default=())
def hex_space(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    if key.startswith("side-"):
        spaces = prompt.data["sides"][key]
        ctx.ask(i, "hex-space", msg("On which space do you lay the {hex}?", hex=printed("Hex")),
                [Option(sp, ctx.space(sp).name) for sp in spaces])
    else:
        lay_hex(ctx, i, key)


def lay_hex(ctx: Ctx, i: int, space: str) -> None:
    ctx.s.effects.append({"name": "hex", "rounds": 3, "by": ctx.name(i), "space": space})
    ctx.emit("hex", msg("{player} places a {hex} on {space}.", player=ctx.name(i), space=ctx.space(space).name,
                            hex=printed("Hex")))


TARGETED = {"hex", "healing"}  # Spells whose target may be named with the answer
