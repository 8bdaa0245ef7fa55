"""Several daemons on one home (issue 15), on both stores (the home's SQLite file, and a real
PostgreSQL: tests/pgcluster.py): every outbox row is claimed with a lease before it is sent,
so two `pbem serve` processes, or a daemon and `serve --once`, send each mail once; deadlines
and reminders fire once however many run. Real processes, a real SMTP server (aiosmtpd on
127.0.0.1) counting deliveries. tests/test_postgres.py has daemons on several machines."""
from __future__ import annotations

import asyncio
import collections
import email
import json
import re
import subprocess
import sys
import threading
import time
from datetime import timedelta
from email.policy import default as default_policy
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from click.testing import CliRunner
from test_smtp import free_port

from pbem.base import clock
from pbem.cli import main

PBEM = [sys.executable, "-c", "import sys; from pbem.cli import main; sys.exit(main())"]


class Counting:
    """Accepts every mail, a little slowly (so two senders overlap), and counts Message-IDs."""

    def __init__(self, delay=0.01):
        self.delay = delay
        self.ids: collections.Counter = collections.Counter()
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        msg = email.message_from_bytes(envelope.content, policy=default_policy)
        await asyncio.sleep(self.delay)
        with self.lock:
            self.ids[msg["Message-ID"]] += 1
        return "250 OK"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_setting(request) -> dict:
    """As conftest's, the PostgreSQL runs behind the `postgres` marker (processes: slow)."""
    return {"db": request.getfixturevalue("pg_url")} if request.param == "postgresql" else {}


@pytest.fixture
def smtp():
    handler = Counting()
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    yield handler, port
    controller.stop()


def make_home(tmp_path: Path, port: int, games: int, pace: str = "", db: str | None = None) -> Path:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "pbem.toml").write_text((f'db = "{db}"\n' if db else "") +
                                    f'poll_seconds = 0.2\nmoderator = "mod@example.org"\n'
                                    f'[smtp]\nhost = "127.0.0.1"\nport = {port}\nstarttls = false\ntimeout = 5\n')
    run(home, "init")
    new_games(home, tmp_path, games, "daemons", pace)
    return home


def new_games(home: Path, folder: Path, n: int, seed: str, pace: str = "") -> None:
    """`n` games g0, g1 ... of three players (alice, bob, carol), made with `pbem game new`."""
    for i in range(n):
        cfg = folder / f"g{i}.toml"
        cfg.write_text(f'[game]\nname = "g{i}"\nedition = "revised4"\nseed = "{seed}-seed-{i:04d}-abcdefgh"\n{pace}'
                       '[[players]]\nname = "alice"\nemail = "alice@example.org"\n'
                       '[[players]]\nname = "bob"\nemail = "bob@example.org"\n'
                       '[[players]]\nname = "carol"\nemail = "carol@example.org"\n')
        run(home, "game", "new", cfg)


def run(home: Path, *args, code=0) -> str:
    result = CliRunner().invoke(main, ["--home", str(home), *map(str, args)])
    assert result.exit_code == code, result.output
    return result.output


def outbox_rows(home: Path) -> list[dict]:
    return json.loads(run(home, "outbox", "list", "--json"))


def wait_until_sent(home: Path, timeout: float = 120.0) -> list[dict]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = outbox_rows(home)
        if rows and all(r["status"] == "sent" for r in rows):
            return rows
        time.sleep(0.3)
    raise AssertionError(f"mail still waiting: {[r for r in outbox_rows(home) if r['status'] != 'sent'][:3]}")


