"""How many mails standing orders save: the same games played by mail twice, once with every
question answered by a player's mail, once with the players' standing orders filed first.

Each player answers what they are asked with one mail (they cannot answer further ahead:
the next question depends on dice not yet rolled). Both runs take the same decisions (the
bot's choice for a kind its orders cover is what the order plays), so the games are the
same move for move; only the number of mails differs. Filing the orders costs one mail per
player, counted. Cards only the moderator can settle are skipped by the moderator. The
counts decide; the CPU and wall time of each game are printed beside them (the two ways
taking turns seed by seed: medians and spread over the seeds).

    .venv/bin/python bench/standing_orders.py [--rounds 3 5 10] [--seeds 5] [--players 3]
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.append(str(REPO / "bench"))  # timing.py, when a test loads this file (after the repo: bench/engine.py)

import timing  # noqa: E402

from pbem.base import log, settings as settings_mod
from pbem.core import games  # noqa: E402
from pbem.core.service import open_service  # noqa: E402
from pbem.inbound.process import handle  # noqa: E402
from pbem.moderate import moderator, newgame
from pbem.pace import answering

# What a player who does not want to be asked about routine things files.
ORDERS = [
    "reroll-if-losing",
    "never-reroll-movement",
    "when fight answer fight",
    "when encounter answer encounter-space",
    "when crossing answer continue",
    "when portal-try answer no",
    "when table-reroll answer keep",
    "when redraw answer keep",
    "when start-spell answer done",
    "when shop answer done",
    "when pay-heal answer default",
    "when counterspell answer let",
]
RULES = [(n, answering.parse(t)) for n, t in enumerate(ORDERS, 1)]
_WRITABLE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
ADDRESS = "talisman@example.org"


@dataclass
class Run:
    mails: int  # mails the players sent
    moves: int  # moves in the log
    by_standing: int  # of them, answered by standing orders
    state_hash: str


def choice(prompt, player: str) -> str:
    """The bot's decision: what its orders would play, else a fixed rule (directions alternate)."""
    hit = answering.match(RULES, prompt, player)
    if hit:
        return hit[0]
    keys = [o.key for o in prompt.options if _WRITABLE.match(o.key)]
    if prompt.kind == "direction":
        return "left" if prompt.id % 2 else "right"
    return keys[0]


def _mail(svc, game: str, player: str, lines: list[str], n: int) -> bytes:
    msg = EmailMessage()
    msg["From"] = f"{player}@example.org"
    msg["To"] = f"talisman+{svc.token(svc.store.player(game, player))}@example.org"
    msg["Subject"] = f"Re: [{game}] your move"
    msg["Message-ID"] = f"<{game}.{player}.{n}@example.org>"
    msg.set_content("\n".join(lines) + "\n")
    return bytes(msg)


def play(svc, rounds: int = 3, standing: bool = False, seed: str = "mails", players: int = 3) -> Run:
    names = [f"p{i}" for i in range(players)]
    config = {"game": {"name": f"bench-{rounds}", "address": ADDRESS, "seed": seed, "moderator": "mod@example.org",
                       "options": {"turn_cap": rounds}},
              "players": [{"name": n, "email": f"{n}@example.org"} for n in names]}
    g = newgame.create(svc, config)
    eng, mails = svc.engine, 0
    if standing:
        for name in names:
            mails += 1
            handle(svc, _mail(svc, g, name, [f"standing: {o}" for o in ORDERS], mails))
    while True:
        st = games.state(svc, games.get(svc, g))
        if st.over:
            break
        prompt = eng.prompts(st)[0]
        who = prompt.players[0]
        if who == eng.MODERATOR:
            moderator.answer(svc, g, eng.MODERATOR, f"{prompt.id}: skip")
            continue
        mails += 1
        result = handle(svc, _mail(svc, g, who, [f"{prompt.id}: {choice(prompt, who)}"], mails))
        if result.status != "applied":
            raise AssertionError(f"{who}: {result.outcome}")
    log_ = svc.store.moves(g)
    return Run(mails, len(log_), sum(m["actor"] == "standing" for m in log_), eng.state_hash(st))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, nargs="+", default=[3, 5, 10])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--players", type=int, default=3)
    args = ap.parse_args()
    log.configure("console", "error")
    print(f"{args.players} players, {args.seeds} seeds each; mails the players sent")
    print(f"{'rounds':>6} {'without':>8} {'with':>6} {'saved':>6} {'by orders':>10} {'moves':>6}")
    times: dict[int, dict[bool, list[timing.Sample]]] = {}
    for rounds in args.rounds:
        totals = [0, 0, 0, 0]
        times[rounds] = {False: [], True: []}
        for s in range(args.seeds):
            runs = []
            for use in (False, True):  # the two ways take turns, seed by seed
                with tempfile.TemporaryDirectory() as home:
                    svc = open_service(settings=settings_mod.Settings(home=home, mails_per_hour=timing.UNLIMITED))
                    times[rounds][use].append(timing.timed(
                        lambda: runs.append(play(svc, rounds, use, seed=f"seed{s}", players=args.players))))
                    svc.store.close()
            assert runs[0].state_hash == runs[1].state_hash, "the two runs played different games"
            for i, v in enumerate((runs[0].mails, runs[1].mails, runs[1].by_standing, runs[1].moves)):
                totals[i] += v
        without, with_, auto, moves = (t / args.seeds for t in totals)
        print(f"{rounds:>6} {without:>8.1f} {with_:>6.1f} {1 - with_ / without:>6.0%} {auto:>10.1f} {moves:>6.1f}")
    print("the whole game played by mail (bots' choices included), per game over the seeds:")
    for rounds, by in times.items():
        print(f"  {rounds:>3} rounds: " + timing.report("without orders", by[False], 1e3, " ms") + "; "
              + timing.report("with", by[True], 1e3, " ms") + "; "
              + timing.ratio("with / without", by[True], by[False]))


if __name__ == "__main__":
    main()
