"""kill -9 over processing and sending (issue 21's campaign as a test).

Answers (turn files with bare answers, which fit the next question too, and mails with
question numbers) are played once in a reference home, in-process. The same files are then
dropped into a copy of the home taken before them, where a real `pbem serve` process is killed
with SIGKILL at random moments and started again, sending to a real SMTP server, until
everything is processed and sent. The games must end as in the reference (the same moves, the
same state hashes, one chain each), every file must be read once, and every mail delivered:
once, or twice at most when a kill fell between the server's acceptance and the row's mark
(the at-least-once edge; the Message-ID is the same, so a receiver drops it).

The default run kills a few times; `-m heavy` kills hundreds of times (KILLS below)."""
from __future__ import annotations

import collections
import email
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from email.policy import default as default_policy
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from conftest import ADDRESS, game_config, mail, token, turn_file
from test_smtp import free_port

from pbem.base import settings as settings_mod
from pbem.core import games
from pbem.core.service import open_service
from pbem.moderate import newgame
from pbem.outbound import sending
from pbem.sources import dropfolder

PBEM = [sys.executable, "-c", "import sys; from pbem.cli import main; sys.exit(main())"]
PLAYERS = [("alice", "alice@example.org"), ("bob", "bob@example.org"), ("carol", "carol@example.org")]


class Counting:
    def __init__(self):
        self.ids: collections.Counter = collections.Counter()
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        msg = email.message_from_bytes(envelope.content, policy=default_policy)
        with self.lock:
            self.ids[msg["Message-ID"]] += 1
        return "250 OK"


def reference(home: Path, n_games: int, answers: int, rnd: random.Random) -> tuple[list[tuple[str, bytes]], Path]:
    """Play `answers` answers through the drop folder of a new home; returns the files (name,
    bytes) in order and a copy of the home as it was before them."""
    svc = open_service(settings=settings_mod.Settings(home=str(home), address=ADDRESS))
    ids = [newgame.create(svc, game_config(name=f"k{n}", seed=f"kill-test-seed-{n:04d}-abcdef", players=PLAYERS))
           for n in range(n_games)]
    svc.store.close()
    before = home.parent / "before"
    shutil.copytree(home, before)
    svc = open_service(settings=settings_mod.Settings(home=str(home), address=ADDRESS))
    files, live = [], list(ids)
    while len(files) < answers and live:
        g = rnd.choice(live)
        state = games.state(svc, games.get(svc, g))
        move = next(iter(svc.engine.legal_moves(state)), None)
        if move is None or move.player == svc.engine.MODERATOR or state.over:
            live.remove(g)
            continue
        key = rnd.choice([m for m in svc.engine.legal_moves(state) if m.player == move.player]).key
        tok = token(svc, g, move.player)
        if rnd.random() < 0.5:  # a turn file with a bare answer: the kind issue 21 saw applied twice
            name, raw = f"{len(files):04d}.toml", turn_file(g, move.player, tok, [key])
        else:
            name = f"{len(files):04d}.eml"
            raw = mail([f"{move.prompt}: {key}"], sender=f"{move.player}@example.org", tok=tok, game=g,
                       message_id=f"<kill-{len(files)}@example.org>")
        files.append((name, raw))
        drop(home / "inbox", name, raw, len(files))
        [result] = dropfolder.poll(svc, home / "inbox")
        assert result.status == "applied", result.outcome
    svc.store.close()
    return files, before


def drop(folder: Path, name: str, raw: bytes, n: int) -> None:
    """Into new/ the safe way, with a write time that keeps the files in their order."""
    path = dropfolder.drop(folder, name, raw)
    os.utime(path, ns=(10**18 + n, 10**18 + n))


def chains(home: Path) -> dict[str, list[tuple]]:
    svc = open_service(settings=settings_mod.Settings(home=str(home), address=ADDRESS))
    try:
        out = {}
        for g in svc.store.games():
            assert svc.store.verify_chain(g["id"]) == []
            out[g["id"]] = [(m["seq"], m["line"], m["state_hash"]) for m in svc.store.moves(g["id"])]
        return out
    finally:
        svc.store.close()


def inbox_count(home: Path) -> int:
    db = sqlite3.connect(f"file:{home / 'pbem.db'}?mode=ro", uri=True, timeout=5)
    try:
        return db.execute("SELECT COUNT(*) FROM inbox").fetchone()[0]
    finally:
        db.close()


def outbox_ids(home: Path) -> set[str]:
    svc = open_service(settings=settings_mod.Settings(home=str(home), address=ADDRESS))
    try:
        return {r["message_id"] for r in svc.store.outbox_rows()}
    finally:
        svc.store.close()


def lease(home: Path) -> float:
    """How long a sender's claim on a mail lasts in `home` (at least twice the SMTP timeout and
    a second: more than send_lease_seconds here)."""
    svc = open_service(home)
    try:
        return sending.lease_seconds(svc)
    finally:
        svc.store.close()


