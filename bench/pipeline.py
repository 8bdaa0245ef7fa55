"""The whole pipeline, mail in to reports out, timed; beside the floor (../shared/bench/floor.py).

Each answer is a real mail (token by plus-address, the answer in the body) handed to
`process.handle`, and the time is all of it: stored, parsed, authenticated, applied by the
engine, logged, state and snapshot kept, every report it calls for queued
(pbem/turnmail.py: the sender, the newly asked, everyone when a turn begins). When a game
ends, another starts. It prints the floor's median, the pipeline's median and p99 per move
and their ratio, how many mails a move queued on average, the median of the moves that
mailed every player (a turn began or the game ended: the worst case), and the cost of move
10,000 against move 10 (which should be the same: no move replays the game).

A queued mail is its context; it is rendered when it is sent (pbem/render.py), which is
not in the pipeline's figures: that cost is printed on its own, per mail and per move, by
rendering what the timed moves queued, in the order they would be sent.

Mails are taken `--batch` at a time in one group commit, as `pbem serve` takes what waits in
the drop folder or the Maildir (pbem/store.py `group_commit`): the batch's one fsync is
shared out over its mails. A first run takes mails one by one, each paying its own fsync,
as `pbem ingest` from an MTA pipe does; its median is printed too.

    .venv/bin/python bench/pipeline.py [--mails 2000] [--long 10000] [--batch 10] [--floor PATH]
"""
from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pbem import demo, games, log, moderator, outbox, settings as settings_mod  # noqa: E402
from pbem.process import handle  # noqa: E402
from pbem.service import open_service  # noqa: E402

PLAYERS = [(f"p{i}", f"p{i}@example.org") for i in range(6)]


def config(n: int) -> dict:
    return {"game": {"name": f"bench-{n}", "address": "talisman@example.org", "seed": f"bench-seed-{n}",
                     "moderator": "mod@example.org"},
            "players": [{"name": p, "email": e} for p, e in PLAYERS]}


class Games:
    """The game being played, and the next answer's mail; a new game when one ends."""

    def __init__(self, svc):
        self.svc, self.n, self.mails = svc, 0, 0
        self.new()

    def new(self):
        self.n += 1
        self.game = games.create(self.svc, config(self.n))
        self.tokens = {p: self.svc.token(self.svc.store.player(self.game, p)) for p, _ in PLAYERS}

    def next_mail(self) -> bytes:
        """The first legal answer of whoever is asked, as their reply mail; the moderator's
        questions (a card to settle) are skipped by `game answer`, outside the timing."""
        while True:
            state = games.state(self.svc, games.get(self.svc, self.game))
            if state.over:
                self.new()
                continue
            move = self.svc.engine.legal_moves(state)[0]
            if move.player != self.svc.engine.MODERATOR:
                break
            played = moderator.answer(self.svc, self.game, move.player, f"{move.prompt}: skip")
            if played.failed:
                raise SystemExit(f"{self.game}: the moderator cannot skip: {played.failed['reason']}")
        self.mails += 1
        return demo.reply(self.game, move.player, f"{move.player}@example.org", self.tokens[move.player],
                          f"{move.prompt}: {move.key}", f"<bench-{self.mails}@example.org>")


def queued(svc) -> int:
    return svc.store._one("SELECT COUNT(*) AS n FROM outbox")["n"]


def timed(g: Games, count: int, batch: int = 1) -> list[tuple[float, int]]:
    """(seconds, mails queued) of each of `count` answer mails, taken `batch` at a time as
    the daemon takes what waits in a folder: one group commit, whose closing fsync is shared
    out over the batch's mails (batch 1: every mail pays its own fsync)."""
    out = []
    for start in range(0, count, batch):
        group = g.svc.store.group_commit()
        group.__enter__()
        times = []
        for _ in range(min(batch, count - start)):
            raw = g.next_mail()
            before = queued(g.svc)
            t0 = time.perf_counter()
            result = handle(g.svc, raw)
            times.append((time.perf_counter() - t0, queued(g.svc) - before))
            assert result.status == "applied", (result.outcome, raw[-60:])
        t0 = time.perf_counter()
        group.__exit__(None, None, None)
        share = (time.perf_counter() - t0) / len(times)
        out += [(t + share, n) for t, n in times]
    return out


