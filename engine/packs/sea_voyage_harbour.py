"""Sea Voyage at the harbour: hiring a ship of the Royal Fleet, buying Naval Objects, setting sail.

The City's encounter offers the Harbour (the hooks `encounter_options` / `encounter_choice` in
engine/packs/sea_voyage.py); the answers to its questions are here.
"""
from __future__ import annotations

from engine.packs.sea_voyage_state import off_board, settings
from engine.rules.machine import Ctx, on_answer
from engine.state import Player, Prompt, option
from engine.text import content_text, msg


def fleet(ctx: Ctx, p: Player) -> list[str]:
    """Ship classes left in the Royal Fleet that the character can pay for."""
    cards = ctx.content.cards
    return [c for c in dict.fromkeys(ctx.s.decks.get("ship", [])) if cards[c].prop("price", 0) <= p.gold]


@on_answer("sea-hire", "at the harbour: a ship's slug to hire, or `city` (encounter the City instead)",
           default=("city",))
def hire(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    p = ctx.player(i)
    if key == "city":
        ctx.push("encounter-space", i)
        return
    card = ctx.content.cards[key]
    p.gold -= card.prop("price", 0)
    ctx.s.decks["ship"].remove(key)
    p.objects.append(key)
    p.flags["sea-rations"] = settings()["rations_start"]
    p.flags["sea-cargo"] = card.prop("hold", 0)
    ctx.emit("sea-hire", msg("{player} hires the {card} for {prop} gold and stows "
             "{flags} Rations and {flags2} Cargo.", player=who, card=card.name, prop=card.prop('price', 0),
             flags=p.flags['sea-rations'], flags2=p.flags['sea-cargo']), player=who, card=key)
    naval_shop(ctx, i)


def naval_shop(ctx: Ctx, i: int) -> None:
    p = ctx.player(i)
    cards = ctx.content.cards
    held = {c for c in p.objects if cards[c].prop("naval")}
    opts = [option(c,
                   msg("buy {card} for {prop} gold: {text}", card=cards[c].name, prop=cards[c].prop('price', 0),
                       text=content_text(cards[c].text)))
            for c in dict.fromkeys(ctx.s.decks.get("naval", []))
            if c not in held and cards[c].prop("price", 0) <= p.gold]
    ctx.ask(i, "sea-naval", msg("Buy Naval Objects for the voyage (at most one of each type)?"),
            opts + [option("sail", msg("buy nothing more: lift the anchor and set sail"))])


@on_answer("sea-naval", "Naval Objects for the voyage: a card slug to buy, or `sail`", default=("sail",))
def naval_bought(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    p = ctx.player(i)
    if key == "sail":
        set_sail(ctx, i)
        return
    card = ctx.content.cards[key]
    p.gold -= card.prop("price", 0)
    ctx.s.decks["naval"].remove(key)
    p.objects.append(key)
    ctx.emit("sea-buy", msg("{player} buys {card}.", player=who, card=card.name), player=who, card=key)
    naval_shop(ctx, i)


def set_sail(ctx: Ctx, i: int) -> None:
    p = ctx.player(i)
    p.flags["sea"] = "out"
    p.flags.pop("moved", None)
    off_board(p)
    ctx.emit("sea-sail", msg("{player} lifts the anchor and sails out of the harbour.", player=p.name), player=p.name)
