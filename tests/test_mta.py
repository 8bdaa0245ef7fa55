"""`pbem ingest` as an MTA runs it: a Postfix pipe(8) transport (deploy/postfix-master.cf).

pipe(8) runs the command with argv as written (no shell), a near-empty environment, its own
working folder, the mail on stdin with Return-Path and Delivered-To prepended (flags=DRq). It
treats exit 0 as delivered, 75 (EX_TEMPFAIL) as "keep it and try again later", anything else as
a permanent failure: a bounce to the sender carrying the command's output. So: 0 once stored,
whatever became of the mail, and 75 only when it could not be stored. While a `pbem serve`
daemon runs, "stored" is the pipe's spool (pbem/sources/pipe.py), which the daemon takes at once;
with none, `ingest` stores the mail in the database itself."""
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import game_config, legal, mail, token

from pbem.base import settings as settings_mod
from pbem.core import home as home_mod
from pbem.core.service import open_service
from pbem.moderate import newgame
from pbem.sources import pipe as pipe_spool

PBEM = Path(sys.executable).with_name("pbem")  # the console script the venv installed


def pipe(home: Path, message: bytes, *, sender: str, recipient: str, cwd: Path) -> subprocess.CompletedProcess:
    """What pipe(8) with `flags=DRq argv=.../pbem --home HOME ingest` does."""
    env = {"LANG": "C", "TZ": "UTC", "PBEM_PURE": "1"}  # pipe(8) exports little more (export_environment)
    prefixed = f"Return-Path: <{sender}>\nDelivered-To: {recipient}\n".encode() + message
    return subprocess.run([str(PBEM), "--home", str(home), "ingest"], input=prefixed, env=env, cwd=cwd,
                          capture_output=True, timeout=120)


@pytest.fixture
def site(tmp_path):
    home = tmp_path / "pbem"
    home_mod.init(home)
    svc = open_service(settings=settings_mod.load(home))
    gid = newgame.create(svc, game_config())
    spool = tmp_path / "spool"  # pipe(8)'s own folder: nothing may be written there
    spool.mkdir()
    return svc, gid, home, spool


def assert_nothing_to_bounce(result):
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    assert b"Traceback" not in out


@pytest.mark.skipif(not PBEM.exists(), reason="the pbem console script is not installed beside this Python")
def test_every_stored_mail_is_delivered_whatever_became_of_it(site):
    svc, gid, home, spool = site
    player, line = legal(svc, gid)
    tok = token(svc, gid, player)
    to = f"talisman+{tok}@example.org"
    good = mail([line], sender=f"{player}@example.org", tok=tok, message_id="<good@example.org>")
    assert_nothing_to_bounce(pipe(home, good, sender=f"{player}@example.org", recipient=to, cwd=spool))
    assert svc.store.game(gid)["moves"] == 1
    # the same mail again (Postfix retried after a lost acknowledgement): delivered, not applied twice
    assert_nothing_to_bounce(pipe(home, good, sender=f"{player}@example.org", recipient=to, cwd=spool))
    assert svc.store.game(gid)["moves"] == 1
    # an illegal answer from the right player: the service's reply tells them, the MTA must not bounce it
    player, _ = legal(svc, gid)
    tok = token(svc, gid, player)
    wrong = mail(["99: no-such-answer"], sender=f"{player}@example.org", tok=tok)
    assert_nothing_to_bounce(pipe(home, wrong, sender=f"{player}@example.org", recipient=f"talisman+{tok}@example.org",
                                  cwd=spool))
    # a stranger, or a forged sender: no bounce (backscatter), the mail is kept
    stranger = mail(["left"], sender="someone@elsewhere.example")
    assert_nothing_to_bounce(pipe(home, stranger, sender="someone@elsewhere.example",
                                  recipient="talisman@example.org", cwd=spool))
    # not a mail at all
    assert_nothing_to_bounce(pipe(home, b"\x00\xff garbage", sender="", recipient="talisman@example.org", cwd=spool))
    statuses = [r["status"] for r in svc.store.inbox_rows()]
    assert len(statuses) == 4 and "received" not in statuses  # every one stored and processed
    assert svc.store.game(gid)["moves"] == 1
    assert list(spool.iterdir()) == []


