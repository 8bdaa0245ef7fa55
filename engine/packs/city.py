"""The City (city-and-dungeon.md, "The City"): a Region beside the main board, on a stand-in
board (content/city/board.toml; docs/rules-decisions.md, "The City").

Built here: entering from the main board's City space (`city-enter`, for one who starts there; a
roll carrying past it is asked at the crossing, engine/rules/movement.py, the board's `gates`); the
one-way streets (the ring "city" less its shops), followed in order
and never against it; before the roll, other packs' `move_options` for the character (the Deep
Realms at the Sewer Grate) asked beside `roll` in one question, only when there are any; the
five shops, each entered from its street for 1 point of movement (the rest of the roll lost),
left by spending 1 point to step back onto its street, never re-entered the turn it was left nor
reached from another shop directly; Potions drunk before a move (`start_options`); the Jail and
its stand-in chart; leaving by the City Gate or the Wharf.
Elsewhere: buying in the shops, the City cards drawn on the plain streets, Free Samples
(engine/packs/city_shops.py); the Wanted Posters at the City Gate and their bounties
(engine/packs/city_posters.py; an alignment poster pays through the `duel_won` hook).

The pack is `City` (at the end), its hooks written as its methods; the tasks and answers are the
module's functions (`city-move`, `city-walk`, the Jail, the Gate, the Wharf).
Not built: Trading Day and Grumpy Wizard are settled by the moderator; the City's characters,
Neutral Alignment cards and Alternative Endings.
"""
from __future__ import annotations

from typing import Any

from engine import rng, words
from engine.config import ConfigError
from engine.content import die_row, pack_table
from engine.packs import city_posters, city_shops
from engine.packs.base import Pack
from engine.rules.items import discard
from engine.rules.machine import Ctx, on_answer, task
from engine.rules.movement import one_space_only, place
from engine.rules.rerolls import offer_reroll
from engine.state import Option, Prompt, Task, option
from engine.text import Msg, Text, content_text, msg, printed

RING = "city"


def tables() -> dict[str, Any]:
    """The `[city]` table of this pack's board.toml (an owner's content folder included)."""
    return pack_table("city", "board.toml", "city")


def inside(ctx: Ctx, space: str | None) -> bool:
    return space is not None and ctx.content.board.spaces[space].ring == RING


def shop_of(ctx: Ctx, street: str) -> str | None:
    """The shop that opens off a street (board.toml: a shop's `hook_args.street`)."""
    return next((sid for sid in ctx.content.board.rings[RING]
                 if ctx.content.space(sid).hook_args.get("street") == street), None)


def streets(ctx: Ctx) -> list[str]:
    """The one-way loop: every City space but the shops, in the arrows' order."""
    return [sid for sid in ctx.content.board.rings[RING] if ctx.content.space(sid).hook != "city-shop"]


def next_street(ctx: Ctx, street: str) -> str:
    loop = streets(ctx)
    return loop[(loop.index(street) + 1) % len(loop)]


# -- moving in the City ----------------------------------------------------------------

@task("city-move")
def city_move(ctx: Ctx, t: Task) -> None:
    """Before the roll: what other packs offer this character here (the Deep Realms' way down at
    the Sewer Grate), asked beside the roll only when there is something."""
    p = ctx.player(t.p)
    p.flags.pop("moved", None)
    others = ctx.hooks.move_options(ctx, t.p)
    if others:
        ctx.ask(t.p, "city-move", msg("You are in the City. Roll and follow the streets, or something else?"),
                [option("roll", msg("roll and follow the one-way streets"))] + others)
        return
    roll_and_walk(ctx, t.p)


@on_answer("city-move", "in the City, before the movement roll: `roll` (follow the one-way streets) or another "
           "pack's option there (the Deep Realms' way down)", default=("roll",))
def city_move_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    if key == "roll":
        roll_and_walk(ctx, i)
    else:
        ctx.hooks.move_choice(ctx, i, key)


