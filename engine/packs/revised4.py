"""Revised 4th Edition cards whose text is more than data (`hook = "..."` in the content): the
base game's pack, `Revised4`, first in every game's hooks (engine/hooks.py), so the base game's
cards and every expansion's change the core through the one hook system.

Each hook names the cards it serves. Card data says which hook a card uses; `HOOKED` is the list
`pbem rules coverage` counts as automated.
"""
from __future__ import annotations

from typing import Any, Literal

from engine import words
from engine.packs.base import Pack
from engine.rules import stats
from engine.rules.encounter import draw_adventure, wander
from engine.rules.items import discard, gain_object
from engine.rules.machine import Ctx, on_answer, task
from engine.state import Option, Prompt, Task, option
from engine.text import msg, printed

RAFT_SPACES = ("Woods", "Forest")  # base-cards.md §2: the Axe builds a Raft "in Woods or Forest"
HOOKED = {"alchemist", "hag", "gnome", "mercenary", "poltergeist", "amulet", "cross", "orb-of-knowledge",
          "potion-of-strength", "runesword", "build-raft", "wanders"}


@task("offer-redraw")
def offer_redraw(ctx: Ctx, t: Task) -> None:
    drawn = [c for c in t.a["drawn"] if c in ctx.s.spaces.get(ctx.player(t.p).space, [])]
    if drawn:
        ctx.ask(t.p, "redraw", msg("You may discard one card you drew and draw another."),
                [option(c, msg("discard {card}", card=ctx.content.cards[c].name)) for c in dict.fromkeys(drawn)]
                + [option("keep", msg("keep them all"))])


