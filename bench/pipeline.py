"""The whole pipeline, mail in to reports out, timed; beside the floor (../shared/bench/floor.py).

Each answer is a real mail (token by plus-address, the answer in the body) handed to
`process.handle`, and the time is all of it: stored, parsed, authenticated, applied by the
engine, logged, state and snapshot kept, every report it calls for queued
(pbem/outbound/turnmail.py: the sender, the newly asked, everyone when a turn begins). When a game
ends, another starts. It prints the floor's cost per move and the pipeline's per mail and
their ratio, how many mails a move queued on average, the cost of the moves that mailed
every player (a turn began or the game ended: the worst case), and the cost of a mail after
move 10,000 against one at a game's first moves (which should be the same: no move replays
the game). It counts, too, the SQL statements a mail runs (SQLite's trace: a count decides
where CPU time on a shared machine cannot).

A queued mail is its context; it is rendered when it is sent (pbem/outbound/render.py), which is
not in the pipeline's figures: that cost is printed on its own, per mail and per move, by
rendering what the timed moves queued, in the order they would be sent.

Mails are taken `--batch` at a time in one group commit, as `pbem serve` takes what waits in
the Maildir, the IMAP mailbox or the MTA pipe's spool (pbem/store/ `group_commit`): the
batch's one fsync is shared out over its mails. (The drop folder commits each file on its
own: a file is moved to cur/ after its own durable commit.) Rounds of mails taken one by one,
each paying its own fsync as `ingest` without a daemon does, are printed too.

Every figure is CPU time (this process: user + system) beside wall time, in `--rounds`
rounds; each round runs the floor's own loop (../shared/bench/floor.py, in this process, for
`--per-round` moves) and then `--per-round` mails of each kind, so a busy neighbour slows
both alike; the ratio of a round is pipeline / floor, printed as the median and spread of
the rounds. The same is done for flatness in the game's length: mails to a game at move
`--long` against mails to a game at its first moves, interleaved.

    .venv/bin/python bench/pipeline.py [--rounds 7] [--per-round 100] [--long 10000] [--batch 10]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import timing  # noqa: E402

from pbem import demo  # noqa: E402
from pbem.base import log, settings as settings_mod
from pbem.core import games
from pbem.core.service import open_service  # noqa: E402
from pbem.inbound.process import handle  # noqa: E402
from pbem.moderate import moderator, newgame
from pbem.outbound import outbox

PLAYERS = [(f"p{i}", f"p{i}@example.org") for i in range(6)]


def config(n: int) -> dict:
    return {"game": {"name": f"bench-{n}", "address": "talisman@example.org", "seed": f"bench-seed-{n}",
                     "moderator": "mod@example.org"},
            "players": [{"name": p, "email": e} for p, e in PLAYERS]}


class Games:
    """The game being played, and the next answer's mail; a new game when one ends."""

    def __init__(self, svc, first: int = 0):
        self.svc, self.n, self.mails, self.first = svc, first, 0, first  # games: bench-<first + 1>...
        self.new()

    def new(self):
        self.n += 1
        self.game = newgame.create(self.svc, config(self.n))
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
                          f"{move.prompt}: {move.key}", f"<bench-{self.first}-{self.mails}@example.org>")


def queued(svc) -> int:
    return svc.store._one("SELECT COUNT(*) AS n FROM outbox")["n"]


def timed(g: Games, count: int, batch: int = 1) -> list[tuple[timing.Sample, int]]:
    """(CPU and wall, mails queued) of each of `count` answer mails, taken `batch` at a time
    as the daemon takes what waits in the Maildir or the spool: one group commit, whose
    closing fsync is shared out over the batch's mails (batch 1: every mail its own fsync).
    Choosing the answers (the bot) is not timed."""
    out = []
    for start in range(0, count, batch):
        group = g.svc.store.group_commit()
        group.__enter__()
        times = []
        for _ in range(min(batch, count - start)):
            raw = g.next_mail()
            before = queued(g.svc)
            got = {}
            sample = timing.timed(lambda: got.setdefault("r", handle(g.svc, raw)))
            times.append((sample, queued(g.svc) - before))
            assert got["r"].status == "applied", (got["r"].outcome, raw[-60:])
        closing = timing.timed(lambda: group.__exit__(None, None, None))
        share = timing.Sample(closing.cpu / len(times), closing.wall / len(times))
        out += [(timing.Sample(t.cpu + share.cpu, t.wall + share.wall), n) for t, n in times]
    return out


def mean(samples: list[timing.Sample]) -> timing.Sample:
    return timing.Sample(sum(s.cpu for s in samples) / len(samples), sum(s.wall for s in samples) / len(samples))


