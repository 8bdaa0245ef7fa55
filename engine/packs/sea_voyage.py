"""Sea Voyage (sea-voyage.txt, a fan-made expansion): ships, Rations, Cargo, the Captain's Deck.

A character hires a ship at the harbour (the City space: a choice of its encounter) and sails
away from the board: while at sea its `space` is None, so nobody meets it there, no space or
region effect reaches it, and only effects on "all characters" or a Spell cast on it by name
do. Its own turns are turns at sea (the core asks `play_turn`): a Ration, a card from the
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
the ops this module adds. Decisions: docs/rules-decisions.md, Sea Voyage.
"""
from __future__ import annotations

import functools
import tomllib
from importlib import resources
from typing import Any

from engine import rng
from engine.ops import OPS, op, run as run_ops
from engine.state import Option
from engine.rules import stats
from engine.rules.items import discard, drop_excess
from engine.rules.machine import Ctx, fate_reroll, on_answer, task
from engine.rules.movement import place
from engine.rules.turn import lose_life

PACK = "sea-voyage"
TABLE = "captain"  # the pile of Captain's cards being resolved
VOYAGE_FLAGS = ("sea", "sea-rations", "sea-cargo", "sea-home", "sea-wizard", "sea-starving", "sea-starve",
                "sea-explore", "sea-prisoners", "sea-wreck-turn", "sea-rescued", "sea-fed", "sea-prison")


@functools.cache
def _file(name: str) -> dict:
    return tomllib.loads(resources.files("engine").joinpath("content", PACK, name).read_text(encoding="utf-8"))


def settings() -> dict:
    return _file("ships.toml")["voyage"]


def tables() -> dict:
    return _file("captain.toml")["table"]


def setup(ctx: Ctx, config) -> None:
    """Nothing to deal: the Royal Fleet, the Naval Objects, the Rafts and the two set-aside
    Followers are faceup supplies; the Captain's Deck is shuffled like any facedown deck."""


# -- reading the voyage ----------------------------------------------------------------

def phase(p) -> str | None:
    return p.flags.get("sea")


def at_sea(p) -> bool:
    return phase(p) in ("out", "home")


def flag(p, key: str) -> int:
    return p.flags.get(key, 0)


def bump(p, key: str, n: int) -> int:
    p.flags[key] = max(0, p.flags.get(key, 0) + n)
    return p.flags[key]


def ship_of(ctx: Ctx, p) -> str | None:
    return next((c for c in p.objects if ctx.content.cards[c].prop("ship")), None)


def hold(ctx: Ctx, p) -> int:
    ship = ship_of(ctx, p)
    return ctx.content.cards[ship].prop("hold", 0) if ship else 0


def ship_strength(ctx: Ctx, i: int) -> int:
    """The ship's basic Strength, plus Naval Objects, Followers and cards with a ship-Strength
    modifier, plus 1 for your own Strength (objects and followers counted) of 4-7 or 2 above
    7, plus 1 for the Pirate; less 1 for each turn starved since a mutiny."""
    p = ctx.player(i)
    cards = ctx.content.cards
    total = sum(cards[c].prop("ship_strength", 0) for c in p.objects + p.followers)
    own = stats.strength(ctx, p, battle=True)
    for at_least, bonus in reversed(settings()["own_strength_bonus"]):
        if own >= at_least:
            total += bonus
            break
    if p.character in settings()["pirate_characters"]:
        total += 1
    return max(0, total - flag(p, "sea-starve"))


def harbour(ctx: Ctx) -> str:
    return settings()["harbour"]


def clear_table(ctx: Ctx) -> None:
    """Captain's cards left unresolved (a wreck or a death ended the turn) are discarded."""
    for card in ctx.s.piles.pop(TABLE, []):
        discard(ctx, card)


def end_turn_if_current(ctx: Ctx, i: int) -> None:
    if ctx.s.current == i:
        ctx.end_turn()


# -- the harbour: hiring a ship (the City's encounter) ---------------------------------------

def fleet(ctx: Ctx, p) -> list[str]:
    """Ship classes left in the Royal Fleet that the character can pay for."""
    cards = ctx.content.cards
    return [c for c in dict.fromkeys(ctx.s.decks.get("ship", [])) if cards[c].prop("price", 0) <= p.gold]


def encounter_options(ctx: Ctx, i: int) -> list[Option] | None:
    """At the harbour, "go to the Harbour" joins the City's encounter choices (with any attacks
    on characters there, as the core offers them). None elsewhere: the core decides."""
    from engine.rules.encounter import others_here
    p = ctx.player(i)
    if p.space != harbour(ctx) or ctx.covered(p.space) or p.toad or phase(p) or not fleet(ctx, p):
        return None
    opts = [Option("encounter-space", f"encounter {ctx.space(p.space).name}"),
            Option("harbour", "go to the Harbour: hire a ship from the Royal Fleet and set sail")]
    others = others_here(ctx, i)
    opts += [Option(f"encounter-{ctx.name(j)}", f"attack {ctx.name(j)}") for j in others]
    for verb, ability in (("steal", "thief-steal"), ("beguile", "sorceress-beguile")):
        if stats.has_ability(ctx, p, ability):
            opts += [Option(f"{verb}-{ctx.name(j)}", f"try to {verb} from {ctx.name(j)} (4-6 succeeds)") for j in others]
    return opts


