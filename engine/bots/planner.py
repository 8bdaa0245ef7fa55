"""The planner: Monte-Carlo playouts from games the seat cannot tell from the real one. Each
answer is played on `WORLDS` redealt games (`api.redeal`: the same ones for every answer), then
every seat plays on as the greedy bot would on that game, to the end of the seat's next turn
(at most `HORIZON` answers); the answer whose playouts end worth most to the seat on average is
played. Only the seat's own view went into the redealt games, so the playouts see dice and cards
of their own, never the real ones."""
from __future__ import annotations

from collections.abc import Sequence

from engine import api
from engine.bots import greedy, progress, value
from engine.state import Game, Move

WORLDS = 8  # redealt games per answer
HORIZON = 24  # answers played after the one judged, at most


def _index(state: Game, seat: str) -> int:
    return next(k for k, p in enumerate(state.players) if p.name == seat)


def playout(world: Game, seat: str, packs: Sequence[api.Pack], horizon: int = HORIZON) -> Game:
    """`world` played on (changed) until the end of `seat`'s next turn, the game's end or
    `horizon` answers, every seat answering as the greedy bot would with the game in hand."""
    me = _index(world, seat)
    turns_left = 2 if world.current == me else 1  # this turn's end, then the next one's
    turn = world.turn
    for _ in range(horizon):
        if world.over:
            break
        if world.turn != turn:
            turn = world.turn
            if world.current == me or turns_left == 2:
                turns_left -= 1
            if turns_left <= 0:
                break
        prompt = api.prompts(world)
        if not prompt:
            break
        p = prompt[0]
        who = p.players[0]
        if who == api.MODERATOR:
            move = Move(who, "skip", p.id)
        else:
            move = Move(who, _greedy_here(world, who, [o.key for o in p.options], p.id, p.kind, packs), p.id)
        world, _ = api.apply(world, move, copy=False, packs=packs)
    return world


def _greedy_here(world: Game, who: str, keys: list[str], prompt: int, kind: str,
                 packs: Sequence[api.Pack]) -> str:
    """The greedy answer on this very game: it is a sample already, so it is played as it stands."""
    if len(keys) == 1:
        return keys[0]
    j = greedy.judge([world], who, keys, prompt, packs)
    return greedy.best(keys, j.got, j.still, kind)


def choose(state: Game, seat: str, keys: Sequence[str], seed: str, packs: Sequence[api.Pack]) -> str:
    prompt = api.prompts(state)[0]
    worlds = greedy.worlds(state, seat, seed, WORLDS, packs)
    best, best_key = -2 * value.WIN, keys[0]
    got, holds = [], []
    for key in keys:
        total, n, held = 0.0, 0, False
        for w in worlds:
            try:
                after, _ = api.apply(api.replay(w, ()), Move(seat, key, prompt.id), copy=False, packs=packs)
                held = held or progress.held(after, seat)
                total += value.standing(playout(after, seat, packs), seat)
                n += 1
            except Exception:  # noqa: BLE001 -- a redealt game may break a rule's expectations: not judged
                continue
        got.append(total / n if n else -value.WIN)
        holds.append(held)
        if n and total / n > best:
            best, best_key = total / n, key
    return progress.way_out(state, seat, keys, got, holds, best_key, seed)
