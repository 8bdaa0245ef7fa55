"""The Deep Realms' spaces (lost-realms.txt, "Rat Run and Skull Passage", "Old Sewers and
Catacombs", "Rat's Nest", "Throne Room") and the Bridge cards' hooks. The pack's turn, entry and
escape are in engine/packs/deep_realms.py; its tables and piles in deep_realms_state.py."""
from __future__ import annotations

from engine import rng, words
from engine.ops import change
from engine.packs.deep_realms_state import (
    BRIDGE,
    TUNNEL,
    draw,
    drop_stack,
    fold_back,
    random_card,
    stack,
    stack_deck,
    tables,
)
from engine.rules import items, reach, spells
from engine.rules.items import gain_object
from engine.rules.machine import Ctx, on_answer, task
from engine.rules.movement import place
from engine.state import Prompt, Task, option
from engine.text import msg, printed


def arrive(ctx: Ctx, i: int) -> None:
    """A character's move has ended on a Realm space: its instructions, instead of the usual
    encounter (nobody meets another character in a Realm)."""
    ctx.push(f"space:{ctx.content.space(ctx.player(i).space).hook}", i)


# -- Rat Run and Skull Passage ----------------------------------------------------------------------

@task("space:dr-bridge")
def bridge(ctx: Ctx, t: Task) -> None:
    """Draw 2 Bridge cards faceup onto the space, then meet what lies there."""
    p = ctx.player(t.p)
    return_bridge_cards(ctx, p.space)
    lying = ctx.s.spaces.setdefault(p.space, [])
    drawn = []
    for _ in range(ctx.space(p.space).hook_args.get("draw", 2)):
        card = draw(ctx, BRIDGE)
        if card:
            lying.append(card)
            drawn.append(ctx.content.cards[card].name)
    if drawn:
        ctx.emit("bridge",
                 msg("{player} draws {names} from the Bridge deck onto {space}.", player=p.name,
                     names=words.joined(list(drawn)), space=ctx.space(p.space).name),
                 player=p.name)
    ctx.push("resolve-cards", t.p)


def return_bridge_cards(ctx: Ctx, space: str) -> None:
    """The turn is over: the Bridge cards on the space are shuffled back into the Bridge deck (what
    else lies there, an Object ditched, stays)."""
    lying = ctx.s.spaces.get(space, [])
    back = [c for c in lying if ctx.content.cards[c].deck == BRIDGE]
    if not back:
        return
    for c in back:
        lying.remove(c)
        ctx.s.decks[BRIDGE].append(c)
    rng.shuffle(ctx.s, ctx.s.decks[BRIDGE])
    ctx.emit("bridge",
             msg("The Bridge cards on {space} are shuffled back into the Bridge deck.", space=ctx.space(space).name))


# -- Old Sewers and Catacombs ---------------------------------------------------------------------

@task("space:dr-tunnel")
def tunnel(ctx: Ctx, t: Task) -> None:
    """Entering: the top 3 Tunnel cards, facedown, in a stack in front of the character."""
    p = ctx.player(t.p)
    drop_stack(ctx, t.p, msg("a new stack replaces it"))
    n = ctx.space(p.space).hook_args.get("stack", 3)
    cards = [c for c in (draw(ctx, TUNNEL) for _ in range(n)) if c]
    if not cards:
        ctx.emit("tunnel", msg("The Tunnel deck is empty: {player} takes no stack.", player=p.name), player=p.name)
        return
    ctx.s.decks[stack_deck(p.name)] = cards[::-1]  # the first drawn is the top (the end of the list)
    ctx.emit("tunnel",
             msg("{player} takes the top {count} Tunnel cards as a facedown stack.", player=p.name,
                 count=len(cards)), player=p.name)


