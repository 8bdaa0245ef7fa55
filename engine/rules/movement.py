"""Moving: the whole roll in one direction, the Storm River, the Portal, the Inner Region
(base-game.md §3 step 2, §10)."""
from __future__ import annotations

from engine import rng
from engine.rules import spells, stats
from engine.rules.items import discard
from engine.rules.machine import Ctx, on_answer, task
from engine.rules.rerolls import offer_reroll
from engine.state import Option, Prompt, Task, option
from engine.text import Msg, msg, printed, word

SENTINEL, SENTINEL_MIDDLE = "sentinel", "hills-3"
PORTAL, PLAIN = "portal-of-power", "plain-of-peril"
VALLEY, CROWN = "valley-of-fire", "crown-of-command"
DIRS = {"right": 1, "left": -1}


def ring_of(ctx: Ctx, space: str) -> list[str]:
    return ctx.content.board.rings[ctx.content.space(space).ring]  # geometry: Terrain never changes it


def step(ctx: Ctx, space: str, d: int) -> str:
    ring = ring_of(ctx, space)
    return ring[(ctx.content.space(space).index + d) % len(ring)]


def place(ctx: Ctx, i: int, space: str) -> None:
    p = ctx.player(i)
    p.space = space
    p.flags["moved"] = 1


def one_space_only(ctx: Ctx, i: int) -> bool:
    p = ctx.player(i)
    return bool(p.toad) or any(e["name"] == "blizzard" for e in ctx.s.effects) or "poltergeist" in p.followers


@task("move")
def move(ctx: Ctx, t: Task) -> None:
    p = ctx.player(t.p)
    p.flags.pop("moved", None)
    nxt = p.flags.pop("next-move", None)
    if nxt and ctx.covered(nxt):  # the Temple under Terrain: no longer on the board, the move is as usual
        ctx.emit("terrain",
                 msg("{space} lies under a Terrain card: {player} moves as usual.", space=ctx.content.space(nxt).name,
                     player=p.name),
                 player=p.name)
        nxt = None
    if nxt:  # a wizard or boatman decided this move (Tavern)
        ctx.push("teleport-choose", t.p, choose=nxt) if nxt in ("outer", "middle") else place(ctx, t.p, nxt)
        return
    region = stats.region(ctx, p.space)
    if region == "crown":
        return
    if region == "inner":
        inner_move(ctx, t.p)
        return
    held = p.flags.get("held")
    if held:  # a real die, even for a Toad: only a roll of `held` or more frees the character
        roll = rng.die(ctx.s)
        if roll < held:
            ctx.emit("held", msg("{player} rolls {roll} and is still held.", player=p.name, roll=roll), player=p.name)
            return
        del p.flags["held"]
        ctx.emit("held", msg("{player} rolls {roll} and escapes.", player=p.name, roll=roll), player=p.name)
    roll = 1 if one_space_only(ctx, t.p) else (roll if held else rng.die(ctx.s))
    ask_direction(ctx, t.p, roll, rerolled=False)


def ask_direction(ctx: Ctx, i: int, roll: int, rerolled: bool) -> None:
    p = ctx.player(i)
    if one_space_only(ctx, i):  # a Toad, a Blizzard, a Poltergeist: no die is rolled
        ctx.emit("move-one", msg("{player} may move only 1 space.", player=p.name), player=p.name)
    else:
        ctx.emit("roll", msg("{player} rolls {roll} for movement.", player=p.name, roll=roll), player=p.name,
                 roll=roll, dice=[roll])
    opts = [option("left", msg("move {roll} counter-clockwise", roll=roll)),
            option("right", msg("move {roll} clockwise", roll=roll))]
    if stats.fate(ctx, p) and not rerolled and not one_space_only(ctx, i):
        opts.append(option("reroll", msg("spend 1 fate to roll again")))
    if roll == 6 and stats.has_ability(ctx, p, "troll-regenerate") and p.life < p.max_life \
            and not stats.healing_barred(ctx):  # a heal: offered only to a wounded Troll, on every 6
        opts.append(option("regenerate", msg("heal 1 life instead of moving")))
    if p.space in ctx.content.board.opposite and stats.has_prop(ctx, p, "raft"):
        across = ctx.space(ctx.content.board.opposite[p.space]).name
        opts.append(option("raft", msg("cross the Storm River by raft to {across}", across=across)))
    for card in dict.fromkeys(p.spells):
        c = ctx.content.cards[card]
        if c.when == "move" and not p.toad:
            opts.append(option(f"cast-{card}", msg("cast {card} instead of moving", card=c.name)))
    opts += ctx.hooks.move_options(ctx, i)  # Nemesis: move zero, move by fate
    ctx.ask(i, "direction", msg("You rolled {roll}. Which way do you move?", roll=roll), opts, roll=roll)


