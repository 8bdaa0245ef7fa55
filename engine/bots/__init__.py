"""Seat bots: players that are not people, at three levels (docs/pace.md, "Seat bots").

- `random`: a legal answer at random (the playouts' player, pbem/bot.py).
- `greedy`: each answer played one question ahead on a few games the seat cannot tell from the
  real one (`api.redeal`: new dice, unseen cards dealt again), the answer whose outcomes are
  worth most on average (engine/bots/value.py) played: what an answer risks is in its outcomes.
- `planner`: each answer played further, to the end of the seat's next turn, by every seat as
  the greedy one would, on many such games (Monte-Carlo with determinization), the best on
  average played.

Every level answers from what the seat may see: the real game is only redealt (engine/
visibility.py `redeal`, a function of the seat's view), never read for a hidden card or a die to
come. Each is deterministic from the game's seed and its move count (`seed_of`), so the same
question in the same game gets the same answer, and nothing else (no clock) enters it; the
service logs a bot's answer as any other move (actor `bot`), which `verify` replays. Pure, no
I/O: the engine's API and state only.
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence

from engine import api, rng
from engine.bots import greedy, planner
from engine.state import Game, Move

LEVELS = ("random", "greedy", "planner")


def seed_of(state: Game, seat: str) -> str:
    """The bot's own randomness for `seat` at this move: derived from the game's seed (a hash,
    so it tells nothing of the dice), its move count and the seat."""
    return hashlib.sha256(f"bot:{state.seed}:{state.moves}:{seat}".encode()).hexdigest()


def asked(state: Game, seat: str) -> bool:
    """Whether the open question waits for `seat`."""
    return any(seat in p.players for p in api.prompts(state))


def choose(state: Game, seat: str, level: str, *, packs: Sequence[api.Pack] = (),
           playouts: planner.Playouts | None = None) -> Move | None:
    """`seat`'s answer to the open question at `level`, or None when it is not asked
    (`playouts`: where the planner counts its playouts and those that failed)."""
    prompt = next((p for p in api.prompts(state) if seat in p.players), None)
    if prompt is None:
        return None
    keys = [o.key for o in prompt.options]
    seed = seed_of(state, seat)
    if len(keys) == 1:
        key = keys[0]
    elif level == "random":
        key = rng.pick_apart(seed, 0, keys)
    elif level == "greedy":
        key = greedy.choose(state, seat, keys, seed, packs)
    elif level == "planner":
        key = planner.choose(state, seat, keys, seed, packs, playouts)
    else:
        raise ValueError(f"no bot level {level!r} (one of {', '.join(LEVELS)})")
    return Move(seat, key, prompt.id)