def press_on_tunnel(ctx: Ctx, i: int) -> None:
    """Cards left: meet the top one, turned faceup; none left: forward along the arrow."""
    p = ctx.player(i)
    cards = stack(ctx.s, p.name)
    if not cards:
        dest = tables()["forward"][p.space]
        ctx.emit("move", msg("{player} presses on to {space}.", player=p.name, space=ctx.space(dest).name),
                 player=p.name, space=dest)
        place(ctx, i, dest)
        return
    card = cards.pop()
    if not cards:
        del ctx.s.decks[stack_deck(p.name)]
    faceup = p.flags.pop("dr-faceup", 0)
    if faceup > 1:
        p.flags["dr-faceup"] = faceup - 1
    ctx.s.spaces.setdefault(p.space, []).append(card)
    p.flags["dr-turned"] = card
    name = ctx.content.cards[card].name
    ctx.emit("tunnel",
             msg("{player} presses on and meets again {card} from the Tunnel stack.", player=p.name, card=name)
             if faceup else msg("{player} presses on and turns up {card} from the Tunnel stack.", player=p.name,
                                card=name),
             player=p.name, card=card)
    ctx.push("dr-after-card", i)
    ctx.push("resolve-cards", i, todo=[card])


@task("dr-after-card")
def after_card(ctx: Ctx, t: Task) -> None:
    """A turned card not done with (an Enemy evaded) goes back on top of the stack, faceup; once the
    stack is empty the character meets every card on the space before the turn ends."""
    restack(ctx, t.p)
    p = ctx.player(t.p)
    if p.alive and not stack(ctx.s, p.name):
        ctx.push("resolve-cards", t.p)


def restack(ctx: Ctx, i: int) -> None:
    p = ctx.player(i)
    card = p.flags.pop("dr-turned", None)
    lying = ctx.s.spaces.get(p.space or "", [])
    if not card or card not in lying or not p.alive:
        return
    lying.remove(card)
    ctx.s.decks.setdefault(stack_deck(p.name), []).append(card)
    p.flags["dr-faceup"] = p.flags.get("dr-faceup", 0) + 1
    ctx.emit("tunnel",
             msg("{card} stays faceup on top of {player}'s Tunnel stack.", card=ctx.content.cards[card].name,
                 player=p.name),
             player=p.name)


# -- the Rat's Nest and the Throne Room ------------------------------------------------------------

def loot(ctx: Ctx, space: str) -> list[str]:
    """What the ruler's strength counts on its space: the Objects (the Rat's Nest) or the Treasure
    cards (the Throne Room) lying there."""
    per = ctx.space(space).hook_args.get("per")
    cards = ctx.content.cards
    if per == "treasure":
        return [c for c in ctx.s.spaces.get(space, []) if cards[c].deck == tables()["throne_deck"]]
    return [c for c in ctx.s.spaces.get(space, []) if cards[c].type in ("object", "magic-object")]


@task("space:dr-rat-queen")
@task("space:dr-wraith-lord")
def ruler(ctx: Ctx, t: Task) -> None:
    """The Rat Queen in battle, the Wraith Lord in psychic combat: no evading; nothing taken first."""
    p = ctx.player(t.p)
    space = p.space
    a = ctx.space(space).hook_args
    n = len(loot(ctx, space))
    name = "the Rat Queen" if "strength" in a else "the Wraith Lord"
    value = {"strength": a["strength"] + n} if "strength" in a else {"craft": a["craft"] + n}
    ctx.emit("ruler", msg("{player} must fight the Rat Queen (Strength {next}, with {n} on the pile).", player=p.name,
                          next=value["strength"], n=n) if "strength" in value else
             msg("{player} must fight the Wraith Lord (Craft {next}, with {n} on the pile).", player=p.name,
                 next=value["craft"], n=n), player=p.name)
    ctx.push("fight", t.p, name=name, **value, evadable=False, ends_turn=False,
             on_win="dr-ruler-beaten", on_standoff="dr-ruler-standoff", on_loss_task="dr-ruler-won",
             on_win_args={"space": space})


@task("dr-ruler-beaten")
def ruler_beaten(ctx: Ctx, t: Task) -> None:
    """Take one card of the pile, then teleport to any Outer Region space (and meet it)."""
    space = t.a["space"]
    ctx.push("teleport-choose", t.p, choose="outer", encounter=True)
    pile = loot(ctx, space)
    if pile:
        ctx.ask(t.p, "dr-loot",
                msg("You have won: which card of {space}'s pile do you take?", space=ctx.space(space).name),
                [option(c,
                        msg("take {card}", card=ctx.content.cards[c].name)) for c in dict.fromkeys(pile)], space=space)


@on_answer("dr-loot", "the Deep Realms: the Rat Queen or the Wraith Lord beaten, which card of the pile to take "
           "(a card slug)", default=())
