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
3. Compare alike: every candidate is played out on the same games with the same dice (common
   random numbers), so each is judged by how far ahead of greedy's choice it ends game by game
   (paired differences: what the games share cancels out). `WORLDS` games first; while the
   candidate furthest ahead (or behind) cannot be told from greedy's choice (two standard
   errors) and that error is still wider than `CLOSE`, `WORLDS` more, up to `MAX_WORLDS` and a
   cap of `BUDGET` playout answers a question (what bounds its worst cost).
4. Greedy's choice stands unless another is ahead by more than `SURE` standard errors: a
   playout is noisy, and an answer chosen on noise is worse than greedy's.

A playout that raises (a redealt game may hold what the real one never would) is left out and
counted (`Playouts`): the bench prints the count, a test asserts it stays 0.

Only the seat's own view went into the redealt games, so the playouts see dice and cards of
their own, never the real ones; all of it is deterministic from the bot seed."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

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
SURE = 1.0  # standard errors by which another answer must beat greedy's choice to be played


def _index(state: Game, seat: str) -> int:
    return next(k for k, p in enumerate(state.players) if p.name == seat)


def _blind(world: Game) -> Game:
    """`world` with dice of its own to come (its seed changed, a function of where it stands)."""
    return msgspec.structs.replace(world, seed=f"{world.seed}/{world.moves}", forced=[])


def playout(world: Game, seat: str, packs: Sequence[api.Pack], horizon: int = HORIZON) -> tuple[Game, int]:
    """`world` played on (changed) until `seat`'s next turn begins (the turn under way and the
    other seats' turns after it are played; the bench measured this horizon), the game's end or
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


def played(world: Game, seat: str, move: Move, packs: Sequence[api.Pack]) -> tuple[Game, Game, int]:
    """`move` played on `world`, then played out: the game after the move, where the playout
    ended, and the answers it played. `world` is left as it was: `apply`'s result shares with its
    input the players the move did not touch, so the playout (which changes its game in place)
    runs on a copy of its own, else it would change `world` under the next candidate."""
    after, _ = api.apply(world, move, packs=packs)
    end, answers = playout(api.clone(after), seat, packs)
    return after, end, answers


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


@dataclass
class Playouts:
    """What the planner's playouts came to, counted across its answers (the bench prints it, a
    test asserts none failed): a playout that raises is left out of the comparison, so without
    this count a broken playout would only weaken the planner, silently."""
    played: int = 0
    failed: int = 0
    error: str = ""  # the first failure: its type and message

    def fail(self, e: Exception) -> None:
        self.failed += 1
        self.error = self.error or f"{type(e).__name__}: {e}"


def _ahead(worths: dict[int, list[float]], first: int) -> tuple[int, float, float]:
    """The candidate furthest ahead of greedy's choice `first` over the same games (paired: each
    game's dice and cards are the same for every candidate, so what they share cancels out), how
    far ahead on average, and the standard error of that (inf with fewer than two games)."""
    best, edge, error = first, 0.0, math.inf
    for k, got in worths.items():
        diffs = [a - b for a, b in zip(got, worths[first], strict=True)]
        n = len(diffs)
        if k == first or n < 2:
            continue
        mean = sum(diffs) / n
        if best == first or mean > edge:
            sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
            best, edge, error = k, mean, sd / math.sqrt(n)
    return best, edge, error


def choose(state: Game, seat: str, keys: Sequence[str], seed: str, packs: Sequence[api.Pack],
           playouts: Playouts | None = None) -> str:
    count = playouts if playouts is not None else Playouts()
    prompt = api.prompts(state)[0]
    j = greedy.judge(greedy.worlds(state, seat, seed, greedy.SAMPLES, packs), seat, keys, prompt.id, packs)
    weighed = _candidates(keys, j, prompt.kind)
    if len(weighed) == 1:
        return progress.way_out(state, seat, keys, j.got, j.holds, keys[weighed[0]], seed)
    first = weighed[0]
    worths: dict[int, list[float]] = {k: [] for k in weighed}  # per game judged for every candidate
    held = dict.fromkeys(weighed, False)
    spent, done = 0, 0
    best, edge, error = first, 0.0, math.inf
    while done < MAX_WORLDS and spent < BUDGET:
        for w in (api.redeal(state, seat, f"{seed}:planner:{n}", packs=packs) for n in range(done, done + WORLDS)):
            got: dict[int, float] = {}
            for k in weighed:
                try:
                    after, end, answers = played(w, seat, Move(seat, keys[k], prompt.id), packs)
                except Exception as e:  # noqa: BLE001 -- a redealt game may break a rule's expectations: counted
                    count.fail(e)
                    continue
                count.played += 1
                held[k] = held[k] or progress.held(after, seat)
                got[k] = value.standing(end, seat)
                spent += answers
            if len(got) == len(weighed):
                for k in weighed:
                    worths[k].append(got[k])
        done += WORLDS
        best, edge, error = _ahead(worths, first)
        if abs(edge) > 2 * error or error < CLOSE:
            break  # told apart, or near enough alike
    # greedy's choice stands unless the playouts put another ahead by more than their error
    best = best if edge > SURE * error else first
    judged = bool(worths[first])
    worth = [sum(worths[k]) / len(worths[k]) if judged and k in worths else j.got[k] for k in range(len(keys))]
    holds = [held[k] if k in held else j.holds[k] for k in range(len(keys))]
    return progress.way_out(state, seat, keys, worth, holds, keys[best], seed)
