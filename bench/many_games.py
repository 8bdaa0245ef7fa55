"""One mail at 1,000 active games against one mail at 1 game: nothing a mail does may grow
with the games beside its own.

Two homes: one with a single six-player game, one with `--games` of them (each welcomed, its
welcomes still queued, as a league's would be before they are sent). In interleaved rounds
each home takes the next answer mail of its first game (`process.handle`: stored, read,
authenticated, applied, logged, reports queued; its own durable commit), timed in CPU and
wall. Target: the mail at many games <= 1.2x the mail at one.

    .venv/bin/python bench/many_games.py [--games 1000] [--rounds 7] [--per-round 5]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import timing
from pipeline import Games, config

from pbem.base import log, settings as settings_mod
from pbem.core.service import open_service
from pbem.inbound.process import handle
from pbem.moderate import newgame


def home_with(root: Path, name: str, n_games: int) -> Games:
    svc = open_service(settings=settings_mod.Settings(home=str(root / name), mails_per_hour=timing.UNLIMITED))
    first = Games(svc)  # game 1: the one that is played
    with svc.store.group_commit():
        for n in range(2, n_games + 1):
            newgame.create(svc, config(10_000 + n))
    return first


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--per-round", type=int, default=5)
    args = ap.parse_args()
    log.configure("json", "warning")
    with tempfile.TemporaryDirectory() as root:
        t0 = time.perf_counter()
        one, many = home_with(Path(root), "one", 1), home_with(Path(root), "many", args.games)
        print(f"homes made in {time.perf_counter() - t0:.0f} s: 1 game, and {args.games} games "
              f"({many.svc.store._one('SELECT COUNT(*) AS n FROM outbox')['n']} mails queued)")

        def mail_to(g: Games):
            def one_mail() -> timing.Sample:
                raw = g.next_mail()
                got = {}
                sample = timing.timed(lambda: got.setdefault("r", handle(g.svc, raw)))
                assert got["r"].status == "applied", got["r"].outcome
                return sample
            return one_mail

        got = timing.rounds({"1 game": mail_to(one), f"{args.games} games": mail_to(many)}, args.rounds,
                            args.per_round)
    print(timing.report("one mail at 1 game", got["1 game"]))
    print(timing.report(f"one mail at {args.games} games", got[f"{args.games} games"]))
    print(timing.ratio(f"{args.games} games / 1 game", got[f"{args.games} games"], got["1 game"], target=1.2))


if __name__ == "__main__":
    main()
