"""Long games: `pbem verify` of an ended game against the engine's bare replay of its moves,
and `replay --html`'s size per page.

One game of `--moves` moves is played through the service (the moderator answering for
whoever is asked, bots choosing) and ended, then exported as `pbem export` writes it. In
interleaved rounds: the bare replay (engine.api.replay: every logged line parsed and folded
over one state from the seed: no hashes, no events kept) and `verify.verify` of the archive
(read from its file, every move re-run and checked: state hashes, events, positions, dice,
the hash chain). CPU time; target: verify <= 2x the bare replay. Then `replay --html` is
written once: its pages, their median size, and the board picture they share.

    .venv/bin/python bench/archive.py [--moves 10000] [--rounds 3]
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import timing

from engine import api
from pbem import bot
from pbem.archive import archive, replay, verify
from pbem.base import log, settings as settings_mod
from pbem.core import games
from pbem.core.service import open_service
from pbem.moderate import moderator, newgame


def long_game(svc, moves: int) -> str:
    config = {"game": {"name": "long", "address": "talisman@example.org", "seed": "a-long-game-seed-0001",
                       "moderator": "mod@example.org", "options": {"turn_cap": 100000}},
              "players": [{"name": f"p{i}", "email": f"p{i}@example.org"} for i in range(6)]}
    gid = newgame.create(svc, config)
    rnd = random.Random(1)
    with svc.store.group_commit():
        for _ in range(moves):
            state = games.state(svc, games.get(svc, gid))
            if state.over:
                break
            move = bot.choose(state, rnd)
            assert moderator.answer(svc, gid, move.player, f"{move.prompt}: {move.key}").applied
    if games.get(svc, gid)["status"] != "ended":  # won before --moves: ended by itself
        moderator.end(svc, gid)
    return gid


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    log.configure("json", "warning")
    with tempfile.TemporaryDirectory() as home:
        svc = open_service(settings=settings_mod.Settings(home=home))
        gid = long_game(svc, args.moves)
        path = Path(home) / "long.json"
        archive.save(archive.export(svc, gid), path)
        data = archive.load(path)
        print(f"a game of {len(data['moves'])} moves (ended); its archive {path.stat().st_size / 1e6:.1f} MB")
        lines = [m["line"] for m in data["moves"]]
        assert all(m["kind"] == "move" for m in data["moves"])  # no rollback: the bare replay folds them all

        def bare():
            api.replay(api.new_game(data["config"], data["seed"]), [api.parse_move(line) for line in lines])

        def check():
            verdict = verify.verify(verify.read(path))  # as `pbem verify` reads it
            assert verdict.ok and verdict.rerun, verdict.problem

        got = timing.rounds({"bare replay": lambda: timing.timed(bare), "verify": lambda: timing.timed(check)},
                            args.rounds, 2)
        print(timing.report("bare replay (api.replay of the logged lines)", got["bare replay"]))
        print(timing.report("pbem verify (verify.read + verify.verify)", got["verify"]))
        print(timing.ratio("verify / bare replay", got["verify"], got["bare replay"], target=2.0))
        site = Path(home) / "site"
        pages = replay.write_html(data, site)
        sizes = [p.stat().st_size for p in pages[1:]]
        print(f"replay --html: {len(pages) - 1} turn pages, median {statistics.median(sizes) / 1024:.1f} KiB a page "
              f"(largest {max(sizes) / 1024:.1f} KiB), {sum(sizes) / 1e6:.1f} MB in all; the board picture "
              f"({replay.PICTURE}) {(site / replay.PICTURE).stat().st_size / 1024:.1f} KiB, once")


if __name__ == "__main__":
    main()
