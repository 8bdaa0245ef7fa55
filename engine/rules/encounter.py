"""Encountering a space or another character; draw-to-N and the order cards are met in
(base-game.md §3, §3.1)."""
from __future__ import annotations

import re
from typing import Any

from engine import rng
from engine.content import die_row
from engine.rules import items, reach, spells, stats
from engine.rules.items import discard, gain_object
from engine.rules.machine import Ctx, on_answer, task
from engine.state import Option, Prompt, Task, option
from engine.text import msg, printed

MEETS_OTHERS_INNER = ("plain-of-peril", "valley-of-fire", "crown-of-command")
ORDER = {"event": 0, "enemy": 1, "stranger": 2, "follower": 3, "object": 3, "magic-object": 3, "place": 4}


def others_here(ctx: Ctx, i: int) -> list[int]:
    p = ctx.player(i)
    if stats.region(ctx, p.space) == "inner" and p.space not in MEETS_OTHERS_INNER:
        return []
    return [j for j in reach.others(ctx, i) if ctx.s.players[j].space == p.space]


@task("encounter")
def encounter(ctx: Ctx, t: Task) -> None:
    i = t.p
    p = ctx.player(i)
    if p.alive and p.space == "crown-of-command":
        arrived = bool(p.flags.pop("moved", None))
        ctx.push("crown", i, arrived=arrived)  # on the Crown there is no move: every turn is the Crown's
        return
    if not p.alive or not p.flags.pop("moved", None):
        return  # no move, no encounter: you never meet the space you started on
    if ctx.s.piles:
        flip_remnants(ctx, i)  # before deciding what to encounter
    if ctx.hooks.arrived(ctx, i):
        return  # the pack's rule replaced the encounter (Nemesis: the Lair of the Beast)
    if "destruction" in p.spells and after_move(ctx, i):
        return
    choose_encounter(ctx, i)


def after_move(ctx: Ctx, i: int) -> bool:
    """Destruction may be cast "after your move": asked, before the encounter, of its holder
    when an Adventure card lies on the space moved to (elsewhere it could as well have been
    cast at the start of the turn). True if the window opened (the encounter waits below it)."""
    if not destruction_here(ctx, i):
        return False
    ctx.push("encounter-choose", i)
    ask_after_move(ctx, i)
    return True


def destruction_here(ctx: Ctx, i: int) -> bool:
    p = ctx.player(i)
    lying = ctx.s.spaces.get(p.space)
    return bool(lying and "destruction" in p.spells and stats.region(ctx, p.space) in ("outer", "middle") \
        and not spells.blocked(ctx, i) and any(ctx.content.adventure(c) for c in lying))


@task("after-move")
def ask_again_after_move(ctx: Ctx, t: Task) -> None:
    if destruction_here(ctx, t.p):  # after a ditch: asked anew (the Spell may have gone with the Craft)
        ask_after_move(ctx, t.p)


def ask_after_move(ctx: Ctx, i: int) -> None:
    ctx.ask(i, "after-move",
            msg("You have moved to {space}. Cast {destruction} before you encounter?",
                destruction=printed("Destruction"),
                space=ctx.space(ctx.player(i).space).name),
            [option("cast-destruction", msg("cast {destruction}: discard a faceup Adventure card",
                                            destruction=printed("Destruction")))]
            + spells.ditch_option(ctx, i) + [option("no", msg("go on to the encounter"))])


@on_answer("after-move", "before the encounter: `cast-destruction`, `ditch` (leave an Object) or `no` (go on)",
           default=("no",))
def after_move_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    if key == "ditch":
        items.ditch_answer(ctx, prompt, arg, i, again="after-move")
    elif key == "cast-destruction":
        spells.cast(ctx, i, "destruction")


@task("encounter-choose")
def encounter_choose(ctx: Ctx, t: Task) -> None:
    choose_encounter(ctx, t.p)


def choose_encounter(ctx: Ctx, i: int) -> None:
    """The space or another character: asked only with something to choose."""
    p = ctx.player(i)
    if not p.alive:
        return
    special = ctx.hooks.encounter_options(ctx, i)  # Nemesis: villains, sites, no attacks on heroes
    if special is not None:
        if special:
            ctx.ask(i, "encounter", msg("What do you encounter?"), special + spells.ditch_option(ctx, i))
        else:
            ctx.push("encounter-space", i)
        return
    others = others_here(ctx, i)
    if others and ctx.space(p.space).hook_args.get("must_attack"):
        # The Cataclysm's Plain of Peril: attack one of them in battle; the winner takes a life.
        ctx.ask(i, "must-attack", msg("Others are here: whom do you attack?"),
                [option(f"encounter-{ctx.name(j)}",
                        msg("attack {player} in battle", player=ctx.name(j))) for j in others])
        return
    if not others:
        ctx.push("encounter-space", i)
        return
    opts = [option("encounter-space", msg("encounter {space}", space=ctx.space(p.space).name))]
    opts += [option(f"encounter-{ctx.name(j)}", msg("attack {player}", player=ctx.name(j))) for j in others]
    opts += steal_options(ctx, i, others)
    ctx.ask(i, "encounter", msg("What do you encounter?"), opts + spells.ditch_option(ctx, i))


