"""The Cataclysm (cataclysm.txt): what its data cannot say.

The pack is `Cataclysm` at the end of this module; its hooks: `setup` (Remnants dealt, the
Alternative Ending placed by engine/rules/endings.py, which other packs' endings share), `public`
(the pack's part of the summary); and its space hooks: the Inner Region spaces that are not a base hook with new
`hook_args` in board.toml: the Frozen Spire and the Snowbeast of the Pits. Denizens, Remnants
and Terrain are general board mechanics (engine/rules/boardcards.py); the Crown's ending
card is read by engine/rules/spaces.py.
"""
from __future__ import annotations

from typing import Any

from engine import rng, words
from engine.packs.base import Pack
from engine.rules import endings, stats
from engine.rules.machine import Ctx, on_answer, task
from engine.rules.spaces import beaten, must_face
from engine.rules.turn import lose_life
from engine.state import Prompt, Task, option
from engine.text import Msg, msg, printed, word

# -- Inner Region ----------------------------------------------------------------

@task("space:frozen-spire")
def frozen_spire(ctx: Ctx, t: Task) -> None:
    """Roll 1 die: lose that many lives, or stay and encounter the Spire again next turn."""
    p = ctx.player(t.p)
    p.flags.pop("frozen", None)
    r = rng.die(ctx.s)
    ctx.emit("roll", msg("{player} rolls {r} at the {frozen_spire}.", frozen_spire=printed("Frozen Spire"),
                         player=p.name, r=r), player=p.name)
    ctx.ask(t.p, "frozen-spire",
            msg("The {frozen_spire}: lose {r} {lives}, or stay and face it again next turn?",
                frozen_spire=printed("Frozen Spire"), r=r,
                lives=word("life" if r == 1 else "lives")),
            [option("lose-lives", msg("lose {r} {lives}", r=r, lives=word("life" if r == 1 else "lives"))),
             option("stay", msg("stay here and encounter it again next turn"))], n=r)


@on_answer("frozen-spire", "the Frozen Spire: `lose-lives` or `stay` and face it again next turn", default=())
def frozen_answer(ctx: Ctx, prompt: Prompt, key: str, arg: str | None, who: str) -> None:
    i = ctx.index(who)
    if key == "stay":
        must_face(ctx, i, "frozen", 1)  # movement offers nothing but facing it again
        ctx.emit("frozen", msg("{player} stays at the {frozen_spire}.", frozen_spire=printed("Frozen Spire"),
                               player=who), player=who)
        return
    beaten(ctx, i, "frozen")
    lose_life(ctx, i, prompt.data["n"], " to the cold")


@task("space:snowbeast")
def snowbeast(ctx: Ctx, t: Task) -> None:
    """The Snowbeast's Strength is the fighter's, bonuses included (the fight mirrors it)."""
    p = ctx.player(t.p)
    must_face(ctx, t.p, "snowbeast", 1)
    ctx.push("fight", t.p, name="Snowbeast", strength=stats.strength(ctx, p, battle=True), mirror=True,
             evadable=False, spells=False, on_win="snowbeast-dead")


@task("snowbeast-dead")
def snowbeast_dead(ctx: Ctx, t: Task) -> None:
    beaten(ctx, t.p, "snowbeast")


class Cataclysm(Pack):
    name = "cataclysm"
    title = "The Cataclysm"
    editions = ("revised4",)
    endings = True
    default_ending = "eternal-crown"  # The Eternal Crown, its own ending card
    facedown_piles = ("remnant",)  # Remnants dealt facedown on their spaces
    props = frozenset({"trinket", "trait", "variant", "meet_others", "at_turn_start", "goal", "n", "draw"})

    def setup(self, ctx: Ctx, config: Any) -> None:
        s, content = ctx.s, ctx.content
        remnants = s.decks["remnant"]
        rng.shuffle(s, remnants)
        for sid, space in content.board.spaces.items():
            for _ in range(space.remnants):
                if remnants:  # the rest of the deck goes back in the box: it stays in the deck
                    s.piles.setdefault(f"remnant@{sid}", []).append(remnants.pop())
        endings.place(ctx, config)  # shared with other packs' endings (engine/rules/endings.py)

    def public(self, ctx: Ctx) -> dict[str, Any]:
        """The pack's public state (DESIGN.md: a key named after the pack). Facedown Remnants and
        a hidden ending show only as counts and "hidden"."""
        state = ctx.s
        out: dict[str, Any] = {"ending": "hidden", "terrain": {}, "denizens": {}, "remnants": {}}
        ending = state.piles.get("ending")
        if ending and endings.shown(state, ctx.hooks.default_ending()):
            out["ending"] = ending[0]
        for key, cards in state.piles.items():
            kind, _, space = key.partition("@")
            if cards and kind == "terrain":
                out["terrain"][space] = cards[0]
            elif cards and kind == "denizen":
                out["denizens"][space] = list(cards)
            elif cards and kind == "remnant":
                out["remnants"][space] = len(cards)
        return out

    def public_text(self, ctx: Ctx) -> list[Msg]:
        pub, content = self.public(ctx), ctx.content
        ending = pub["ending"]
        lines = [msg("The Alternative Ending lies facedown on the Crown of Command.") if ending == "hidden"
                 else msg("On the Crown of Command: {card}.", card=words.card(content, ending))]
        if pub["terrain"]:
            terrain = words.listing(msg("{card} on {space}", card=words.card(content, c),
                                        space=words.space(content, sp)) for sp, c in pub["terrain"].items())
            lines.append(msg("Terrain: {terrain}.", terrain=terrain))
        if pub["denizens"]:
            denizens = [msg("{cards} at {space}", cards=words.listing(words.card(content, c) for c in cs),
                            space=words.space(content, sp)) for sp, cs in pub["denizens"].items()]
            lines.append(msg("Denizens: {denizens}.", denizens=words.series(denizens)))
        if pub["remnants"]:
            remnants = words.listing(msg("{space} ({n})", space=words.space(content, sp), n=n) if n > 1
                                     else words.space(content, sp) for sp, n in pub["remnants"].items())
            lines.append(msg("Remnants facedown: {spaces}.", spaces=remnants))
        return lines


PACK: Pack = Cataclysm()
