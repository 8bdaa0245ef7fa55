"""The planner: Monte-Carlo playouts from games the seat cannot tell from the real one, spent
where they matter.

1. Screen: the greedy bot's judgement (one question ahead on its redealt games) names the
   answers worth weighing: those within `MARGIN` of the best, at most `CANDIDATES`. One alone
   is played at once: a clear choice one question ahead is not played out.
2. Play out: each candidate is played on the same redealt games (`api.redeal`), then every seat
   plays on as the greedy bot would, to the end of the seat's next turn (at most `HORIZON`
   answers), and the position there is worth what `value.standing` says. A playout's greedy
   step judges its answers on the game with new dice (`_blind`), not on the game itself: with
   its own dice it would see whether a fight is won before choosing to fight, and the playouts
   would favour what is risky.
3. More where it is close: `WORLDS` games first; while the best two candidates are nearer than
   the spread of their playouts says they can be told apart (two standard errors), and that
   spread is still wider than `CLOSE`, `WORLDS` more, up to `MAX_WORLDS` and a cap of `BUDGET`
   playout answers a question (what bounds its worst cost).

Only the seat's own view went into the redealt games, so the playouts see dice and cards of
their own, never the real ones; all of it is deterministic from the bot seed."""
from __future__ import annotations

import math
from collections.abc import Sequence

import msgspec

from engine import api
from engine.bots import greedy, progress, value
from engine.state import Game, Move

CANDIDATES = 3  # answers played out, at most
MARGIN = 25.0  # an answer worth this much less one question ahead is not weighed further
WORLDS = 4  # redealt games per round of playouts
MAX_WORLDS = 12  # redealt games per answer, at most
CLOSE = 4.0  # answers whose worths are known within this are as good as each other
HORIZON = 24  # answers played after the one judged, at most
BUDGET = 4000  # playout answers per question, at most


def _index(state: Game, seat: str) -> int:
    return next(k for k, p in enumerate(state.players) if p.name == seat)


def _blind(world: Game) -> Game:
    """`world` with dice of its own to come (its seed changed, a function of where it stands)."""
    return msgspec.structs.replace(world, seed=f"{world.seed}/{world.moves}", forced=[])


def playout(world: Game, seat: str, packs: Sequence[api.Pack], horizon: int = HORIZON) -> tuple[Game, int]:
    """`world` played on (changed) until the end of `seat`'s next turn, the game's end or
    `horizon` answers, every seat answering as the greedy bot would; and the answers played."""
    me = _index(world, seat)
    turns_left = 2 if world.current == me else 1  # this turn's end, then the next one's
    turn = world.turn
    played = 0  # answers looked at: those played, and the one the loop stopped at
    for _ in range(horizon):
        played += 1
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
    return world, played


def _greedy_here(world: Game, who: str, keys: list[str], prompt: int, kind: str,
                 packs: Sequence[api.Pack]) -> str:
    """The greedy answer on this game with dice of its own to come (`_blind`)."""
    if len(keys) == 1:
        return keys[0]
    j = greedy.judge([_blind(world)], who, keys, prompt, packs)
    return greedy.best(keys, j.got, j.still, kind)


def _candidates(keys: Sequence[str], j: greedy.Judged, kind: str) -> list[int]:
    """The answers worth playing out: greedy's choice first, then the best of the rest within MARGIN."""
    first = keys.index(greedy.best(keys, j.got, j.still, kind))
    rest = sorted((k for k in range(len(keys)) if k != first and not j.still[k]), key=lambda k: -j.got[k])
    return [first] + [k for k in rest if j.got[k] >= j.got[first] - MARGIN][:CANDIDATES - 1]


class _Tally:
    def __init__(self) -> None:
        self.values: list[float] = []
        self.held = False

    def mean(self) -> float:
        return sum(self.values) / len(self.values) if self.values else -value.WIN

    def error(self) -> float:
        n = len(self.values)
        if n < 2:
            return math.inf
        m = self.mean()
        return math.sqrt(sum((v - m) ** 2 for v in self.values) / (n - 1) / n)


def choose(state: Game, seat: str, keys: Sequence[str], seed: str, packs: Sequence[api.Pack]) -> str:
    prompt = api.prompts(state)[0]
    j = greedy.judge(greedy.worlds(state, seat, seed, greedy.SAMPLES, packs), seat, keys, prompt.id, packs)
    weighed = _candidates(keys, j, prompt.kind)
    if len(weighed) == 1:
        return progress.way_out(state, seat, keys, j.got, j.holds, keys[weighed[0]], seed)
    tally = {k: _Tally() for k in weighed}
    spent, done = 0, 0
    while done < MAX_WORLDS and spent < BUDGET:
        for w in (api.redeal(state, seat, f"{seed}:planner:{n}", packs=packs) for n in range(done, done + WORLDS)):
            for k in weighed:
                try:
                    after, _ = api.apply(w, Move(seat, keys[k], prompt.id), packs=packs)
                    tally[k].held = tally[k].held or progress.held(after, seat)
                    end, n = playout(after, seat, packs)
                except Exception:  # noqa: BLE001 -- a redealt game may break a rule's expectations: not judged
                    continue
                tally[k].values.append(value.standing(end, seat))
                spent += n
        done += WORLDS
        top = sorted(weighed, key=lambda k: -tally[k].mean())
        a, b = tally[top[0]], tally[top[1]]
        error = math.hypot(a.error(), b.error())
        if a.mean() - b.mean() > 2 * error or error < CLOSE:
            break  # told apart, or near enough alike
    best = max(weighed, key=lambda k: tally[k].mean())
    got = [tally[k].mean() if k in tally else j.got[k] for k in range(len(keys))]
    holds = [tally[k].held if k in tally else j.holds[k] for k in range(len(keys))]
    return progress.way_out(state, seat, keys, got, holds, keys[best], seed)