def claims(home: Path) -> dict[int, tuple]:
    """Each outbox row's claim: (claimed_by, claim_until), which outbox_rows leaves out."""
    db = sqlite3.connect(f"file:{home / 'pbem.db'}?mode=ro", uri=True, timeout=5)
    try:
        return {i: (by, until) for i, by, until in db.execute("SELECT id, claimed_by, claim_until FROM outbox")}
    finally:
        db.close()


def campaign(tmp_path: Path, kills: int, answers: int, seed: int) -> dict:
    rnd = random.Random(seed)
    files, home = reference(tmp_path / "ref", n_games=max(3, answers // 40), answers=answers, rnd=rnd)
    handler, port = Counting(), free_port()
    server = Controller(handler, hostname="127.0.0.1", port=port)
    server.start()
    (home / "pbem.toml").write_text(f'address = "{ADDRESS}"\npoll_seconds = 0.1\nsend_lease_seconds = 2\n'
                                    f'[smtp]\nhost = "127.0.0.1"\nport = {port}\nstarttls = false\ntimeout = 1\n')
    pending = list(enumerate(files, 1))
    per = max(1, len(files) // kills)  # each life gets a few new files, so kills land in work all along
    done_kills = busy = 0
    try:
        while done_kills < kills:
            for n, (name, raw) in pending[:per]:
                drop(home / "inbox", name, raw, n)
            pending = pending[per:]
            proc = subprocess.Popen([*PBEM, "--home", str(home), "serve"], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            if done_kills % 2:  # at any moment: start-up, processing, sending, idle
                time.sleep(rnd.uniform(0.5, 2.0))
            else:  # once it has stored one of the files: in the middle of them
                stored, until = inbox_count(home), time.monotonic() + 10
                while list((home / "inbox" / "new").iterdir()) and inbox_count(home) == stored \
                        and time.monotonic() < until:
                    time.sleep(0.002)
                time.sleep(rnd.uniform(0.0, 0.002))  # a file takes about a millisecond: kill among them
            left = len(list((home / "inbox" / "new").iterdir()))
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            done_kills += 1
            busy += left > 0
        for n, (name, raw) in pending:
            drop(home / "inbox", name, raw, n)
        time.sleep(lease(home) + 0.1)  # the last killed daemon's claims run out
        finish = subprocess.run([*PBEM, "--home", str(home), "serve", "--once"], capture_output=True, text=True)
        assert finish.returncode == 0, finish.stderr[-2000:]
    finally:
        server.stop()
    assert list((home / "inbox" / "new").iterdir()) == []
    assert len(list((home / "inbox" / "cur").iterdir())) == len(files)  # each file read, kept once
    assert chains(home) == chains(tmp_path / "ref")  # the same games as without kills
    svc = open_service(settings=settings_mod.Settings(home=str(home), address=ADDRESS))
    try:
        rows = svc.store.outbox_rows()
        inbox = svc.store.inbox_rows()
    finally:
        svc.store.close()
    assert len(inbox) == len(files) and all(r["status"] == "processed" for r in inbox)
    held = claims(home)
    unsent = [(r["status"], r["kind"], r["next_attempt_at"], held[r["id"]], r["last_error"], r["attempts"])
              for r in rows if r["status"] != "sent"]
    assert not unsent, (unsent, finish.stderr[-3000:])
    assert set(handler.ids) == {r["message_id"] for r in rows} == outbox_ids(tmp_path / "ref")  # no extra mail
    twice = [m for m, n in handler.ids.items() if n > 1]
    assert max(handler.ids.values()) <= 2 and len(twice) <= kills, handler.ids.most_common(3)
    assert busy >= 1, "no kill fell in the middle of the files: the test proved nothing"
    return {"kills": done_kills, "in the middle": busy, "files": len(files), "mails": len(rows),
            "sent twice": len(twice)}


# Behind -m heavy since 2 December: it failed 3 times in about 25 runs with one mail left
# queued, untried, after the final `serve --once`: the last killed daemon's claim on it, which
# outbox_rows does not show. The final run came 2.1 s after the kill, but a claim lasts
# lease_seconds (3 s here: twice the SMTP timeout and a second), so a short final round
# passed it by. It now waits the lease; the other failure (a file kept twice in cur/) was
# fixed in dropfolder.archive.
@pytest.mark.heavy
def test_kill_9_over_processing_and_sending_loses_nothing_and_applies_nothing_twice(tmp_path):
    figures = campaign(tmp_path, kills=6, answers=60, seed=1)
    print(figures)


KILLS = int(os.environ.get("PBEM_KILLS", "300"))


@pytest.mark.heavy
@pytest.mark.timeout(7200)
def test_kill_9_hundreds_of_times(tmp_path):
    figures = campaign(tmp_path, kills=KILLS, answers=KILLS * 2, seed=2)
    print(figures)