def encounter_choice(ctx: Ctx, i: int, key: str) -> bool | None:
    if key != "harbour":
        return None
    p = ctx.player(i)
    cards = ctx.content.cards
    opts = [Option(c, f"hire the {cards[c].name} for {cards[c].prop('price')} gold (ship Strength "
                      f"{cards[c].prop('ship_strength', 0)}, Cargo space {cards[c].prop('hold', 0)})") for c in fleet(ctx, p)]
    ctx.ask(i, "sea-hire", "The King lends you a ship of the Royal Fleet for gold. Which class do you hire?",
            opts + [Option("city", f"hire none: encounter {ctx.space(p.space).name} instead")])
    return True


@on_answer("sea-hire")
def hire(ctx: Ctx, prompt, key, arg, who) -> None:
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
    ctx.emit("sea-hire", f"{who} hires the {card.name} for {card.prop('price', 0)} gold and stows "
             f"{p.flags['sea-rations']} Rations and {p.flags['sea-cargo']} Cargo.", player=who, card=key)
    naval_shop(ctx, i)


def naval_shop(ctx: Ctx, i: int) -> None:
    p = ctx.player(i)
    cards = ctx.content.cards
    held = {c for c in p.objects if cards[c].prop("naval")}
    opts = [Option(c, f"buy {cards[c].name} for {cards[c].prop('price', 0)} gold: {cards[c].text}")
            for c in dict.fromkeys(ctx.s.decks.get("naval", [])) if c not in held and cards[c].prop("price", 0) <= p.gold]
    ctx.ask(i, "sea-naval", "Buy Naval Objects for the voyage (at most one of each type)?",
            opts + [Option("sail", "buy nothing more: lift the anchor and set sail")])


@on_answer("sea-naval")
def naval_bought(ctx: Ctx, prompt, key, arg, who) -> None:
    i = ctx.index(who)
    p = ctx.player(i)
    if key == "sail":
        set_sail(ctx, i)
        return
    card = ctx.content.cards[key]
    p.gold -= card.prop("price", 0)
    ctx.s.decks["naval"].remove(key)
    p.objects.append(key)
    ctx.emit("sea-buy", f"{who} buys {card.name}.", player=who, card=key)
    naval_shop(ctx, i)


def set_sail(ctx: Ctx, i: int) -> None:
    p = ctx.player(i)
    p.flags["sea"] = "out"
    p.flags.pop("moved", None)
    off_board(p)
    ctx.emit("sea-sail", f"{p.name} lifts the anchor and sails out of the harbour.", player=p.name)


# -- turns at sea --------------------------------------------------------------------------

def turn_start(ctx: Ctx, i: int) -> bool | None:
    """The core asks before moving: a character at sea, adrift or in prison plays this turn here."""
    p = ctx.player(i)
    where = phase(p)
    if not where:
        return None
    if where == "prison":
        left = bump(p, "sea-prison", -1)
        ctx.emit("sea-prison", f"{p.name} sits in prison ({left} more turn{'s' if left != 1 else ''}).", player=p.name)
        if not left:
            release(ctx, i)
    elif where == "wreck":
        ctx.push("sea-wreck-turn", i)
    else:
        ctx.push("sea-turn", i)
    return True


@task("sea-turn")
def sea_turn(ctx: Ctx, t) -> None:
    i = t.p
    p = ctx.player(i)
    clear_table(ctx)
    if flag(p, "sea-starving"):
        bump(p, "sea-starve", 1)
    ctx.push_all([("sea-eat", i, {}), ("sea-cards", i, {}), ("sea-end", i, {})])
    if phase(p) == "out":
        ctx.ask(i, "sea-course", f"You are at sea ({flag(p, 'sea-rations')} Rations, {flag(p, 'sea-cargo')} Cargo). "
                "Sail on, or turn back home (a die gives the turns home)?",
                [Option("sail-on", "sail on and draw from the Captain's Deck"),
                 Option("turn-home", "turn back home: roll a die for the turns the voyage home takes")])


@on_answer("sea-course")
def course(ctx: Ctx, prompt, key, arg, who) -> None:
    if key == "turn-home":
        turn_home(ctx, ctx.index(who))


