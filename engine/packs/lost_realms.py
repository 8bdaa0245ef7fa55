"""The Lost Realms (lost-realms.txt), the Nether Realm: its three Alternative Endings and the
Nether deck. (The Deep Realms need The City's and The Dungeon's boards, which are not in our
rules files: not built; docs/rules-decisions.md, The Lost Realms.)

The ending in play is chosen by engine/rules/endings.py, shared with the Cataclysm's endings.
Each ending is a card whose encounter on the Crown of Command is a task here (`the-gauntlet`,
`pandoras-box`, `the-hunt`); what it changes elsewhere comes through the hooks of `LostRealms`
(at the end), which the core calls:

- `arrived` (The Gauntlet: the Nether cards on an Inner Region space are met before the space),
  `through_portal` (... and on the Plain of Peril when the Portal lets one in);
- `drawn` (The Hunt: swap one drawn Adventure card for a Nether card), `trophy_spent` (a traded
  Nether Enemy goes facedown into the play area), `crown_closed` (option `hunt_crown`);
- `killed` (Pandora's Box: its holder's death; The Hunt: a dead character's play area).

Piles: `nether@<space>` holds The Gauntlet's Nether cards on a space, top last; the top
`counters["nether-up@<space>"]` of them are faceup (met and not beaten). With Pandora's Box the
pile in front of the character on the Crown is `nether@crown-of-command`. Pandora's Box also sets
`counters["crown-sealed"]`, `counters["pandora-holder"]` (player index + 1) and
`counters["no-healing"]`, which the core reads through `stats.healing_barred`.
"""
from __future__ import annotations

from typing import Any

from engine import words
from engine.packs.base import Pack, RuleOption
from engine.rules import endings, reach, stats
from engine.rules.encounter import take
from engine.rules.items import discard
from engine.rules.machine import Ctx, on_answer, task
from engine.rules.movement import CROWN, PLAIN, PORTAL, VALLEY, place
from engine.rules.spaces import beaten, must_face
from engine.rules.turn import decide, finish, kill
from engine.state import Game, Player, Prompt, Task, option
from engine.text import Msg, msg, printed

PANDORA, GAUNTLET, HUNT = "pandoras-box", "the-gauntlet", "the-hunt"
NETHER = "nether"
PANDORA_PILE = f"{NETHER}@{CROWN}"
HUNT_GOAL = 4


def pile(ctx: Ctx, space: str) -> list[str]:
    return ctx.s.piles.setdefault(f"{NETHER}@{space}", [])


def hunted(ctx: Ctx, p: Player) -> int:
    """Defeated Enemies from the Nether deck in the character's play area: trophies not yet
    traded and those placed facedown there (The Hunt)."""
    cards = ctx.content.cards
    return sum(1 for c in p.trophies + p.area if cards[c].deck == NETHER and cards[c].type == "enemy")


# -- meeting a Nether card ---------------------------------------------------------------

def meet(ctx: Ctx, i: int, card: str, inner: bool) -> None:
    """Character i encounters `card`, which lies on their space, as if they had drawn it. In the
    Inner Region a creature can be neither evaded nor touched by Spells. A fight ends the turn
    only of the character whose turn it is (Pandora's Box uses cards against the others)."""
    c = ctx.content.cards[card]
    if c.type == "enemy":
        value = {"strength": c.strength} if c.strength else {"craft": c.craft}
        ctx.push("fight", i, name=c.name, cards=[card], evadable=not inner, spells=not inner,
                 ends_turn=ctx.s.current == i, **value)
        if c.effect:
            ctx.push("effect", i, ops=c.effect, source=c.name, card=card)
        return
    if c.type in ("follower", "object", "magic-object"):
        take(ctx, i, card)
        return
    if c.type == "event":  # discarded as it is resolved, as an Adventure Event is
        ctx.s.spaces[ctx.player(i).space].remove(card)
        discard(ctx, card)
    ctx.push("effect", i, ops=c.effect or [{"op": "moderator", "text": c.text}], source=c.name, card=card)