@on_answer("direction", "which way to move with the roll: `left` (counter-clockwise) or `right` (clockwise); or "
           "`reroll` (fate), `regenerate` (the Troll), `raft`, `cast-<spell>`, and a pack's own (the City Gate, "
           "Nemesis moves)", default=("left",))
def direction(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    p = ctx.player(i)
    roll = prompt.data["roll"]
    if key == "reroll":
        stats.spend_fate(ctx, p)
        ctx.emit("fate", msg("{player} spends 1 fate to reroll.", player=p.name), player=p.name)
        ask_direction(ctx, i, rng.die(ctx.s), rerolled=True)
    elif key == "regenerate":
        p.life = min(p.max_life, p.life + 1)
        ctx.emit("regenerate", msg("{player} regenerates 1 life instead of moving.", player=p.name), player=p.name)
        p.flags["moved"] = 0
    elif key == "raft":
        card = next(c for c in p.objects + p.followers if ctx.content.cards[c].prop("raft"))
        (p.objects if card in p.objects else p.followers).remove(card)
        discard(ctx, card)
        dest = ctx.content.board.opposite[p.space]
        ctx.emit("raft",
                 msg("{player} crosses the Storm River by raft to {space}.", player=p.name,
                     space=ctx.space(dest).name), player=p.name)
        ctx.hooks.crossed_river(ctx, i)
        place(ctx, i, dest)
    elif key.startswith("cast-"):
        spells.cast(ctx, i, key[5:], target=None)
    elif key not in DIRS:
        ctx.hooks.move_choice(ctx, i, key)
    else:
        ctx.push("walk", i, space=p.space, d=DIRS[key], steps=roll, start=p.space)


@task("walk")
def walk(ctx: Ctx, t: Task) -> None:
    """Walk the remaining steps, stopping to ask at the river crossings and the Portal."""
    i, a = t.p, t.a
    p = ctx.player(i)
    space, d, steps = a["space"], a["d"], a["steps"]
    path = []
    while steps > 0:
        if not a.get("asked"):
            crossing = crossing_at(ctx, i, space, passing=space != a.get("start"))
            if crossing:
                ctx.push("walk", i, **{**a, "space": space, "steps": steps, "asked": True})
                ctx.ask(i, "crossing", crossing[0], crossing[1], space=space, steps=steps)
                return
        a["asked"] = False
        space = step(ctx, space, d)
        steps -= 1
        path.append(space)
    via = ", ".join(ctx.space(s).name for s in path[:-1])
    ctx.emit("move", msg("{player} moves to {space} by way of {via}.", player=p.name, space=ctx.space(space).name,
                         via=via) if via else msg("{player} moves to {space}.", player=p.name,
                                                  space=ctx.space(space).name), player=p.name, space=space)
    place(ctx, i, space)


def crossing_at(ctx: Ctx, i: int, space: str, passing: bool = True) -> tuple[Msg, list[Option]] | None:
    """The question to ask when a move would carry the character past a crossing point (`passing`:
    the move goes through the space, not only starts from it)."""
    p = ctx.player(i)
    gate = ctx.content.board.gates.get(space)
    if gate and passing:  # a board beside this one, entered by a roll carrying past (The City)
        name = ctx.content.space(gate).name
        return (msg("Your roll carries you past {space}. Step onto the {name} instead (your move ends there)?",
                    space=ctx.content.space(space).name, name=name),
                [option("gate", msg("step onto the {name}", name=name)),
                 option("continue", msg("keep moving along this region"))])
    if space in (SENTINEL, PORTAL) and ctx.covered(space):
        # Terrain on the Sentinel or the Portal: the crossing is free (cataclysm.txt).
        middle = space == SENTINEL
        return (msg("You reach a free crossing into the Middle Region. Cross?") if middle else
                msg("You reach a free crossing into the Inner Region, to the {plain_of_peril}. Cross?",
                    plain_of_peril=printed("Plain of Peril")),
                [option("cross", msg("cross into the Middle Region") if middle else
                        msg("cross into the Inner Region, to the {plain_of_peril}",
                            plain_of_peril=printed("Plain of Peril"))),
                 option("continue", msg("keep moving along this region"))])
    if space == SENTINEL:
        return (msg("You reach the Sentinel's bridge. Cross into the Middle Region "
                    "(the Sentinel, Strength 9, attacks)?"),
                [option("cross", msg("cross the bridge inward")),
                 option("continue", msg("keep moving along the Outer Region"))])
    if space == SENTINEL_MIDDLE:
        return (msg("You reach the Sentinel's bridge. Cross out to the Outer Region?"),
                [option("cross", msg("cross the bridge outward")),
                 option("continue", msg("keep moving along the Middle Region"))])
    if space == PORTAL and not p.quest:
        return (msg("Your move carries you past the {portal_of_power}. Try to open it?",
                    portal_of_power=printed("Portal of Power")),
                [option("portal-strength", msg("roll 2 dice against your Strength")),
                 option("portal-craft", msg("roll 2 dice against your Craft")),
                 option("continue", msg("move on along the Middle Region"))])
    return None


@on_answer("crossing", "a crossing on the way (the Sentinel, a bridge, the City Gate): `continue` on this side, "
           "`cross` it, or `gate` (onto the board beside)",
           default=("continue",))
def crossing(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    if key == "continue":
        return  # the walk task pushed before asking goes on
    walk_task = ctx.s.stack.pop()
    steps = walk_task.a["steps"]
    if key == "gate":  # onto the other board's first space: the move ends there, which is met
        dest = ctx.content.board.gates[prompt.data["space"]]
        ctx.emit("move", msg("{player} steps onto the {space}.", player=who, space=ctx.space(dest).name), player=who,
                 space=dest)
        place(ctx, i, dest)
        return
    if key == "cross":
        space = prompt.data["space"]
        dest = SENTINEL_MIDDLE if space == SENTINEL else SENTINEL
        if space == PORTAL:  # free through a Terrain-covered Portal; the turn ends there, as after opening it
            ctx.emit("portal", msg("{player} walks through to the {plain_of_peril}.",
                                   plain_of_peril=printed("Plain of Peril"), player=who), player=who)
            place(ctx, i, PLAIN)
            spells.finish_turn(ctx)
            ctx.hooks.through_portal(ctx, i)  # The Lost Realms' Gauntlet: the Plain's Nether cards
            return
        if space == SENTINEL and not ctx.covered(SENTINEL):
            # The Sentinel attacks those crossing inward; beaten or evaded, the move goes on.
            ctx.push("after-bridge", i, dest=dest, steps=steps - 1)
            strength = ctx.space(SENTINEL).hook_args.get("strength", 9)
            ctx.push("fight", i, name="Sentinel", strength=strength, on_loss="stay", where=space)
        else:
            ctx.push("after-bridge", i, dest=dest, steps=steps - 1)
    else:
        ctx.push("portal", i, attr=key.split("-")[1])


@task("after-bridge")
def after_bridge(ctx: Ctx, t: Task) -> None:
    i, dest, steps = t.p, t.a["dest"], t.a["steps"]
    p = ctx.player(i)
    ctx.emit("bridge", msg("{player} crosses the bridge to {space}.", player=p.name, space=ctx.space(dest).name),
             player=p.name)
    ctx.hooks.crossed_river(ctx, i)
    if steps <= 0:
        place(ctx, i, dest)
        return
    ctx.ask(i, "bridge-direction", msg("You cross with {steps} to move. Which way?", steps=steps),
            [option("left", msg("move {steps} counter-clockwise", steps=steps)),
             option("right", msg("move {steps} clockwise", steps=steps))],
            dest=dest, steps=steps)


@on_answer("bridge-direction", "which way to go on after crossing: `left` or `right`", default=("left",))
def bridge_direction(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    ctx.push("walk", ctx.index(who), space=prompt.data["dest"], d=DIRS[key], steps=prompt.data["steps"], asked=True)


@task("portal")
def portal(ctx: Ctx, t: Task) -> None:
    """[M] The Portal test: 2 dice against Strength or Craft; on failure lose 1 of it."""
    i = t.p
    p = ctx.player(i)
    attr = t.a["attr"]
    value = stats.strength(ctx, p) if attr == "strength" else stats.craft(ctx, p)
    roll = rng.dice(ctx.s, ctx.hooks.portal_dice(ctx, i, attr))
    if sum(roll) > value:  # failing: a fate reroll of the highest die may still open it
        offer_reroll(ctx, i, msg("You roll {names} against {attr} {value} at the Portal. "
                     "Spend 1 fate to reroll your highest die?", names='+'.join(map(str, roll)), attr=word(attr),
                     value=value), "portal-resolve",
                     attr=attr, dice=roll, low_is_good=True)
        return
    ctx.push("portal-resolve", i, attr=attr, dice=roll)


@task("portal-resolve")
def portal_resolve(ctx: Ctx, t: Task) -> None:
    i, attr, roll = t.p, t.a["attr"], t.a["dice"]
    p = ctx.player(i)
    value = stats.strength(ctx, p) if attr == "strength" else stats.craft(ctx, p)
    if sum(roll) <= value:
        ctx.emit("portal", msg("{player} rolls {dice} against {attr} {value} and opens the {portal_of_power}.",
                               portal_of_power=printed("Portal of Power"),
                               player=p.name, dice="+".join(map(str, roll)), attr=word(attr), value=value),
                 player=p.name)
        place(ctx, i, PLAIN)
    else:
        ctx.emit("portal", msg("{player} rolls {dice} against {attr} {value}: the Portal stays shut.",
                               player=p.name, dice="+".join(map(str, roll)), attr=word(attr), value=value),
                 player=p.name)
        if getattr(p, attr) > stats.printed(ctx, p, attr):
            setattr(p, attr, getattr(p, attr) - 1)
            ctx.emit("lose", msg("{player} loses 1 {attr}.", player=p.name, attr=word(attr)), player=p.name)
        place(ctx, i, PORTAL)
    spells.finish_turn(ctx)
    if p.space == PLAIN:
        ctx.hooks.through_portal(ctx, i)  # The Lost Realms' Gauntlet: the Plain's Nether cards


def inner_move(ctx: Ctx, i: int) -> None:
    p = ctx.player(i)
    here = p.space
    opts = []
    stay = p.flags.get("must-face")
    if stay:
        opts.append(option("stay", msg("face {space} again", space=ctx.space(here).name)))
    ways = () if p.flags.get("frozen") else DIRS.items()  # the Frozen Spire holds you: only "stay"
    for key, d in ways:
        dest = step(ctx, here, d)
        if stay and dest != p.flags.get("came-from"):
            continue  # not beaten yet: the only ways are to face it again or to turn back
        if dest == VALLEY and not stats.has_talisman(ctx, p):
            continue
        opts.append(option(key, msg("move to {space}", space=ctx.space(dest).name)))
    # turning back out of the Portal: the way a character came in, walking or by a teleport
    if here == PLAIN and (not stay or p.flags.get("came-from") in (PORTAL, None)):
        opts.append(option("portal", msg("go back out to the {portal_of_power}",
                                         portal_of_power=printed("Portal of Power"))))
    if here == VALLEY and not stay and not ctx.hooks.crown_closed(ctx, i):
        opts.append(option("crown", msg("climb to the {crown_of_command}",
                                        crown_of_command=printed("Crown of Command"))))
    ctx.ask(i, "inner-move", msg("You are in the Inner Region: where do you move?"), opts)


@on_answer("inner-move", "where to move in the Inner Region: `left` / `right` (the next space), `stay` (face it "
           "again), `portal` (back out), `crown` (climb to the Crown)", default=("left", "right", "stay"))
def inner_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    p = ctx.player(i)
    if key == "stay":
        p.flags["moved"] = 1  # facing the space again counts as an encounter of it
        return
    dest = {"portal": PORTAL, "crown": CROWN}.get(key) or step(ctx, p.space, DIRS[key])
    p.flags.pop("must-face", None)
    p.flags["came-from"] = p.space
    ctx.emit("move", msg("{player} moves to {space}.", player=p.name, space=ctx.space(dest).name), player=p.name,
             space=dest)
    place(ctx, i, dest)


@task("teleport-choose")
def teleport_choose(ctx: Ctx, t: Task) -> None:
    """Choose a space (a region's name, "any", or a list of space ids) and go there."""
    choose = t.a["choose"]
    if isinstance(choose, list):  # named spaces: those under Terrain are no longer on the board
        spaces = [s for s in choose if not ctx.covered(s)]
        if not spaces:
            return
    elif choose == "any":
        spaces = ctx.content.board.rings["outer"] + ctx.content.board.rings["middle"]
    else:
        spaces = ctx.content.board.rings[choose]
    ctx.ask(t.p, "teleport", msg("Where do you go?"), [Option(s, ctx.space(s).name) for s in spaces],
            encounter=t.a.get("encounter", False))


@on_answer("teleport", "where a Spell or card takes the character: a space id", default=())
def teleport(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    ctx.emit("teleport", msg("{player} goes to {space}.", player=who, space=ctx.space(key).name), player=who, space=key)
    place(ctx, i, key)
    if prompt.data.get("encounter"):
        ctx.push("encounter", i)