def turn_home(ctx: Ctx, i: int) -> None:
    """Roll a die for the turns home (6 more after the travelling Wizard's teleport; Naval
    Objects with `homecoming` change it, never below 1). This turn is the first of them."""
    p = ctx.player(i)
    r = rng.die(ctx.s)
    extra = flag(p, "sea-wizard") + sum(ctx.content.cards[c].prop("homecoming", 0) for c in p.objects)
    n = max(1, r + extra)
    p.flags["sea"] = "home"
    p.flags["sea-home"] = n
    p.flags.pop("sea-wizard", None)
    ctx.emit("sea-home", f"{p.name} turns home and rolls {r}: the voyage home takes {n} turn{'s' if n != 1 else ''}.",
             player=p.name, dice=[r])


@task("sea-eat")
def eat(ctx: Ctx, t) -> None:
    p = ctx.player(t.p)
    if flag(p, "sea-rations"):
        left = bump(p, "sea-rations", -1)
        ctx.emit("sea-ration", f"{p.name}'s crew eats a Ration ({left} left).", player=p.name)
    elif flag(p, "sea-starving"):
        ctx.emit("sea-ration", f"{p.name}'s crew starves (ship Strength -{flag(p, 'sea-starve')}).", player=p.name)
    else:
        mutiny(ctx, t.p)


@task("sea-cards")
def sea_cards(ctx: Ctx, t) -> None:
    """Draw from the Captain's Deck: one card, or three to choose one from after meeting the
    Royal Exploration Vessel. Several cards met in one turn: monsters first."""
    i = t.p
    p = ctx.player(i)
    explore = p.flags.pop("sea-explore", None)
    drawn = [c for c in (ctx.draw("captain") for _ in range(3 if explore else 1)) if c]
    if not drawn:
        return
    ctx.s.piles.setdefault(TABLE, []).extend(drawn)
    cards = ctx.content.cards
    ctx.emit("sea-draw", f"{p.name} draws {', '.join(cards[c].name for c in drawn)} from the Captain's Deck.",
             player=p.name, cards=drawn)
    if len(drawn) > 1:
        ctx.ask(i, "sea-choose", "Which card do you encounter? (The others are discarded.)",
                [Option(c, cards[c].name) for c in dict.fromkeys(drawn)])
        return
    resolve_cards(ctx, i, drawn)


@on_answer("sea-choose")
def chosen(ctx: Ctx, prompt, key, arg, who) -> None:
    pile = ctx.s.piles[TABLE]
    others = list(pile)
    others.remove(key)
    for c in others:
        pile.remove(c)
        discard(ctx, c)
    resolve_cards(ctx, ctx.index(who), [key])


def resolve_cards(ctx: Ctx, i: int, cards: list[str]) -> None:
    order = sorted(cards, key=lambda c: ctx.content.cards[c].type != "enemy")  # monsters first (stable)
    ctx.push("sea-resolve", i, todo=order)


@task("sea-resolve")
def sea_resolve(ctx: Ctx, t) -> None:
    i, todo = t.p, list(t.a["todo"])
    p = ctx.player(i)
    while todo and todo[0] not in ctx.s.piles.get(TABLE, []):
        todo.pop(0)
    if not todo or not p.alive:
        return
    slug = todo.pop(0)
    card = ctx.content.cards[slug]
    ctx.push("sea-resolve", i, todo=todo)
    ctx.push("sea-discard", i, card=slug)
    if card.effect:
        run_ops(ctx, i, card.effect, {"source": card.name, "card": slug})
    elif card.prop("stand_in") == "none":
        ctx.emit("sea-card", f"{card.name}: nothing happens (a stand-in: the card's text is not known).", player=p.name)
    else:
        run_ops(ctx, i, [{"op": "moderator", "text": card.text}], {"source": card.name, "card": slug})


@task("sea-discard")
def sea_discard(ctx: Ctx, t) -> None:
    pile = ctx.s.piles.get(TABLE, [])
    if t.a["card"] in pile:
        pile.remove(t.a["card"])
        discard(ctx, t.a["card"])
    if not pile:
        ctx.s.piles.pop(TABLE, None)


@task("sea-end")
def sea_end(ctx: Ctx, t) -> None:
    p = ctx.player(t.p)
    if phase(p) == "home" and not bump(p, "sea-home", -1):
        arrive(ctx, t.p)


def arrive(ctx: Ctx, i: int) -> None:
    """Home with the ship: it goes back to the Royal Fleet; Naval Objects are kept; Pirates
    held are sold to the authorities; Rations and Cargo stay aboard the ship."""
    p = ctx.player(i)
    ship = ship_of(ctx, p)
    if ship:
        p.objects.remove(ship)
        discard(ctx, ship)
    sell_prisoners(ctx, i)
    clear_voyage(p)
    place(ctx, i, harbour(ctx))
    p.flags.pop("moved", None)  # arriving is the turn: no encounter
    drop_excess(ctx, i)
    ctx.emit("sea-arrive", f"{p.name} sails into the harbour at {ctx.space(p.space).name} and returns the ship.",
             player=p.name)


def clear_voyage(p) -> None:
    for key in VOYAGE_FLAGS:
        p.flags.pop(key, None)
    if str(p.flags.get("apart", "")).startswith("sea:"):
        del p.flags["apart"]