# -- The Gauntlet --------------------------------------------------------------------------

def gauntlet(state: Game) -> bool:
    return endings.in_play(state) == GAUNTLET


def depth(ctx: Ctx, space: str | None) -> int:
    """Steps from the Plain of Peril around the Inner Region (the Crown beyond them all; -1
    outside): a move to a smaller depth heads back to the Plain."""
    if not space:
        return -1
    board = ctx.content.board
    sp = board.spaces[space]
    inner = board.rings.get("inner", [])
    if sp.ring == "crown":
        return len(inner) // 2 + 1
    if sp.ring != "inner" or PLAIN not in board.spaces:
        return -1
    k = (sp.index - board.spaces[PLAIN].index) % len(inner)
    return min(k, len(inner) - k)


def tidy(ctx: Ctx, space: str) -> None:
    """A Nether card not beaten stays on its space, faceup: back on top of the space's pile."""
    lying = ctx.s.spaces.get(space)
    if not lying:
        return
    up = [c for c in lying if ctx.content.cards[c].deck == NETHER]
    for c in up:
        lying.remove(c)
        pile(ctx, space).append(c)
    if up:
        key = f"nether-up@{space}"
        ctx.s.counters[key] = ctx.s.counters.get(key, 0) + len(up)


@task("nether-face")
def nether_face(ctx: Ctx, t: Task) -> None:
    """Meet the next of `n` Nether cards on the space, top first, turning it faceup."""
    i, space, n = t.p, t.a["space"], t.a["n"]
    s = ctx.s
    p = ctx.player(i)
    if not p.alive or p.space != space:
        return
    cards = s.piles.get(f"{NETHER}@{space}", [])
    if n <= 0 or not cards:
        beaten(ctx, i, "nether-card")
        p.flags["nether-faced"] = s.turn
        return
    card = cards.pop()
    key = f"nether-up@{space}"
    if s.counters.get(key):
        s.counters[key] -= 1
        if not s.counters[key]:
            del s.counters[key]
    else:
        ctx.emit("gauntlet", msg("{player} turns up a Nether card on {space}: "
                 "{card}.", player=p.name, space=ctx.space(space).name, card=ctx.content.cards[card].name),
                 player=p.name, card=card)
    s.spaces.setdefault(space, []).append(card)
    must_face(ctx, i, "nether-card", space)  # not beaten: face it again next turn, or turn back
    ctx.push("nether-face", i, space=space, n=n - 1)
    ctx.push("nether-beaten", i, space=space, card=card)
    meet(ctx, i, card, inner=True)


@task("nether-beaten")
def nether_beaten(ctx: Ctx, t: Task) -> None:
    """The card was met and the turn goes on. An Enemy still lying there (one that let the
    character pass) was not beaten: the turn ends. Otherwise what is left of it is discarded
    and a replacement is placed facedown for the next character to land there."""
    i, space, card = t.p, t.a["space"], t.a["card"]
    s = ctx.s
    p = ctx.player(i)
    if not p.alive:
        return
    lying = s.spaces.get(space, [])
    if card in lying:
        if ctx.content.cards[card].type == "enemy":
            ctx.emit("gauntlet",
                     msg("{player} has not beaten {card}: the turn ends.", player=p.name,
                         card=ctx.content.cards[card].name),
                     player=p.name)
            ctx.end_turn()
            return
        lying.remove(card)
        discard(ctx, card)
    new = ctx.draw(NETHER)
    if new:
        pile(ctx, space).insert(0, new)  # under the cards still to be met this visit
        ctx.emit("gauntlet", msg("A new Nether card is placed facedown on {space}.", space=ctx.space(space).name))


