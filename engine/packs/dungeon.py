"""The Dungeon (city-and-dungeon.md, "The Dungeon"): a Region beside the main board, on a stand-in
path (content/dungeon/board.toml; docs/rules-decisions.md, "The Dungeon").

The ring "dungeon" lists its spaces from the Dungeon Entrance (first) to the Treasure Chamber
(last). Its arrows point deeper: `with` them is on toward the Treasure Chamber, `against` them
back toward the Entrance and, past it, out to the main board's Ruins. The path does not wrap.

The pack is `Dungeon` (at the end); its hooks: `setup` (the out-of-play pile of Treasures),
`public`, `arrived` (arriving at the Ruins: stay, or go in to the Dungeon Entrance; `between_turns`
drops its mark), `turn_start` (a turn in the Dungeon: its own with/against move, which offers
other packs' `move_options` beside it), `draw_deck` (in the Dungeon Region Dungeon cards are
drawn instead of Adventure cards). Tasks: `dungeon-move`, the Treasure Chamber
(`space:dungeon-treasure-chamber`: the Lord of Darkness, a Treasure, the emergence chart read
from the space's `hook_args`).
"""
from __future__ import annotations

from typing import Any

from engine import rng, words
from engine.content import die_row, die_rows
from engine.packs.base import Pack, RuleOption
from engine.rules import stats
from engine.rules.encounter import take
from engine.rules.machine import Ctx, on_answer, task
from engine.rules.movement import one_space_only, place
from engine.rules.turn import finish
from engine.state import Prompt, Task, option
from engine.text import Msg, msg, printed

RING = "dungeon"
# names issue 17 fixes for the three packs (the Deep Realms rely on them): space ids and decks
ENTRANCE, HALL, CHAMBER, CRYPT_STAIR = "dungeon-entrance", "hall-of-darkness", "treasure-chamber", "crypt-stair"
RUINS = "ruins"  # the main board's space the Dungeon opens from
DECK, TREASURE, OUT_OF_PLAY = "dungeon", "treasure", "box"
WITH, AGAINST = "with", "against"
STAYING = "dungeon-stays"  # a flag: this arrival at the Ruins is met as the Ruins (asked already, or leaving)
WINNER_TAKES_ALL = "winner_takes_all"


def inside(ctx: Ctx, space: str | None) -> bool:
    return space is not None and ctx.content.board.spaces[space].ring == RING


def path(ctx: Ctx) -> list[str]:
    return ctx.content.board.rings[RING]


# -- moving in the Dungeon ----------------------------------------------------------------

@task("dungeon-move")
def dungeon_move(ctx: Ctx, t: Task) -> None:
    """A die (1 space only for a Toad, in a Blizzard...), then with or against the arrows."""
    p = ctx.player(t.p)
    p.flags.pop("moved", None)
    one = one_space_only(ctx, t.p)
    ask_way(ctx, t.p, 1 if one else rng.die(ctx.s), rerolled=one)


def ask_way(ctx: Ctx, i: int, roll: int, rerolled: bool) -> None:
    """With or against the arrows, asked only when both are possible (the Treasure Chamber has
    no way on), beside a fate reroll and what other packs offer here (the Deep Realms' entries)."""
    p = ctx.player(i)
    if one_space_only(ctx, i):
        ctx.emit("move-one", msg("{player} may move only 1 space.", player=p.name), player=p.name)
    else:
        ctx.emit("roll", msg("{player} rolls {roll} for movement in the Dungeon.", player=p.name, roll=roll),
                 player=p.name, roll=roll, dice=[roll])
    here = ctx.content.space(p.space).index
    opts = []
    if here < len(path(ctx)) - 1:
        opts.append(option(WITH, msg("move {roll} with the arrows, deeper toward the {treasure_chamber}",
                                     treasure_chamber=printed("Treasure Chamber"), roll=roll)))
    opts.append(option(AGAINST, msg("move {roll} against the arrows, out of the Dungeon to the {ruins}",
                                    ruins=printed("Ruins"), roll=roll)
                       if roll > here else
                       msg("move {roll} against the arrows, toward the {dungeon_entrance}",
                           dungeon_entrance=printed("Dungeon Entrance"), roll=roll)))
    if stats.fate(ctx, p) and not rerolled:
        opts.append(option("reroll", msg("spend 1 fate to roll again")))
    opts += ctx.hooks.move_options(ctx, i)
    ctx.ask(i, "dungeon-way", msg("You rolled {roll} in the Dungeon. Which way do you move?", roll=roll), opts,
            roll=roll)


