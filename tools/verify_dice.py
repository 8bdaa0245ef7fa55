#!/usr/bin/env python3
"""Re-derive a game's dice from its revealed seed (docs/fairness.md). Standard library only.

usage: verify_dice.py ARCHIVE.json          check a finished game's archive (`pbem export`):
                                            the seed against its commitment, then every random
                                            value of the game in order, recomputed, and the
                                            dice its events name
       verify_dice.py SEED [COUNT]          the first COUNT values as dice (default 20)
       verify_dice.py SEED --commitment     SHA-256 of the seed, to compare with the welcome mail

Exit status 0: everything agrees; 1: something does not (it is printed).
"""
import hashlib
import hmac
import json
import os
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


# -- archives --------------------------------------------------------------------------------
# Each move of a finished game's archive has "rng": {"from": n, "to": m, "draws": [...]}, the
# random draws the engine made in it, in order, counted from n:
#   ["die", face]                  one value: face = value(seed, n, 6) + 1
#   ["pick", bound, v]             one value: v = value(seed, n, bound)
#   ["shuffle", length, [j, ...]]  length-1 values: j = value(seed, n + k, length - k)
# The setup (dealing characters, shuffling the decks) is "start"."rng".

def recompute(seed: str, rng: dict) -> tuple[list[str], list[str], list[int], int]:
    """(what was drawn, as text; what disagrees; the dice faces; values used) for one section."""
    shown, wrong, faces = [], [], []
    n = rng["from"]
    for draw in rng["draws"]:
        if draw[0] == "die":
            got = value(seed, n, 6) + 1
            shown.append(f"#{n} die {got}")
            faces.append(got)
            ok, n = got == draw[1], n + 1
        elif draw[0] == "pick":
            got = value(seed, n, draw[1])
            shown.append(f"#{n} pick {got} of 0..{draw[1] - 1}")
            ok, n = got == draw[2], n + 1
        elif draw[0] == "shuffle":
            got = [value(seed, n + k, draw[1] - k) for k in range(draw[1] - 1)]
            shown.append(f"#{n}-#{n + len(got) - 1} shuffle of {draw[1]}: swaps {' '.join(map(str, got))}")
            ok, n = got == draw[2], n + len(got)
        else:
            shown.append(f"unknown draw {draw!r}")
            ok = False
        if not ok:
            wrong.append(f"{shown[-1]} but the archive says {draw!r}")
    if n != rng["to"]:
        wrong.append(f"the draws use counters {rng['from']}..{n - 1}, the archive says up to {rng['to'] - 1}")
    return shown, wrong, faces, n - rng["from"]


def named_dice(event: dict) -> list[int]:
    """The dice an event names in its data (`roll`, `dice`); its text is for people."""
    data = event.get("data") or {}
    named = [data["roll"]] if isinstance(data.get("roll"), int) else []
    if isinstance(data.get("dice"), list):
        named += [d for d in data["dice"] if isinstance(d, int)]
    return named


def check_archive(archive: dict, out=print) -> bool:
    seed = archive.get("seed")
    commitment = archive.get("seed_commitment")
    if seed is None:
        out("This archive holds no seed (the game has not ended, or it is a player's export).")
        out(f"The seed's commitment is {commitment}; the seed is revealed when the game ends.")
        return False
    problems, warnings, counts = [], [], {"die": 0, "pick": 0, "shuffle": 0, "values": 0}
    if hashlib.sha256(seed.encode()).hexdigest() == commitment:
        out(f"commitment ok: SHA-256 of the seed is {commitment}")
    else:
        problems.append(f"SHA-256 of the seed is not the commitment {commitment}")
    sections = [("setup", None, archive["start"])] + [(f"move {m['seq']}", m, m) for m in archive["moves"]]
    expected_from, turn, this_turn = 0, None, []
    for label, move, section in sections:
        rng = section.get("rng")
        if rng is None:
            problems.append(f"{label}: no random draws recorded")
            continue
        head = label if move is None else f"{label}  {move['line']}"
        if rng["from"] != expected_from:
            problems.append(f"{label}: the counter starts at {rng['from']}, the last section ended at {expected_from}")
        expected_from = rng["to"]
        if move and move["kind"] == "rollback":  # the counter goes back with the state; nothing is drawn
            out(f"{head}: the counter goes back to #{rng['to']}")
            if rng["draws"]:
                problems.append(f"{label}: a rollback draws nothing, the archive says it did")
            continue
        shown, wrong, faces, used = recompute(seed, rng)
        out(f"{head}: " + ("; ".join(shown) if shown else "no random values"))
        problems += [f"{label}: {w}" for w in wrong]
        for d in rng["draws"]:
            counts[d[0]] = counts.get(d[0], 0) + 1
        counts["values"] += used
        if move is None or move["turn"] != turn:
            turn, this_turn = (move or {}).get("turn"), []
        this_turn += faces
        for e in (move or {}).get("events", []):
            for roll in named_dice(e):
                if roll in this_turn:
                    out(f"    {e['text']}  [{roll}: a die of this turn]")
                else:
                    warnings.append(f"{label}: {e['text']!r} names {roll}, which no die of this turn shows")
    out(f"{counts['values']} random values: {counts['die']} dice, {counts['shuffle']} shuffles, "
        f"{counts['pick']} picks")
    for w in warnings:
        out(f"note: {w} (a Toad moves 1 without rolling; `pbem verify` re-runs the rules to check such lines)")
    for p in problems:
        out(f"MISMATCH: {p}")
    out("every random value agrees with the seed" if not problems else f"{len(problems)} mismatch(es)")
    return not problems


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if os.path.isfile(sys.argv[1]):
        with open(sys.argv[1], encoding="utf-8") as f:
            sys.exit(0 if check_archive(json.load(f)) else 1)
    seed = sys.argv[1]
    if sys.argv[2:] == ["--commitment"]:
        print(hashlib.sha256(seed.encode()).hexdigest())
    else:
        count = int(sys.argv[2]) if len(sys.argv) > 2 else 20
        print(" ".join(map(str, dice(seed, count))))