@task("the-gauntlet")
def gauntlet_crown(ctx: Ctx, t: Task) -> None:
    """On the Crown: its two Nether cards first; whoever beats them all wins."""
    i = t.p
    p = ctx.player(i)
    tidy(ctx, p.space)
    if p.flags.get("nether-card") == p.space:
        ctx.ask(i, "gauntlet-crown",
                msg("A Nether card on the {crown_of_command} beat you. Face it again, or turn back?",
                    crown_of_command=printed("Crown of Command")),
                [option("face", msg("face the Nether card again")),
                 option("back", msg("turn back to the {valley_of_fire}", valley_of_fire=printed("Valley of Fire")))])
        return
    ctx.push("gauntlet-won", i)
    ctx.push("nether-face", i, space=p.space, n=len(ctx.s.piles.get(f"{NETHER}@{p.space}", [])))


@on_answer("gauntlet-crown", "beaten by a Nether card on the Crown: `face` it again or turn `back`", default=())
def gauntlet_crown_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    p = ctx.player(i)
    if key == "face":
        ctx.push("gauntlet-won", i)
        ctx.push("nether-face", i, space=p.space, n=ctx.s.counters.get(f"nether-up@{p.space}", 0))
        return
    beaten(ctx, i, "nether-card")
    p.flags["came-from"] = p.space
    p.flags["nether-back"] = 1
    ctx.emit("move", msg("{player} turns back to the {space}.", player=who, space=ctx.space(VALLEY).name), player=who,
             space=VALLEY)
    ctx.emit("gauntlet",
             msg("{player} turns back and ignores the Nether cards on the way back to the {plain_of_peril}.",
                 plain_of_peril=printed("Plain of Peril"), player=who),
             player=who)
    place(ctx, i, VALLEY)
    ctx.push("encounter", i)


@task("gauntlet-won")
def gauntlet_won(ctx: Ctx, t: Task) -> None:
    p = ctx.player(t.p)
    if p.alive and ctx.content.space(p.space).ring == "crown" and not p.flags.get("nether-card"):
        ctx.emit("gauntlet", msg("{player} survives {the_gauntlet} and claims the {crown_of_command}!",
                                 crown_of_command=printed("Crown of Command"), the_gauntlet=printed("The Gauntlet"),
                                     player=p.name),
                 player=p.name)
        finish(ctx, [p.name])


# -- Pandora's Box --------------------------------------------------------------------------

def holder(ctx: Ctx, i: int) -> bool:
    return ctx.s.counters.get("pandora-holder") == i + 1


@task("pandoras-box")
def pandoras_box(ctx: Ctx, t: Task) -> None:
    i = t.p
    s = ctx.s
    p = ctx.player(i)
    if not s.counters.get("crown-sealed"):
        others = [q for j, q in enumerate(s.players) if j != i and q.role == "hero" and not q.out]
        s.counters.update({"crown-sealed": 1, "no-healing": 1, "pandora-holder": i + 1})
        taken = []
        for _ in range(6 + 6 * len(others)):
            c = ctx.draw(NETHER)
            if c is None:
                break
            taken.append(c)
        cards = s.piles.setdefault(PANDORA_PILE, [])
        cards[:0] = reversed(taken)  # taken as one block: the deck's top card is the pile's top (last)
        ctx.emit("pandora", msg("{player} opens Pandora's Box: the Crown of Command is sealed, and no character may "
                 "heal or gain life for the rest of the game. {player} takes a pile of {count} Nether cards.",
                 player=p.name, count=len(cards)),
                 player=p.name)
    elif not holder(ctx, i):
        ctx.emit("pandora",
                 msg("The {crown_of_command} is sealed: {player} is thrown onto the {plain_of_peril}.",
                     crown_of_command=printed("Crown of Command"), plain_of_peril=printed("Plain of Peril"),
                         player=p.name),
                 player=p.name)
        place(ctx, i, PLAIN)
        return
    cards = s.piles.get(PANDORA_PILE, [])
    six = cards[-6:][::-1]  # the top six, top first
    if not six:
        exhausted(ctx, i)
        return
    ctx.emit("pandora", msg("{player} takes the top {count} cards of the pile.", player=p.name, count=len(six)),
             player=p.name)
    ctx.emit("pandora-hand", msg("You take {names}.", names=', '.join(ctx.content.cards[c].name for c in six)),
             to=[p.name])
    ctx.push("pandora-use", i, left=six, deferred=0)