@pytest.mark.skipif(not PBEM.exists(), reason="the pbem console script is not installed beside this Python")
def test_a_mail_that_cannot_be_stored_is_deferred_and_stored_once_when_retried(site):
    svc, gid, home, spool = site
    player, line = legal(svc, gid)
    tok = token(svc, gid, player)
    msg = mail([line], sender=f"{player}@example.org", tok=tok, message_id="<later@example.org>")
    lock = sqlite3.connect(str(home / "pbem.db"), timeout=1)
    lock.execute("BEGIN EXCLUSIVE")  # the store cannot be written now (a long backup, a stuck process)
    try:
        deferred = pipe(home, msg, sender=f"{player}@example.org", recipient=f"talisman+{tok}@example.org", cwd=spool)
    finally:
        lock.rollback()
        lock.close()
    assert deferred.returncode == 75, deferred.stderr
    assert b"try again later" in deferred.stderr and b"Traceback" not in deferred.stderr
    assert svc.store.inbox_rows() == []
    retried = pipe(home, msg, sender=f"{player}@example.org", recipient=f"talisman+{tok}@example.org", cwd=spool)
    assert_nothing_to_bounce(retried)
    assert len(svc.store.inbox_rows()) == 1 and svc.store.game(gid)["moves"] == 1


@pytest.mark.skipif(not PBEM.exists(), reason="the pbem console script is not installed beside this Python")
def test_a_wrong_home_in_master_cf_defers_the_mail_until_it_is_fixed(tmp_path):
    spool = tmp_path / "spool"
    spool.mkdir()
    result = pipe(tmp_path / "typo", mail(["left"]), sender="alice@example.org", recipient="talisman@example.org",
                  cwd=spool)
    assert result.returncode == 75 and b"pbem init" in result.stderr
    assert not (tmp_path / "typo").exists()


def until(predicate, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


@pytest.fixture
def daemon(site):
    svc, gid, home, spool = site
    proc = subprocess.Popen([str(PBEM), "--home", str(home), "serve"], env={"LANG": "C", "TZ": "UTC", "PBEM_PURE": "1"},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert until(lambda: pipe_spool.daemon_running(svc.settings)), proc.stderr.read1() if proc.poll() else ""
        yield proc
    finally:
        proc.terminate()
        proc.wait(30)


@pytest.mark.skipif(not PBEM.exists(), reason="the pbem console script is not installed beside this Python")
def test_with_a_daemon_running_the_pipe_spools_and_the_daemon_plays_the_mail_at_once(site, daemon):
    """The pipe exits 0 once the mail is durably in the spool, without touching the store
    (locked here, as by a long backup); the daemon, woken by the new file, stores and plays
    it once the lock is gone, and a second delivery of the same mail is one message."""
    svc, gid, home, spool = site
    player, line = legal(svc, gid)
    tok = token(svc, gid, player)
    good = mail([line], sender=f"{player}@example.org", tok=tok, message_id="<spooled@example.org>")
    lock = sqlite3.connect(str(home / "pbem.db"), timeout=1)
    lock.execute("BEGIN EXCLUSIVE")
    try:
        for _ in range(2):  # Postfix retried after a lost acknowledgement
            result = pipe(home, good, sender=f"{player}@example.org", recipient=f"talisman+{tok}@example.org",
                          cwd=spool)
            assert_nothing_to_bounce(result)
            assert b"spooled" in result.stdout
    finally:
        lock.rollback()
        lock.close()
    assert until(lambda: svc.store.game(gid)["moves"] == 1 and not pipe_spool.waiting(svc.settings))
    stranger = mail(["left"], sender="someone@elsewhere.example")
    assert_nothing_to_bounce(pipe(home, stranger, sender="someone@elsewhere.example",
                                  recipient="talisman@example.org", cwd=spool))
    assert until(lambda: len(svc.store.inbox_rows()) == 2 and not pipe_spool.waiting(svc.settings))
    assert sorted(r["status"] for r in svc.store.inbox_rows()) == ["processed", "processed"]
    assert svc.store.game(gid)["moves"] == 1 and list(spool.iterdir()) == []
