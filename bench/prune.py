"""`pbem prune` on a long game played by mail: what a season's mail weighs, and what is left.

A six-player game of `--moves` answers is played through the service as players' mails (each
answer a stored message; every mail it queues rendered and sent to the outbox folder, as the
embedded default does), then the game runs on. The store (SQLite file and its log, after a
VACUUM so both sides are compacted alike), the outbox folder and the bytes of raw mail and sent
bodies are measured before and after `prune.prune` (everything before now), with the time it
took (CPU beside wall; once: it is a chore, not a path a mail takes). Then the game is ended,
and its archive exported and verified (every move re-run from the seed), as the test does.

    .venv/bin/python bench/prune.py [--moves 2000]
"""
from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
from email.message import EmailMessage
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import timing

from pbem import bot
from pbem.archive import archive, verify
from pbem.base import log, settings as settings_mod
from pbem.core import games
from pbem.core.service import open_service
from pbem.inbound.process import handle
from pbem.moderate import moderator, newgame, prune
from pbem.outbound import sending


def long_game_by_mail(svc, moves: int) -> str:
    config = {"game": {"name": "long", "address": "talisman@example.org", "seed": "a-long-game-seed-0002",
                       "moderator": "mod@example.org", "options": {"turn_cap": 100000}},
              "players": [{"name": f"p{i}", "email": f"p{i}@example.org"} for i in range(6)]}
    gid = newgame.create(svc, config)
    toks = {p["name"]: svc.token(p) for p in svc.store.players(gid)}
    rnd = random.Random(2)
    for n in range(moves):
        state = games.state(svc, games.get(svc, gid))
        if state.over:
            break
        move = bot.choose(state, rnd)
        line = f"{move.prompt}: {move.key}"
        if move.player == svc.engine.MODERATOR:
            moderator.answer(svc, gid, move.player, line)
        else:
            msg = EmailMessage()
            msg["From"], msg["To"] = f"{move.player}@example.org", f"talisman+{toks[move.player]}@example.org"
            msg["Subject"], msg["Message-ID"] = f"Re: [{gid}] Turn report", f"<bench-{n}@example.org>"
            msg.set_content(f"{line}\n\n" + "> the report quoted below the answer, as mail programs send it\n" * 40)
            result = handle(svc, bytes(msg))
            assert result.status == "applied", result.outcome
        if n % 50 == 0:
            asyncio.run(sending.send_due(svc))
    asyncio.run(sending.send_due(svc))
    return gid


def size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.iterdir() if f.is_file()) if path.is_dir() else path.stat().st_size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=2000)
    args = ap.parse_args()
    log.configure("json", "warning")
    with tempfile.TemporaryDirectory() as home:
        # a season played in minutes: the per-seat hourly limit (a flood guard) would refuse it
        svc = open_service(settings=settings_mod.Settings(home=home, mails_per_hour=10**6))
        gid = long_game_by_mail(svc, args.moves)
        svc.store.compact()
        db, folder = svc.settings.db_path, svc.settings.outbox_path
        inbox = svc.store.query("SELECT COUNT(*) AS n, SUM(length(raw)) AS b FROM inbox")[0]
        sent = svc.store.query("SELECT COUNT(*) AS n, SUM(length(text) + COALESCE(length(html), 0)) AS b "
                               "FROM outbox WHERE status = 'sent'")[0]
        print(f"a game of {games.get(svc, gid)['moves']} moves: {inbox['n']} messages in "
              f"({inbox['b'] / 1e6:.1f} MB raw), {sent['n']} mails sent ({sent['b'] / 1e6:.1f} MB of bodies, "
              f"{sent['b'] / max(sent['n'], 1) / 1024:.1f} KB a mail)")
        before = (size(db), size(folder))
        done: list[prune.Pruned] = []
        took = timing.timed(lambda: done.append(prune.prune(svc)))
        after = (size(db), size(folder))
        p = done[0]
        print(f"prune: {p.messages} messages ({p.message_bytes / 1e6:.1f} MB), {p.mails} mail bodies "
              f"({p.mail_chars / 1e6:.1f} M characters), {p.files} files ({p.file_bytes / 1e6:.1f} MB), "
              f"{p.frames} frames; {took.cpu:.2f} s CPU, {took.wall:.2f} s wall")
        print(f"store (SQLite, compacted): {before[0] / 1e6:.2f} MB -> {after[0] / 1e6:.2f} MB "
              f"({after[0] / before[0]:.0%}); outbox folder: {before[1] / 1e6:.2f} MB -> {after[1] / 1e6:.2f} MB")
        moderator.end(svc, gid)  # ended: its archive holds the seed, and verify re-runs every move
        verdict = verify.verify(archive.export(svc, gid))
        print(f"the game's archive after the prune: {'ok' if verdict.ok else verdict.problem} "
              f"({verdict.moves} moves, {'re-run' if verdict.rerun else 'hash chain'})")


if __name__ == "__main__":
    main()
