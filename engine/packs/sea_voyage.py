"""Sea Voyage (sea-voyage.txt, a fan-made expansion): ships, Rations, Cargo, the Captain's Deck.

A character hires a ship at the harbour (the City space: a choice of its encounter) and sails
away from the board: while at sea its `space` is None, so nobody meets it there, no space or
region effect reaches it, and only effects on "all characters" or a Spell cast on it by name
do. Its own turns are turns at sea (the core asks `turn_start`): a Ration, a card from the
Captain's Deck, and the way home. What a voyage holds lives in `Player.flags` (ints and
strings only, since flags are copied shallowly):

  sea             "out" (sailing), "home" (on the way back), "wreck" (on a Raft), "prison"
  sea-rations     Rations aboard (at most 15)        sea-cargo      Cargo aboard
  sea-home        turns still to sail home           sea-wizard     added to the homecoming roll
  sea-starving    1 after a mutiny put down          sea-starve     ship Strength lost since then
  sea-explore     1: next turn draw three, encounter one
  sea-prisoners   Pirates held, sold at the next harbour
  sea-wreck-turn  turns adrift so far                sea-rescued / sea-fed   no more lives lost
  sea-prison      turns still to sit in prison
  sea-attacks     ships successfully attacked (kept after a voyage); sea-wanted  1: "Wanted"

Cards: the ship, Naval Objects and a Raft are Objects outside the carrying limit; Captain's
cards being resolved lie in the pile "captain"; a card that leaves play goes to the pile "box".
The four tables and the card list are data (engine/content/sea-voyage/captain.toml), written in
the ops the pack adds. Decisions: docs/rules-decisions.md, Sea Voyage.

This module holds the pack, `SeaVoyage` (at the end), whose methods are its hooks (`setup`,
`encounter_options` / `encounter_choice`, `turn_start`, `dying`, `public`, `scenario_setup`,
`adjudicate`), and imports the topic modules, which register their tasks, answers and ops on import:

  sea_voyage_state.py        data files, voyage flags, the ship; steps every topic takes
  sea_voyage_harbour.py      hiring a ship, Naval Objects, setting sail
  sea_voyage_turns.py        a turn at sea, the Captain's Deck, mutiny, arriving home
  sea_voyage_wreck_prison.py shipwreck, the Raft, washing ashore; prison
  sea_voyage_combat.py       ship-combat and a normal combat at sea
  sea_voyage_trade.py        the tables' trading ops: Cathay, Cargo, Rations
  sea_voyage_tables.py       the tables' other ops

engine/registry.py imports this module (and so its topic modules) before any game runs.
"""
from __future__ import annotations

from typing import Any

from engine import words
from engine.packs import sea_voyage_combat, sea_voyage_tables, sea_voyage_trade  # noqa: F401  (register their ops)
from engine.packs.base import Pack
from engine.packs.sea_voyage_harbour import fleet

# settings, resolve_cards and landing_space are not used here: sea_voyage.<name> reaches them (tests)
from engine.packs.sea_voyage_state import (  # noqa: F401
    TABLE,
    add_rations,
    at_sea,
    bump,
    clear_table,
    flag,
    harbour,
    hold,
    off_board,
    phase,
    settings,
    ship_of,
    ship_strength,
)
from engine.packs.sea_voyage_turns import resolve_cards  # noqa: F401
from engine.packs.sea_voyage_wreck_prison import landing_space, release, wreck  # noqa: F401
from engine.rules.encounter import others_here, steal_options
from engine.rules.items import discard
from engine.rules.machine import Ctx
from engine.state import Option, option
from engine.text import Msg, Text, msg

# -- the moderator's words (the hook `adjudicate`) ------------------------------------------

def _adjudicate(ctx: Ctx, i: int, what: str, value: str) -> bool | Text | None:
    p = ctx.player(i)
    if what in ("rations", "cargo"):
        if not at_sea(p):
            return msg("{player} is not aboard a ship", player=p.name)
        if what == "rations" and int(value) > 0:
            add_rations(ctx, i, int(value))
        else:
            bump(p, f"sea-{what}", int(value))
            if what == "cargo":
                p.flags["sea-cargo"] = min(flag(p, "sea-cargo"), hold(ctx, p))
        return True
    if what == "shipwreck":
        if not at_sea(p):
            return msg("{player} is not aboard a ship", player=p.name)
        wreck(ctx, i, rolls=value != "duel", fed=value == "duel")
        return True
    if what == "home":
        if not at_sea(p):
            return msg("{player} is not aboard a ship", player=p.name)
        p.flags["sea"], p.flags["sea-home"] = "home", max(1, int(value))
        return True
    if what == "sea-follower":
        supply = ctx.s.decks.get("sea-follower", [])
        if value not in supply:
            return msg("{card!r} is not set aside (taken already, or not a Sea Voyage Follower)", card=value)
        supply.remove(value)
        p.followers.append(value)
        leave_play(ctx, ctx.content.cards[value].prop("from_card"))
        return True
    return None