def loot_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    ctx.s.spaces[prompt.data["space"]].remove(key)
    if gain_object(ctx, i, key):
        ctx.emit("take", msg("{player} takes {card}.", player=who, card=ctx.content.cards[key].name), player=who,
                 card=key)


@task("dr-ruler-won")
def ruler_won(ctx: Ctx, t: Task) -> None:
    """Beaten (and alive): the Rat Queen takes an Object at random onto her pile; the Wraith Lord
    takes 1 Craft and a random Treasure card goes onto his. Then as a stand-off."""
    space = t.a["space"]
    if ctx.space(space).hook == "dr-rat-queen":
        ditch_random(ctx, t.p)
    else:
        change(ctx, t.p, "craft", -1)
        card = random_card(ctx, tables()["throne_deck"])
        if card:
            ctx.s.spaces.setdefault(space, []).append(card)
            ctx.emit("ruler", msg("{card} is added to the {throne_room}'s pile.", throne_room=printed("Throne Room"),
                                  card=ctx.content.cards[card].name),
                     card=card)
    thrown_out(ctx, t.p, space)


@task("dr-ruler-standoff")
def ruler_standoff(ctx: Ctx, t: Task) -> None:
    thrown_out(ctx, t.p, t.a["space"])


def thrown_out(ctx: Ctx, i: int, space: str) -> None:
    """To Rat's Road in the City (the Hall of Darkness in the Dungeon); the turn ends."""
    dest = tables()["defeat"][space]
    p = ctx.player(i)
    if dest in ctx.content.board.spaces:
        ctx.emit("move", msg("{player} is thrown out to {space}.", player=p.name, space=ctx.space(dest).name),
                 player=p.name, space=dest)
        place(ctx, i, dest)
        p.flags.pop("moved", None)  # no encounter there: the turn ends
    spells.finish_turn(ctx)


# -- card hooks --------------------------------------------------------------------------------------

def ditch_random(ctx: Ctx, i: int) -> None:
    p = ctx.player(i)
    if p.objects:
        items.ditch(ctx, i, p.objects[rng.below(ctx.s, len(p.objects))])


@task("dr-ditch-random")
def ditch_random_task(ctx: Ctx, t: Task) -> None:
    """Turncoat (stand-in): an Object at random is ditched onto the space."""
    ditch_random(ctx, t.p)


@task("dr-sneakthief")
def sneakthief(ctx: Ctx, t: Task) -> None:
    """Sneakthief beaten (stand-in): take one Object from any player."""
    choices = {f"{o}-from-{ctx.name(j)}": (j, o) for j in reach.others(ctx, t.p)
               for o in dict.fromkeys(ctx.s.players[j].objects)}
    if choices:
        ctx.ask(t.p, "dr-sneakthief", msg("The {sneakthief} is beaten: whose Object do you take?",
                                          sneakthief=printed("Sneakthief")),
                [option(k, msg("take {card} from {player}", card=ctx.content.cards[o].name, player=ctx.name(j))) for k,
                 (j, o) in choices.items()],
                choices={k: [j, o] for k, (j, o) in choices.items()})


@on_answer("dr-sneakthief", "the Deep Realms' Sneakthief beaten: which Object to take from whom "
           "(`<card>-from-<player>`)", default=())
def sneakthief_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    j, card = prompt.data["choices"][key]
    q = ctx.player(j)
    q.objects.remove(card)
    ctx.emit("take",
             msg("{player} takes {card} from {player2}.", player=who, card=ctx.content.cards[card].name,
                 player2=q.name), player=who)
    gain_object(ctx, ctx.index(who), card)


def tidy(ctx: Ctx) -> None:
    """A turn is over: the Bridge cards go back; a stack whose owner is off its space is discarded,
    and a card turned and not done with goes back on top of it, faceup."""
    spaces = ctx.content.board.spaces
    for space in tables()["bridge"]:
        if space in spaces:
            return_bridge_cards(ctx, space)
    for i, p in enumerate(ctx.s.players):
        if p.flags.get("dr-turned"):
            restack(ctx, i)
        if stack(ctx.s, p.name) and not (p.alive and p.space in tables()["forward"]):
            drop_stack(ctx, i, msg("off the space"))
    fold_back(ctx)
