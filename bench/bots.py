"""How strong the seat bots are, and what a move of each costs (issue 30): seeded base games
played by bots alone, each to its end or to a cap of 400 turns, and a table of win rates.

    nice -n 19 .venv/bin/python bench/bots.py [--games 200] [--first 0] [--jobs 2] [--cap 400] [--minutes M]
                                              [--only greedy-random ...] [--save FILE]
    .venv/bin/python bench/bots.py --table FILE ...  # one table from runs saved over disjoint seeds
    nice -n 19 .venv/bin/python bench/bots.py --mixes [--games 1] [--levels random greedy]  # every pack mix

Pairings (the first level is the one measured; it sits at each seat in turn):
  greedy-random    two players: greedy against random        (target: greedy wins >= 70 %)
  planner-greedy   two players: planner against greedy       (target: planner wins >= 60 %)
  greedy-3random   four players: one greedy, three random    (target: greedy wins >= 45 %; chance 25 %)

At the cap a game has no winner of its own: the character nearest to winning wins, by this
measure (engine/bots/table.py `nearest_key`), compared in order: the region reached (the Crown,
the Inner, the Middle, the Outer Region; a dead character last), a Talisman held, spaces from
the Valley of Fire in the Inner Region, then Strength + Craft + lives. A tie is no one's win.
A win rate is shown with its 95 % Wilson interval.

Each answer a bot chooses is timed in CPU (time.process_time) in the worker that plays it: the
median, the 90th percentile and the worst per level. Only questions with two or more answers
are counted (a single option is answered without thinking). The CPU of all the games and the
wall time are printed beside them, and the planner's playouts: how many were played, how many
raised (left out of its comparison: each one weakens it; the first error is printed).

Game n of a pairing is seeded `bench-PAIRING-n`: two runs with `--first` apart play disjoint
games, each `--save`s its games (one JSON line each) and `--table` prints them as one.

--mixes plays every pack mix the playouts play (tests/test_playouts.py `pack_mixes`), three
or four seats (a Nemesis game seats the Nemesis) at each level, to the end (no cap; at most
100,000 answers): no game may raise or stall; the planner's failed playouts are counted.
"""
from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.append(str(REPO / "tests"))  # test_playouts.pack_mixes

from engine import api, bots  # noqa: E402
from engine.bots import planner, table  # noqa: E402

PAIRINGS = {
    "greedy-random": (["greedy", "random"], 0.70),
    "planner-greedy": (["planner", "greedy"], 0.60),
    "greedy-3random": (["greedy", "random", "random", "random"], 0.45),
}


def _timed_choose(costs: dict[str, list[float]], playouts: planner.Playouts):
    def chooser(state, seat, level, packs):
        many = len(next(p for p in api.prompts(state) if seat in p.players).options) > 1
        started = time.process_time()
        move = bots.choose(state, seat, level, packs=packs, playouts=playouts)
        if many:
            costs.setdefault(level, []).append(time.process_time() - started)
        return move
    return chooser


def one_game(job: tuple[str, int, int]) -> dict:
    """Game `n` of a pairing: the measured bot at seat n % players."""
    name, n, cap = job
    levels, _ = PAIRINGS[name]
    k = n % len(levels)
    seats = levels[1:k + 1] + [levels[0]] + levels[k + 1:]  # the measured bot at seat k
    names = [f"p{i}" for i in range(len(seats))]
    costs: dict[str, list[float]] = {}
    playouts = planner.Playouts()
    started = time.process_time()
    result = table.play({"packs": [], "players": [{"name": s} for s in names]}, f"bench-{name}-{n}",
                        dict(zip(names, seats)), cap=cap, chooser=_timed_choose(costs, playouts))
    win = len(result.winners) == 1 and result.winners[0] == names[k]
    return {"pairing": name, "n": n, "win": win, "capped": result.capped, "turns": result.state.turn,
            "moves": result.moves, "playouts": playouts.played, "failed": playouts.failed, "error": playouts.error,
            "costs": costs, "cpu": time.process_time() - started}


def wilson(wins: int, n: int) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    z, p = 1.96, wins / n
    scale = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / scale
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / scale
    return mid - half, mid + half


def ms(x: float) -> str:
    return f"{x * 1000:.1f}"


def played(work, jobs: list, args) -> tuple[list[dict], float]:
    """Each job's result, in the workers, until all are done or `--minutes` have passed (then
    the games not done are left out, and the table says how many were played). Each game's
    line goes to stderr as it ends, and whole to `--save`: a run stopped early still shows what
    it played."""
    wall, done = time.perf_counter(), []
    save = open(args.save, "a") if getattr(args, "save", None) else None  # noqa: SIM115 -- closed below
    with multiprocessing.Pool(args.jobs) as pool:
        for d in pool.imap_unordered(work, jobs, chunksize=1):
            done.append(d)
            print(json.dumps({k: v for k, v in d.items() if k != "costs"}), file=sys.stderr, flush=True)
            if save:
                print(json.dumps(d), file=save, flush=True)
            if args.minutes and time.perf_counter() - wall > 60 * args.minutes:
                pool.terminate()
                break
    if save:
        save.close()
    return done, time.perf_counter() - wall


def strength(args) -> None:
    # game by game across the pairings, so a run cut short by --minutes has played each alike
    jobs = [(name, n, args.cap) for n in range(args.first, args.first + args.games) for name in args.only]
    done, wall = played(one_game, jobs, args)
    print(f"{len(done)} of {len(jobs)} games, cap {args.cap} turns, {args.jobs} workers: "
          f"CPU {sum(d['cpu'] for d in done):.0f} s, wall {wall:.0f} s\n")
    print_table(done, args.only)


