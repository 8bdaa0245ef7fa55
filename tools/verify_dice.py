#!/usr/bin/env python3
"""Re-derive a game's dice from its revealed seed (docs/fairness.md). Standard library only.

usage: verify_dice.py SEED [COUNT]          the first COUNT values as dice (default 20)
       verify_dice.py SEED --commitment     SHA-256 of the seed, to compare with the welcome mail
"""
import hashlib
import hmac
import sys


def value(seed: str, n: int, bound: int) -> int:
    limit = 2**64 - (2**64 % bound)
    attempt = 0
    while True:
        d = hmac.new(seed.encode(), f"{n}:{attempt}".encode(), hashlib.sha256).digest()
        x = int.from_bytes(d[:8], "big")
        if x < limit:
            return x % bound
        attempt += 1


def dice(seed: str, count: int, start: int = 0) -> list[int]:
    return [value(seed, n, 6) + 1 for n in range(start, start + count)]


def shuffle(seed: str, items: list, start: int) -> list:
    items = list(items)
    n = start
    for i in range(len(items) - 1, 0, -1):
        j = value(seed, n, i + 1)
        n += 1
        items[i], items[j] = items[j], items[i]
    return items


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    seed = sys.argv[1]
    if sys.argv[2:] == ["--commitment"]:
        print(hashlib.sha256(seed.encode()).hexdigest())
    else:
        count = int(sys.argv[2]) if len(sys.argv) > 2 else 20
        print(" ".join(map(str, dice(seed, count))))
