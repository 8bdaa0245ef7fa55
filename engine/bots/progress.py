"""A notion of progress. A bot judges an answer by the position it leads to, and a position that
comes back unchanged costs it nothing one answer ahead: a character the rules hold on its space
(it faces the space again next turn: the Cataclysm's Frozen Spire, the Pits, a Nether card not
beaten, the engine's `must-face` marker) that may either pay to go on or stay for nothing would
stay for ever, and two such seats once stalled a game.

So a held character is worth a turn less (engine/bots/value.py `HELD`), and a seat asked while
held (it faced this space last turn and faces it again) that would choose to be held once more
takes its best way out instead one time in `ESCAPE`, by a draw from its bot seed: a bot cannot
count the turns it stayed (its input is the position, never a history), so it leaves by chance,
and staying k more turns has a chance of (1 - 1/ESCAPE)**k. Deterministic from the seed, so
`verify` still replays it; read from what every seat sees (the character did not move on)."""
from __future__ import annotations

from collections.abc import Sequence

from engine import rng
from engine.state import Game

ESCAPE = 2


def held(state: Game, seat: str) -> bool:
    """Whether the rules hold `seat`'s character on its space (it faces it again next turn)."""
    return any(p.name == seat and bool(p.flags.get("must-face")) for p in state.players)


def way_out(before: Game, seat: str, keys: Sequence[str], got: Sequence[float], holds: Sequence[bool],
            key: str, seed: str) -> str:
    """`key`, or, when the seat is held and `key` holds it again, one time in ESCAPE the best
    answer that lets it go (`got`: each answer's worth, `holds`: whether it holds the seat)."""
    out = [k for k in range(len(keys)) if not holds[k]]
    if not held(before, seat) or not holds[keys.index(key)] or not out or rng.value(seed, 1, ESCAPE):
        return key
    return keys[max(out, key=lambda k: got[k])]