def leave_play(ctx: Ctx, card: str | None) -> None:
    """The Captain's card whose Follower was taken is removed from play (to the box)."""
    s = ctx.s
    for pile in (s.piles.get(TABLE, []), s.discards.get("captain", []), s.decks.get("captain", [])):
        if card in pile:
            pile.remove(card)
            s.piles.setdefault("box", []).append(card)
            ctx.emit("sea-box", msg("{card} is removed from play.", card=ctx.content.cards[card].name))
            return


class SeaVoyage(Pack):
    name = "sea-voyage"
    title = "Sea Voyage (fan-made)"
    props = frozenset({"ship", "ship_strength", "hold", "naval", "homecoming", "rescue", "sea_raft", "loyal",
                       "from_card", "stand_in"})
    tables = frozenset({("ships.toml", "voyage"), ("captain.toml", "table")})

    def setup(self, ctx: Ctx, config: Any) -> None:
        """Nothing to deal: the Royal Fleet, the Naval Objects, the Rafts and the two set-aside
        Followers are faceup supplies; the Captain's Deck is shuffled like any facedown deck."""

    def encounter_options(self, ctx: Ctx, i: int) -> list[Option] | None:
        """At the harbour, "go to the Harbour" joins the City's encounter choices (with any attacks
        on characters there, as the core offers them). None elsewhere: the core decides."""
        p = ctx.player(i)
        if p.space != harbour(ctx) or ctx.covered(p.space) or p.toad or phase(p) or not fleet(ctx, p):
            return None
        opts = [option("encounter-space", msg("encounter {space}", space=ctx.space(p.space).name)),
                option("harbour", msg("go to the Harbour: hire a ship from the Royal Fleet and set sail"))]
        others = others_here(ctx, i)
        opts += [option(f"encounter-{ctx.name(j)}", msg("attack {player}", player=ctx.name(j))) for j in others]
        return opts + steal_options(ctx, i, others)

    def encounter_choice(self, ctx: Ctx, i: int, key: str) -> bool | None:
        if key != "harbour":
            return None
        p = ctx.player(i)
        cards = ctx.content.cards
        opts = [option(c, msg("hire the {card} for {prop} gold (ship Strength "
                          "{prop2}, Cargo space {prop3})", card=cards[c].name, prop=cards[c].prop('price'),
                          prop2=cards[c].prop('ship_strength', 0), prop3=cards[c].prop('hold', 0)))
                for c in fleet(ctx, p)]
        ctx.ask(i, "sea-hire", msg("The King lends you a ship of the Royal Fleet for gold. Which class do you hire?"),
                opts + [option("city", msg("hire none: encounter {space} instead", space=ctx.space(p.space).name))])
        return True

    def turn_start(self, ctx: Ctx, i: int) -> bool | None:
        """The core asks before moving: a character at sea, adrift or in prison plays this turn here."""
        p = ctx.player(i)
        where = phase(p)
        if not where:
            return None
        if where == "prison":
            left = bump(p, "sea-prison", -1)
            ctx.emit("sea-prison",
                     msg("{player} sits in prison ({left} more turn{s}).", player=p.name, left=left,
                         s='s' if left != 1 else ''),
                     player=p.name)
            if not left:
                release(ctx, i)
        elif where == "wreck":
            ctx.push("sea-wreck-turn", i)
        else:
            ctx.push("sea-turn", i)
        return True

    def dying(self, ctx: Ctx, i: int) -> None:
        """A character dying at sea or adrift goes down with all it held; one dying in prison
        leaves its things at the harbour. Either way it dies at the harbour space (kill needs one)."""
        p = ctx.player(i)
        where = phase(p)
        if not where:
            return
        if where != "prison":
            clear_table(ctx)
            for c in p.objects + p.followers:
                discard(ctx, c)
            p.objects, p.followers, p.gold = [], [], 0
            ctx.emit("sea-lost", msg("{player}'s body and belongings are lost at sea.", player=p.name), player=p.name)
        p.space = harbour(ctx)
        return

    def public(self, ctx: Ctx) -> dict[str, Any]:
        """Everything about a voyage is public: ship, Rations, Cargo, turns home, Wanted."""
        state, content = ctx.s, ctx.content
        voyages: dict[str, Any] = {}
        for i, p in enumerate(state.players):
            where = phase(p)
            if not where:
                continue
            v: dict[str, Any] = {"phase": where}
            if where in ("out", "home"):
                v.update(ship=ship_of(ctx, p), ship_strength=ship_strength(ctx, i), rations=flag(p, "sea-rations"),
                         cargo=flag(p, "sea-cargo"), hold=hold(ctx, p))
            if where in ("home", "wreck"):
                v["turns_home"] = flag(p, "sea-home")
            for key in ("sea-starving", "sea-prisoners", "sea-rescued", "sea-prison", "sea-explore"):
                if flag(p, key):
                    v[key[4:]] = flag(p, key)
            voyages[p.name] = v
        fleet: dict[str, int] = {}
        for c in state.decks.get("ship", []):
            fleet[c] = fleet.get(c, 0) + 1
        cards = content.cards
        return {"at_sea": voyages, "fleet": fleet,
                "out_of_play": [c for c in state.piles.get("box", []) if cards[c].deck == "captain"],
                "wanted": [p.name for p in state.players if p.flags.get("sea-wanted")],
                "attacks": {p.name: p.flags["sea-attacks"] for p in state.players if p.flags.get("sea-attacks")}}

    def public_text(self, ctx: Ctx) -> list[Msg]:
        pub, content = self.public(ctx), ctx.content
        lines = [_voyage(content, name, v) for name, v in pub["at_sea"].items()]
        ships = [c for c, n in pub["fleet"].items() for _ in range(n)]
        lines.append(msg("The Royal Fleet lends: {ships}.", ships=words.counted(content, ships)) if ships
                     else msg("The Royal Fleet has no ship left to lend."))
        if pub["wanted"]:
            lines.append(msg("Wanted as Pirates: {players}.", players=words.listing(pub["wanted"])))
        if pub["attacks"]:
            attacked = words.listing(msg("{player} {n}", player=name, n=n) for name, n in pub["attacks"].items())
            lines.append(msg("Ships attacked: {attacked}.", attacked=attacked))
        if pub["out_of_play"]:
            lines.append(msg("Out of play: {cards}.", cards=words.counted(content, pub["out_of_play"])))
        return lines

    def scenario_setup(self, state: Any, content: Any, p: Any, key: str, value: Any) -> bool | None:
        """A scenario's `voyage = { ship = "kogge", rations = 3, cargo = 1, phase = "home", home = 2,
        naval = [...], ... }` in [setup.<player>] (after `objects`): the character at sea."""
        if key != "voyage":
            return None
        names = {"rations": "sea-rations", "cargo": "sea-cargo", "home": "sea-home", "wizard": "sea-wizard",
                 "starving": "sea-starving", "starve": "sea-starve", "explore": "sea-explore",
                 "prisoners": "sea-prisoners", "wreck_turn": "sea-wreck-turn", "rescued": "sea-rescued",
                 "fed": "sea-fed",
                 "prison": "sea-prison", "attacks": "sea-attacks", "wanted": "sea-wanted"}
        for card in ([value["ship"]] if value.get("ship") else []) + list(value.get("naval", [])) + \
                (["sea-raft"] if value.get("phase") == "wreck" else []):
            supply = state.decks[content.cards[card].deck]
            if card not in supply:
                raise ValueError(f"voyage: no {card!r} left in its supply")
            supply.remove(card)
            p.objects.append(card)
        for k, v in value.items():
            if k in names:
                p.flags[names[k]] = int(v)
            elif k not in ("ship", "naval", "phase"):
                raise ValueError(f"voyage: unknown key {k!r}")
        if value.get("phase"):
            p.flags["sea"] = value["phase"]
            off_board(p)
        return True

    def adjudicate(self, ctx: Ctx, i: int, what: str, value: str) -> bool | Text | None:
        """The moderator's words for a voyage: `alice rations -2`, `alice cargo +1`, `alice
        shipwreck 1` (`shipwreck duel`: no rolls, food for the way), `alice home 3` (turn home with
        3 turns to go), `alice sea-follower amazon-queen` (take her; her card leaves play)."""
        try:
            return _adjudicate(ctx, i, what, value)
        except ValueError:
            return msg("{what} takes a number such as +1 or -2, not {value!r}", what=what, value=value)


def _voyage(content: Any, name: str, v: dict[str, Any]) -> Msg:
    """One character's voyage, as the summary's `at_sea` holds it, in words."""
    if v["phase"] == "prison":
        n = v.get("prison", 0)
        return msg("{player} sits in prison, {n} turn(s) to go.", player=name, n=n)
    if v["phase"] == "wreck":
        n = v.get("turns_home", 0)
        return msg("{player} is shipwrecked, adrift on a Raft, {n} turn(s) from home.", player=name, n=n)
    ship, strength = words.card(content, v["ship"]), v["ship_strength"]
    rations, cargo, hold = v["rations"], v["cargo"], v["hold"]
    if v["phase"] == "home":
        n = v["turns_home"]
        return msg("{player} sails home on the {ship} (ship Strength {strength}): {rations} Rations, {cargo} of "
                   "{hold} Cargo, {n} turn(s) from home.", player=name, ship=ship, strength=strength,
                   rations=rations, cargo=cargo, hold=hold, n=n)
    return msg("{player} sails out on the {ship} (ship Strength {strength}): {rations} Rations, {cargo} of "
               "{hold} Cargo.", player=name, ship=ship, strength=strength, rations=rations, cargo=cargo, hold=hold)


PACK: Pack = SeaVoyage()
