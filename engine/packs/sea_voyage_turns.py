"""Sea Voyage: a turn at sea (the hook `turn_start` in engine/packs/sea_voyage.py pushes it).

Sail on or turn home, a Ration for the crew (or, out of Rations, a mutiny), a card from the
Captain's Deck (resolved by its ops), and a turn nearer home; arriving at the harbour.
"""
from __future__ import annotations

from engine import rng
from engine.ops import run as run_ops
from engine.packs.sea_voyage_state import (
    TABLE,
    bump,
    clear_table,
    clear_voyage,
    flag,
    harbour,
    phase,
    sell_prisoners,
    settings,
    ship_of,
)
from engine.packs.sea_voyage_wreck_prison import wreck
from engine.rules.items import discard, drop_excess
from engine.rules.machine import Ctx, on_answer, task
from engine.rules.movement import place
from engine.state import Option, Prompt, Task, option
from engine.text import msg


@task("sea-turn")
def sea_turn(ctx: Ctx, t: Task) -> None:
    i = t.p
    p = ctx.player(i)
    clear_table(ctx)
    if flag(p, "sea-starving"):
        bump(p, "sea-starve", 1)
    ctx.push_all([("sea-eat", i, {}), ("sea-cards", i, {}), ("sea-end", i, {})])
    if phase(p) == "out":
        ctx.ask(i, "sea-course", msg("You are at sea ({flag} Rations, {flag2} Cargo). "
                "Sail on, or turn back home (a die gives the turns home)?", flag=flag(p, 'sea-rations'),
                flag2=flag(p, 'sea-cargo')),
                [option("sail-on", msg("sail on and draw from the Captain's Deck")),
                 option("turn-home", msg("turn back home: roll a die for the turns the voyage home takes"))])


@on_answer("sea-course", "at sea: `sail-on` (draw from the Captain's Deck) or `turn-home`", default=("turn-home",))
def course(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
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
    ctx.emit("sea-home",
             msg("{player} turns home and rolls {r}: the voyage home takes {n} turn{s}.", player=p.name, r=r, n=n,
                 s='s' if n != 1 else ''),
             player=p.name, dice=[r])


@task("sea-eat")
def eat(ctx: Ctx, t: Task) -> None:
    p = ctx.player(t.p)
    if flag(p, "sea-rations"):
        left = bump(p, "sea-rations", -1)
        ctx.emit("sea-ration", msg("{player}'s crew eats a Ration ({left} left).", player=p.name, left=left),
                 player=p.name)
    elif flag(p, "sea-starving"):
        ctx.emit("sea-ration",
                 msg("{player}'s crew starves (ship Strength -{flag}).", player=p.name,
                     flag=flag(p, 'sea-starve')), player=p.name)
    else:
        mutiny(ctx, t.p)


@task("sea-cards")
def sea_cards(ctx: Ctx, t: Task) -> None:
    """Draw from the Captain's Deck: one card, or three to choose one from after meeting the
    Royal Exploration Vessel. Several cards met in one turn: monsters first."""
    i = t.p
    p = ctx.player(i)
    explore = p.flags.pop("sea-explore", None)
    drawn = [c for c in [ctx.draw("captain") for _ in range(3 if explore else 1)] if c]
    if not drawn:
        return
    ctx.s.piles.setdefault(TABLE, []).extend(drawn)
    cards = ctx.content.cards
    ctx.emit("sea-draw",
             msg("{player} draws {names} from the Captain's Deck.", player=p.name,
                 names=', '.join(cards[c].name for c in drawn)),
             player=p.name, cards=drawn)
    if len(drawn) > 1:
        ctx.ask(i, "sea-choose", msg("Which card do you encounter? (The others are discarded.)"),
                [Option(c, cards[c].name) for c in dict.fromkeys(drawn)])
        return
    resolve_cards(ctx, i, drawn)


@on_answer("sea-choose", "which of the Captain's cards drawn to encounter: a card slug", default=())
def chosen(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
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
def sea_resolve(ctx: Ctx, t: Task) -> None:
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
        ctx.emit("sea-card",
                 msg("{card}: nothing happens (a stand-in: the card's text is not known).",
                     card=card.name), player=p.name)
    else:
        run_ops(ctx, i, [{"op": "moderator", "text": card.text}], {"source": card.name, "card": slug})


@task("sea-discard")
def sea_discard(ctx: Ctx, t: Task) -> None:
    pile = ctx.s.piles.get(TABLE, [])
    if t.a["card"] in pile:
        pile.remove(t.a["card"])
        discard(ctx, t.a["card"])
    if not pile:
        ctx.s.piles.pop(TABLE, None)


@task("sea-end")
def sea_end(ctx: Ctx, t: Task) -> None:
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
    ctx.emit("sea-arrive",
             msg("{player} sails into the harbour at {space} and returns the ship.", player=p.name,
                 space=ctx.space(p.space).name),
             player=p.name)


# -- out of Rations: mutiny ----------------------------------------------------------------

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
            ctx.emit("sea-mutiny", msg("{name} rolls {r} and joins the mutiny.", name=name, r=r), player=p.name)
        else:
            ctx.emit("sea-mutiny", msg("{name} rolls {r} and stays loyal.", name=name, r=r), player=p.name)
    ctx.emit("sea-mutiny",
             msg("Out of Rations: {player}'s crew mutinies (Strength {crew}).", player=p.name,
                 crew=crew), player=p.name)
    ctx.push("fight", i, name="the mutinous crew", strength=crew, evadable=False, ends_turn=False, damage=0,
             quest_kill=False, on_win="sea-mutiny-won", on_standoff="sea-mutiny-won", on_loss_task="sea-mutiny-lost")


@task("sea-mutiny-won")
def mutiny_won(ctx: Ctx, t: Task) -> None:
    p = ctx.player(t.p)
    bump(p, "sea-home", 2)
    p.flags["sea-starving"] = 1
    ctx.emit("sea-mutiny", msg("{player} puts down the mutiny; starving, the voyage home takes two turns longer "
             "({flag} to go) and the ship weakens each turn.", player=p.name, flag=flag(p, 'sea-home')), player=p.name)


@task("sea-mutiny-lost")
def mutiny_lost(ctx: Ctx, t: Task) -> None:
    ctx.emit("sea-mutiny", msg("The crew abandons {player}.", player=ctx.name(t.p)), player=ctx.name(t.p))
    wreck(ctx, t.p)