def steal_options(ctx: Ctx, i: int, others: list[int]) -> list[Option]:
    """The Thief's steal and the Sorceress's beguile, offered against each character here."""
    p, opts = ctx.player(i), []
    if stats.has_ability(ctx, p, "thief-steal"):
        opts += [option(f"steal-{ctx.name(j)}", msg("try to steal from {player} (4-6 succeeds)", player=ctx.name(j)))
                 for j in others]
    if stats.has_ability(ctx, p, "sorceress-beguile"):
        opts += [option(f"beguile-{ctx.name(j)}",
                        msg("try to beguile from {player} (4-6 succeeds)", player=ctx.name(j))) for j in others]
    return opts


def flip_remnants(ctx: Ctx, i: int) -> None:
    """Landing on a facedown Remnant turns it faceup: from now on an Adventure card there."""
    space = ctx.player(i).space
    cards = ctx.s.piles.pop(f"remnant@{space}", None)
    if cards:
        ctx.s.spaces.setdefault(space, []).extend(cards)
        names = ", ".join(ctx.content.cards[c].name for c in cards)
        ctx.emit("remnant",
                 msg("{player} turns up a Remnant at {space}: {names}.", player=ctx.name(i),
                     space=ctx.space(space).name, names=names),
                 player=ctx.name(i))