def off_board(p) -> None:
    """At sea, adrift or in prison: off the board and apart (ops.targets, revised4.shielded):
    no effect of the board, no other character's Spell, not the Crown's command reaches it."""
    p.space = None
    p.flags["apart"] = "sea:" + p.name


def sell_prisoners(ctx: Ctx, i: int) -> None:
    p = ctx.player(i)
    n = p.flags.pop("sea-prisoners", 0)
    if n:
        gold = n * settings()["prisoner_reward"]
        p.gold += gold
        ctx.emit("sea-prisoner", f"{p.name} hands the Pirate over to the authorities for {gold} gold.", player=p.name)


# -- mutiny, shipwreck, prison ------------------------------------------------------------

def mutiny(ctx: Ctx, i: int) -> None:
    """Out of Rations: the crew (Strength twice the turns home; the voyage home starts now if
    it had not) fights you in a normal battle; each human Follower joins it on a 5 or 6."""
    p = ctx.player(i)
    if phase(p) == "out":
        turn_home(ctx, i)
    crew = 2 * flag(p, "sea-home")
    human, loyal = settings()["human_followers"], settings()["loyal_followers"]
    for f in list(p.followers):
        if f not in human or f in loyal:
            continue
        r = rng.die(ctx.s)
        name = ctx.content.cards[f].name
        if r >= 5:
            p.followers.remove(f)
            discard(ctx, f)
            crew += ctx.content.cards[f].prop("strength", 0)
            ctx.emit("sea-mutiny", f"{name} rolls {r} and joins the mutiny.", player=p.name)
        else:
            ctx.emit("sea-mutiny", f"{name} rolls {r} and stays loyal.", player=p.name)
    ctx.emit("sea-mutiny", f"Out of Rations: {p.name}'s crew mutinies (Strength {crew}).", player=p.name)
    ctx.push("fight", i, name="the mutinous crew", strength=crew, evadable=False, ends_turn=False, damage=0,
             quest_kill=False, on_win="sea-mutiny-won", on_standoff="sea-mutiny-won", on_loss_task="sea-mutiny-lost")


@task("sea-mutiny-won")
def mutiny_won(ctx: Ctx, t) -> None:
    p = ctx.player(t.p)
    bump(p, "sea-home", 2)
    p.flags["sea-starving"] = 1
    ctx.emit("sea-mutiny", f"{p.name} puts down the mutiny; starving, the voyage home takes two turns longer "
             f"({flag(p, 'sea-home')} to go) and the ship weakens each turn.", player=p.name)


@task("sea-mutiny-lost")
def mutiny_lost(ctx: Ctx, t) -> None:
    ctx.emit("sea-mutiny", f"The crew abandons {ctx.name(t.p)}.", player=ctx.name(t.p))
    wreck(ctx, t.p)


def wreck(ctx: Ctx, i: int, rolls: bool = True, fed: bool = False) -> None:
    """Shipwrecked: the ship and every Naval Object are lost, a Raft is taken, each Follower
    and Object is lost on a 5 or 6 (not after the Pirate-Captain's duel), then a die gives the
    turns home. The turn ends."""
    p = ctx.player(i)
    cards = ctx.content.cards
    clear_table(ctx)
    for c in [c for c in p.objects if cards[c].prop("ship") or cards[c].prop("naval")]:
        p.objects.remove(c)
        discard(ctx, c)
    if rolls:
        for c in list(p.followers) + list(p.objects):
            r = rng.die(ctx.s)
            if r >= 5:
                (p.followers if c in p.followers else p.objects).remove(c)
                discard(ctx, c)
                ctx.emit("sea-wreck", f"{p.name} rolls {r}: {cards[c].name} is lost in the wreck.", player=p.name)
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
    ctx.emit("sea-wreck", f"{p.name} is shipwrecked{' (escaping with food for the way home)' if fed else ''} and "
             f"rolls {r}: {r} turn{'s' if r != 1 else ''} adrift on a Raft"
             + (f"; the Pirate{'s' if prisoners > 1 else ''} held escape" if prisoners else "") + ".",
             player=p.name, dice=[r])
    end_turn_if_current(ctx, i)


@task("sea-wreck-turn")
def wreck_turn(ctx: Ctx, t) -> None:
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
                ctx.emit("sea-rescue", f"{p.name} draws {c.name} and is rescued.", player=p.name, card=card)
            else:
                ctx.emit("sea-draw", f"{p.name} draws {c.name} and ignores it.", player=p.name, card=card)
    if not bump(p, "sea-home", -1):
        land(ctx, i)


def landing_space(ctx: Ctx, roll: int) -> str:
    """1: the harbour; otherwise `roll` spaces from the harbour toward the Chapel (the shorter
    way round the harbour's ring)."""
    home = harbour(ctx)
    if roll == 1:
        return home
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
    ctx.emit("sea-land", f"{p.name} rolls {r} and washes ashore at {ctx.space(dest).name}.", player=p.name, dice=[r],
             space=dest)
    ctx.push("encounter", i)  # the space's instructions apply


