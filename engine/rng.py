"""Counter-based randomness: the n-th value of a game is a pure function of (seed, n).

value(seed, n, bound): HMAC-SHA256 keyed with the UTF-8 seed over the ASCII text
"<n>:<attempt>", the first 8 bytes read as a big-endian integer, rejected while it falls in
the biased tail above the largest multiple of `bound` (then attempt + 1), else taken mod
`bound`. A die is value(seed, n, 6) + 1. A shuffle is Fisher-Yates from the last position
down, each swap index one value. docs/fairness.md and tools/verify_dice.py restate this.
"""
from __future__ import annotations

import functools
import hashlib

from engine.state import Game

_SPAN = 1 << 64


@functools.lru_cache(maxsize=64)
def _pads(seed: str) -> tuple:
    """HMAC-SHA256 keyed with the seed (RFC 2104), as the two hash states after the padded
    key: copying them saves the key's two blocks and Python's hmac wrapper on every value."""
    key = seed.encode()
    if len(key) > 64:
        key = hashlib.sha256(key).digest()
    key = key.ljust(64, b"\0")
    return hashlib.sha256(bytes(b ^ 0x36 for b in key)), hashlib.sha256(bytes(b ^ 0x5C for b in key))


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
    return _next(state, 6) + 1


def dice(state: Game, n: int) -> list[int]:
    return [die(state) for _ in range(n)]


def below(state: Game, bound: int) -> int:
    """A uniform choice in range(bound), for random deals."""
    return _next(state, bound) if bound > 1 else 0


def shuffle(state: Game, items: list) -> None:
    """Shuffle in place (items belong to a state being built by apply)."""
    for i in range(len(items) - 1, 0, -1):
        j = _next(state, i + 1)
        items[i], items[j] = items[j], items[i]
