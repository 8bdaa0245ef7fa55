"""Counter-based randomness: the n-th value of a game is a pure function of (seed, n).

value(seed, n, bound): HMAC-SHA256 keyed with the UTF-8 seed over the ASCII text
"<n>:<attempt>", the first 8 bytes read as a big-endian integer, rejected while it falls in
the biased tail above the largest multiple of `bound` (then attempt + 1), else taken mod
`bound`. A die is value(seed, n, 6) + 1. A shuffle is Fisher-Yates from the last position
down, each swap index one value. docs/fairness.md and tools/verify_dice.py restate this.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import threading
from collections.abc import Iterator, Sequence
from typing import TypeVar

from engine.state import Game

_SPAN = 1 << 64
T = TypeVar("T")
_trace: list | None = None  # while tracing() is open: the draws, in order
_trace_lock = threading.Lock()


@functools.lru_cache(maxsize=64)
def _pads(seed: str) -> tuple:
    """HMAC-SHA256 keyed with the seed (RFC 2104), as the two hash states after the padded
    key: copying them saves the key's two blocks and Python's hmac wrapper on every value."""
    key = seed.encode()
    if len(key) > 64:
        key = hashlib.sha256(key).digest()
    key = key.ljust(64, b"\0")
    return hashlib.sha256(bytes([b ^ 0x36 for b in key])), hashlib.sha256(bytes([b ^ 0x5C for b in key]))


def value(seed: str, n: int, bound: int) -> int:
    limit = _SPAN - _SPAN % bound
    attempt = 0
    inner, outer = _pads(seed)
    while True:
        h = inner.copy()
        h.update(f"{n}:{attempt}".encode())
        o = outer.copy()
        o.update(h.digest())
        x = int.from_bytes(o.digest()[:8], "big")
        if x < limit:
            return x % bound
        attempt += 1


def _next(state: Game, bound: int) -> int:
    v = value(state.seed, state.rng, bound)
    state.rng += 1
    return v


def die(state: Game) -> int:
    """One six-sided die: a forced die first (scenarios), else the next value."""
    if state.forced:
        return state.forced.pop(0)
    face = _next(state, 6) + 1
    if _trace is not None:
        _trace.append(["die", face])
    return face


def dice(state: Game, n: int) -> list[int]:
    return [die(state) for _ in range(n)]


def below(state: Game, bound: int) -> int:
    """A uniform choice in range(bound), for random deals."""
    if bound <= 1:
        return 0
    v = _next(state, bound)
    if _trace is not None:
        _trace.append(["pick", bound, v])
    return v


def _fisher_yates(seed: str, n: int, items: list) -> list[int]:
    """Shuffle `items` in place with values n, n+1, ... of `seed`; the swap indices drawn."""
    swaps: list[int] = []
    for i in range(len(items) - 1, 0, -1):
        j = value(seed, n + len(swaps), i + 1)
        swaps.append(j)
        items[i], items[j] = items[j], items[i]
    return swaps


def shuffle(state: Game, items: list) -> None:
    """Shuffle in place (items belong to a state being built by apply)."""
    swaps = _fisher_yates(state.seed, state.rng, items)
    state.rng += len(swaps)
    if _trace is not None and swaps:
        _trace.append(["shuffle", len(items), swaps])


def shuffled_apart(seed: str, n: int, items: list) -> int:
    """Shuffle `items` in place from value n of `seed`, outside any game's own draws (a bot's
    randomness, derived from the game's: engine/bots); the next n free."""
    return n + len(_fisher_yates(seed, n, items))


def pick_apart(seed: str, n: int, items: Sequence[T]) -> T:
    """One of `items`, by value n of `seed`, outside any game's own draws (as shuffled_apart)."""
    return items[value(seed, n, len(items))]


@contextlib.contextmanager
def tracing() -> Iterator[list]:
    """Every random draw the engine makes while open, in order: ["die", face], ["pick", bound,
    value] or ["shuffle", length, [swap index, ...]]; a forced die draws nothing. Archives
    record them beside each move. One trace at a time per process (a lock keeps two apart)."""
    global _trace
    with _trace_lock:
        _trace = draws = list[list]()
        try:
            yield draws
        finally:
            _trace = None