def serve(home: Path, *args) -> subprocess.Popen:
    return subprocess.Popen([*PBEM, "--home", str(home), "serve", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def stop(procs) -> None:
    for p in procs:
        if p.poll() is None:  # not one killed already
            p.terminate()
    for p in procs:
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def test_two_daemons_on_one_home_send_each_mail_once(tmp_path, smtp, db_setting):
    """Issue 15: two daemons sent every mail twice (116 deliveries for 58 mails)."""
    handler, port = smtp
    home = make_home(tmp_path, port, games=12, **db_setting)  # 12 x (3 welcomes + 3 reports) = 72 mails
    daemons = [serve(home), serve(home)]
    try:
        rows = wait_until_sent(home)
    finally:
        stop(daemons)
    assert len(rows) == 72
    assert sum(handler.ids.values()) == len(rows), handler.ids.most_common(3)
    assert set(handler.ids) == {r["message_id"] for r in rows} and max(handler.ids.values()) == 1


def test_a_daemon_and_serve_once_send_each_mail_once(tmp_path, smtp, db_setting):
    """The README's workflow: `serve --once` while the daemon may be running."""
    handler, port = smtp
    home = make_home(tmp_path, port, games=8, **db_setting)
    daemon = serve(home)
    try:
        onces = [serve(home, "--once") for _ in range(3)]
        for p in onces:
            p.wait(timeout=120)
        rows = wait_until_sent(home)
    finally:
        stop([daemon])
    assert sum(handler.ids.values()) == len(rows) == 48 and max(handler.ids.values()) == 1


def test_deadlines_and_reminders_fire_once_however_many_daemons_run(tmp_path, smtp, db_setting):
    """Three `serve --once --now T` at the same moment, at a reminder's time and then at the
    deadline: one reminder per player waited for, one default move per game."""
    handler, port = smtp
    pace = '[game.pace]\ndeadline = "48h"\nreminders = ["24h"]\nguard_min = 100\n'  # no outage guard here
    home = make_home(tmp_path, port, games=4, pace=pace, **db_setting)
    due = json.loads(run(home, "game", "deadlines", "g0", "--json"))[0]["due_at"]
    opened = clock.parse(due) - timedelta(hours=48)
    for at in (opened + timedelta(hours=25), clock.parse(due) + timedelta(minutes=1)):
        procs = [subprocess.Popen([*PBEM, "--home", str(home), "serve", "--once", "--now", at.isoformat()],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(3)]
        for p in procs:
            p.wait(timeout=120)
    rows = outbox_rows(home)
    # one reminder mail per address: a game's own, or one naming all its games near their deadline (issue 29)
    reminders = [r for r in rows if r["kind"] == "reminder" or (r["kind"] == "daily" and "reminder" in r["subject"])]
    per_address = collections.Counter(r["to_addr"] for r in reminders)
    assert set(per_address.values()) == {1}, per_address
    named = sum(1 if r["kind"] == "reminder" else int(re.search(r"(\d+) games? wait", r["subject"]).group(1))
                for r in reminders)
    assert named == 4, [r["subject"] for r in reminders]
    for g in range(4):
        moves = json.loads(run(home, "log", f"g{g}", "--json"))
        assert [m["actor"] for m in moves] == ["deadline"], moves
    assert max(handler.ids.values()) == 1


def test_an_arrival_wakes_the_daemon_wherever_its_home_is():
    """The watch filter looked for 'tmp' anywhere in the path: a home under /tmp never woke
    its daemon (only the poll did; on PostgreSQL, which polls once a minute, a minute late)."""
    from pbem.daemon import _arrivals
    assert _arrivals(None, "/tmp/pytest-1/home/inbox/new/123.answer.eml")
    assert _arrivals(None, "/srv/home/inbox/answer.eml")
    assert not _arrivals(None, "/srv/home/inbox/tmp/123.answer.eml")  # still being written
    assert not _arrivals(None, "/srv/Maildir/cur/123:2,S")  # done with
    assert not _arrivals(None, "/srv/home/inbox/new/.hidden")


def test_an_idle_daemon_sleeps_until_its_next_timed_work_where_its_store_wakes_it():
    """PostgreSQL's NOTIFY wakes a daemon for new work: it sleeps until the next deadline,
    retry or lease (a minute at most), not poll_seconds; SQLite's daemons poll."""
    from types import SimpleNamespace

    from pbem.base.settings import Settings
    from pbem.daemon import IDLE_MAX, idle_seconds
    from pbem.store import iso
    now = clock.parse("2026-12-01T12:00:00Z")

    def svc(notifies, next_at):
        store = SimpleNamespace(notifies=notifies, next_wakeup=lambda: next_at and iso(now + next_at),
                                notice_recipients=lambda: [])  # no notice waits
        return SimpleNamespace(store=store, settings=Settings(poll_seconds=5), now=lambda: now)
    assert idle_seconds(svc(False, timedelta(seconds=30))) == 5
    assert idle_seconds(svc(True, timedelta(seconds=30))) == pytest.approx(30.05)
    assert idle_seconds(svc(True, timedelta(hours=3))) == IDLE_MAX
    assert idle_seconds(svc(True, None)) == IDLE_MAX