def roll_and_walk(ctx: Ctx, i: int) -> None:
    """The movement roll, which fate may reroll as any movement roll (base-game.md §4); a Toad
    moves 1 with no die."""
    p = ctx.player(i)
    if one_space_only(ctx, i):
        ctx.push("city-roll", i, dice=[1])
        return
    roll = rng.die(ctx.s)
    ctx.emit("roll", msg("{player} rolls {roll} and follows the City's one-way streets.", player=p.name, roll=roll),
             player=p.name, roll=roll,
             dice=[roll])
    offer_reroll(ctx, i, msg("You roll {roll} to move along the City's streets. Spend 1 fate to reroll?", roll=roll),
                 "city-roll",
                 dice=[roll])


@task("city-roll")
def city_roll(ctx: Ctx, t: Task) -> None:
    """The whole roll along the arrows. From a shop the first point steps back onto its street,
    and that shop is barred for the rest of the turn."""
    i, roll = t.p, t.a["dice"][0]
    p = ctx.player(i)
    here = ctx.content.space(p.space)
    if here.hook == "city-shop":
        street = here.hook_args["street"]
        ctx.emit("move",
                 msg("{player} steps out of the {here} onto {space}.", player=p.name, here=here.name,
                     space=ctx.space(street).name), player=p.name)
        ctx.push("city-walk", i, space=street, steps=roll - 1, barred=here.id, out_of=street, path=[])
        return
    ctx.push("city-walk", i, space=p.space, steps=roll, barred="", out_of="", path=[])


@task("city-walk")
def city_walk(ctx: Ctx, t: Task) -> None:
    """Walk the streets, asking at each street whose shop may be entered with a point left."""
    i, a = t.p, t.a
    p = ctx.player(i)
    space, steps, path = a["space"], a["steps"], list(a["path"])
    while True:
        shop = shop_of(ctx, space) if steps > 0 and not a.get("asked") else None
        # never straight from one shop to another; asked only with something to do inside
        if shop and shop != a["barred"] and space != a["out_of"] and city_shops.worth_entering(ctx, i, shop):
            ctx.push("city-walk", i, **{**a, "space": space, "steps": steps, "path": path, "asked": True})
            ctx.ask(i, "city-shop-enter", msg("You are on {space} with {steps} to move. "
                    "Enter the {space2}?", space=ctx.space(space).name, steps=steps, space2=ctx.space(shop).name),
                    [option("go-on", msg("walk on {steps} along the streets", steps=steps)),
                     option(f"enter-{shop}",
                            msg("spend 1 point to enter the {space}, losing the other {n}", space=ctx.space(shop).name,
                                n=steps - 1) if steps > 1 else
                            msg("spend 1 point to enter the {space}", space=ctx.space(shop).name))])
            return
        a = {**a, "asked": False}
        if steps <= 0:
            break
        space = next_street(ctx, space)
        steps -= 1
        path.append(space)
    name = ctx.space(space).name
    ctx.emit("move", msg("{player} moves to {space} by way of {via}.", player=p.name, space=name,
                         via=", ".join(ctx.space(s).name for s in path[:-1])) if len(path) > 1 else
             msg("{player} moves to {space}.", player=p.name, space=name), player=p.name, space=space)
    place(ctx, i, space)


@on_answer("city-shop-enter", "walking the City's streets past a shop: `go-on` along the streets, or "
           "`enter-<shop>` (1 point; the rest of the roll is lost)", default=("go-on",))
