"""Issue 20: the daemon's deadline scan costs what is due, not what is open.

Two stores, one with 1 active game and one with 1,000, each game with three seats waiting on
a deadline two days off (a reminder 24 h before it): nothing is due. A poll is
`deadlines.tick`, as every daemon cycle runs it; the two are timed in interleaved rounds
(CPU beside wall). Target: a poll at 1,000 games <= 2x a poll at 1 game. Before the scan
read through `next_at` it loaded every open deadline and its game: 184 ms CPU per poll at
1,000 games (issue 20).

    .venv/bin/python bench/deadlines_scan.py [--rounds 7] [--postgres]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[0] = str(HERE.parent)  # the repository first: bench/engine.py is no engine
sys.path.append(str(HERE))
import timing  # noqa: E402

from pbem.base import settings as settings_mod
from pbem.core.service import Service  # noqa: E402
from pbem.pace import deadlines  # noqa: E402
from pbem.store import iso, open_store  # noqa: E402

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
PACE = {"deadline": "48h", "reminders": ["24h"]}


def filled(target, n_games: int) -> Service:
    store = open_store(target, clock=lambda: NOW)
    due = NOW + timedelta(hours=47)
    with store.transaction():
        for g in range(n_games):
            gid = f"g{g:04d}"
            store.add_game(gid, {"game": {"name": gid, "pace": PACE}}, "seed", "c" * 64, b"", "v", "active")
            for seat, name in enumerate(("alice", "bob", "carol")):
                store.add_player(gid, name, seat, f"{name}@example.org", "h", "s")
                store.open_deadline(gid, 1, name, kind="move", default_key="stay",
                                    opened_at=iso(NOW - timedelta(hours=1)),
                                    due_at=iso(due), reminded="", next_at=iso(due - timedelta(hours=24)))
    return Service(settings_mod.Settings(home=str(Path(tempfile.gettempdir()))), store, None, b"")


# the scan as it was (a reference, not the service's code): every open deadline of an active
# game and seat, each game read and its pace parsed, the reminders due picked in Python
BEFORE = ("SELECT d.* FROM deadlines d JOIN games g ON g.id = d.game JOIN players p ON p.game = d.game "
          "AND p.name = d.player WHERE d.status = 'open' AND d.due_at > ? AND g.status = 'active' "
          "AND p.status = 'active' ORDER BY d.due_at")


def scan_before(svc) -> int:
    from pbem.base import clock
    from pbem.pace.pace import pace_of
    due_now, cache = 0, {}
    for row in svc.store.query(BEFORE, (iso(NOW),)):
        game = cache.get(row["game"]) or cache.setdefault(row["game"], svc.store.game(row["game"]))
        pace, due = pace_of(game), clock.parse(row["due_at"])
        due_now += any(NOW >= due - r for r in pace.reminders)
    return due_now


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--per-round", type=int, default=30)
    ap.add_argument("--postgres", action="store_true",
                    help="also on PostgreSQL (a cluster of its own, as the tests start)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        targets = {"sqlite": (Path(tmp) / "one.db", Path(tmp) / "many.db")}
        cluster = None
        if args.postgres:
            sys.path.append(str(HERE.parent / "tests"))
            from pgcluster import Cluster, _bin_dir
            cluster = Cluster(_bin_dir())
            targets["postgresql"] = (cluster.database(), cluster.database())
        for dialect, (one_target, many_target) in targets.items():
            one, many = filled(one_target, 1), filled(many_target, 1000)
            assert deadlines.tick(many) == {"reminders": 0, "defaults": 0, "held": 0}
            got = timing.rounds({"1 game": lambda: timing.timed(lambda: deadlines.tick(one)),
                                 "1000 games": lambda: timing.timed(lambda: deadlines.tick(many))},
                                args.rounds, args.per_round)
            # apart: its cache misses would slow whatever ran after it
            got.update(timing.rounds({"the scan before, 1000 games": lambda: timing.timed(lambda: scan_before(many))},
                                     args.rounds, 3))
            print(f"{dialect}: a poll (deadlines.tick), nothing due, {args.rounds} rounds x {args.per_round}")
            for name, samples in got.items():
                print("  " + timing.report(name, samples, scale=1e6, unit=" us"))
            print("  " + timing.ratio("1000 games / 1 game", got["1000 games"], got["1 game"], target=2.0))
            one.store.close()
            many.store.close()
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    main()