@on_answer("dungeon-way", "moving in the Dungeon: `with` the arrows (deeper, toward the Treasure Chamber) or "
           "`against` them (toward the Dungeon Entrance, past it out to the Ruins); `reroll` (fate), or a pack's own "
           "(the Deep Realms' entries)", default=(WITH, AGAINST))
def way_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    p = ctx.player(i)
    roll = prompt.data["roll"]
    if key == "reroll":
        stats.spend_fate(ctx, p)
        ctx.emit("fate", msg("{player} spends 1 fate to reroll.", player=p.name), player=p.name)
        ask_way(ctx, i, rng.die(ctx.s), rerolled=True)
        return
    if key not in (WITH, AGAINST):
        ctx.hooks.move_choice(ctx, i, key)
        return
    ring = path(ctx)
    at = ctx.content.space(p.space).index
    if key == AGAINST and roll > at:
        p.flags[STAYING] = 1  # out by the Entrance: the Ruins are met as the Ruins
        ctx.emit("move", msg("{player} leaves the Dungeon by the {dungeon_entrance} to the {ruins}.",
                             dungeon_entrance=printed("Dungeon Entrance"), ruins=printed("Ruins"), player=p.name),
                 player=p.name,
                 space=RUINS)
        place(ctx, i, RUINS)
        return
    dest = ring[min(at + roll, len(ring) - 1) if key == WITH else at - roll]
    stop = dest == CHAMBER and at + roll > len(ring) - 1
    ctx.emit("move", moved(p.name, key, ctx.space(dest).name, stop), player=p.name, space=dest)
    place(ctx, i, dest)


def moved(player: str, key: str, space: str, stop: bool) -> Msg:
    """A move in the Dungeon, a message for each way (the words of each differ by language)."""
    if key == AGAINST:
        return msg("{player} moves against the arrows to {space}.", player=player, space=space)
    if stop:
        return msg("{player} moves with the arrows to {space} (reaching it ends the move).", player=player, space=space)
    return msg("{player} moves with the arrows to {space}.", player=player, space=space)


@on_answer("dungeon-enter", "arriving at the Ruins with the Dungeon in play: `stay` (meet the Ruins) or `enter` "
           "(go in to the Dungeon Entrance)", default=("stay",))
def enter_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    p = ctx.player(i)
    if key == "enter":
        ctx.emit("dungeon", msg("{player} goes down into the Dungeon by the {dungeon_entrance}.",
                                dungeon_entrance=printed("Dungeon Entrance"), player=p.name),
                 player=p.name,
                 space=ENTRANCE)
        place(ctx, i, ENTRANCE)
    else:
        p.flags[STAYING] = 1
        p.flags["moved"] = 1
    ctx.push("encounter", i)


# -- the Treasure Chamber -------------------------------------------------------------------

def lord(ctx: Ctx) -> dict[str, Any]:
    return ctx.space(CHAMBER).hook_args["lord"]


@task("space:dungeon-treasure-chamber")
def treasure_chamber(ctx: Ctx, t: Task) -> None:
    a = lord(ctx)
    ctx.ask(t.p, "dungeon-lord",
            msg("The Lord of Darkness (Strength {a}, Craft {a2}) awaits. He cannot be evaded and you "
            "fight him alone. Which combat do you fight?", a=a['strength'], a2=a['craft']),
            [option("battle", msg("battle against Strength {a}", a=a['strength'])),
             option("psychic", msg("psychic combat against Craft {a}", a=a['craft']))])