def prison(ctx: Ctx, i: int) -> None:
    p = ctx.player(i)
    cards = ctx.content.cards
    clear_table(ctx)
    for c in [c for c in p.objects if cards[c].prop("ship") or cards[c].prop("naval")]:
        p.objects.remove(c)
        discard(ctx, c)
    dice = rng.dice(ctx.s, 2)
    lost = p.gold
    p.gold = 0
    clear_voyage(p)
    p.flags.update({"sea": "prison", "sea-prison": sum(dice)})
    off_board(p)
    ctx.emit("sea-prison", f"{p.name} is dragged home to face the authorities, loses the ship, the Naval Objects and "
             f"{lost} gold, and rolls {'+'.join(map(str, dice))}: {sum(dice)} turns in prison.", player=p.name, dice=dice)
    end_turn_if_current(ctx, i)


def release(ctx: Ctx, i: int) -> None:
    p = ctx.player(i)
    clear_voyage(p)
    place(ctx, i, harbour(ctx))
    p.flags.pop("moved", None)
    drop_excess(ctx, i)
    ctx.emit("sea-prison", f"{p.name} is released at {ctx.space(p.space).name}.", player=p.name)


# -- ship-combat ---------------------------------------------------------------------------

@op("ship-combat")
def ship_combat(ctx, i, o, meta):
    """Each side rolls a die and adds its ship's Strength; the higher wins, a draw does
    nothing. No trophies, no Spells, no lives lost but by the card's own result."""
    p = ctx.player(i)
    if not at_sea(p):
        return
    foe = o["strength"]
    if foe == "die":
        foe = rng.die(ctx.s)
        ctx.emit("sea-combat", f"{o['name'].capitalize()} has Strength {foe}.", player=p.name)
    mine, theirs = rng.die(ctx.s), rng.die(ctx.s)
    base = ship_strength(ctx, i)
    a = {"name": o["name"], "foe": foe, "base": base, "roll": mine, "foe_roll": theirs, "win": o.get("win", []),
         "lose": o.get("lose", []), "attack": o.get("attack", False), "meta": {k: v for k, v in meta.items() if k != "o"}}
    ctx.push("ship-combat-resolve", i, **a)
    ctx.emit("sea-combat", f"Ship-combat: {p.name} rolls {mine} (ship Strength {base}, total {mine + base}); "
             f"{o['name']} rolls {theirs} (total {theirs + foe}).", player=p.name)
    if stats.fate(ctx, p) and mine + base <= theirs + foe:
        ctx.ask(i, "ship-reroll", f"Your ship totals {mine + base} against {theirs + foe}. Spend 1 fate to reroll your die?",
                [Option("reroll", "spend 1 fate and roll your die again"), Option("keep", "keep the result")])


@on_answer("ship-reroll")
def ship_reroll(ctx: Ctx, prompt, key, arg, who) -> None:
    a = ctx.s.stack[-1].a
    die = [a["roll"]]
    if fate_reroll(ctx, key, who, die):
        a["roll"] = die[0]


@task("ship-combat-resolve")
def ship_combat_resolve(ctx: Ctx, t) -> None:
    i, a = t.p, t.a
    p = ctx.player(i)
    mine, theirs = a["roll"] + a["base"], a["foe_roll"] + a["foe"]
    if mine == theirs:
        ctx.emit("sea-combat", f"{p.name}'s ship and {a['name']} part: nothing happens.", player=p.name)
        return
    won = mine > theirs
    ctx.emit("sea-combat", f"{p.name} {'wins' if won else 'loses'} the ship-combat against {a['name']} ({mine} to {theirs}).",
             player=p.name)
    if won and a.get("attack"):
        attacked(ctx, i)
    run_ops(ctx, i, a["win"] if won else a["lose"], a.get("meta", {}))


def attacked(ctx: Ctx, i: int) -> None:
    p = ctx.player(i)
    if bump(p, "sea-attacks", 1) >= 2 and not flag(p, "sea-wanted"):
        p.flags["sea-wanted"] = 1
        ctx.emit("sea-wanted", f"{p.name} has attacked two ships and is known as a Pirate: Wanted.", player=p.name)


# -- the other ops of the tables ------------------------------------------------------------

@op("sea-table")
def sea_table(ctx, i, o, meta):
    name = o["name"]
    title = {"ship-a": "Ship Table A", "ship-b": "Ship Table B", "attack-a": "Ship Attack Table A",
             "attack-b": "Ship Attack Table B", "isle-a": "Isle Table A", "isle-b": "Isle Table B"}.get(name, name)
    OPS["roll"](ctx, i, {"op": "roll", "table": tables()[name]}, {**{k: v for k, v in meta.items() if k != "o"}, "source": title})


