"""Cards that lie on the board outside the Adventure deck (The Cataclysm): Denizens visited on
their space and Terrain covering a space. They sit in `Game.piles` ("denizen@city",
"terrain@woods"; facedown Remnants, "remnant@ruins", are flipped in encounter.py); the ops
below are in docs/effects.md."""
from __future__ import annotations

from typing import Any

from engine.content import Content
from engine.ops import op, run
from engine.rules.items import discard
from engine.rules.machine import Ctx, on_answer, useful
from engine.state import Prompt, option
from engine.text import msg


def pile(ctx: Ctx, kind: str, space: str) -> list[str]:
    return ctx.s.piles.setdefault(f"{kind}@{space}", [])


def on_board(ctx: Ctx, kind: str) -> dict[str, list[str]]:
    """Space -> cards of that kind lying there (piles left empty are skipped)."""
    pre = kind + "@"
    return {k[len(pre):]: v for k, v in ctx.s.piles.items() if k.startswith(pre) and v}


# -- Denizens ---------------------------------------------------------------------

@op("denizen")
def denizen(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """Draw 1 Denizen onto the space, then visit 1 Denizen there."""
    space = ctx.player(i).space
    card = ctx.draw("denizen")
    if card:
        pile(ctx, "denizen", space).append(card)
        ctx.emit("denizen",
                 msg("{player} draws the Denizen {card}.", player=ctx.name(i), card=ctx.content.cards[card].name),
                 player=ctx.name(i), card=card)
    ask_visit(ctx, i, space)


@op("visit")
def visit(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """`name`: the Denizen of that name, wherever it is; `space`: a Denizen on that space
    (what "roll with the results of space X" becomes). Nothing there: nothing happens."""
    if o.get("name"):
        want = o["name"].lower()
        for space, cards in on_board(ctx, "denizen").items():
            card = next((c for c in cards if ctx.content.cards[c].name.lower() == want), None)
            if card:
                start_visit(ctx, i, card, space)
                return
        return
    if not ctx.covered(o["space"]):  # a space under Terrain is no longer on the board
        ask_visit(ctx, i, o["space"])


def ask_visit(ctx: Ctx, i: int, space: str) -> None:
    here = ctx.s.piles.get(f"denizen@{space}", [])
    if here:
        ctx.ask(i, "visit", msg("Which Denizen do you visit?"),
                [option(c,
                        msg("visit the {card}",
                            card=ctx.content.cards[c].name)) for c in dict.fromkeys(here)], space=space)


@on_answer("visit", "which Denizen on the space to visit: a card slug", default=())
def visit_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    start_visit(ctx, ctx.index(who), key, prompt.data["space"])


def start_visit(ctx: Ctx, i: int, card: str, space: str) -> None:
    """Visit it; it is discarded unless its trait names the visitor's space, or is "Any".
    Decided before its text runs, so a text that ends the turn cannot keep it there."""
    c = ctx.content.cards[card]
    ctx.emit("visit", msg("{player} visits the {card}.", player=ctx.name(i), card=c.name), player=ctx.name(i),
             card=card)
    trait = c.prop("trait")
    if trait != "Any" and not (trait and trait == ctx.space(ctx.player(i).space).name):
        ctx.s.piles[f"denizen@{space}"].remove(card)
        discard(ctx, card)
    run(ctx, i, c.effect or [{"op": "moderator", "text": c.text}], {"source": c.name, "card": card})


def discard_denizens(ctx: Ctx, space: str) -> None:
    for card in ctx.s.piles.pop(f"denizen@{space}", []):
        discard(ctx, card)


# -- Terrain ----------------------------------------------------------------------

def terrain_allowed(content: Content, space: str) -> bool:
    """Whether a Terrain card may be placed on a space (cataclysm.txt, Terrain Cards): never in the
    Inner Region (nor on the Crown); never where its board says `terrain = false` (the City's Jail
    and Town Square: cataclysm.txt, Terrain Cards and Other Expansions; a Realm space:
    lost-realms.txt). Any other space of an expansion board may take one, its last space too."""
    s = content.space(space)
    return s.ring not in ("inner", "crown") and s.terrain


@useful("terrain")
def terrain_useful(ctx: Ctx, i: int, o: dict[str, Any]) -> bool:
    """A Terrain can go there, and one of the type is left in the deck or lies on the board to be
    moved (onto one of its own type too: the old one goes back to the deck, the Denizens there are
    discarded, cataclysm.txt)."""
    space, kind = o.get("space") or ctx.player(i).space, o["type"]
    if not terrain_allowed(ctx.content, space):
        return False
    return kind in ctx.s.decks["terrain"] or any(cards == [kind] for cards in on_board(ctx, "terrain").values())


@op("terrain")
def terrain(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    """Place a Terrain card of type `type` on the character's space (`space`: another)."""
    space, kind = o.get("space") or ctx.player(i).space, o["type"]
    if not terrain_allowed(ctx.content, space):
        return  # "If an effect instructs a player to place a Terrain card where he cannot, he ignores that effect"
    if kind in ctx.s.decks["terrain"]:
        ctx.s.decks["terrain"].remove(kind)
        put_terrain(ctx, kind, space)
        return
    # None of that type left: one on the board is moved here (the player picks which), the one
    # lying here too (it is placed again: the Denizens here are discarded).
    sources = [s for s, cards in on_board(ctx, "terrain").items() if cards[0] == kind]
    if sources:
        ctx.ask(i, "terrain-move",
                msg("No {card} is left: which one do you move here?", card=ctx.content.cards[kind].name),
                [option(s,
                        msg("the one on {space}",
                            space=ctx.content.space(s).name)) for s in sources], terrain=kind, space=space)


@on_answer("terrain-move", "no Terrain of the kind is left: the space id of the one moved here", default=())
def terrain_move(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    card = lift_terrain(ctx, key)
    assert card is not None  # the options are the spaces a Terrain lies on
    put_terrain(ctx, card, prompt.data["space"])


@op("remove-terrain")
def remove_terrain(ctx: Ctx, i: int, o: dict[str, Any], meta: dict[str, Any]) -> None:
    card = lift_terrain(ctx, o.get("space") or ctx.player(i).space)
    if card:
        ctx.s.decks["terrain"].append(card)


def lift_terrain(ctx: Ctx, space: str) -> str | None:
    """Take the Terrain off a space; the Denizens there are discarded."""
    cards = ctx.s.piles.pop(f"terrain@{space}", None)
    if not cards:
        return None
    discard_denizens(ctx, space)
    ctx.emit("terrain",
             msg("The {card} leaves {space}.", card=ctx.content.cards[cards[0]].name,
                 space=ctx.content.space(space).name))
    return cards[0]


def put_terrain(ctx: Ctx, card: str, space: str) -> None:
    old = lift_terrain(ctx, space)
    if old:
        ctx.s.decks["terrain"].append(old)  # a replaced Terrain goes back to the deck
    discard_denizens(ctx, space)
    ctx.s.piles[f"terrain@{space}"] = [card]
    ctx.emit("terrain",
             msg("A {card} now covers {space}.", card=ctx.content.cards[card].name,
                 space=ctx.content.space(space).name),
             card=card, space=space)