@on_answer("dungeon-lord", "the Lord of Darkness in the Treasure Chamber: `battle` or `psychic` combat",
           default=("battle", "psychic"))
def lord_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    """The engine's own dice and fate reroll (`combat-roll`), with nothing to ask first: no
    evasion, no Spell, nothing that helps or fights in the character's place (no Potion, no
    Mercenary, no Cross, no one joining); the turn goes on after the fight, to the emergence."""
    i = ctx.index(who)
    a = lord(ctx)
    attr = "strength" if key == "battle" else "craft"
    ctx.push("combat-roll", i, name=a["name"], helpers_asked=True, ends_turn=False, on_win="dungeon-lord-killed",
             scored="dungeon-emerge", **{attr: a[attr]})


@task("dungeon-lord-killed")
def lord_killed(ctx: Ctx, t: Task) -> None:
    """Choose 1 Treasure card if any remain (Winner Takes All: the first to kill him wins)."""
    p = ctx.player(t.p)
    ctx.emit("dungeon", msg("{player} kills the Lord of Darkness!", player=p.name), player=p.name)
    if ctx.s.options.get(WINNER_TAKES_ALL):
        ctx.emit("dungeon", msg("Winner Takes All: the first to kill the Lord of Darkness wins the game."))
        finish(ctx, [p.name])
        return
    left = list(dict.fromkeys(ctx.s.decks[TREASURE]))
    if not left:
        ctx.emit("dungeon", msg("No Treasure card is left."), player=p.name)
        return
    ctx.ask(t.p, "dungeon-treasure", msg("You have killed the Lord of Darkness: which Treasure card do you take?"),
            [option(c, msg("take {card}", card=ctx.content.cards[c].name)) for c in left])


@on_answer("dungeon-treasure", "the Treasure card chosen after killing the Lord of Darkness (its slug)", default=())
def treasure_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    """Taken as a card found on the space is (gold, what it does when taken, the carrying limit)."""
    i = ctx.index(who)
    ctx.s.decks[TREASURE].remove(key)
    ctx.s.spaces.setdefault(ctx.player(i).space, []).append(key)
    take(ctx, i, key)


@task("dungeon-emerge")
def emerge(ctx: Ctx, t: Task) -> None:
    """Whatever the result, the character emerges: its attack score minus the Lord's, read on
    the chart (the "0" line if he scored higher; the highest line for that margin or more)."""
    p = ctx.player(t.p)
    if not p.alive or p.space != CHAMBER:
        return
    chart = ctx.space(CHAMBER).hook_args["emerge"]
    margin = max(0, t.a["mine"] - t.a["theirs"])
    line = min(margin, max(hi for _, hi, _ in die_rows(chart)))
    row = die_row(chart, line, [])
    ctx.emit("dungeon", msg("{player} emerges from the Treasure Chamber: {a} against {a2}, "
             "a margin of {margin}: the chart's line {line}.", player=p.name, a=t.a['mine'], a2=t.a['theirs'],
             margin=margin, line=line), player=p.name, margin=margin)
    ctx.push("dungeon-emerged", t.p)
    if row:
        ctx.push("effect", t.p, ops=row, source="the Treasure Chamber's chart")


@task("dungeon-emerged")
def emerged(ctx: Ctx, t: Task) -> None:
    """A line that moved nobody (the Ruins under a Terrain card ignore a teleport there, a
    moderator's chart may say only "gain"): the character still emerges, onto the Ruins."""
    p = ctx.player(t.p)
    if p.alive and p.space == CHAMBER:
        ctx.emit("dungeon", msg("{player} climbs out of the Dungeon to the {ruins}.", ruins=printed("Ruins"),
                                player=p.name), player=p.name,
                 space=RUINS)
        place(ctx, t.p, RUINS)