@op("sea-fight")
def sea_fight(ctx, i, o, meta):
    """A normal combat at sea (battle): no evading, no trophy; the turn goes on."""
    outcome = {k: o.get(k, []) for k in ("win", "lose", "standoff")}
    ctx.push("fight", i, name=o["name"], strength=o["strength"], evadable=False, ends_turn=False,
             damage=o.get("damage", 1), quest_kill=False, on_win="sea-fight-win", on_standoff="sea-fight-standoff",
             on_loss_task="sea-fight-lose", on_win_args=outcome)


def _outcome(key: str):
    def handler(ctx: Ctx, t) -> None:
        run_ops(ctx, t.p, t.a.get(key, []), {})
    return handler


for _key in ("win", "lose", "standoff"):
    task(f"sea-fight-{_key}")(_outcome(_key))


@op("sea-wreck")
def sea_wreck(ctx, i, o, meta):
    if at_sea(ctx.player(i)):
        wreck(ctx, i, rolls=o.get("rolls", True), fed=o.get("fed", False))


@op("sea-prison")
def sea_prison(ctx, i, o, meta):
    if at_sea(ctx.player(i)):
        prison(ctx, i)


@op("sea-lose-all")
def lose_all(ctx, i, o, meta):
    p = ctx.player(i)
    what = o["what"]
    n = p.gold if what == "gold" else flag(p, "sea-cargo")
    if not n:
        return
    if what == "gold":
        p.gold = 0
    else:
        p.flags["sea-cargo"] = 0
    ctx.emit("sea-lose", f"{p.name} loses all {n} {'gold' if what == 'gold' else 'Cargo'}.", player=p.name)


def add_rations(ctx: Ctx, i: int, n: int) -> int:
    p = ctx.player(i)
    room = settings()["rations_max"] - flag(p, "sea-rations")
    n = max(0, min(n, room))
    if n:
        bump(p, "sea-rations", n)
        ctx.emit("sea-ration", f"{p.name} takes {n} Ration{'s' if n != 1 else ''} aboard ({flag(p, 'sea-rations')}).",
                 player=p.name)
    return n


@op("sea-rations")
def rations_op(ctx, i, o, meta):
    """Take up to n Rations, never above the maximum of 15 (always as many as fit)."""
    if at_sea(ctx.player(i)):
        add_rations(ctx, i, o.get("n", 1))


@op("sea-prisoner")
def take_prisoner(ctx, i, o, meta):
    p = ctx.player(i)
    bump(p, "sea-prisoners", 1)
    ctx.emit("sea-prisoner", f"{p.name} takes the Pirate prisoner, to sell at the next harbour.", player=p.name)


@op("sea-swap-ship")
def swap_ship(ctx, i, o, meta):
    p = ctx.player(i)
    ship, to = ship_of(ctx, p), o["to"]
    if not ship or ship == to or to not in ctx.s.decks.get("ship", []):
        return
    name = ctx.content.cards[to].name
    ctx.ask(i, "sea-swap", f"Exchange your ship for the Pirate's {name}, keeping all your Objects, Rations and Cargo?",
            [Option("swap", f"take the {name} (Cargo space {ctx.content.cards[to].prop('hold', 0)})"),
             Option("keep", "keep your ship")], to=to)


@on_answer("sea-swap")
def swapped(ctx: Ctx, prompt, key, arg, who) -> None:
    if key != "swap":
        return
    i = ctx.index(who)
    p = ctx.player(i)
    old, new = ship_of(ctx, p), prompt.data["to"]
    p.objects.remove(old)
    discard(ctx, old)
    ctx.s.decks["ship"].remove(new)
    p.objects.append(new)
    p.flags["sea-cargo"] = min(flag(p, "sea-cargo"), hold(ctx, p))
    ctx.emit("sea-swap", f"{who} sails on in the {ctx.content.cards[new].name}.", player=who)


@op("sea-explorer")
def explorer(ctx, i, o, meta):
    p = ctx.player(i)
    p.flags["sea-explore"] = 1
    ctx.emit("sea-explore", f"{p.name} exchanges news with a Royal Exploration Vessel: next turn, three cards to choose from.",
             player=p.name)


@op("sea-cathay")
def cathay(ctx, i, o, meta):
    """Each Cargo may buy one of: a Talisman, 4 gold, a Spell, a Hornet, a Foliant."""
    p = ctx.player(i)
    if not flag(p, "sea-cargo"):
        return
    cards = ctx.content.cards
    room = not stats.full(ctx, p, "hornet")
    opts = []
    if room and (ctx.s.decks.get("talisman") or ctx.s.discards.get("talisman")):
        opts.append(Option("talisman", "a Talisman"))
    opts.append(Option("gold", f"{o.get('gold', 4)} gold"))
    if not p.toad and len(p.spells) < stats.spell_limit(ctx, p) and (ctx.s.decks.get("spell") or ctx.s.discards.get("spell")):
        opts.append(Option("spell", "a Spell"))
    if room:
        opts += [Option(c, f"a {cards[c].name}") for c in dict.fromkeys(ctx.s.decks.get("cathay", []))]
    ctx.ask(i, "sea-cathay", f"The vessel from Cathay trades for your Cargo ({flag(p, 'sea-cargo')} aboard). What do you take for one Cargo?",
            opts + [Option("done", "trade no more")], gold=o.get("gold", 4))


