"""The web face's pages on a long game: requests per second and page sizes.

A game of `--moves` moves (10,000 by default; played with random answers through
`games.play`, and where it ends early, rolled back by the moderator and played on, so the log
has that many moves and the game still runs) is served by uvicorn on a local port, as
`pbem serve --http` serves it; one client on a kept-alive connection asks for the game's
public page and then a seat's private page, `--seconds` each. It prints requests per second,
the median and p99 time of a request, and the page's size (and gzipped, as a proxy would send
it). Nothing replays the game to make a page: the state is kept on the game row, and the log
is read from the last moves' stored events; the figures at move 10 are printed beside those
at move N to show it.

    .venv/bin/python bench/web.py [--moves 10000] [--seconds 5]
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

from pbem import bot, games, log, moderator, settings as settings_mod  # noqa: E402
from pbem.service import open_service  # noqa: E402
from pbem.web import links  # noqa: E402
from pbem.web.app import create_app  # noqa: E402

PLAYERS = [(f"p{i}", f"p{i}@example.org") for i in range(4)]


def long_game(svc, name: str, moves: int) -> str:
    g = games.create(svc, {"game": {"name": name, "address": "talisman@example.org", "seed": f"{name}-seed-0123456789"},
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
            games.play(svc, game, move.player, [f"{move.prompt}: {move.key}"])
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


def hammer(port: int, path: str, seconds: float) -> tuple[list[float], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port)
    times, body, end = [], b"", time.perf_counter() + seconds
    while time.perf_counter() < end:
        t = time.perf_counter()
        conn.request("GET", path)
        r = conn.getresponse()
        body = r.read()
        assert r.status == 200, (path, r.status)
        times.append(time.perf_counter() - t)
    conn.close()
    return times, body


def report(label: str, times: list[float], body: bytes, seconds: float) -> None:
    times = sorted(times)
    print(f"  {label:<22} {len(times) / seconds:7.1f} req/s   median {statistics.median(times) * 1000:6.1f} ms   "
          f"p99 {times[int(len(times) * 0.99) - 1] * 1000:6.1f} ms   page {len(body) / 1024:6.1f} KB "
          f"({len(gzip.compress(body)) / 1024:5.1f} KB gzipped)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=10_000)
    ap.add_argument("--seconds", type=float, default=5.0)
    args = ap.parse_args()
    log.configure("json", "warning")
    with tempfile.TemporaryDirectory() as home:
        cfg = settings_mod.Settings(home=home, http=settings_mod.HttpSettings())
        svc = open_service(settings=cfg)
        t = time.perf_counter()
        short, long_ = long_game(svc, "short", 10), long_game(svc, "long", args.moves)
        print(f"games made in {time.perf_counter() - t:.0f} s: {svc.store.game(long_)['moves']} moves")
        port, server = serve(cfg)
        for g in (short, long_):
            state = games.state(svc, games.get(svc, g))
            seat = svc.store.player(g, svc.engine.waiting_for(state)[0] if not state.over else PLAYERS[0][0])
            print(f"game {g}, move {svc.store.game(g)['moves']}, turn {state.turn}:")
            for label, path in (("public page", links.game_path(g)), ("private page", links.seat_path(svc, seat))):
                hammer(port, path, 0.5)  # warm: templates compiled, thread's store opened
                times, body = hammer(port, path, args.seconds)
                report(label, times, body, args.seconds)
        server.should_exit = True


if __name__ == "__main__":
    main()
