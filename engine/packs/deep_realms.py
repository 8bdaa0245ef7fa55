"""The Lost Realms' Deep Realms (lost-realms.txt, "The Deep Realms"): the Rat Queen's Lair and the
Wraith Lord's Domain between the City and the Dungeon, each a Region of its own (two rings of
content/deep-realms/board.toml beside the board; docs/rules-decisions.md, "The Deep Realms").

The pack is `DeepRealms` (at the end). Its hooks: `setup` (the loot piles), `move_options` /
`move_choice` (entering from Sewer Grate or Crypt Stair instead of rolling), `turn_start` (a turn
in a Realm: ESCAPE or PRESS ON before the movement roll), `arrived` (a Realm space's instructions
instead of the usual encounter: nobody meets another character there), `between_turns` (the Bridge
cards go back, stacks off their space are discarded, discards are shuffled back), `dying`,
`scenario_setup` (`tunnel_stack`, `realm_loot`), `public`, `invariants`. The spaces are in
deep_realms_spaces.py; the tables and piles in deep_realms_state.py. The core reads a space's
`enemy_bonus` (the Rat and Spirit +1, engine/rules/encounter.py) and a card's `trap`
(engine/rules/combat.py).
"""
from __future__ import annotations

from typing import Any

from engine import rng, words
from engine.config import ConfigError, GameConfig
from engine.content import Content
from engine.packs import deep_realms_spaces as spaces
from engine.packs.base import Pack
from engine.packs.deep_realms_state import (
    BRIDGE,
    REALMS,
    TUNNEL,
    drop_stack,
    hook_of,
    in_realm,
    random_card,
    stack,
    stack_deck,
    tables,
)
from engine.rules.machine import Ctx, on_answer, task
from engine.rules.movement import one_space_only, place
from engine.rules.rerolls import offer_reroll
from engine.state import Game, Option, Player, Prompt, Task, option
from engine.text import Msg, msg

REALM_NAMES = {"rat-lair": msg("the Rat Queen's Lair"), "wraith-domain": msg("the Wraith Lord's Domain")}


def setup(ctx: Ctx, config: GameConfig) -> None:
    """The loot piles, faceup: 3 random Treasure cards on the Throne Room; 2 random Armoury and 2
    random Magic Emporium cards on the Rat's Nest."""
    for space, specs in tables()["loot"].items():
        for spec in specs:
            for _ in range(spec["n"]):
                card = random_card(ctx, spec["deck"])
                if card:
                    ctx.s.spaces.setdefault(space, []).append(card)


def public(state: Game, content: Content) -> dict[str, Any]:
    """Who is in which Realm, and each Tunnel stack: its size and the cards turned faceup on it
    (never the facedown ones)."""
    where = {p.name: content.board.spaces[p.space].ring for p in state.players
             if p.alive and p.space and content.board.spaces[p.space].ring in REALMS}
    stacks = {}
    for p in state.players:
        cards = stack(state, p.name)
        if cards:
            up = p.flags.get("dr-faceup", 0)
            stacks[p.name] = {"cards": len(cards), "faceup": [content.cards[c].name for c in cards[len(cards) - up:]]}
    loot = {sp: [content.cards[c].name for c in state.spaces.get(sp, [])] for sp in tables()["loot"]}
    decks = {d: len(state.decks.get(d, [])) for d in (BRIDGE, TUNNEL)}
    return {"characters": where, "stacks": stacks, "loot": loot, "decks": decks}


def public_text(state: Game, content: Content) -> list[Msg]:
    pub = public(state, content)
    lines = []
    where = {p.name: p.space for p in state.players if p.name in pub["characters"] and p.space}
    if where:
        lines.append(msg("In the Deep Realms: {players}.", players=words.placed(content, where)))
    for name, st in pub["stacks"].items():
        n, s = st["cards"], "s" if st["cards"] != 1 else ""
        lines.append(msg("{player}'s Tunnel stack: {n} card{s}, {cards} faceup on top.", player=name, n=n, s=s,
                         cards=words.listing(st["faceup"])) if st["faceup"]
                     else msg("{player}'s Tunnel stack: {n} card{s}.", player=name, n=n, s=s))
    for sp, cards in pub["loot"].items():
        if sp in content.board.spaces:
            lines.append(msg("On {space}: {cards}.", space=words.space(content, sp), cards=words.listing(cards))
                         if cards else msg("On {space}: nothing.", space=words.space(content, sp)))
    lines.append(msg("Bridge deck {bridge}, Tunnel deck {tunnel}.", bridge=pub["decks"][BRIDGE],
                     tunnel=pub["decks"][TUNNEL]))
    return lines