@on_answer("redraw", "discard one card just drawn (its slug) and draw another, or `keep`", default=("keep",))
def redraw(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    if key == "keep":
        return
    i = ctx.index(who)
    space = ctx.player(i).space
    ctx.s.spaces[space].remove(key)
    discard(ctx, key)
    new = draw_adventure(ctx)
    if new:
        ctx.s.spaces[space].append(new)
        ctx.emit("draw",
                 msg("{player} discards {card} and draws {card2}.", player=who, card=ctx.content.cards[key].name,
                     card2=ctx.content.cards[new].name),
                 player=who)
        if ctx.content.cards[new].hook == "wanders":  # the Hermit moves off at once
            wander(ctx, i, new)



class Revised4(Pack):
    """The base game's cards: asked first, in every game, beside the game's packs."""
    name = "revised4"
    title = "Talisman"
    card_hooks = frozenset(HOOKED)
    # Object and Follower properties the rules read (engine/rules/stats.py, items.py, combat.py,
    # encounter.py: the Hermit's wander table)
    props = frozenset({"weapon", "armour", "strength", "craft", "carry", "raft", "gold", "talisman", "forbid",
                       "price", "market_price", "protects", "one_use", "evade", "target_effect", "wander"})
    regions = {"outer": "Outer Region", "middle": "Middle Region", "inner": "Inner Region", "crown": "Crown"}

    # -- fights ------------------------------------------------------------------------------
    def fight_options(self, ctx: Ctx, i: int, a: dict[str, Any]) -> list[Option] | None:
        p = ctx.player(i)
        opts = []
        battle = a.get("strength") is not None
        if battle and stats.holds(ctx, i, "potion-of-strength") and not a.get("potion"):
            opts.append(option("drink-potion", msg("drink the Potion of Strength (+2 Strength)")))
        if battle and stats.holds(ctx, i, "mercenary") and p.gold >= 1 and not a.get("mercenary"):
            opts.append(option("pay-mercenary", msg("pay the {mercenary} 1 gold (+3 Strength)",
                                                    mercenary=printed("Mercenary"))))
        cards = [ctx.content.cards[c] for c in a.get("cards", [])]
        if cards and all(c.kind == "spirit" for c in cards) and (
                stats.holds(ctx, i, "cross") or stats.has_ability(ctx, p, "priest-destroy-spirits")):
            opts.append(option("banish", msg("destroy {a} without a fight (no trophy)", a=words.foe(ctx.content, a))))
        return opts

    def fight_choice(self, ctx: Ctx, i: int, key: str, a: dict[str, Any]) -> Literal["again", "over"] | None:
        """The Potion and the Mercenary add to the pending roll's args; the Cross (or the Priest)
        destroys a Spirit without a fight."""
        p = ctx.player(i)
        if key == "drink-potion":
            card = stats.holds(ctx, i, "potion-of-strength")
            assert card is not None  # offered only to its holder
            p.objects.remove(card)
            discard(ctx, card)
            a["bonus"] = a.get("bonus", 0) + 2
            a["potion"] = True
            ctx.emit("potion", msg("{player} drinks the {potion}.", player=p.name,
                                   potion=printed("Potion of Strength")), player=p.name)
            return "again"
        if key == "pay-mercenary":
            p.gold -= 1
            a["bonus"] = a.get("bonus", 0) + 3
            a["mercenary"] = True
            ctx.emit("mercenary", msg("{player} pays the {mercenary} to fight alongside.",
                                      mercenary=printed("Mercenary"), player=p.name), player=p.name)
            return "again"
        if key == "banish":
            assert p.space is not None
            for c in a.get("cards", []):
                ctx.s.spaces[p.space].remove(c)
                discard(ctx, c)
            ctx.emit("banish", msg("{player} destroys {a}.", player=p.name, a=words.foe(ctx.content, a)), player=p.name)
            return "over"
        return None

    def life_taken(self, ctx: Ctx, winner: int, battle: bool) -> None:
        """Runesword: a life taken in battle with it is gained."""
        if battle and stats.holds(ctx, winner, "runesword") and not stats.healing_barred(ctx):  # Pandora's Box
            ctx.player(winner).life += 1
            ctx.emit("runesword", msg("{player}'s Runesword drinks the life taken.", player=ctx.name(winner)),
                     player=ctx.name(winner))

    # -- taking and keeping cards --------------------------------------------------------------
    def may_take(self, ctx: Ctx, i: int, card: str) -> bool | None:
        p = ctx.player(i)
        c = ctx.content.cards[card]
        if c.type == "follower" and "hag" in p.followers and c.hook != "hag":
            return False  # the Hag's curse: no new Followers
        return not (c.hook == "mercenary" and p.gold < 1)  # he follows only those who hire him

    def taken(self, ctx: Ctx, i: int, card: str) -> None:
        p = ctx.player(i)
        hook = ctx.content.cards[card].hook
        if hook == "hag":
            for f in [f for f in p.followers if f != card]:
                p.followers.remove(f)
                discard(ctx, f)
                ctx.emit("hag",
                         msg("The Hag drives {card} away from {player}.", card=ctx.content.cards[f].name,
                             player=p.name), player=p.name)
        elif hook == "mercenary":
            p.gold -= 1
            ctx.emit("mercenary", msg("{player} hires the {mercenary} for 1 gold.", mercenary=printed("Mercenary"),
                                      player=p.name), player=p.name)

    def crossed_river(self, ctx: Ctx, i: int) -> None:
        """The Poltergeist stays behind when its host crosses the Storm River."""
        p = ctx.player(i)
        if "poltergeist" in p.followers:
            p.followers.remove("poltergeist")
            discard(ctx, "poltergeist")
            ctx.emit("poltergeist", msg("The Poltergeist leaves {player} at the river.", player=p.name), player=p.name)

    def shielded(self, ctx: Ctx, j: int) -> bool | None:
        """The Amulet: no Spell affects its bearer (the Command Spell is not a card). Who is out of
        reach (the Timescape) is engine/rules/reach.py's to say."""
        return stats.holds(ctx, j, "amulet") is not None

    def portal_dice(self, ctx: Ctx, i: int, attr: str) -> int | None:
        """The Gnome opens the Portal by Craft with one die."""
        return 1 if attr == "craft" and stats.holds(ctx, i, "gnome") else None

    # -- start of turn ---------------------------------------------------------------------------
    def start_options(self, ctx: Ctx, i: int) -> list[Option] | None:
        p = ctx.player(i)
        opts = []
        if p.objects and stats.holds(ctx, i, "alchemist"):
            opts.append(option("use-alchemist", msg("have the Alchemist turn Objects into gold")))
        if (p.space and ctx.space(p.space).name in RAFT_SPACES and stats.holds(ctx, i, "build-raft")
                and "raft" in ctx.s.decks["purchase"] and not stats.has_prop(ctx, p, "raft")):
            opts.append(option("build-raft", msg("build a Raft with your Axe (use it on a later move)")))
        return opts

    def start_choice(self, ctx: Ctx, i: int, key: str) -> bool | None:
        p = ctx.player(i)
        if key == "use-alchemist":
            ctx.push("effect", i, ops=[{"op": "sell-objects", "price": 1}], source="Alchemist")
        elif key == "build-raft":
            ctx.s.decks["purchase"].remove("raft")
            gain_object(ctx, i, "raft")
            ctx.emit("raft", msg("{player} builds a Raft.", player=p.name), player=p.name)
        else:
            return None
        return True

    # -- drawing -----------------------------------------------------------------------------------
    def redraw_allowed(self, ctx: Ctx, i: int) -> bool | None:
        """Orb of Knowledge and the Prophetess: discard one drawn card and draw a replacement."""
        p = ctx.player(i)
        return stats.holds(ctx, i, "orb-of-knowledge") is not None or stats.has_ability(ctx, p, "prophetess-redraw")


PACK: Pack = Revised4()