def shop_enter(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    if key == "go-on":
        return  # the walk pushed before asking goes on
    walk = ctx.s.stack.pop()
    i = ctx.index(who)
    shop = key[len("enter-"):]
    lost = walk.a["steps"] - 1
    ctx.emit("move", msg("{player} enters the {space}; the rest of the roll ({lost}) is lost.", player=who,
                         space=ctx.space(shop).name, lost=lost) if lost else
             msg("{player} enters the {space}.", player=who, space=ctx.space(shop).name), player=who, space=shop)
    place(ctx, i, shop)


# -- the Jail, the Gate, the Wharf ----------------------------------------------------------

@task("city-jail-roll")
def jail_roll(ctx: Ctx, t: Task) -> None:
    """Instead of moving, a die on the Jail chart (a stand-in chart, board.toml `[city]`)."""
    p = ctx.player(t.p)
    roll = rng.die(ctx.s)
    if die_row(tables()["jail_chart"], roll) == "free":
        del p.flags["city-jailed"]
        ctx.emit("jail", msg("{player} rolls {roll} on the {jail} chart and is released.", jail=printed("Jail"),
                             player=p.name, roll=roll),
                 player=p.name, roll=roll)
        ctx.push_all([("city-move", t.p, {}), ("encounter", t.p, {})])
        return
    ctx.emit("jail", msg("{player} rolls {roll} on the {jail} chart and stays locked up.", jail=printed("Jail"),
                         player=p.name, roll=roll),
             player=p.name, roll=roll)
    ctx.end_turn()


@task("space:city-jail")
def jail(ctx: Ctx, t: Task) -> None:
    p = ctx.player(t.p)
    p.flags["city-jailed"] = 1
    ctx.emit("jail", msg("{player} is locked up in the {jail}; the turn ends.", jail=printed("Jail"), player=p.name),
                         player=p.name)
    ctx.end_turn()


@task("space:city-gate")
def gate(ctx: Ctx, t: Task) -> None:
    """The Wanted Posters lying here (claim a bounty, buy some), then stay or leave; asked again
    after each claim or purchase."""
    posters = ", ".join(ctx.content.cards[c].name for c in ctx.s.piles.get(city_posters.PILE, [])) or "none"
    ctx.ask(t.p, "city-gate",
            msg("You are at the {city_gate} (Wanted Posters here: {posters}). Leave the City?",
                city_gate=printed("City Gate"), posters=posters),
            [option("stay", msg("stay in the City")), option("leave", msg("leave to the main board's City space"))]
            + city_posters.gate_options(ctx, t.p))


@on_answer("city-gate", "at the City Gate: `stay` in the City, `leave` it, `claim-<target>` (a Wanted Poster's "
           "bounty) or `buy-<poster>` (1 gold)", default=("stay",))
def gate_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    if key == "leave":
        leave(ctx, i, msg("by the {city_gate}", city_gate=printed("City Gate")))
    elif key != "stay":
        city_posters.gate_choice(ctx, i, key)
        ctx.push("space:city-gate", i)


@task("space:city-wharf")
def wharf(ctx: Ctx, t: Task) -> None:
    leave(ctx, t.p, msg("by boat from the {wharf}", wharf=printed("Wharf")))


def leave(ctx: Ctx, i: int, how: Text) -> None:
    p = ctx.player(i)
    dest = tables()["main_city"]
    ctx.emit("city",
             msg("{player} leaves the City {how} to the main board's {space}.", player=p.name, how=how,
                 space=ctx.space(dest).name),
             player=p.name, space=dest)
    place(ctx, i, dest)
    ctx.end_turn()


class City(Pack):
    name = "city"
    title = "The City"
    editions = ("revised4",)
    card_hooks = frozenset({city_shops.POTION, city_posters.CREATURE, city_posters.ALIGNMENT})
    tables = frozenset({("board.toml", "city")})
    regions = {RING: "The City"}

    def setup(self, ctx: Ctx, config: Any) -> None:
        """The Wanted Posters: the first faceup at the City Gate (the shops' piles lie faceup)."""
        city_posters.refill(ctx)

    def public(self, ctx: Ctx) -> dict[str, Any]:
        """Who is in the City (and where), who is in the Jail, the Wanted Posters at the Gate and
        those each player keeps."""
        state, content = ctx.s, ctx.content
        spaces = content.board.spaces
        there = {p.name: p.space for p in state.players if p.alive and p.space and spaces[p.space].ring == RING}
        jailed = sorted(p.name for p in state.players if p.alive and "city-jailed" in p.flags)
        kept = {p.name: [c for c in p.area if content.cards[c].deck == city_posters.DECK] for p in state.players}
        return {"characters": there, "jailed": jailed, "posters": list(state.piles.get(city_posters.PILE, [])),
                "kept_posters": {name: cards for name, cards in kept.items() if cards}}

    def public_text(self, ctx: Ctx) -> list[Msg]:
        pub, content = self.public(ctx), ctx.content
        lines = []
        if pub["characters"]:
            lines.append(msg("In the City: {players}.", players=words.placed(content, pub["characters"])))
        if pub["jailed"]:
            lines.append(msg("Locked up in the {jail}: {players}.", jail=printed("Jail"),
                             players=words.listing(pub["jailed"])))
        if pub["posters"]:
            posters = words.listing(words.card(content, c) for c in pub["posters"])
            lines.append(msg("Wanted Posters at the {city_gate}: {cards}.", city_gate=printed("City Gate"),
                             cards=posters))
        for name, cards in pub["kept_posters"].items():
            kept = words.listing(words.card(content, c) for c in cards)
            lines.append(msg("{player} keeps {cards}.", player=name, cards=kept))
        return lines

    def scenario_setup(self, state: Any, content: Any, p: Any, key: str, value: Any) -> bool | None:
        """A scenario's `jailed = true` in [setup.<player>] (after `space`): locked up in the Jail."""
        if key != "jailed":
            return None
        if p.space != tables()["jail"]:
            raise ConfigError("jailed: only a character on the Jail space can be (set its space first)")
        if value:
            p.flags["city-jailed"] = 1
        return True

    def move_options(self, ctx: Ctx, i: int) -> list[Option] | None:
        """On the main board's City space: into the City by the Gate instead of rolling."""
        if ctx.player(i).space != tables()["main_city"]:
            return None
        return [option("city-enter", msg("go into the City by the {city_gate} instead of rolling",
                                         city_gate=printed("City Gate")))]

    def move_choice(self, ctx: Ctx, i: int, key: str) -> bool | None:
        if key != "city-enter":
            return None
        p = ctx.player(i)
        ctx.emit("city", msg("{player} enters the City by the {city_gate}.", city_gate=printed("City Gate"),
                             player=p.name), player=p.name,
                 space=tables()["entry"])
        place(ctx, i, tables()["entry"])
        return True

    def turn_start(self, ctx: Ctx, i: int) -> bool | None:
        """A turn in the City: the start-of-turn window (Spells cast before moving, cards used then:
        base-game.md §3), then the one-way move and the space; a jailed character rolls on the Jail
        chart instead of moving (city-and-dungeon.md: "instead of moving"), after the same start."""
        p = ctx.player(i)
        if not inside(ctx, p.space):
            return None
        if "city-jailed" in p.flags:
            ctx.push_all([("start-spells", i, {}), ("city-jail-roll", i, {})])
        else:
            ctx.push_all([("start-spells", i, {}), ("city-move", i, {}), ("encounter", i, {})])
        return True

    def start_options(self, ctx: Ctx, i: int) -> list[Option] | None:
        """Potions held, to drink before the move (a Toad can use no Object)."""
        p, cards = ctx.player(i), ctx.content.cards
        if p.toad:
            return None
        return [option(f"drink-{c}", msg("drink {card}: {text}", card=cards[c].name,
                                                    text=content_text(cards[c].text)))
                for c in dict.fromkeys(p.objects) if cards[c].hook == city_shops.POTION]

    def start_choice(self, ctx: Ctx, i: int, key: str) -> bool | None:
        """A Potion drunk: its effect, and it goes back to the Apothecary's pile."""
        p, card = ctx.player(i), key[len("drink-"):]
        if not key.startswith("drink-") or card not in p.objects:
            return None
        p.objects.remove(card)
        discard(ctx, card)
        c = ctx.content.cards[card]
        ctx.emit("city", msg("{player} drinks {card}.", player=p.name, card=c.name), player=p.name, card=card)
        ctx.push("effect", i, ops=c.effect, source=c.name)
        return True

    def adjudicate(self, ctx: Ctx, i: int, what: str, value: str) -> bool | Text | None:
        """`alice give bob:sword`, `alice give bob:gold:2`: a trade the moderator records."""
        return city_shops.give(ctx, i, value) if what == "give" else None

    def duel_won(self, ctx: Ctx, winner: int, loser: int) -> None:
        city_posters.alignment_bounty(ctx, winner, loser)

    def dying(self, ctx: Ctx, i: int) -> None:
        city_posters.drop(ctx, i)

    def invariants(self, state: Any, content: Any) -> list[str]:
        out = []
        if len(state.piles.get(city_posters.PILE, [])) > tables()["posters_faceup"]:
            out.append(f"more than {tables()['posters_faceup']} Wanted Posters at the City Gate")
        out += [f"{p.name}: jailed off the Jail space" for p in state.players
                if "city-jailed" in p.flags and p.space != tables()["jail"]]
        return out


PACK: Pack = City()
