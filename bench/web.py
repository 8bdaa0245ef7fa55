"""The web face's pages on a long game: requests per second and page sizes.

A game of `--moves` moves (10,000 by default; played with random answers through
`moves.play`, and where it ends early, rolled back by the moderator and played on, so the log
has that many moves and the game still runs) is served by uvicorn on a local port, as
`pbem serve --http` serves it; one client on a kept-alive connection asks for the game's
public page and then a seat's private page, `--seconds` each. It prints requests per second,
the median and p99 time of a request, and the page's size (and gzipped, as a proxy would send
it). Nothing replays the game to make a page: the state is kept on the game row, and the log
is read from the last moves' stored events; the game at move 10 is the reference, asked
request by request in turn with the game at move N: a round's median CPU per request (this
process: client and server) beside its median wall time, medians and spread over the
rounds, and their ratio.
The page at move 10 shows ten moves of the log where a longer game's shows a page of them
(pages.LOG_MOVES, 50), so a game just past one page of log is measured too: the game's length
alone is move N against that one (target 1.2x, as for move N against move 10).

    .venv/bin/python bench/web.py [--moves 10000] [--seconds 5] [--rounds 5]
"""
from __future__ import annotations

import argparse
import gzip
import http.client
import random
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import timing  # noqa: E402

from pbem import bot  # noqa: E402
from pbem.base import log, settings as settings_mod
from pbem.core import games
from pbem.core.service import open_service  # noqa: E402
from pbem.moderate import moderator, newgame
from pbem.outbound import links  # noqa: E402
from pbem.pace import moves as pace_moves
from pbem.web import pages
from pbem.web.app import create_app  # noqa: E402

PLAYERS = [(f"p{i}", f"p{i}@example.org") for i in range(4)]


def long_game(svc, name: str, moves: int) -> str:
    g = newgame.create(svc, {"game": {"name": name, "address": "talisman@example.org",
                                      "seed": f"{name}-seed-0123456789"},
                           "players": [{"name": p, "email": e} for p, e in PLAYERS]})
    rnd, eng = random.Random(1), svc.engine
    while svc.store.game(g)["moves"] < moves:
        game = games.get(svc, g)
        state = games.state(svc, game)
        if state.over:  # played on from half-way back, so the game keeps running
            moderator.rollback(svc, g, game["moves"] // 2)
            continue
        move = bot.choose(state, rnd)
        if move.player == eng.MODERATOR:
            moderator.answer(svc, g, eng.MODERATOR, f"{move.prompt}: {move.key}")
        else:
            pace_moves.play(svc, game, move.player, [f"{move.prompt}: {move.key}"])
    return g


def serve(cfg) -> tuple[int, object]:
    import uvicorn
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(lambda: open_service(settings=cfg)), host="127.0.0.1",
                                           port=port, log_level="warning", access_log=False))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return port, server


def _get(conn: http.client.HTTPConnection, path: str) -> bytes:
    conn.request("GET", path)
    r = conn.getresponse()
    body = r.read()
    assert r.status == 200, (path, r.status)
    return body


def alternating(port: int, paths: dict[str, str], seconds: float) -> tuple[dict[str, timing.Sample], dict, dict]:
    """One request to each of `paths` in turn (each on its kept-alive connection, a different one
    first each time) for `seconds`: per key, the median CPU (this process: client and server)
    and wall time of its requests, how many, and its last page. Request by request, so each
    game's figure is taken under the same load as the others' (slots of a second each let the
    other sessions' work fall on one game and not the other: a round's ratio spread 0.6-1.9 at
    the same page)."""
    conns = {k: http.client.HTTPConnection("127.0.0.1", port) for k in paths}
    cpu: dict[str, list[float]] = {k: [] for k in paths}
    wall: dict[str, list[float]] = {k: [] for k in paths}
    last: dict[str, bytes] = {}
    keys, turn = list(paths), 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        turn += 1  # each goes first in turn: what follows another request may find more of it warm
        for k in keys[turn % len(keys):] + keys[:turn % len(keys)]:
            c, t = time.process_time(), time.perf_counter()
            last[k] = _get(conns[k], paths[k])
            wall[k].append(time.perf_counter() - t)
            cpu[k].append(time.process_time() - c)
    for c in conns.values():
        c.close()
    return ({k: timing.Sample(statistics.median(cpu[k]), statistics.median(wall[k])) for k in paths},
            {k: len(cpu[k]) for k in paths}, last)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=10_000)
    ap.add_argument("--seconds", type=float, default=5.0, help="per page and game, over all rounds")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    log.configure("json", "warning")
    with tempfile.TemporaryDirectory() as home:
        cfg = settings_mod.Settings(home=home, http=settings_mod.HttpSettings())
        svc = open_service(settings=cfg)
        t = time.perf_counter()
        short, long_ = long_game(svc, "short", 10), long_game(svc, "long", args.moves)
        full = long_game(svc, "full", pages.LOG_MOVES + 10)  # the first game length whose log fills a page
        made = {"short": short, "full": full, "long": long_}
        print(f"games made in {time.perf_counter() - t:.0f} s: {svc.store.game(long_)['moves']} moves")
        port, server = serve(cfg)
        paths = {}
        for g in made.values():
            state = games.state(svc, games.get(svc, g))
            seat = svc.store.player(g, svc.engine.waiting_for(state)[0] if not state.over else PLAYERS[0][0])
            paths[g] = {"public page": links.game_path(g), "private page": links.seat_path(svc, seat)}
            print(f"game {g}: move {svc.store.game(g)['moves']}, turn {state.turn}")
        slot = args.seconds / args.rounds
        for label in ("public page", "private page"):
            wanted = {key: paths[g][label] for key, g in made.items()}
            alternating(port, wanted, 0.5)  # warm: templates compiled, the thread's store opened
            got: dict[str, list[timing.Sample]] = {key: [] for key in made}
            counts = dict.fromkeys(made, 0)
            shown: dict[str, bytes] = {}
            for _ in range(args.rounds):
                medians, n, shown = alternating(port, wanted, slot)
                for key in made:
                    got[key].append(medians[key])
                    counts[key] += n[key]
            print(f"{label} ({args.rounds} rounds of {slot:.1f} s, one request to each game in turn; "
                  f"a round's median request):")
            for key, g in made.items():
                body = shown[key]
                print(f"  move {svc.store.game(g)['moves']:>6}: {counts[key] / args.seconds:7.1f} req/s; per request "
                      f"{timing.report('', got[key], 1e3, ' ms').removeprefix(': ')}; page {len(body) / 1024:.1f} KB "
                      f"({len(gzip.compress(body)) / 1024:.1f} KB gzipped)")
            moves = svc.store.game(long_)["moves"]
            print("  " + timing.ratio(f"move {moves} / move 10 (whose page shows fewer moves)",
                                      got["long"], got["short"], target=1.2))
            print("  " + timing.ratio(f"move {moves} / move {pages.LOG_MOVES + 10} (both pages show "
                                      f"{pages.LOG_MOVES} moves of the log)", got["long"], got["full"], target=1.2))
        server.should_exit = True


if __name__ == "__main__":
    main()