@task("pandora-use")
def pandora_use(ctx: Ctx, t: Task) -> None:
    """Use this turn's cards one at a time, each against another character of the holder's
    choice; `later` puts the card at the end of this turn's cards (at most once round)."""
    i, left = t.p, t.a["left"]
    s = ctx.s
    if s.over or not ctx.player(i).alive:
        return
    if not left:
        if not s.piles.get(PANDORA_PILE):
            exhausted(ctx, i)
        return
    targets = reach.others(ctx, i)  # not those in the Timescape (timescape.txt §9 names Pandora's Box)
    if not targets:
        return  # nobody to use them on this turn: the cards stay in the pile
    name = ctx.content.cards[left[0]].name
    opts = [option(f"on-{ctx.name(j)}",
                   msg("use {name} against {player}", name=name, player=ctx.name(j))) for j in targets]
    if len(left) > 1 and len(targets) > 1 and t.a["deferred"] < len(left) - 1:
        opts.append(option("later", msg("keep {name} for later this turn", name=name)))
    ctx.ask(i, "pandora",
            msg("{pandora_s_box}: against whom do you use {name}? ({count} of this turn's cards left)",
                pandora_s_box=printed("Pandora's Box"), name=name,
                count=len(left)),
            opts, left=left, deferred=t.a["deferred"])


@on_answer("pandora", "Pandora's Box: `on-<player>` (use the card against them) or `later` this turn", default=())
def pandora_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i, left = ctx.index(who), prompt.data["left"]
    if key == "later":
        ctx.push("pandora-use", i, left=left[1:] + left[:1], deferred=prompt.data["deferred"] + 1)
        return
    s = ctx.s
    j = ctx.index(key[len("on-"):])
    q = ctx.player(j)
    card = left[0]
    cards = s.piles[PANDORA_PILE]
    del cards[len(cards) - 1 - cards[::-1].index(card)]
    s.spaces.setdefault(q.space, []).append(card)
    ctx.emit("pandora", msg("{player} uses {card} against {player2}, who meets it on "
             "{space}.", player=who, card=ctx.content.cards[card].name, player2=q.name, space=ctx.space(q.space).name),
             player=who, card=card)
    ctx.push("pandora-use", i, left=left[1:], deferred=0)
    meet(ctx, j, card, inner=stats.region(ctx, q.space) in ("inner", "crown"))


def exhausted(ctx: Ctx, i: int) -> None:
    """The pile is used up and others survive: the character on the Crown is killed (and the
    survivors share the victory: `killed`)."""
    if any(j != i for j in stats.alive_players(ctx)):
        ctx.emit("pandora",
                 msg("Pandora's pile is exhausted and others have survived: {player} is killed.", player=ctx.name(i)))
        kill(ctx, i)


# -- The Hunt ------------------------------------------------------------------------------

@task("hunt-swap")
def hunt_swap(ctx: Ctx, t: Task) -> None:
    p = ctx.player(t.p)
    lying = ctx.s.spaces.get(p.space, [])
    drawn_here = [c for c in dict.fromkeys(t.a["drawn"]) if c in lying]
    if not p.alive or not drawn_here:
        return
    ctx.ask(t.p, "hunt-swap", msg("{the_hunt}: discard one card you drew and draw a Nether card to encounter instead?",
                                  the_hunt=printed("The Hunt")),
            [option(f"swap-{c}",
                    msg("discard {card}, draw a Nether card", card=ctx.content.cards[c].name)) for c in drawn_here]
            + [option("keep", msg("keep the cards you drew"))])