@on_answer("sea-cathay")
def cathay_answer(ctx: Ctx, prompt, key, arg, who) -> None:
    if key == "done":
        return
    i = ctx.index(who)
    p = ctx.player(i)
    bump(p, "sea-cargo", -1)
    if key == "gold":
        p.gold += prompt.data["gold"]
        got = f"{prompt.data['gold']} gold"
    elif key == "spell":
        from engine.rules.setup import draw_spell
        draw_spell(ctx, i)
        got = "a Spell"
    else:
        card = ctx.draw(key) if key == "talisman" else key
        if key != "talisman":
            ctx.s.decks["cathay"].remove(key)
        p.objects.append(card)
        got = ctx.content.cards[card].name
    ctx.emit("sea-trade", f"{who} trades 1 Cargo for {got}.", player=who)
    cathay(ctx, i, {"gold": prompt.data["gold"]}, {})


@op("sea-buy-cargo")
def buy_cargo(ctx, i, o, meta):
    p = ctx.player(i)
    price = o.get("price", 1)
    if not at_sea(p) or flag(p, "sea-cargo") >= hold(ctx, p) or p.gold < price:
        return
    ctx.ask(i, "sea-buy-cargo", f"A coastal trader offers one Cargo for {price} gold. Buy it?",
            [Option("buy", f"buy 1 Cargo for {price} gold"), Option("no", "no")], price=price)


@on_answer("sea-buy-cargo")
def cargo_bought(ctx: Ctx, prompt, key, arg, who) -> None:
    if key == "buy":
        p = ctx.player(ctx.index(who))
        p.gold -= prompt.data["price"]
        bump(p, "sea-cargo", 1)
        ctx.emit("sea-trade", f"{who} buys 1 Cargo ({flag(p, 'sea-cargo')} aboard).", player=who)


@op("sea-sell")
def sell_cargo(ctx, i, o, meta):
    """Sell any number of Cargo at a price, or at a die roll less 1 ("die-1")."""
    p = ctx.player(i)
    n = flag(p, "sea-cargo")
    if not n:
        return
    price = o.get("price", 2)
    if price == "die-1":
        r = rng.die(ctx.s)
        price = r - 1
        ctx.emit("sea-trade", f"{p.name} rolls {r}: the traders pay {price} gold for each Cargo.", player=p.name, dice=[r])
        if price <= 0:
            return
    ctx.ask(i, "sea-sell", f"Sell Cargo at {price} gold each? ({n} aboard)",
            [Option(f"sell-{k}", f"sell {k} for {k * price} gold") for k in range(n, 0, -1)] + [Option("keep", "sell none")],
            price=price)


@on_answer("sea-sell")
def sold(ctx: Ctx, prompt, key, arg, who) -> None:
    if key == "keep":
        return
    p = ctx.player(ctx.index(who))
    k = int(key.split("-")[1])
    bump(p, "sea-cargo", -k)
    p.gold += k * prompt.data["price"]
    ctx.emit("sea-trade", f"{who} sells {k} Cargo for {k * prompt.data['price']} gold.", player=who)