def scenario_setup(state: Game, content: Content, p: Player, key: str, value: Any) -> bool | None:
    """`tunnel_stack = [...]` in [setup.<player>]: the character's facedown stack, top first;
    `realm_loot = { rats-nest = [...] }`: a loot pile instead of the random one dealt."""
    if key == "realm_loot":
        for space, cards in value.items():
            if space not in tables()["loot"]:
                raise ConfigError(f"realm_loot: {space!r} has no loot pile (one of {', '.join(tables()['loot'])})")
            for card in state.spaces.pop(space, []):  # the pile dealt goes back
                state.decks[content.cards[card].deck].insert(0, card)
            for card in cards:
                deck = state.decks.get(content.cards[card].deck if card in content.cards else "", [])
                if card not in deck:
                    raise ConfigError(f"realm_loot: {card!r} is not in its deck")
                deck.remove(card)
            state.spaces[space] = list(cards)
        return True
    if key != "tunnel_stack":
        return None
    for card in value:
        if card not in state.decks["tunnel"]:
            raise ConfigError(f"tunnel_stack: {card!r} is not in the Tunnel deck")
        state.decks["tunnel"].remove(card)
    state.decks[stack_deck(p.name)] = list(reversed(value))
    return True


def move_options(ctx: Ctx, i: int) -> list[Option] | None:
    """On Sewer Grate (Crypt Stair): step into the Realm instead of rolling."""
    into = tables()["entry"].get(ctx.player(i).space)
    if not into:
        return None
    return [option(f"enter-{sp}", msg("step into {space} ({realm}) instead of moving; the move ends there",
                                      space=ctx.space(sp).name, realm=REALM_NAMES[ctx.content.space(sp).ring]))
            for sp in into if sp in ctx.content.board.spaces]


def move_choice(ctx: Ctx, i: int, key: str) -> bool | None:
    p = ctx.player(i)
    dest = key[len("enter-"):]
    if not key.startswith("enter-") or dest not in tables()["entry"].get(p.space, ()):
        return None
    ctx.emit("realm", msg("{player} enters {REALM_NAMES} at {space}; "
             "the move ends.", player=p.name, REALM_NAMES=REALM_NAMES[ctx.content.space(dest).ring],
             space=ctx.space(dest).name), player=p.name, space=dest)
    place(ctx, i, dest)
    return True


def turn_start(ctx: Ctx, i: int) -> bool | None:
    """A turn in a Realm: Spells, then ESCAPE or PRESS ON instead of the movement roll."""
    if not in_realm(ctx, ctx.player(i).space):
        return None
    spaces.tidy(ctx)  # a turn that followed another's with no break between (an extra turn)
    ctx.push_all([("start-spells", i, {}), ("dr-move", i, {}), ("encounter", i, {}), ("quest-check", i, {})])
    return True


@task("dr-move")
def realm_move(ctx: Ctx, t: Task) -> None:
    p = ctx.player(t.p)
    p.flags.pop("moved", None)
    if not in_realm(ctx, p.space):  # a Spell took the character out before the move
        ctx.push("move", t.p)
        return
    ctx.ask(t.p, "realm-move", msg("You are in {REALM_NAMES}, on "
            "{space}. Escape or press on?", REALM_NAMES=REALM_NAMES[ctx.content.space(p.space).ring],
            space=ctx.space(p.space).name),
            [option("escape", msg("roll and move out against the arrow into the adjacent Region")),
             option("press-on", press_on_text(ctx, t.p))])


def press_on_text(ctx: Ctx, i: int) -> Msg:
    p = ctx.player(i)
    hook = hook_of(ctx, p.space)
    if hook == "dr-bridge":
        return msg("cross the bridge to {space}", space=ctx.space(tables()["bridge"][p.space]).name)
    if hook == "dr-tunnel":
        n = len(stack(ctx.s, p.name))
        return msg("meet the top card of your Tunnel stack ({n} left)", n=n) if n else \
            msg("move on to {space}", space=ctx.space(tables()["forward"][p.space]).name)
    return msg("face {space} again", space=ctx.space(p.space).name)


@on_answer("realm-move", "in a Realm of the Deep Realms, before the movement roll: `escape` (roll and move out "
           "into the adjacent Region) or `press-on` (follow the space's instructions)", default=("escape",))
def realm_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    p = ctx.player(i)
    hook = hook_of(ctx, p.space)
    if key == "escape":
        escape(ctx, i)
    elif hook == "dr-bridge":
        dest = tables()["bridge"][p.space]
        ctx.emit("move",
                 msg("{player} presses on across the bridge to {space}.", player=p.name,
                     space=ctx.space(dest).name), player=p.name, space=dest)
        place(ctx, i, dest)
    elif hook == "dr-tunnel":
        spaces.press_on_tunnel(ctx, i)
    else:
        ctx.emit("move",
                 msg("{player} presses on and faces {space} again.", player=p.name,
                     space=ctx.space(p.space).name), player=p.name)
        place(ctx, i, p.space)