def pct(ts: list[float], p: float) -> float:
    s = sorted(ts)
    return s[min(len(s) - 1, int(len(s) * p))]


def render_queued(svc, moves: int) -> None:
    """Render every queued mail, as sending would (not stored): the cost the queue defers."""
    ts = []
    for row in svc.store.outbox_due():
        t0 = time.perf_counter()
        outbox.rendered(svc, row)
        ts.append(time.perf_counter() - t0)
    print(f"rendering when sent (not in the pipeline's figures): {len(ts)} mails, median "
          f"{statistics.median(ts) * 1e6:.0f} us per mail, {sum(ts) / moves * 1e6:.0f} us per move on average")


def floor(path: Path) -> float | None:
    """Run the floor script; its median per move, in microseconds."""
    if not path.exists():
        print(f"floor: {path} not found")
        return None
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, check=True).stdout
    print(out.strip())
    m = re.search(r"median (\d+) us", out)
    return float(m.group(1)) if m else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mails", type=int, default=2000, help="answer mails for the throughput figures")
    ap.add_argument("--long", type=int, default=10000, help="compare the cost of this move with move 10")
    ap.add_argument("--floor", type=Path, default=REPO.parent / "shared" / "bench" / "floor.py")
    ap.add_argument("--batch", type=int, default=10, help="mails per group commit (one fsync each batch)")
    args = ap.parse_args()
    log.configure("json", "warning")

    with tempfile.TemporaryDirectory() as home:
        svc = open_service(settings=settings_mod.Settings(home=home))
        g = Games(svc)
        one_by_one = [t for t, _ in timed(g, max(1, args.mails // 5))]
        t0 = time.perf_counter()
        runs = timed(g, args.mails, args.batch)
        wall = time.perf_counter() - t0
        ts = [t for t, _ in runs]
        everyone = [t for t, n in runs if n >= len(PLAYERS)]  # a turn began or the game ended
        print(f"pipeline: {args.mails} mails in {wall:.1f} s ({len(PLAYERS)} players, {g.n} game(s)), "
              f"{args.batch} per group commit: {args.mails / wall:.0f} moves/s; per move median "
              f"{statistics.median(ts) * 1e6:.0f} us, p99 {pct(ts, 0.99) * 1e6:.0f} us (the batch's fsync shared out)")
        print(f"each mail its own fsync (as `pbem ingest` from an MTA pipe): median "
              f"{statistics.median(one_by_one) * 1e6:.0f} us over {len(one_by_one)} mails")
        print(f"mails queued per move: {sum(n for _, n in runs) / len(runs):.2f} on average "
              f"({len(PLAYERS)} if every player heard of every move); moves that mailed every player "
              f"(turn-ending): {len(everyone)}, median {statistics.median(everyone) * 1e6:.0f} us")
        median, p99 = statistics.median(ts) * 1e6, pct(ts, 0.99) * 1e6
        render_queued(svc, len(runs))

    with tempfile.TemporaryDirectory() as home:
        # one long game: if it ends before --long moves, moves still run through later games;
        # what matters is that a move's cost does not grow with the log behind it
        svc = open_service(settings=settings_mod.Settings(home=home))
        g = Games(svc)
        timed(g, 5)
        early = timed(g, 10)  # moves 6..15
        timed(g, max(0, args.long - 20))
        late = timed(g, 10)
        seq = games.get(svc, g.game)["moves"]
        print(f"move 10: {statistics.median(t for t, _ in early) * 1e6:.0f} us; move {args.long}: "
              f"{statistics.median(t for t, _ in late) * 1e6:.0f} us (median of 10 each; the game then at move "
              f"{seq}, game {g.n})")

    floor_us = floor(args.floor)
    if floor_us:
        print(f"floor median {floor_us:.0f} us; pipeline median {median:.0f} us (p99 {p99:.0f} us); "
              f"pipeline / floor: {median / floor_us:.2f}x (target: 2x)")


if __name__ == "__main__":
    main()