@op("sea-buy-rations")
def buy_rations(ctx, i, o, meta):
    """At 1 gold a Ration, or (`bundle` = 3, the friendly tribe) up to 3 Rations for 1 gold."""
    p = ctx.player(i)
    price = o.get("price", 1)
    room = settings()["rations_max"] - flag(p, "sea-rations")
    if not at_sea(p) or room <= 0 or p.gold < price:
        return
    bundle = o.get("bundle")
    if bundle:
        k = min(bundle, room)
        ctx.ask(i, "sea-rations", f"Buy up to {bundle} Rations for {price} gold?",
                [Option(f"buy-{k}", f"{k} Ration{'s' if k != 1 else ''} for {price} gold"), Option("none", "buy none")],
                price=price, per=False)
        return
    most = min(room, p.gold // price)
    amounts = list(range(1, most + 1)) if most <= 10 else list(range(1, 10)) + [most]
    ctx.ask(i, "sea-rations", f"Buy Rations at {price} gold each? ({flag(p, 'sea-rations')} aboard, at most 15)",
            [Option(f"buy-{k}", f"{k} for {k * price} gold") for k in reversed(amounts)] + [Option("none", "buy none")],
            price=price, per=True)


@on_answer("sea-rations")
def rations_bought(ctx: Ctx, prompt, key, arg, who) -> None:
    if key == "none":
        return
    i = ctx.index(who)
    k = int(key.split("-")[1])
    cost = k * prompt.data["price"] if prompt.data["per"] else prompt.data["price"]
    ctx.player(i).gold -= cost
    ctx.emit("sea-trade", f"{who} pays {cost} gold for Rations.", player=who)
    add_rations(ctx, i, k)


@op("sea-plunder")
def plunder(ctx, i, o, meta):
    p = ctx.player(i)
    r = rng.die(ctx.s)
    p.gold += r
    ctx.emit("sea-plunder", f"{p.name} rolls {r} and plunders {r} gold.", player=p.name, dice=[r])


@op("sea-wizard")
def wizard(ctx, i, o, meta):
    """Teleported to unknown waters: 6 more to the homecoming roll (on the way home already:
    6 more turns)."""
    p = ctx.player(i)
    n = o.get("n", 6)
    bump(p, "sea-home" if phase(p) == "home" else "sea-wizard", n)
    ctx.emit("sea-wizard", f"A travelling Wizard teleports {p.name}'s ship to unknown waters: the way home is {n} turns longer.",
             player=p.name)


@op("sea-harbour")
def seaside_harbour(ctx, i, o, meta):
    sell_prisoners(ctx, i)


# -- death, the summary, scenarios, the moderator ---------------------------------------------

def dying(ctx: Ctx, i: int) -> None:
    """A character dying at sea or adrift goes down with all it held; one dying in prison
    leaves its things at the harbour. Either way it dies at the harbour space (kill needs one)."""
    p = ctx.player(i)
    where = phase(p)
    if not where:
        return None
    if where != "prison":
        clear_table(ctx)
        for c in p.objects + p.followers:
            discard(ctx, c)
        p.objects, p.followers, p.gold = [], [], 0
        ctx.emit("sea-lost", f"{p.name}'s body and belongings are lost at sea.", player=p.name)
    p.space = harbour(ctx)
    return None


def public(state, content) -> dict[str, Any]:
    """Everything about a voyage is public: ship, Rations, Cargo, turns home, Wanted."""
    ctx = Ctx(state, [])
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
    fleet = {}
    for c in state.decks.get("ship", []):
        fleet[c] = fleet.get(c, 0) + 1
    cards = content.cards
    return {"at_sea": voyages, "fleet": fleet,
            "out_of_play": [c for c in state.piles.get("box", []) if cards[c].deck == "captain"],
            "wanted": [p.name for p in state.players if p.flags.get("sea-wanted")],
            "attacks": {p.name: p.flags["sea-attacks"] for p in state.players if p.flags.get("sea-attacks")}}


def scenario_setup(state, content, p, key: str, value) -> bool | None:
    """A scenario's `voyage = { ship = "kogge", rations = 3, cargo = 1, phase = "home", home = 2,
    naval = [...], ... }` in [setup.<player>] (after `objects`): the character at sea."""
    if key != "voyage":
        return None
    names = {"rations": "sea-rations", "cargo": "sea-cargo", "home": "sea-home", "wizard": "sea-wizard",
             "starving": "sea-starving", "starve": "sea-starve", "explore": "sea-explore",
             "prisoners": "sea-prisoners", "wreck_turn": "sea-wreck-turn", "rescued": "sea-rescued", "fed": "sea-fed",
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


def adjudicate(ctx: Ctx, i: int, what: str, value: str) -> bool | str | None:
    """The moderator's words for a voyage: `alice rations -2`, `alice cargo +1`, `alice
    shipwreck 1` (`shipwreck duel`: no rolls, food for the way), `alice home 3` (turn home with
    3 turns to go), `alice sea-follower amazon-queen` (take her; her card leaves play)."""
    try:
        return _adjudicate(ctx, i, what, value)
    except ValueError:
        return f"{what} takes a number such as +1 or -2, not {value!r}"


def _adjudicate(ctx: Ctx, i: int, what: str, value: str) -> bool | str | None:
    p = ctx.player(i)
    if what in ("rations", "cargo"):
        if not at_sea(p):
            return f"{p.name} is not aboard a ship"
        if what == "rations" and int(value) > 0:
            add_rations(ctx, i, int(value))
        else:
            bump(p, f"sea-{what}", int(value))
            if what == "cargo":
                p.flags["sea-cargo"] = min(flag(p, "sea-cargo"), hold(ctx, p))
        return True
    if what == "shipwreck":
        if not at_sea(p):
            return f"{p.name} is not aboard a ship"
        wreck(ctx, i, rolls=value != "duel", fed=value == "duel")
        return True
    if what == "home":
        if not at_sea(p):
            return f"{p.name} is not aboard a ship"
        p.flags["sea"], p.flags["sea-home"] = "home", max(1, int(value))
        return True
    if what == "sea-follower":
        supply = ctx.s.decks.get("sea-follower", [])
        if value not in supply:
            return f"{value!r} is not set aside (taken already, or not a Sea Voyage Follower)"
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
            ctx.emit("sea-box", f"{ctx.content.cards[card].name} is removed from play.")
            return