@on_answer("hunt-swap", "The Hunt: `swap-<card>` (discard it, draw a Nether card) or `keep`", default=("keep",))
def hunt_swap_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    if key == "keep":
        return
    i = ctx.index(who)
    lying = ctx.s.spaces[ctx.player(i).space]
    old = key[len("swap-"):]
    new = ctx.draw(NETHER)
    if new is None:
        return
    lying.remove(old)
    discard(ctx, old)
    lying.append(new)
    ctx.emit("hunt", msg("{player} discards {card} and draws the Nether card "
             "{card2}.", player=who, card=ctx.content.cards[old].name, card2=ctx.content.cards[new].name), player=who,
             card=new)


@task("the-hunt")
def hunt_crown(ctx: Ctx, t: Task) -> None:
    p = ctx.player(t.p)
    n = hunted(ctx, p)
    if n >= HUNT_GOAL:
        ctx.emit("hunt",
                 msg("{player} reaches the {crown_of_command} with {n} defeated Nether Enemies and wins {the_hunt}!",
                     crown_of_command=printed("Crown of Command"), the_hunt=printed("The Hunt"),
                     player=p.name, n=n),
                 player=p.name)
        finish(ctx, [p.name])
        return
    ctx.emit("hunt", msg("{player} is on the Crown of Command with {n} of the {HUNT_GOAL} Nether Enemies The Hunt "
             "asks: nothing happens.", player=p.name, n=n, HUNT_GOAL=HUNT_GOAL), player=p.name)
    standing = [q for q in ctx.s.players if q.role == "hero" and not q.out]  # a new character to come counts
    if all(q.alive and q.character and q.space == CROWN and hunted(ctx, q) < HUNT_GOAL for q in standing):
        # No one can move on from the Crown or add to the count there: nothing can change, and
        # the game ends with no winner, as when the last characters die at once
        # (docs/rules-decisions.md, The Hunt).
        ctx.emit("game-over", msg("Every character still in the game stands on the Crown of Command without the "
                 "{HUNT_GOAL} Nether Enemies The Hunt asks, and none can move on: the game ends with no winner.",
                 HUNT_GOAL=HUNT_GOAL))
        finish(ctx, [])


