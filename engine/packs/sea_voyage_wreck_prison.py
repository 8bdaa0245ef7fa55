"""Sea Voyage: losing the ship. A shipwreck (adrift on a Raft, then washed ashore) and prison
(released at the main board's City). Used by turns at sea (a mutiny lost), the tables' ops and the moderator.
"""
from __future__ import annotations

from engine import rng
from engine.packs.sea_voyage_state import (
    bump,
    clear_table,
    clear_voyage,
    end_turn_if_current,
    flag,
    harbour,
    main_city,
    off_board,
    settings,
)
from engine.rules.items import discard, drop_excess
from engine.rules.machine import Ctx, task
from engine.rules.movement import place
from engine.rules.turn import lose_life
from engine.state import Player, Task
from engine.text import msg


def wreck(ctx: Ctx, i: int, rolls: bool = True, fed: bool = False) -> None:
    """Shipwrecked: the ship and every Naval Object are lost, a Raft is taken, each Follower
    and Object is lost on a 5 or 6 (not after the Pirate-Captain's duel), then a die gives the
    turns home. The turn ends."""
    p = ctx.player(i)
    lose_ship(ctx, p)
    if rolls:
        for c in list(p.followers) + list(p.objects):
            r = rng.die(ctx.s)
            if r >= 5:
                (p.followers if c in p.followers else p.objects).remove(c)
                discard(ctx, c)
                ctx.emit("sea-wreck",
                         msg("{player} rolls {r}: {card} is lost in the wreck.", player=p.name, r=r,
                             card=ctx.content.cards[c].name),
                         player=p.name)
    raft = ctx.s.decks.get("sea-raft")
    if raft:
        p.objects.append(raft.pop())
    prisoners = flag(p, "sea-prisoners")
    clear_voyage(p)  # the count of ships attacked and "Wanted" stay
    r = rng.die(ctx.s)
    p.flags.update({"sea": "wreck", "sea-home": r, "sea-wreck-turn": 0})
    off_board(p)
    if fed:
        p.flags["sea-fed"] = 1
    # the parts a wreck may have are messages of their own, each translated where it is said
    ctx.emit("sea-wreck", msg("{player} is shipwrecked{fed} and rolls {r}: {r} turn{s} adrift on a Raft{escape}.",
                              player=p.name, r=r, s="s" if r != 1 else "",
                              fed=msg(" (escaping with food for the way home)") if fed else "",
                              escape=msg("; the Pirate{s} held escape", s="s" if prisoners > 1 else "") if prisoners
                              else ""),
             player=p.name, dice=[r])
    end_turn_if_current(ctx, i)


@task("sea-wreck-turn")
def wreck_turn(ctx: Ctx, t: Task) -> None:
    """Adrift: a life lost each turn after the first (not once rescued, nor with food); a
    Captain's card drawn, all ignored but Ships and Isles, which rescue you."""
    i = t.p
    p = ctx.player(i)
    clear_table(ctx)
    n = bump(p, "sea-wreck-turn", 1)
    safe = flag(p, "sea-rescued") or flag(p, "sea-fed")
    if n > 1 and not safe:
        lose_life(ctx, i, 1, " adrift on the Raft")
        if not p.alive:
            return
    if not flag(p, "sea-rescued"):
        card = ctx.draw("captain")
        if card:
            c = ctx.content.cards[card]
            discard(ctx, card)
            if c.prop("rescue"):
                p.flags["sea-rescued"] = 1
                ctx.emit("sea-rescue", msg("{player} draws {card} and is rescued.", player=p.name, card=c.name),
                         player=p.name, card=card)
            else:
                ctx.emit("sea-draw", msg("{player} draws {card} and ignores it.", player=p.name, card=c.name),
                         player=p.name, card=card)
    if not bump(p, "sea-home", -1):
        land(ctx, i)


def landing_space(ctx: Ctx, roll: int) -> str:
    """1: "you land directly in the Harbour"; otherwise `roll` spaces "away from the City towards
    the Chapel" on the main board (the shorter way round its ring)."""
    if roll == 1:
        return harbour(ctx)
    home = main_city(ctx)
    board = ctx.content.board
    space = board.spaces[home]
    ring = board.rings[space.ring]
    toward = settings()["toward"]
    d = -1
    if toward in ring:
        gap = (ring.index(toward) - space.index) % len(ring)
        d = 1 if gap <= len(ring) - gap else -1
    return ring[(space.index + d * roll) % len(ring)]


def land(ctx: Ctx, i: int) -> None:
    p = ctx.player(i)
    for c in [c for c in p.objects if ctx.content.cards[c].prop("sea_raft")]:
        p.objects.remove(c)
        discard(ctx, c)
    clear_voyage(p)
    r = rng.die(ctx.s)
    dest = landing_space(ctx, r)
    place(ctx, i, dest)
    drop_excess(ctx, i)
    ctx.emit("sea-land",
             msg("{player} rolls {r} and washes ashore at {space}.", player=p.name, r=r,
                 space=ctx.space(dest).name), player=p.name, dice=[r],
             space=dest)
    ctx.push("encounter", i)  # the space's instructions apply


def lose_ship(ctx: Ctx, p: Player) -> None:
    """The ship and every Naval Object go (a wreck, prison); the Captain's cards in play too."""
    cards = ctx.content.cards
    clear_table(ctx)
    for c in [c for c in p.objects if cards[c].prop("ship") or cards[c].prop("naval")]:
        p.objects.remove(c)
        discard(ctx, c)


def prison(ctx: Ctx, i: int) -> None:
    p = ctx.player(i)
    lose_ship(ctx, p)
    dice = rng.dice(ctx.s, 2)
    lost = p.gold
    p.gold = 0
    clear_voyage(p)
    p.flags.update({"sea": "prison", "sea-prison": sum(dice)})
    off_board(p)
    ctx.emit("sea-prison",
             msg("{player} is dragged home to face the authorities, loses the ship, the Naval Objects and "
             "{lost} gold, and rolls {names}: {sum} turns in prison.", player=p.name, lost=lost,
             names='+'.join(map(str, dice)), sum=sum(dice)),
             player=p.name, dice=dice)
    end_turn_if_current(ctx, i)


def release(ctx: Ctx, i: int) -> None:
    p = ctx.player(i)
    clear_voyage(p)
    place(ctx, i, main_city(ctx))  # "released at the City-Space on the Mainboard"
    p.flags.pop("moved", None)
    drop_excess(ctx, i)
    ctx.emit("sea-prison", msg("{player} is released at {space}.", player=p.name, space=ctx.space(p.space).name),
             player=p.name)
