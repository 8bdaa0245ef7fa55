"""The moderator's `adjudicate` move: settles any card the engine does not automate.

Its argument is a comma-separated list of `<player> <what> <value>`:
`alice life -1`, `bob gold +2`, `alice strength +1`, `alice object sword` (gain one from the
box), `alice lose-object sword`, `alice follower guide`, `alice space temple`,
`alice toad 3`, `alice miss 1`, `alice alignment evil`, `alice spell +1`, `alice companion 2`
(Nemesis: a companion's level).
"""
from __future__ import annotations

from engine.errors import MODERATOR, IllegalMove
from engine.ops import change, spell
from engine.rules.items import discard, gain_object
from engine.rules.machine import Ctx, waits_for_moderator
from engine.state import Move
from engine.text import msg

NUMERIC = ("life", "strength", "craft", "fate", "gold")
KEY = "adjudicate"


def answer(ctx: Ctx, move: Move) -> None:
    """The moderator's `adjudicate <effects>`: at any time, and the answer to a card waiting for it."""
    p = ctx.s.prompt
    waits_for_moderator(p, move)
    if move.player != MODERATOR:
        raise IllegalMove(msg("only the moderator may adjudicate"), [o.key for o in p.options] if p else [])
    apply(ctx, move.arg or "")
    if p is not None and p.kind == "adjudicate":
        ctx.s.prompt = None


def apply(ctx: Ctx, text: str) -> None:
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        raise IllegalMove(msg("adjudicate needs effects, e.g. 'adjudicate alice life -1'"), [])
    for part in parts:
        words = part.split()
        if len(words) != 3:
            raise IllegalMove(msg("cannot read {part!r}: write '<player> <what> <value>'", part=part), [])
        name, what, value = words
        try:
            i = ctx.index(name)
        except KeyError:
            raise IllegalMove(msg("no player called {name!r}", name=name), [p.name for p in ctx.s.players]) from None
        p = ctx.player(i)
        if what in ("toad", "miss"):  # turns to come, as written
            if not value.isdigit():
                raise IllegalMove(msg("{what} takes a number of turns such as 0 or 2, not {value!r}", what=what,
                                      value=value), [])
            setattr(p, what, int(value))
        elif what in NUMERIC or what == "spell":
            try:
                n = int(value)
            except ValueError:
                raise IllegalMove(msg("{what} takes a number such as +1 or -2, not {value!r}", what=what,
                                      value=value), []) from None
            spell(ctx, i, {"n": n}, {}) if what == "spell" else change(ctx, i, what, n)
        elif what in ("object", "follower"):
            if value not in ctx.content.cards:
                raise IllegalMove(msg("no card called {value!r}", value=value), [])
            gain_object(ctx, i, value)
        elif what == "lose-object":
            if value not in p.objects + p.followers:
                raise IllegalMove(msg("{name} holds no {value!r}", name=name, value=value), p.objects + p.followers)
            (p.objects if value in p.objects else p.followers).remove(value)
            discard(ctx, value)
        elif what == "space":
            if value not in ctx.content.board.spaces:
                raise IllegalMove(msg("no space called {value!r}", value=value), [])
            p.space = value
        elif what == "alignment" and value in ("good", "neutral", "evil"):
            p.alignment = value
        elif what == "companion" and value.isdigit():  # a pack's companion level (Nemesis)
            done = ctx.hooks.set_companion_level(ctx, i, int(value))
            if done is not True:
                raise IllegalMove(done or msg("no companions in this game"), [])
        elif (done := ctx.hooks.adjudicate(ctx, i, what, value)) is not None:  # a pack's word
            if done is not True:
                raise IllegalMove(done or msg("cannot adjudicate {what!r}", what=what), [])
        else:
            raise IllegalMove(msg("cannot adjudicate {what!r}", what=what),
                              list(NUMERIC) + ["spell", "object", "follower", "lose-object", "space", "toad", "miss",
                                               "alignment", "companion"])
        ctx.emit("adjudicate", msg("The moderator rules: {part}.", part=part))
