"""A player's turn, its end, death and victory (base-game.md §3, §6, §9, §10 Crown)."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from engine import words
from engine.rules import spells, stats
from engine.rules.items import discard
from engine.rules.machine import Ctx, task
from engine.rules.setup import begin_character
from engine.state import Player, Task
from engine.text import Text, msg, printed, word


@task("turn")
def turn(ctx: Ctx, t: Task) -> None:
    s, p = ctx.s, ctx.player(t.p)
    if not p.alive and not p.out and s.options.get("deal_choice", 1) > 1:
        ctx.push("turn", t.p)  # the turn starts once the new character is chosen
        ctx.push("choose-character", t.p)
        p.alive = True  # choosing now; the character is set up by the answer
        p.character = None
        return
    s.current = t.p
    s.turn += 1
    ctx.push("end-turn", t.p)
    if p.out:
        return
    if p.role != "hero":  # a player who is not a character: their pack plays the turn
        ctx.push(f"{p.role}-turn", t.p, main=True)
        return
    if not p.alive:
        begin_character(ctx, t.p)
        p = ctx.player(t.p)
    ctx.emit("turn", msg("Turn {turn}: {player}'s turn.", turn=s.turn, player=p.name), player=p.name)
    if p.miss:
        p.miss -= 1
        ctx.emit("miss", msg("{player} misses this turn.", player=p.name), player=p.name)
        return
    if s.packs and ctx.hooks.turn_start(ctx, t.p):
        return  # the pack plays this turn its own way (the Timescape: no quest check, warp lines)
    ctx.push_all([("start-spells", t.p, {}), ("move", t.p, {}), ("encounter", t.p, {}), ("quest-check", t.p, {})])


@task("end-turn")
def end_turn(ctx: Ctx, t: Task) -> None:
    s = ctx.s
    p = ctx.player(t.p)
    if p.alive and p.character:
        trade_trophies(ctx, t.p)
        if p.toad:
            p.toad -= 1
            if not p.toad:
                ctx.emit("toad", msg("{player} is no longer a Toad.", player=p.name), player=p.name)
    if p.flags:
        p.flags.pop("alignment-changed", None)
        p.flags.pop("battle-bonus", None)
        p.flags.pop("psychic-bonus", None)
        p.flags.pop("spells-cast", None)
    if s.over:
        return
    extra = p.flags.get("extra-turns", 0)
    if extra and p.alive:
        p.flags["extra-turns"] = extra - 1
        ctx.push("turn", t.p)
        return
    nxt = next_player(ctx, t.p)
    if nxt is None:
        finish(ctx, [])
        return
    if nxt <= t.p:
        s.round += 1
        tick_lasting(ctx)
        cap = s.options.get("turn_cap", 0)
        if cap and s.round > cap:
            ctx.emit("game-over", msg("The game stops at the turn cap ({cap} rounds) with no winner.", cap=cap))
            finish(ctx, [])
            return
    ctx.push("turn", nxt)
    ctx.hooks.between_turns(ctx, t.p, nxt)  # e.g. the Nemesis's additional turn


def next_player(ctx: Ctx, i: int) -> int | None:
    players = ctx.s.players
    for k in range(1, len(players) + 1):
        j = (i + k) % len(players)
        if (players[j].character or players[j].role != "hero") and not players[j].out:
            return j
    return None


def tick_lasting(ctx: Ctx) -> None:
    kept = []
    for e in ctx.s.effects:
        e["rounds"] -= 1
        if e["rounds"] > 0:
            kept.append(e)
        else:
            ctx.emit("lasting-ends", msg("{replace} ends.", replace=effect_name(ctx, e['name'])))
    ctx.s.effects = kept


def trade_trophies(ctx: Ctx, i: int) -> None:
    """Trophies are traded in at the end of the turn, by pool, whole thresholds only."""
    p = ctx.player(i)
    if not p.trophies:
        return
    threshold = ctx.s.options.get("trophy_threshold", 7)
    value = ctx.hooks.trophy_value(ctx, p) or (lambda c, attr: getattr(ctx.content.cards[c], attr))
    for attr in ("strength", "craft"):
        cards = [c for c in p.trophies if value(c, attr)]
        total = sum(value(c, attr) for c in cards)
        if total < threshold:
            continue
        # Turn in the fewest trophies that make whole thresholds; the rest stay.
        gain = total // threshold
        need = gain * threshold
        spent, acc = [], 0
        for c in sorted(cards, key=lambda c: -value(c, attr)):
            if acc >= need:
                break
            spent.append(c)
            acc += value(c, attr)
        for c in spent:
            spend_trophy(ctx, p, c, attr)
        setattr(p, attr, getattr(p, attr) + gain)
        ctx.emit("trophies",
                 msg("{player} trades trophies for +{gain} {attr}.", player=p.name, gain=gain,
                     attr=word(attr)), player=p.name)


def spend_trophy(ctx: Ctx, p: Player, card: str, attr: str) -> None:
    """The one place a trophy leaves its living character by being exchanged or spent (traded in
    for Strength or Craft, paid for a City bounty): to its discard pile, unless a pack keeps it
    elsewhere (The Hunt: a Nether Enemy "exchanged or otherwise discarded" goes facedown into the
    character's play area). `attr`: the pool it counted in, "strength" or "craft"."""
    p.trophies.remove(card)
    discard(ctx, card)
    ctx.hooks.trophy_spent(ctx, p, card, attr)


# Why a life is lost, as lose_life's callers write it (" to Death", " to Orc"): a plain string,
# since a task's arguments carry it and a saved game's state (and its hash) keeps it as it was;
# as a message it is one of these, or " to X" with X a name.
CAUSES = {" to Death": msg(" to Death"), " to the Command Spell": msg(" to the Command Spell"),
          " adrift on the Raft": msg(" adrift on the Raft"), " to the cold": msg(" to the cold")}


def cause_said(ctx: Ctx, cause: str) -> Text:
    """`cause` as a message's value (a cause not written as above stays as it is): a foe as
    `words.foe_named` says it ("Ape and Bandit" as "Affe und Räuber")."""
    if cause in CAUSES:
        return CAUSES[cause]
    return msg(" to {foe}", foe=words.foe_named(ctx.content, cause[4:])) if cause.startswith(" to ") else cause


def lose_life(ctx: Ctx, i: int, n: int = 1, cause: str = "") -> None:
    p = ctx.player(i)
    if not p.alive or n <= 0:
        return
    if p.life == n and "preservation" in p.spells and spells.may_cast(ctx, i):
        # Preservation saves one life; cast for its holder only when that saves the character
        # (on another's turn it is the holder's one Spell of that turn).
        spells.spend(ctx, i, "preservation")
        ctx.emit("cast", msg("{player} casts {preservation} and is spared a life.",
                             preservation=printed("Preservation"), player=p.name), player=p.name)
        n -= 1
        if n == 0:
            return
    p.life = max(0, p.life - n)
    ctx.emit("life",
             msg("{player} loses 1 life{cause}.", player=p.name, cause=cause_said(ctx, cause)) if n == 1 else
             msg("{player} loses {n} lives{cause}.", player=p.name, n=n, cause=cause_said(ctx, cause)), player=p.name,
             n=-n)
    if p.life == 0:
        kill(ctx, i)


def kill(ctx: Ctx, i: int) -> None:
    s, p = ctx.s, ctx.player(i)
    ctx.hooks.dying(ctx, i)  # Sea Voyage: dying at sea, off the board
    where = p.space
    pile = f"inherit:{p.name}" if s.options.get("inherited_items") else where
    s.spaces.setdefault(pile, []).extend(p.objects + p.followers)
    if p.gold:
        s.space_gold[pile] = s.space_gold.get(pile, 0) + p.gold
    s.discards["spell"].extend(p.spells)
    for card in p.trophies + p.hand:  # trophies and a Boon go to their decks' discards
        discard(ctx, card)
    s.decks["character"].insert(0, p.character)  # back under the pile of unused characters
    if p.quest in ctx.content.cards:  # a Warlock Quest card goes to its discard pile
        s.discards["quest"].append(p.quest)
    p.objects, p.followers, p.spells, p.trophies, p.hand = [], [], [], [], []
    p.gold = p.fate = p.toad = p.miss = 0
    p.quest, p.flags = None, {}
    p.life = 0  # a dead character has no life left, whatever killed it
    p.alive = False
    p.out = s.crown_reached
    ctx.emit("death", msg("{player}'s {character} is killed and is out of the game.", player=p.name,
                          character=stats.character(ctx, p).name) if p.out else
             msg("{player}'s {character} is killed; a new character comes next turn.", player=p.name,
                 character=stats.character(ctx, p).name), player=p.name)
    if s.current == i:
        ctx.end_turn()
    ctx.hooks.killed(ctx, i)  # a pack's objective may end the game (Nemesis)
    check_last_standing(ctx)


@contextmanager
def one_effect(ctx: Ctx) -> Iterator[None]:
    """An effect that strikes several characters (the Eternal Crown's "all characters lose 1
    life") is applied whole before the game is decided: whoever dies of it dies with the rest,
    and only a character still alive after it may be the last one standing."""
    ctx.deciding += 1
    try:
        yield
    finally:
        ctx.deciding -= 1
    if not ctx.deciding:
        later, ctx.decide_after = ctx.decide_after, []
        for decide in later:  # a pack's verdict on a death (Pandora's Box), once the effect is whole
            decide()
    check_last_standing(ctx)


def decide(ctx: Ctx, verdict: Callable[[], None]) -> None:
    """Run a verdict a death calls for now, or after the effect that caused it (`one_effect`)."""
    if ctx.deciding:
        ctx.decide_after.append(verdict)
    else:
        verdict()


def check_last_standing(ctx: Ctx) -> None:
    s = ctx.s
    if s.over or not s.crown_reached or ctx.deciding:
        return
    standing = [p for p in s.players if p.character and not p.out]
    if len(standing) <= 1:
        finish(ctx, [p.name for p in standing])


def finish(ctx: Ctx, winners: list[str]) -> None:
    s = ctx.s
    s.over = True
    s.winners = winners
    s.prompt = None
    s.stack.clear()
    if winners:
        ctx.emit("game-over", msg("{names} wins the game.", names=', '.join(winners)), winners=winners)


def effect_name(ctx: Ctx, key: str) -> str:
    """A lasting effect's name: the card's that makes it ("destroy-magic": Destroy Magic), a name
    as printed, which a reader's names translate (pbem/base/engine_text.py `name`)."""
    card = ctx.content.cards.get(key)
    return card.name if card is not None else key.replace("-", " ").title()
