"""What making outside text storable costs a mail (pbem/store/common.py, issue 26), beside what
the mail costs in all.

Every text a statement binds goes through `storable_params` (PostgreSQL refuses a NUL, neither
store a lone surrogate), and the order read from a mail through `storable_data` once. This
records the parameters of every statement and the order of `--capture` mails played through
the pipeline (a six-player game, answers by mail), then times, in `--rounds` rounds taking
turns, `--per-round` mails through the whole pipeline (the reference) and the two cleanings
over the recorded statements and orders of as many mails (the work). It prints each per mail,
CPU beside wall, and the share of a mail's CPU the cleaning is (within each round).

    .venv/bin/python bench/storable.py [--capture 200] [--rounds 7] [--per-round 40]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import timing

from pbem import bot
from pbem.base import log, settings as settings_mod
from pbem.core import games
from pbem.core.service import open_service
from pbem.inbound import process
from pbem.moderate import moderator, newgame
from pbem.store import common, sqlite

PLAYERS = [(f"p{i}", f"p{i}@example.org") for i in range(6)]


class Mails:
    """Answers by mail to a six-player game (a new one when it ends)."""

    def __init__(self, svc):
        self.svc, self.n, self.game = svc, 0, None
        import random
        self.rnd = random.Random(26)

    def _new_game(self) -> None:
        self.n += 1
        self.game = newgame.create(self.svc, {
            "game": {"name": f"bench-{self.n}", "address": "talisman@example.org",
                     "seed": f"storable-seed-{self.n:08d}"},
            "players": [{"name": p, "email": e} for p, e in PLAYERS]})

    def next(self) -> bytes:
        """The next answer as a player's mail (the moderator's own moves played in between)."""
        from email.message import EmailMessage
        while True:
            if self.game is None or games.get(self.svc, self.game)["status"] != "active":
                self._new_game()
            state = games.state(self.svc, games.get(self.svc, self.game))
            if getattr(state, "over", False):
                self._new_game()
                continue
            move = bot.choose(state, self.rnd)
            if move.player == self.svc.engine.MODERATOR:
                moderator.answer(self.svc, self.game, move.player, f"{move.prompt}: {move.key}")
                continue
            tok = self.svc.token(self.svc.store.player(self.game, move.player))
            msg = EmailMessage()
            msg["From"], msg["To"] = f"{move.player}@example.org", f"talisman+{tok}@example.org"
            msg["Subject"] = f"Re: [{self.game}] Turn report"
            msg.set_content(f"{move.prompt}: {move.key}\n\nthanks\n")
            return bytes(msg)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--capture", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--per-round", type=int, default=40)
    args = ap.parse_args()
    log.configure("json", level="error")
    svc = open_service(settings=settings_mod.Settings(home=tempfile.mkdtemp(prefix="pbem-storable-")))
    mails = Mails(svc)

    statements: list = []
    orders: list = []
    clean_params, clean_data = sqlite.storable_params, process.storable_data
    sqlite.storable_params = lambda params: (statements.append(list(params)), clean_params(params))[1]
    process.storable_data = lambda value: (orders.append(value), clean_data(value))[1]
    for _ in range(args.capture):
        process.handle(svc, mails.next())
    sqlite.storable_params, process.storable_data = clean_params, clean_data
    texts = [p for ps in statements for p in ps if isinstance(p, str)]
    print(f"per mail: {len(statements) / args.capture:.1f} statements, {len(texts) / args.capture:.1f} texts, "
          f"{sum(map(len, texts)) / args.capture:,.0f} characters bound")

    share = max(1, len(statements) * args.per_round // args.capture)
    per_orders = max(1, len(orders) * args.per_round // args.capture)
    offset = [0]

    def cleaning() -> timing.Sample:
        """As many mails' statements and orders as a round's mails, cleaned (cycling through)."""
        i = offset[0]
        batch = (statements * 2)[i % len(statements):i % len(statements) + share]
        some = (orders * 2)[i % len(orders):i % len(orders) + per_orders]
        offset[0] += share

        def run():
            for params in batch:
                common.storable_params(params)
            for order in some:
                common.storable_data(order)
        return timing.timed(run)

    def pipeline() -> timing.Sample:
        """A round's mails, each made for the state the one before left (not timed), then handled."""
        cpu = wall = 0.0
        for _ in range(args.per_round):
            raw = mails.next()
            sample = timing.timed(lambda raw=raw: process.handle(svc, raw))
            cpu, wall = cpu + sample.cpu, wall + sample.wall
        return timing.Sample(cpu, wall)

    got = timing.rounds({"pipeline": pipeline, "cleaning": cleaning}, args.rounds, 1)
    per_mail = {k: [timing.Sample(s.cpu / args.per_round, s.wall / args.per_round) for s in v] for k, v in got.items()}
    print(timing.report("a mail through the pipeline", per_mail["pipeline"]))
    print(timing.report("its texts made storable", per_mail["cleaning"], 1e6, " us"))
    shares = [c.cpu / p.cpu for c, p in zip(per_mail["cleaning"], per_mail["pipeline"])]
    print(f"cleaning / pipeline: CPU {timing.spread(shares, 100, ' %', 1)}")
    svc.store.close()


if __name__ == "__main__":
    main()
