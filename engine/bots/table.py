"""A game played by bots alone, from its config to its end or a cap on turns: what the bench
(bench/bots.py) and the playout tests play. At the cap the game has no winner of its own; the
bench names the character nearest to winning by `nearest`."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine import api
from engine.bots import choose
from engine.bots.value import GATE, rings
from engine.state import Game, Move, Player

REGION_RANK = {"outer": 0, "middle": 1, "inner": 2, "crown": 3}


@dataclass
class Result:
    state: Game
    winners: list[str]  # the game's, or at the cap the nearest to winning (several: a tie)
    capped: bool  # ended by the cap, not by the rules
    moves: int


def nearest_key(state: Game, p: Player) -> tuple[int, int, int, int]:
    """How near a character is to winning, as the bench states it: the region reached (the Crown,
    the Inner, Middle, Outer Region; a dead character last), then a Talisman held, then how near
    the Valley of Fire in the Inner Region, then Strength + Craft + lives."""
    if not p.alive or p.out or not p.character:
        return (-1, 0, 0, 0)
    ring, steps = rings(state)
    where = ring.get(p.space or "", "outer")
    near = 4 - min(4, steps.get(p.space or "", 4)) if where == "inner" and GATE in steps else 0
    return (REGION_RANK.get(where, 0), int("talisman" in p.objects), near, p.strength + p.craft + p.life)


def nearest(state: Game) -> list[str]:
    """The heroes nearest to winning (several when tied)."""
    heroes = [p for p in state.players if p.role == "hero"]
    top = max(nearest_key(state, p) for p in heroes)
    return [p.name for p in heroes if nearest_key(state, p) == top]


Chooser = Callable[[Game, str, str, Sequence[api.Pack]], "Move | None"]


def _choose(state: Game, seat: str, level: str, packs: Sequence[api.Pack]) -> Move | None:
    return choose(state, seat, level, packs=packs)


def play(config: dict[str, Any], seed: str, levels: dict[str, str], *, cap: int = 400, max_moves: int = 100_000,
         packs: Sequence[api.Pack] = (), chooser: Chooser = _choose) -> Result:
    """Play `config` from `seed`, each seat answered by the bot of its level in `levels` (the
    moderator's questions skipped), until the game ends, `cap` turns have begun or `max_moves`
    answers were given (a game that does not end in time is a failure of the bots: raised).
    `chooser`: how a bot is asked (the bench times it)."""
    state = api.new_game(config, seed, packs=packs)
    moves = 0
    while not state.over and state.turn < cap:
        if moves >= max_moves:
            raise RuntimeError(f"{seed}: no end after {moves} answers (turn {state.turn})")
        prompt = api.prompts(state)[0]
        who = prompt.players[0]
        if who == api.MODERATOR:
            move: Move | None = Move(who, "skip", prompt.id)
        else:
            move = chooser(state, who, levels[who], packs)
        assert move is not None
        state, _ = api.apply(state, move, copy=False, packs=packs)
        moves += 1
    capped = not state.over
    return Result(state, nearest(state) if capped else list(state.winners), capped, moves)