def saved(paths: list[str]) -> None:
    """The table of games saved by runs (`--save`), as one run (a game played twice counts once)."""
    games = {}
    for path in paths:
        for line in Path(path).read_text().splitlines():
            d = json.loads(line)
            games[d["pairing"], d["n"]] = d
    done = list(games.values())
    print(f"{len(done)} games from {len(paths)} runs: CPU {sum(d['cpu'] for d in done):.0f} s\n")
    print_table(done, [name for name in PAIRINGS if any(d["pairing"] == name for d in done)])


def print_table(done: list[dict], pairings: list[str]) -> None:
    print(f"{'pairing':16} {'games':>5} {'won':>5} {'rate':>6} {'95% interval':>14} {'target':>6} {'capped':>6} "
          f"{'turns (median)':>14}")
    costs: dict[str, list[float]] = {}
    for name in pairings:
        got = [d for d in done if d["pairing"] == name]
        if not got:
            continue
        won = sum(d["win"] for d in got)
        lo, hi = wilson(won, len(got))
        target = PAIRINGS[name][1]
        print(f"{name:16} {len(got):5} {won:5} {won / len(got):6.1%} {f'{lo:.0%}-{hi:.0%}':>14} {target:6.0%} "
              f"{sum(d['capped'] for d in got):6} {statistics.median(d['turns'] for d in got):14.0f}")
        for d in got:
            for level, c in d["costs"].items():
                costs.setdefault(level, []).extend(c)
    print(f"\n{'level':8} {'answers':>8} {'median ms':>10} {'p90 ms':>8} {'worst ms':>9}"
          "   (CPU per answer with a choice)")
    for level in bots.LEVELS:
        c = sorted(costs.get(level, []))
        if c:
            print(f"{level:8} {len(c):8} {ms(statistics.median(c)):>10} {ms(c[int(0.9 * (len(c) - 1))]):>8} "
                  f"{ms(c[-1]):>9}")
    failed = [d for d in done if d.get("failed")]
    print(f"\nplanner playouts: {sum(d.get('playouts', 0) for d in done)} played, "
          f"{sum(d.get('failed', 0) for d in done)} failed (in {len(failed)} games)"
          + (f"; first: {failed[0]['error']}" if failed else ""))
    cpu = sorted(d["cpu"] for d in done if "planner" in PAIRINGS[d["pairing"]][0])
    if cpu:
        print(f"games with a planner: CPU per game (every seat) median {statistics.median(cpu):.1f} s, "
              f"worst {cpu[-1]:.1f} s")


def one_mix(job: tuple[list[str], str, int]) -> dict:
    from test_playouts import game_config
    mix, level, n = job
    config = game_config(mix, 3 if n % 2 else 4)
    names = [p["name"] for p in config["players"]]
    playouts = planner.Playouts()
    started = time.process_time()
    try:
        result = table.play(config, f"mix-{'-'.join(mix) or 'base'}-{level}-{n}", dict.fromkeys(names, level),
                            cap=10**9, max_moves=100_000, chooser=_timed_choose({}, playouts))
        out = {"ended": not result.capped, "turns": result.state.turn, "error": None}
    except Exception as e:  # noqa: BLE001 -- the table says which mix failed and how
        out = {"ended": False, "turns": None, "error": f"{type(e).__name__}: {e}"}
    return {"mix": mix, "level": level, "cpu": time.process_time() - started, "failed": playouts.failed,
            "failure": playouts.error, **out}


def mixes(args) -> None:
    from test_playouts import pack_mixes
    jobs = [(mix, level, n) for n in range(args.games) for level in args.levels for mix in pack_mixes()]
    done, _ = played(one_mix, jobs, args)
    bad = [d for d in done if not d["ended"]]
    print(f"{'mix':44} {'level':8} {'ended':>5} {'turns':>6} {'CPU s':>6} {'failed playouts':>15}")
    for d in sorted(done, key=lambda d: (d["mix"], d["level"])):
        print(f"{'+'.join(d['mix']) or 'base':44} {d['level']:8} {str(d['ended']):>5} {d['turns'] or '-':>6} "
              f"{d['cpu']:6.1f} {d['failed']:15}" + (f"  {d['error']}" if d["error"] else "")
              + (f"  (first failed playout: {d['failure']})" if d["failure"] else ""))
    print(f"\n{len(done) - len(bad)} of {len(done)} games ended by the rules ({len(jobs)} asked)")
    if bad:
        raise SystemExit(1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=200, help="games per pairing (per mix and level with --mixes)")
    ap.add_argument("--first", type=int, default=0, help="the first game's number (its seed): runs over disjoint games")
    ap.add_argument("--save", help="append each game's result to this file (JSON lines), for --table")
    ap.add_argument("--table", nargs="+", metavar="FILE", help="print the table of games saved by runs, play none")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes")
    ap.add_argument("--cap", type=int, default=400, help="turns before a game is judged by the measure")
    ap.add_argument("--only", nargs="+", choices=list(PAIRINGS), default=list(PAIRINGS))
    ap.add_argument("--minutes", type=float, default=0, help="stop after so many minutes of wall time (0: never)")
    ap.add_argument("--mixes", action="store_true", help="every pack mix played to its end by bots only")
    ap.add_argument("--levels", nargs="+", choices=bots.LEVELS, default=list(bots.LEVELS),
                    help="with --mixes: the levels that play (every seat at one level)")
    args = ap.parse_args()
    if args.table:
        saved(args.table)
    else:
        mixes(args) if args.mixes else strength(args)


if __name__ == "__main__":
    main()