class Dungeon(Pack):
    name = "dungeon"
    title = "The Dungeon"
    editions = ("revised4",)
    regions = {RING: "The Dungeon"}
    options = (RuleOption(WINNER_TAKES_ALL, False, "The Dungeon's Winner Takes All: the first character to kill the "
                          "Lord of Darkness wins the game.", (False, True)),)

    def setup(self, ctx: Ctx, config: Any) -> None:
        """A discarded Treasure leaves the game: Treasures discard to the pile of cards out of
        play (content/dungeon/treasure.toml `discard_to`), which is never shuffled back."""
        ctx.s.discards.setdefault(OUT_OF_PLAY, [])

    def public(self, ctx: Ctx) -> dict[str, Any]:
        """Who is in the Dungeon (and where), and the Treasure cards left and out of play."""
        state, content = ctx.s, ctx.content
        spaces = content.board.spaces
        there = {p.name: p.space for p in state.players if p.alive and p.space and spaces[p.space].ring == RING}
        gone = [c for c in state.discards.get(OUT_OF_PLAY, []) if content.cards[c].deck == TREASURE]
        return {"characters": there, "treasure": sorted(state.decks.get(TREASURE, [])), "treasure_gone": sorted(gone)}

    def public_text(self, ctx: Ctx) -> list[Msg]:
        pub, content = self.public(ctx), ctx.content
        lines = []
        if pub["characters"]:
            lines.append(msg("In the Dungeon: {players}.", players=words.placed(content, pub["characters"])))
        lines.append(msg("Treasures left: {cards}.", cards=words.counted(content, pub["treasure"])) if pub["treasure"]
                     else msg("No Treasure is left."))
        if pub["treasure_gone"]:
            lines.append(msg("Treasures out of the game: {cards}.", cards=words.counted(content, pub["treasure_gone"])))
        return lines

    def invariants(self, state: Any, content: Any) -> list[str]:
        """Whoever reaches the Treasure Chamber fights and emerges in that turn; only Treasures
        are put out of play."""
        out = [f"{p.name} stays in the Treasure Chamber past its turn" for i, p in enumerate(state.players)
               if p.alive and p.character and p.space == CHAMBER and i != state.current and not state.over]
        if any(content.cards[c].deck != TREASURE for c in state.discards.get(OUT_OF_PLAY, [])):
            out.append(f"cards out of play that are not Treasures: {state.discards[OUT_OF_PLAY]}")
        return out

    def arrived(self, ctx: Ctx, i: int) -> bool | None:
        """Arriving at the main board's Ruins, the character chooses to stay (and meet them) or to
        go to the Dungeon Entrance (and meet it)."""
        p = ctx.player(i)
        if p.space != RUINS:
            return None
        if p.flags.pop(STAYING, None):
            return None
        ctx.ask(i, "dungeon-enter", msg("You arrive at the {ruins}. Stay here, or go down into the Dungeon?",
                                        ruins=printed("Ruins")),
                [option("stay", msg("stay and encounter the {ruins}", ruins=printed("Ruins"))),
                 option("enter", msg("go to the {dungeon_entrance} (and encounter it)",
                                     dungeon_entrance=printed("Dungeon Entrance")))])
        return True

    def between_turns(self, ctx: Ctx, done: int, nxt: int) -> None:
        """An arrival at the Ruins is met that same turn: a mark left unread (another pack took
        the arrival over) does not spare a later arrival its question."""
        if STAYING in ctx.s.players[done].flags:
            ctx.player(done).flags.pop(STAYING)

    def turn_start(self, ctx: Ctx, i: int) -> bool | None:
        """A turn in the Dungeon: the start-of-turn window, the with/against move, the space and
        the Warlock's quest check, as a turn on the main board is."""
        if not inside(ctx, ctx.player(i).space):
            return None
        ctx.push_all([("start-spells", i, {}), ("dungeon-move", i, {}), ("encounter", i, {}),
                      ("quest-check", i, {})])
        return True

    def draw_deck(self, ctx: Ctx, i: int) -> str | None:
        """In the Dungeon Region a character always draws Dungeon cards instead of Adventure cards."""
        return DECK if inside(ctx, ctx.player(i).space) else None


PACK: Pack = Dungeon()