def render_queued(svc, moves: int) -> None:
    """Render every queued mail, as sending would (not stored): the cost the queue defers."""
    ts = []
    for row in svc.store.outbox_due():
        ts.append(timing.timed(lambda: outbox.rendered(svc, row)))
    cpu, wall = statistics.median(t.cpu for t in ts), statistics.median(t.wall for t in ts)
    print(f"rendering when sent (not in the pipeline's figures): {len(ts)} mails, CPU median {cpu * 1e6:.0f} us per "
          f"mail (wall {wall * 1e6:.0f} us), {sum(t.cpu for t in ts) / moves * 1e6:.0f} us CPU per move on average")


def statements(g: Games, count: int, batch: int) -> None:
    """The SQL statements a mail runs (SQLite's trace of the connection: the store's own SQL,
    BEGIN, SAVEPOINT and COMMIT included), counted over `count` mails, by their first words."""
    seen: list[str] = []
    conn = g.svc.store.db.conn
    for start in range(0, count, batch):
        with g.svc.store.group_commit():
            for _ in range(min(batch, count - start)):
                raw = g.next_mail()  # the bot's reads are not the mail's
                conn.set_trace_callback(seen.append)
                try:
                    handle(g.svc, raw)
                finally:
                    conn.set_trace_callback(None)
    kinds: dict[str, int] = {}
    for sql in seen:
        words = " ".join(sql.split()[:3])
        kinds[words] = kinds.get(words, 0) + 1
    commits = sum(n for k, n in kinds.items() if k.startswith(("COMMIT", "RELEASE")))
    print(f"SQL per mail ({count} mails): {len(seen) / count:.1f} statements, {commits / count:.1f} commits or "
          f"savepoints released; the most frequent: " + ", ".join(
              f"{k} {n / count:.2f}" for k, n in sorted(kinds.items(), key=lambda kv: -kv[1])[:6]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--per-round", type=int, default=100, help="floor moves, and mails of each kind, a round")
    ap.add_argument("--long", type=int, default=10000, help="compare mails at this move with mails at the first")
    ap.add_argument("--floor", type=Path, default=timing.floor_path())
    ap.add_argument("--batch", type=int, default=10, help="mails per group commit (one fsync each batch)")
    args = ap.parse_args()
    log.configure("json", "warning")
    k = args.per_round

    with tempfile.TemporaryDirectory() as home:
        svc = open_service(settings=settings_mod.Settings(home=home, mails_per_hour=timing.UNLIMITED))
        g = Games(svc)
        timed(g, 20, args.batch)  # warm: templates, caches, the store's pages
        runs: list[tuple[timing.Sample, int]] = []

        def batched() -> timing.Sample:
            got = timed(g, k, args.batch)
            runs.extend(got)
            return mean([t for t, _ in got])

        got = timing.rounds({"floor": lambda: timing.floor_round(args.floor, k), "pipeline": batched,
                             "one by one": lambda: mean([t for t, _ in timed(g, max(1, k // 5))])},
                            args.rounds, 1)
        everyone = [t.cpu for t, n in runs if n >= len(PLAYERS)]  # a turn began or the game ended
        print(f"{len(runs)} mails timed ({len(PLAYERS)} players, {g.n} game(s)), {args.batch} per group commit; "
              f"per mail, the mean of a round:")
        print("  " + timing.report("floor (its own loop, in this process)", got["floor"], 1e6, " us"))
        print("  " + timing.report(f"pipeline, {args.batch} per group commit", got["pipeline"], 1e6, " us"))
        print("  " + timing.report("pipeline, each its own fsync (ingest without a daemon)", got["one by one"],
                                   1e6, " us"))
        print("  " + timing.ratio("pipeline / floor", got["pipeline"], got["floor"], target=2.0))
        print(f"mails queued per move: {sum(n for _, n in runs) / len(runs):.2f} on average "
              f"({len(PLAYERS)} if every player heard of every move); moves that mailed every player "
              f"(turn-ending): {len(everyone)}, CPU median {statistics.median(everyone) * 1e6:.0f} us")
        render_queued(svc, len(runs))
        statements(g, 50, args.batch)

    with tempfile.TemporaryDirectory() as home:
        # one long game: if it ends before --long moves, moves still run through later games;
        # what matters is that a move's cost does not grow with the log behind it
        svc = open_service(settings=settings_mod.Settings(home=home, mails_per_hour=timing.UNLIMITED))
        late = Games(svc)
        timed(late, args.long, 50)
        seq = games.get(svc, late.game)["moves"]
        early = Games(svc, first=100_000)  # a new game in the same store: its first moves
        got = timing.rounds({"early": lambda: mean([t for t, _ in timed(early, 10)]),
                             "late": lambda: mean([t for t, _ in timed(late, 10)])}, args.rounds, 1)
        print(f"flat in the game's length (mails one by one, 10 a round): a game at move {seq}+ "
              f"({late.n} game(s) played to get there) against a new game's first moves:")
        print("  " + timing.report("first moves", got["early"], 1e6, " us"))
        print("  " + timing.report(f"after move {seq}", got["late"], 1e6, " us"))
        print("  " + timing.ratio("late / early", got["late"], got["early"], target=1.2))


if __name__ == "__main__":
    main()