def escape(ctx: Ctx, i: int) -> None:
    """Roll, step back onto the Region's space next to the Realm, and go on with the rest of the roll
    by that Region's movement (the stand-in of the CONTRACT of issue 17; rules-decisions)."""
    p = ctx.player(i)
    drop_stack(ctx, i, msg("escaping"))
    way = tables()["escape"][ctx.content.space(p.space).ring]
    out, board = way["space"], ctx.content.board
    if out not in board.spaces:
        ctx.emit("realm", msg("{player} cannot escape: {out} is not on the board.", player=p.name, out=out),
                 player=p.name)
        return
    if one_space_only(ctx, i):  # a Toad, a Blizzard: no die
        ctx.push("dr-escape", i, dice=[1])
        return
    roll = rng.die(ctx.s)
    ctx.emit("roll", msg("{player} rolls {roll} to escape.", player=p.name, roll=roll), player=p.name, roll=roll,
             dice=[roll])
    offer_reroll(ctx, i,
                 msg("You roll {roll} to escape onto {space} and on. Spend 1 fate to reroll?", roll=roll,
                     space=ctx.space(out).name),
                 "dr-escape", dice=[roll])


@task("dr-escape")
def escape_walk(ctx: Ctx, t: Task) -> None:
    """The escape roll kept: onto the Region's space next to the Realm, and on."""
    i, roll = t.p, t.a["dice"][0]
    p = ctx.player(i)
    way = tables()["escape"][ctx.content.space(p.space).ring]
    out, board = way["space"], ctx.content.board
    ctx.emit("move",
             msg("{player} escapes onto {space} with {roll} to move.", player=p.name, space=ctx.space(out).name,
                 roll=roll), player=p.name, space=out)
    if "walk" in way:
        walk = dict(way["walk"])
        ctx.push(walk.pop("task"), i, space=out, steps=roll - 1, **walk)
        return
    ring = board.rings[board.spaces[out].ring]
    at = board.spaces[out].index + way["step"] * (roll - 1)
    dest = ring[at] if 0 <= at < len(ring) else way["beyond"]
    if dest not in ring:
        p.flags[way["flag"]] = 1
    ctx.emit("move", msg("{player} moves on to {space}.", player=p.name, space=ctx.space(dest).name), player=p.name,
             space=dest)
    place(ctx, i, dest)


def arrived(ctx: Ctx, i: int) -> bool | None:
    if not in_realm(ctx, ctx.player(i).space):
        return None
    spaces.arrive(ctx, i)
    return True


def dying(ctx: Ctx, i: int) -> None:
    """A character who dies leaves its space: its stack is discarded (a card it turned with it)."""
    spaces.restack(ctx, i)
    drop_stack(ctx, i, msg("the character is dead"))


def invariants(state: Game, content: Content) -> list[str]:
    """A stack is a living character's, of Tunnel cards, no bigger than it was dealt, its faceup
    count within it; nobody holds a card turned from a stack once its turn is over."""
    out = []
    owners = {stack_deck(p.name): p for p in state.players}
    most = max(content.space(sp).hook_args.get("stack", 3) for sp in tables()["forward"])
    for deck, cards in state.decks.items():
        if not deck.startswith("tunnel-stack-"):
            continue
        p = owners.get(deck)
        if p is None or not p.alive:
            out.append(f"{deck}: a stack without a living owner")
        if any(content.cards[c].deck != TUNNEL for c in cards) or len(cards) > most:
            out.append(f"{deck}: not a stack of at most {most} Tunnel cards: {cards}")
        if p is not None and p.flags.get("dr-faceup", 0) > len(cards):
            out.append(f"{p.name}: more faceup cards than the stack holds")
    return out


class DeepRealms(Pack):
    name = "deep-realms"
    title = "The Deep Realms (The Lost Realms)"
    editions = ("revised4",)
    requires = ("city", "dungeon")
    props = frozenset({"trap", "on_win"})
    tables = frozenset({("board.toml", "deep-realms")})
    regions = {"rat-lair": "Rat Queen's Lair", "wraith-domain": "Wraith Lord's Domain"}

    def setup(self, ctx: Ctx, config: Any) -> None:
        setup(ctx, config)

    def public(self, ctx: Ctx) -> dict[str, Any]:
        return public(ctx.s, ctx.content)

    def public_text(self, ctx: Ctx) -> list[Msg]:
        return public_text(ctx.s, ctx.content)

    def scenario_setup(self, state: Any, content: Any, p: Any, key: str, value: Any) -> bool | None:
        return scenario_setup(state, content, p, key, value)

    def move_options(self, ctx: Ctx, i: int) -> list[Option] | None:
        return move_options(ctx, i)

    def move_choice(self, ctx: Ctx, i: int, key: str) -> bool | None:
        return move_choice(ctx, i, key)

    def turn_start(self, ctx: Ctx, i: int) -> bool | None:
        return turn_start(ctx, i)

    def arrived(self, ctx: Ctx, i: int) -> bool | None:
        return arrived(ctx, i)

    def between_turns(self, ctx: Ctx, done: int, nxt: int) -> None:
        spaces.tidy(ctx)

    def dying(self, ctx: Ctx, i: int) -> None:
        dying(ctx, i)

    def invariants(self, state: Any, content: Any) -> list[str]:
        return invariants(state, content)


PACK: Pack = DeepRealms()
