"""The greedy bot: one question ahead. Each answer is played on `SAMPLES` games the seat cannot
tell from the real one (`api.redeal`), the engine running on until the next question or the end,
and the answer whose outcomes are worth most to the seat on average is played (ties: the calm
one, what a missed deadline would play). A fight's odds, a trap's dice, a card that may come:
the engine itself plays them out on the redealt games, so the risk of an answer is in its
outcomes, not guessed beside them.

An answer that changes nothing but the question (a Spell window's `ditch`, which only opens the
list of what to ditch, whose `done` comes back) is not taken while another is open: worth what
the game is worth now, it would otherwise win against an answer that costs a little, and the
bot would go round that menu for ever. Nor is staying where the rules hold the seat, for ever
(progress.py)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import msgspec

from engine import api
from engine.bots import progress, value
from engine.state import Game, Move

SAMPLES = 3  # redealt games per answer (the same ones for every answer: outcomes compared alike)
NOT_JUDGED = float("nan")


def worlds(state: Game, seat: str, seed: str, n: int, packs: Sequence[api.Pack]) -> list[Game]:
    """`n` games `seat` cannot tell from `state` (their own dice and unseen cards)."""
    return [api.redeal(state, seat, f"{seed}:{k}", packs=packs) for k in range(n)]


def _still(before: Game, after: Game) -> bool:
    """Nothing happened but a new question (a menu opened or closed)."""
    r = msgspec.structs.replace
    return r(after, prompt=None, next_prompt=0, moves=0) == r(before, prompt=None, next_prompt=0, moves=0)


def outcome(world: Game, move: Move, seat: str, packs: Sequence[api.Pack]) -> tuple[float, bool, bool]:
    """The seat's standing once `move` is played on a copy of `world`, whether nothing but
    the question changed, and whether the rules hold the seat on its space (progress.py). A
    move a redealt game refuses, or one that breaks on it, is not judged (NOT_JUDGED) rather
    than stopping the bot: a redealt game may hold what the real one never would (a card dealt
    where a rule did not expect it)."""
    try:
        after, _ = api.apply(world, move, packs=packs)
    except Exception:  # noqa: BLE001 -- see above: the answer is judged on the other games
        return NOT_JUDGED, False, False
    return value.standing(after, seat), _still(world, after), progress.held(after, seat)


class Judged(NamedTuple):
    got: list[float]  # each answer's average worth over the same games
    still: list[bool]  # whether it is a mere menu
    holds: list[bool]  # whether it leaves the seat held on its space


def judge(worlds_: Sequence[Game], seat: str, keys: Sequence[str], prompt: int,
          packs: Sequence[api.Pack]) -> Judged:
    out = Judged([], [], [])
    for key in keys:
        outcomes = [outcome(w, Move(seat, key, prompt), seat, packs) for w in worlds_]
        good = [v for v, _, _ in outcomes if v == v]  # nan: not judged
        out.got.append(sum(good) / len(good) if good else -value.WIN)
        out.still.append(all(s for _, s, _ in outcomes))
        out.holds.append(any(h for _, _, h in outcomes))
    return out


_CALM: dict[str, tuple[str, ...]] = {}  # kind -> the keys a missed deadline plays (engine/questions.py)


def calm(kind: str) -> tuple[str, ...]:
    """The answers that spend and risk nothing for a kind of question: its deadline default, else
    the usual declines."""
    if not _CALM:
        _CALM.update((k.name, k.default or ()) for k in api.question_kinds())
    return _CALM.get(kind, ()) + api.DECLINE


def best(keys: Sequence[str], got: Sequence[float], still: Sequence[bool], kind: str) -> str:
    """The answer worth most, menus last; among answers worth the same, the calm one."""
    open_ = [k for k in range(len(keys)) if not still[k]] or list(range(len(keys)))
    top = max(got[k] for k in open_)
    tied = [keys[k] for k in open_ if got[k] >= top - 1e-9]
    return next((k for k in calm(kind) if k in tied), tied[0])


def choose(state: Game, seat: str, keys: Sequence[str], seed: str, packs: Sequence[api.Pack]) -> str:
    prompt = api.prompts(state)[0]
    j = judge(worlds(state, seat, seed, SAMPLES, packs), seat, keys, prompt.id, packs)
    return progress.way_out(state, seat, keys, j.got, j.holds, best(keys, j.got, j.still, prompt.kind), seed)