@on_answer("must-attack", "others are on a space that makes you attack: `encounter-<player>`, whom", default=())
def must_attack(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    ctx.push("attack", ctx.index(who), target=ctx.index(key[len("encounter-"):]), battle_only=True, life_only=True)


@on_answer("encounter", "what to encounter: `encounter-space` (the space or its cards), `encounter-<player>` (attack), "
           "`steal-<player>` / `beguile-<player>`, a pack's own (`harbour`...), `ditch`", default=("encounter-space",))
def encounter_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    if key == "ditch":
        items.ditch_answer(ctx, prompt, arg, i)
        return
    verb, _, name = key.partition("-")
    if ctx.hooks.encounter_choice(ctx, i, key):
        return
    if key == "encounter-space":
        ctx.push("encounter-space", i)
    elif verb == "encounter":
        ctx.push("attack", i, target=ctx.index(name))
    else:
        steal(ctx, i, ctx.index(name), followers=verb == "beguile")


def steal(ctx: Ctx, i: int, j: int, followers: bool) -> None:
    """The Thief's theft and the Sorceress's beguiling ([M]: 1 die, 4-6 succeeds)."""
    p, q = ctx.player(i), ctx.player(j)
    r = rng.die(ctx.s)
    ctx.emit("roll", msg("{player} rolls {r} trying to take from {player2}.", player=p.name, r=r, player2=q.name),
             player=p.name)
    if r < 4:
        ctx.emit("steal", msg("{player} fails.", player=p.name), player=p.name)
        return
    opts = ([option("gold", msg("take 1 gold from {player}", player=q.name))] if q.gold else [])
    opts += [option(o, msg("take {card}", card=ctx.content.cards[o].name)) for o in dict.fromkeys(q.objects)]
    if followers:
        opts += [option(f, msg("take {card}", card=ctx.content.cards[f].name)) for f in dict.fromkeys(q.followers)]
    if opts:
        ctx.ask(i, "reward", msg("What do you take from {player}?", player=q.name), opts, loser=j, psychic=True)


@task("encounter-space")
def encounter_space(ctx: Ctx, t: Task) -> None:
    i = t.p
    p = ctx.player(i)
    space = ctx.space(p.space)
    ctx.emit("encounter", msg("{player} encounters {space}.", player=p.name, space=space.name), player=p.name,
             space=space.id)
    hexed = [e for e in ctx.s.effects if e["name"] == "hex" and e.get("space") == space.id]
    # base-game.md §3.1: draw up to N; the Hex (no encounter number); the cards on the space in
    # their order (a Wolf left there, a faceup Remnant); then the space's own text.
    work: list[tuple[str, int, dict[str, Any]]] = []
    if hexed:
        work.append(("effect", i, {"ops": [{"op": "lose", "what": "life"}], "source": "Hex"}))
    if space.draw:
        work.append(("draw-to", i, {"n": space.draw}))
        work.append(("resolve-cards", i, {}))
    elif ctx.s.spaces.get(space.id) or ctx.s.space_gold.get(space.id):
        work.append(("resolve-cards", i, {}))
    if space.hook:
        work.append((f"space:{space.hook}", i, {}))
    if space.effect:
        work.append(("effect", i, {"ops": space.effect, "source": space.name}))
    ctx.push_all(work)


def draw_adventure(ctx: Ctx, i: int | None = None) -> str | None:
    """An Adventure card drawn for player i (the current player by default), or the card of the
    deck a pack draws instead there (the Dungeon's): the one place Adventure cards are drawn."""
    deck = ctx.hooks.draw_deck(ctx, ctx.s.current if i is None else i) if ctx.s.packs else None
    return ctx.draw(deck or "adventure")


@task("draw-to")
def draw_to(ctx: Ctx, t: Task) -> None:
    p = ctx.player(t.p)
    lying = ctx.s.spaces.setdefault(p.space, [])
    drawn = []
    for _ in range(max(0, t.a["n"] - len(lying))):
        card = draw_adventure(ctx, t.p)
        if card is None:
            break
        lying.append(card)
        drawn.append(card)
        ctx.emit("draw", msg("{player} draws {card}.", player=p.name, card=ctx.content.cards[card].name),
                 player=p.name, card=card)
        if ctx.content.cards[card].hook == "wanders":
            wander(ctx, t.p, card)
    if drawn and ctx.hooks.redraw_allowed(ctx, t.p):
        ctx.push("offer-redraw", t.p, drawn=drawn)
    if drawn and ctx.s.packs:
        ctx.hooks.drawn(ctx, t.p, drawn)  # The Lost Realms' Hunt: swap one for a Nether card


def wander(ctx: Ctx, i: int, card: str) -> None:
    """A card that moves itself when drawn (the Hermit: `wander`, a die table of spaces) is
    dealt with first and does not affect the character who drew it (base-game.md §3.1). A
    space not on the board, or under Terrain: it stays where it was drawn."""
    p = ctx.player(i)
    c = ctx.content.cards[card]
    r = rng.die(ctx.s)
    dest = die_row(c.prop("wander", {}), r)
    ok = dest in ctx.content.board.spaces and not ctx.covered(dest) and dest != p.space
    if ok:
        ctx.s.spaces[p.space].remove(card)
        ctx.s.spaces.setdefault(dest, []).append(card)
    else:
        items.pass_over(ctx, i, card)
    ctx.emit("wander", msg("{card} rolls {r} and goes to {space}.", card=c.name, r=r, space=ctx.space(dest).name) if ok
             else msg("{card} rolls {r} and stays here.", card=c.name, r=r), card=card, roll=r)


def in_order(ctx: Ctx, space: str) -> list[str]:
    """The cards on a space in the order they are met: by category, enemies by number, ties
    in the order drawn (the sort is stable)."""
    cards = ctx.content.cards

    def rank(c: str) -> tuple[int, int]:
        card = cards[c]
        return (ORDER.get(card.type, 5), card.number if card.type == "enemy" else 0)
    return sorted(ctx.s.spaces.get(space, []), key=rank)


def to_meet(ctx: Ctx, i: int) -> list[str]:
    """The cards the character meets on its space, in order: not what it left there itself
    this turn (it cannot pick ditched items up again that turn)."""
    todo = in_order(ctx, ctx.player(i).space)
    skip = items.not_now(ctx, i)
    for c in skip:
        if c in todo:
            todo.remove(c)
    return todo


def next_group(ctx: Ctx, todo: list[str]) -> tuple[list[str], list[str]]:
    """The next card (Strength enemies sharing a number: all of them, fought as one) and the rest."""
    cards = ctx.content.cards
    first = cards[todo[0]]
    if first.type == "enemy" and first.strength:
        group = [c for c in todo if cards[c].type == "enemy" and cards[c].number == first.number and cards[c].strength]
        rest = list(todo)
        for c in group:
            rest.remove(c)
        return group, rest
    return todo[:1], todo[1:]


def still_there(ctx: Ctx, space: str, group: list[str]) -> list[str]:
    """An earlier card may have taken a later one away (a multiset check: copies share slugs)."""
    left = list(ctx.s.spaces.get(space, []))
    out = []
    for c in group:
        if c in left:
            left.remove(c)
            out.append(c)
    return out


@task("resolve-cards")
def resolve_cards(ctx: Ctx, t: Task) -> None:
    i = t.p
    p = ctx.player(i)
    if not p.alive:
        return
    if ctx.s.space_gold.get(p.space):
        gold = ctx.s.space_gold.pop(p.space)
        p.gold += gold
        ctx.emit("take", msg("{player} picks up {gold} gold.", player=p.name, gold=gold), player=p.name)
    todo = t.a.get("todo")
    if todo is None:
        todo = to_meet(ctx, i)
    group: list[str] = []
    while todo and not group:
        group, todo = next_group(ctx, todo)
        group = still_there(ctx, p.space, group)
    if not group:
        return
    ctx.push("resolve-cards", i, todo=todo)
    card = ctx.content.cards[group[0]]
    if card.type == "enemy":
        won = {"on_win": card.prop("on_win")} if card.prop("on_win") else {}  # a task once it is beaten
        if card.strength:
            ctx.push("fight", i, name=" and ".join(ctx.content.cards[c].name for c in group), cards=group,
                     strength=sum(ctx.content.cards[c].strength for c in group) + space_bonus(ctx, p.space, group,
                                                                                              "strength"), **won)
        else:
            ctx.push("fight", i, name=card.name, craft=card.craft + space_bonus(ctx, p.space, group, "craft"),
                     cards=group, **won)
        if card.effect:
            ctx.push("effect", i, ops=card.effect, source=card.name, card=card.slug)
        return
    if card.type in ("follower", "object", "magic-object"):
        take(ctx, i, card.slug)
        return
    # Events, Strangers and Places: their text. An Event is discarded as it is resolved:
    # discarding first means an Event that ends the turn (Storm, Imp) cannot stay behind.
    if card.type == "event":
        ctx.s.spaces[p.space].remove(card.slug)
        discard(ctx, card.slug)
    ctx.push("effect", i, ops=card.effect or [{"op": "moderator", "text": card.text}], source=card.name, card=card.slug)


def space_bonus(ctx: Ctx, space: str, group: list[str], attr: str) -> int:
    """What a space's `enemy_bonus` adds to the Enemies met there (the Deep Realms: a Rat's Strength
    in the Rat Queen's Lair, a Spirit's Craft in the Wraith Lord's Domain): `attr` per Enemy whose
    title has a word starting with `title`, or whose kind is `kind`."""
    bonus = ctx.space(space).hook_args.get("enemy_bonus") if space else None
    if not bonus or not bonus.get(attr):
        return 0
    cards = [ctx.content.cards[c] for c in group]
    return bonus[attr] * sum(1 for c in cards if (bonus.get("kind") and c.kind == bonus["kind"]) or (
        bonus.get("title") and re.search(rf"\b{re.escape(bonus['title'])}", c.name)))


def take(ctx: Ctx, i: int, slug: str) -> None:
    p = ctx.player(i)
    card = ctx.content.cards[slug]
    lying = ctx.s.spaces[p.space]
    if card.prop("gold"):
        lying.remove(slug)
        p.gold += card.prop("gold")
        discard(ctx, slug)
        ctx.emit("take",
                 msg("{player} takes {prop} gold ({card}).", player=p.name, prop=card.prop('gold'),
                     card=card.name), player=p.name)
        return
    if p.toad or not ctx.hooks.may_take(ctx, i, slug) or (
            card.type == "follower" and card.prop("forbid") == p.alignment):
        return  # a Toad takes nothing: it stays on the space
    if card.type != "follower" and (stats.full(ctx, p, slug) or card.prop("forbid") == p.alignment):
        ctx.emit("leave-object",
                 msg("{player} cannot take {card}; it stays on the space.", player=p.name,
                     card=card.name), player=p.name)
        swap = [c for c in items.ditchable(ctx, i) if c in p.objects and not ctx.content.cards[c].prop("trinket")] \
            if card.prop("forbid") != p.alignment else []
        if swap:  # a real choice, asked only at the limit: leave one of yours to make room
            ctx.ask(i, "swap",
                    msg("You carry all you can. Leave one of your Objects here and take {card} instead?",
                        card=card.name),
                    [option(c,
                            msg("leave {card} and take {card2}", card=ctx.content.cards[c].name,
                                card2=card.name)) for c in swap]
                    + [option("no", msg("keep what you carry; {card} stays", card=card.name))], card=slug)
        return
    lying.remove(slug)
    gain_object(ctx, i, slug)
    ctx.emit("take", msg("{player} takes {card}.", player=p.name, card=card.name), player=p.name, card=slug)
    ctx.hooks.taken(ctx, i, slug)
    if card.effect:
        ctx.push("effect", i, ops=card.effect, source=card.name, card=slug)


@on_answer("swap", "carrying all you can: leave an Object (its slug) to take the new card, or `no`", default=("no",))
def swap(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    p = ctx.player(i)
    card = prompt.data["card"]
    if key == "no" or card not in ctx.s.spaces.get(p.space, []):
        return
    items.ditch(ctx, i, key)
    take(ctx, i, card)


@task("discard-from-space")  # no longer pushed; kept so games saved with it on the stack resume
def discard_from_space(ctx: Ctx, t: Task) -> None:
    lying = ctx.s.spaces.get(t.a["space"], [])
    if t.a["card"] in lying:
        lying.remove(t.a["card"])
        discard(ctx, t.a["card"])
