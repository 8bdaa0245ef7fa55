"""Engine throughput: whole random games per second, applied moves per second (one core),
and the size of an encoded state, for the engine build that runs (engine/compiled.py).
Moves per second are given two ways: `apply` one move at a time keeping every state (what
the service does per answer), and `replay` folding a game's moves over one state (what
verify, export, snapshots and archives do), taking turns in each round; CPU time beside wall
time, medians and the spread over the rounds. Run by hand:

    .venv/bin/python bench/engine.py [--games 40] [--rounds 5]
    PBEM_PURE=1 .venv/bin/python bench/engine.py     # the Python sources, for comparison
"""
import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import timing  # noqa: E402

import engine  # noqa: E402
from engine import api  # noqa: E402
from pbem.bot import choose  # noqa: E402


def record(config, seed, bot_seed):
    """Play one game, returning its moves (the bot's choices are not timed below)."""
    rnd = random.Random(bot_seed)
    state = api.new_game(config, seed)
    moves = []
    while not state.over:
        move = choose(state, rnd)
        state, _ = api.apply(state, move)
        moves.append(move)
    return moves, state


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--players", type=int, default=4)
    args = ap.parse_args()
    config = {"players": [{"name": f"p{i}"} for i in range(args.players)], "options": {"turn_cap": 100}}
    games = [record(config, f"bench-{g}", g) for g in range(args.games)]
    total_moves = sum(len(m) for m, _ in games)

    def kept():
        for g, (moves, _) in enumerate(games):
            state = api.new_game(config, f"bench-{g}")
            for move in moves:  # each apply leaves its input untouched: one state copy a move
                state, _ = api.apply(state, move)

    def folded():
        for g, (moves, _) in enumerate(games):  # a replay owns its state: no copy a move
            api.replay(api.new_game(config, f"bench-{g}"), moves)

    got = timing.rounds({"replay": lambda: timing.timed(folded), "apply": lambda: timing.timed(kept)},
                        args.rounds, 1)
    sizes = [len(api.encode(s)) for _, s in games]
    print(f"engine build: {engine.BUILD} (PBEM_PURE=1 runs the Python sources)")
    print(f"games: {args.games} x {args.players} players, turn cap 100 rounds, {total_moves} moves in all; "
          f"{args.rounds} rounds, the two ways taking turns")
    for label, name in (("apply, input kept", "apply"), ("replay, one state", "replay")):
        runs = got[name]
        print(f"applied moves per second, {label}: CPU {timing.spread([total_moves / r.cpu for r in runs])}, "
              f"wall {timing.spread([total_moves / r.wall for r in runs])}")
    print(timing.ratio("apply (a copy a move) / replay", got["apply"], got["replay"]))
    per_second = [args.games / r.cpu for r in got["replay"]]
    print(f"whole games per second (replay, CPU): {timing.spread(per_second, 1, '', 1)}")
    print(f"encoded state: median {statistics.median(sizes):,} bytes, max {max(sizes):,} bytes")


if __name__ == "__main__":
    main()
