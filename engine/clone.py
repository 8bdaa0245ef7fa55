"""The copy `apply` works on, so that its input is never changed.

Kept apart from engine/state.py because the Structs there stay Python classes while this
module is compiled with the rest of the engine (tools/compile_engine.py): the copy is a
quarter of a move's cost in pure Python.
"""
from __future__ import annotations

from typing import Any

import msgspec

from engine.state import Game, Player, Task


def _copy_args(a: dict[str, Any]) -> dict[str, Any]:
    return {k: (v[:] if type(v) is list else dict(v) if type(v) is dict else v) for k, v in a.items()}


def clone(g: Game, players: bool = True) -> Game:
    """A copy that `apply` may change freely. Strings and content data are shared (they are
    never changed); every list and dict a rule may change is copied. Keep in step with the
    Structs of engine/state.py: tests/test_playouts.py checks that apply never changes its input.
    players=False leaves the players shared, for a Ctx(shared=True) to copy when first used:
    most moves change one player of several."""
    r = msgspec.structs.replace
    prompt = g.prompt and r(g.prompt, answers=dict(g.prompt.answers), data=_copy_args(g.prompt.data))
    return r(
        g, forced=g.forced[:], winners=g.winners[:], prompt=prompt,
        players=[copy_player(p) for p in g.players] if players else g.players[:],
        decks={k: v[:] for k, v in g.decks.items()}, discards={k: v[:] for k, v in g.discards.items()},
        spaces={k: v[:] for k, v in g.spaces.items()}, space_gold=dict(g.space_gold),
        piles={k: v[:] for k, v in g.piles.items()},
        counters=dict(g.counters), pools=dict(g.pools), effects=[dict(e) for e in g.effects],
        stack=[Task(t.op, t.p, _copy_args(t.a)) for t in g.stack])


def copy_player(p: Player) -> Player:
    return msgspec.structs.replace(p, objects=p.objects[:], followers=p.followers[:], spells=p.spells[:],
                                   trophies=p.trophies[:], hand=p.hand[:], area=p.area[:], flags=dict(p.flags))