class LostRealms(Pack):
    name = "lost-realms"
    title = "The Lost Realms"
    editions = ("revised4",)
    endings = True
    facedown_piles = (NETHER,)  # Nether cards on the Gauntlet's spaces; those met lie faceup on top
    options = (RuleOption("hunt_crown", "open", "The Hunt: \"open\" (as printed: anyone may climb to the Crown; "
                          "without four Nether Enemies nothing happens there) or \"four\" (the climb is offered "
                          "only with four)", choices=("open", "four"),
                          refused="hunt_crown: one of open, four, with the lost-realms pack"),)

    def setup(self, ctx: Ctx, config: Any) -> None:
        """Place the Alternative Ending (once, shared with the Cataclysm's endings)."""
        endings.place(ctx, config)

    def ending_setup(self, ctx: Ctx, card: str) -> None:
        """The Gauntlet: one facedown Nether card on each Inner Region space, two on the Crown."""
        if card != GAUNTLET:
            return
        rings = ctx.content.board.rings
        for space, n in [(sp, 1) for sp in rings.get("inner", [])] + [(sp, 2) for sp in rings.get("crown", [])]:
            for _ in range(n):
                c = ctx.draw(NETHER)
                if c:
                    pile(ctx, space).append(c)

    def public(self, ctx: Ctx) -> dict[str, Any]:
        """The pack's public state. Facedown Nether cards show only as counts."""
        state, content = ctx.s, ctx.content
        out: dict[str, Any] = {}
        ending = endings.in_play(state)
        if "cataclysm" not in state.packs:  # with the Cataclysm its key shows the ending already
            shown = endings.shown(state, ctx.hooks.default_ending())
            out["ending"] = (ending if shown else "hidden") if ending else None
        if ending == GAUNTLET:
            spaces = {}
            for key, cards in state.piles.items():
                kind, _, space = key.partition("@")
                lying = [c for c in state.spaces.get(space, ()) if content.cards[c].deck == NETHER]  # met, not beaten
                if kind == NETHER and (cards or lying):
                    up = state.counters.get(f"nether-up@{space}", 0)
                    spaces[space] = {"facedown": len(cards) - up, "faceup": cards[len(cards) - up:] + lying}
            out["gauntlet"] = spaces
        elif ending == PANDORA and state.counters.get("crown-sealed"):
            holder = state.counters.get("pandora-holder")
            out["pandora"] = {"holder": state.players[holder - 1].name if holder else None,
                              "pile": len(state.piles.get(PANDORA_PILE, []))}
        elif ending == HUNT:
            def count(p: Player) -> int:
                return sum(1 for c in p.trophies + p.area
                           if content.cards[c].deck == NETHER and content.cards[c].type == "enemy")
            out["hunt"] = {p.name: count(p) for p in state.players if p.role == "hero"}
        return out

    def public_text(self, ctx: Ctx) -> list[Msg]:
        pub, content = self.public(ctx), ctx.content
        lines = []
        ending = pub.get("ending")
        if ending:
            lines.append(msg("The Alternative Ending lies facedown on the Crown of Command.") if ending == "hidden"
                         else msg("Alternative Ending: {card}.", card=words.card(content, ending)))
        if pub.get("gauntlet"):
            piles = []
            for sp, v in pub["gauntlet"].items():
                where, down = words.space(content, sp), v["facedown"]
                up = words.listing(words.card(content, c) for c in v["faceup"])
                piles.append(msg("{space} {n} facedown, {cards} faceup", space=where, n=down, cards=up) if v["faceup"]
                             else msg("{space} {n} facedown", space=where, n=down))
            lines.append(msg("{the_gauntlet}: {piles}.", the_gauntlet=printed("The Gauntlet"),
                             piles=words.series(piles)))
        if pub.get("pandora"):
            lines.append(msg("Pandora's Box: {player} holds the pile, {n} Nether cards left; nobody heals or gains "
                             "life.", player=pub["pandora"]["holder"], n=pub["pandora"]["pile"]))
        if "hunt" in pub:
            hunt = words.listing(msg("{player} {n}", player=name, n=n) for name, n in pub["hunt"].items())
            lines.append(msg("{the_hunt}, defeated Nether Enemies (four on the Crown win): {counts}.",
                             the_hunt=printed("The Hunt"), counts=hunt))
        return lines

    def arrived(self, ctx: Ctx, i: int) -> bool | None:
        """The Gauntlet: on an Inner Region space, its Nether cards are met before the space. True
        when their encounter comes first (the space's own encounter follows, if they are beaten)."""
        s = ctx.s
        if not gauntlet(s):
            return None
        p = ctx.player(i)
        ring = ctx.content.space(p.space).ring
        if ring != "inner":
            if ring != "crown":  # out of the Inner Region: the Gauntlet's marks go
                p.flags.pop("nether-card", None)
                p.flags.pop("nether-back", None)
            return None
        space = p.space
        tidy(ctx, space)
        if p.flags.get("nether-faced") == s.turn:  # met this turn already: now the space itself
            p.flags.pop("nether-faced")
            return None
        pending = p.flags.get("nether-card")
        if pending is not None and pending != space:  # moved away instead of facing it again
            p.flags.pop("nether-card")
            p.flags["nether-back"] = 1
            ctx.emit("gauntlet",
                     msg("{player} turns back and ignores the Nether cards on the way back to the {plain_of_peril}.",
                         plain_of_peril=printed("Plain of Peril"),
                         player=p.name),
                     player=p.name)
        if p.flags.get("nether-back"):
            if depth(ctx, space) > depth(ctx, p.flags.get("came-from")):
                p.flags.pop("nether-back")  # heading inward again: the Gauntlet applies again
            else:
                if space == PLAIN:
                    p.flags.pop("nether-back")
                return None
        if p.flags.get("must-face") and pending is None:
            return None  # staying to face the space's own creature: its Nether cards were beaten
        cards = ctx.s.piles.get(f"{NETHER}@{space}", [])
        n = s.counters.get(f"nether-up@{space}", 0) if pending == space else len(cards)
        if n <= 0:
            if pending == space:  # someone else beat it meanwhile
                beaten(ctx, i, "nether-card")
            return None
        p.flags["moved"] = 1  # the encounter runs again once the Nether cards are beaten
        ctx.push("encounter", i)
        ctx.push("nether-face", i, space=space, n=n)
        return True

    def through_portal(self, ctx: Ctx, i: int) -> None:
        """The Portal lets a character onto the Plain of Peril and the turn ends there: under The
        Gauntlet the Plain's Nether cards are met first (turning back is going out to the Portal)."""
        s = ctx.s
        if not gauntlet(s):
            return
        p = ctx.player(i)
        p.flags.pop("nether-card", None)
        p.flags.pop("nether-back", None)
        p.flags["came-from"] = PORTAL
        tidy(ctx, PLAIN)
        n = len(s.piles.get(f"{NETHER}@{PLAIN}", []))
        if n:
            ctx.push("nether-face", i, space=PLAIN, n=n)
        return

    def killed(self, ctx: Ctx, i: int) -> None:
        s = ctx.s
        p = ctx.player(i)
        for c in [c for c in p.area if ctx.content.cards[c].deck == NETHER]:  # The Hunt: lost with the character
            p.area.remove(c)
            discard(ctx, c)
        if holder(ctx, i):
            # The holder's death, whatever its cause, leaves no pile to use: the surviving
            # characters share the victory, as when the pile is exhausted (docs/rules-decisions.md).
            del s.counters["pandora-holder"]
            for c in s.piles.pop(PANDORA_PILE, []):
                discard(ctx, c)

            def share() -> None:  # who survives is known once the effect that killed the holder is whole
                survivors = [q.name for j, q in enumerate(s.players)
                             if j != i and q.role == "hero" and q.character and q.alive and not q.out]
                if survivors and not s.over:
                    finish(ctx, survivors)
            decide(ctx, share)

    def drawn(self, ctx: Ctx, i: int, cards: list[str]) -> None:
        """Adventure cards were drawn: under The Hunt one may be swapped for a Nether card."""
        s = ctx.s
        if endings.in_play(s) == HUNT and cards and (s.decks.get(NETHER) or s.discards.get(NETHER)):
            ctx.push("hunt-swap", i, drawn=list(cards))

    def trophy_spent(self, ctx: Ctx, p: Any, card: str, attr: str) -> None:
        """The Hunt: a Nether Enemy exchanged or otherwise spent (traded in, paid for a City bounty)
        goes facedown into the play area, not the discards."""
        if endings.in_play(ctx.s) == HUNT and ctx.content.cards[card].deck == NETHER:
            pile_ = ctx.s.discards[NETHER]
            if card in pile_:
                del pile_[len(pile_) - 1 - pile_[::-1].index(card)]
                p.area.append(card)
                ctx.emit("hunt", msg("{player} places a defeated Nether Enemy facedown in their play area "
                         "({hunted} of {HUNT_GOAL}).", player=p.name, hunted=hunted(ctx, p), HUNT_GOAL=HUNT_GOAL),
                         player=p.name)

    def crown_closed(self, ctx: Ctx, i: int) -> bool | None:
        """Option hunt_crown = "four": the climb to the Crown is offered only with four."""
        if ctx.s.options.get("hunt_crown") == "four" and not self.crown_wins(ctx, i):
            return True
        return None

    def crown_wins(self, ctx: Ctx, i: int) -> bool | None:
        """The Hunt: the Crown wins only with four defeated Nether Enemies (a public count)."""
        if endings.in_play(ctx.s) == HUNT:
            return hunted(ctx, ctx.player(i)) >= HUNT_GOAL
        return None


PACK: Pack = LostRealms()
