"""Mail in from an IMAP mailbox, against a real Dovecot on 127.0.0.1 that each test module
starts itself (plain auth, a passwd-file user, Maildir in a temporary folder). Without
Debian's dovecot-imapd (or as a user other than root) these tests are skipped."""
import asyncio
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from datetime import timedelta
from pathlib import Path

import fake_engine
import pytest
from conftest import game_config, mail, token
from imap_tools import MailBoxUnencrypted

from pbem import daemon
from pbem.base import settings as settings_mod
from pbem.core import games
from pbem.moderate import newgame
from pbem.sources import imap

DOVECOT = shutil.which("dovecot") or ("/usr/sbin/dovecot" if os.path.exists("/usr/sbin/dovecot") else None)
pytestmark = pytest.mark.skipif(
    DOVECOT is None or os.geteuid() != 0,
    reason="IMAP tests need Dovecot (apt-get install dovecot-imapd) and root to start it")
USERS = [f"user{i}" for i in range(12)]
PASSWORD = "secret"

CONFIG = """base_dir = {d}/run
state_dir = {d}/state
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:{d}/mail/%u
first_valid_uid = 1
shutdown_clients = yes
default_internal_user = dovecot
default_login_user = dovenull
log_path = {d}/dovecot.log
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {d}/passwd
}}
userdb {{
  driver = static
  args = uid=nobody gid=nogroup home={d}/home/%u
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service anvil {{
  chroot =
}}
"""


class Dovecot:
    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
        self.dir.chmod(0o755)  # the mail processes run as nobody
        for sub in ("run", "state", "mail", "home"):
            (self.dir / sub).mkdir()
        shutil.chown(self.dir / "mail", "nobody", "nogroup")
        shutil.chown(self.dir / "home", "nobody", "nogroup")
        (self.dir / "passwd").write_text("".join(f"{u}:{{PLAIN}}{PASSWORD}::::::\n" for u in USERS))
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        (self.dir / "dovecot.conf").write_text(CONFIG.format(d=self.dir, port=self.port))
        self.proc = None
        self.users = iter(USERS)

    def start(self):
        self.proc = subprocess.Popen([DOVECOT, "-F", "-c", str(self.dir / "dovecot.conf")],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"dovecot did not start: {(self.dir / 'dovecot.log').read_text()}")

    def stop(self):
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)
            self.proc = None

    def restart(self):
        self.stop()
        self.start()

    def close(self):
        """Stopped for good, its folder removed (mail, log, sockets): every test that starts one."""
        try:
            self.stop()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def kill_sessions(self, user: str) -> None:
        """Kill the server's processes of `user`'s open sessions: their links drop at once."""
        for line in (self.dir / "dovecot.log").read_text().splitlines():
            if f"user=<{user}>" in line and "mpid=" in line:
                pid = int(line.split("mpid=")[1].split(",")[0])
                try:
                    if b"imap" in Path(f"/proc/{pid}/cmdline").read_bytes():  # still that session
                        os.kill(pid, signal.SIGKILL)
                except (FileNotFoundError, ProcessLookupError):
                    pass

    def settings(self, user: str) -> settings_mod.ImapSettings:
        return settings_mod.ImapSettings(host="127.0.0.1", port=self.port, username=user, password=PASSWORD,
                                         tls=False, starttls=False, timeout=5, idle_seconds=30)

    def box(self, user: str):
        return MailBoxUnencrypted("127.0.0.1", self.port, timeout=5).login(user, PASSWORD)


@pytest.fixture(scope="module")
def dovecot():
    server = Dovecot()
    server.start()
    yield server
    server.close()


@pytest.fixture
def user(dovecot):
    return next(dovecot.users)


@pytest.fixture
def imap_svc(make_service, dovecot, user):
    return make_service(engine=fake_engine, imap=dovecot.settings(user))


def answers(svc, game: str, n: int) -> list[bytes]:
    """n mails, each a legal answer of whoever's turn it will be (the fake engine goes round)."""
    names, out = ["alice", "bob"], []
    first = svc.engine.legal_moves(games.state(svc, games.get(svc, game)))[0]
    start = names.index(first.player)
    for i in range(n):
        who = names[(start + i) % 2]
        out.append(mail(["right"], sender=f"{who}@example.org", tok=token(svc, game, who)))
    return out


def deliver(dovecot, user, raws) -> None:
    with dovecot.box(user) as box:
        for raw in raws:
            box.append(raw, "INBOX")


def folder_counts(dovecot, user, processed="pbem-processed") -> tuple[int, int]:
    with dovecot.box(user) as box:
        inbox = box.folder.status("INBOX", ["MESSAGES"])["MESSAGES"]
        done = box.folder.status(processed, ["MESSAGES"])["MESSAGES"] if box.folder.exists(processed) else 0
    return inbox, done


def test_poll_stores_applies_moves_and_remembers(imap_svc, dovecot, user):
    g = newgame.create(imap_svc, game_config())
    deliver(dovecot, user, answers(imap_svc, g, 3))
    source = imap.ImapSource(imap_svc.settings.imap)
    results = source.poll(imap_svc)
    assert [r.status for r in results] == ["applied"] * 3
    assert folder_counts(dovecot, user) == (0, 3)
    claims = imap_svc.store.query("SELECT uid, stored FROM imap_claims ORDER BY uid")
    assert claims == [{"uid": u, "stored": 2} for u in (1, 2, 3)]  # moved: held a lease longer, then let go
    assert source.poll(imap_svc) == []  # nothing is fetched twice
    assert {r["source"] for r in imap_svc.store.inbox_rows()} == {"imap"}
    source.stop()


def test_a_new_uidvalidity_starts_again(imap_svc, dovecot, user):
    g = newgame.create(imap_svc, game_config())
    source = imap.ImapSource(imap_svc.settings.imap)
    for uid in (1, 2):  # claims from a folder since recreated: UID 1 was another message
        assert imap_svc.store.claim_imap(source.key, 1, uid, "another daemon", 3600) == 0
    deliver(dovecot, user, answers(imap_svc, g, 1))
    assert [r.status for r in source.poll(imap_svc)] == ["applied"]
    assert all(r["uidvalidity"] != 1 for r in imap_svc.store.query("SELECT uidvalidity FROM imap_claims"))
    source.stop()


def test_a_message_another_daemon_claimed_is_passed_over_until_its_lease_runs_out(imap_svc, dovecot, user):
    """Two daemons on one folder (the store decides who takes what): a message claimed by
    another is not fetched; once that daemon's lease has run out (it died), it is."""
    g = newgame.create(imap_svc, game_config())
    deliver(dovecot, user, answers(imap_svc, g, 2))
    source = imap.ImapSource(imap_svc.settings.imap)
    with dovecot.box(user) as box:
        validity = int(box.folder.status("INBOX", ["UIDVALIDITY"])["UIDVALIDITY"])
    for uid in (1, 2):
        assert imap_svc.store.claim_imap(source.key, validity, uid, "another daemon", 60) == 0
    assert imap_svc.store.claim_imap(source.key, validity, 1, "a third", 60) is None  # held
    assert source.poll(imap_svc) == []
    assert folder_counts(dovecot, user) == (2, 0)
    imap_svc.store.clock.t += timedelta(seconds=61)  # the other daemon died: its claim runs out
    assert [r.status for r in source.poll(imap_svc)] == ["applied", "applied"]
    assert folder_counts(dovecot, user) == (0, 2)
    source.stop()


@pytest.mark.parametrize("how", ["cut the link", "kill the server's session", "restart dovecot"])
def test_a_dropped_link_mid_fetch_loses_nothing_and_duplicates_nothing(imap_svc, dovecot, user, monkeypatch, how):
    g = newgame.create(imap_svc, game_config())
    deliver(dovecot, user, answers(imap_svc, g, 6))
    source = imap.ImapSource(imap_svc.settings.imap)
    real, calls = imap.handle, []

    def handle_then_drop(*a, **k):
        result = real(*a, **k)  # stored and applied; the position is not yet saved, nor the mail moved
        calls.append(result)
        if len(calls) == 3:
            if how == "restart dovecot":
                dovecot.restart()
            elif how == "cut the link":
                source.box.client.sock.shutdown(socket.SHUT_RDWR)
            else:
                dovecot.kill_sessions(user)
        return result

    monkeypatch.setattr(imap, "handle", handle_then_drop)
    first = source.poll(imap_svc)
    if how != "restart dovecot":  # (a restarted Dovecot may let the open session finish)
        assert len(first) == 3 and source.box is None  # the poll ended with the link
    rest = []
    for _ in range(3):
        rest += source.poll(imap_svc)
    statuses = [r.status for r in first + rest]
    assert statuses.count("applied") == 6 and set(statuses) <= {"applied", "duplicate"}
    assert len(imap_svc.store.inbox_rows()) == 6 and len(imap_svc.store.moves(g)) == 6  # each once
    assert folder_counts(dovecot, user) == (0, 6)
    source.stop()


def test_idle_wakes_the_daemon_and_survives_a_dropped_link(imap_svc, dovecot, user):
    woke = threading.Event()
    source = imap.ImapSource(imap_svc.settings.imap)
    source.watch(woke.set)
    try:
        assert woke.wait(10)  # at connect: anything that came while away
        woke.clear()
        deliver(dovecot, user, [mail(["hello"])])
        assert woke.wait(10), "IDLE did not report the new mail"
        woke.clear()
        dovecot.kill_sessions(user)
        assert woke.wait(15), "the worker did not reconnect"  # it wakes the daemon when it is back
        woke.clear()
        deliver(dovecot, user, [mail(["hello again"])])
        assert woke.wait(10)
    finally:
        source.stop()
    assert not source.watcher


def test_serve_reads_the_mailbox_when_mail_arrives(make_service, dovecot, user):
    svc = make_service(engine=fake_engine, imap=dovecot.settings(user), poll_seconds=60)
    g = newgame.create(svc, game_config())
    stop = threading.Event()
    worker = threading.Thread(target=lambda: asyncio.run(daemon.serve(svc, stop=stop)))
    worker.start()
    try:
        time.sleep(1)  # the first cycle, then waiting: only IDLE can wake it within the test
        deliver(dovecot, user, answers(svc, g, 1))
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not svc.store.moves(g):
            time.sleep(0.1)
    finally:
        stop.set()
        worker.join(15)
    assert len(svc.store.moves(g)) == 1 and not worker.is_alive()
    assert folder_counts(dovecot, user) == (0, 1)


def test_a_mail_over_the_limit_is_not_downloaded_whole_and_is_answered(imap_svc, dovecot, user):
    """Issue 21 (8): IMAP had no cap. A real server holds a 3 MB mail: only its header is
    fetched (RFC822.SIZE first), the sender is told, and the next mail is read as usual."""
    g = newgame.create(imap_svc, game_config())
    big = mail(["hello"], sender="alice@example.org", message_id="<big-imap@x>").replace(
        b"hello\n", b"hello\n" + (b"x" * 76 + b"\n") * 40000)
    deliver(dovecot, user, [big, *answers(imap_svc, g, 1)])
    source = imap.ImapSource(imap_svc.settings.imap)
    results = source.poll(imap_svc)
    source.stop()
    assert [r.status for r in results] == ["refused", "applied"]
    stored = imap_svc.store.inbox(results[0].inbox_id)["raw"]
    assert len(stored) < 64 * 1024 and b"<big-imap@x>" in stored
    assert any(r["kind"] == "unprocessed" and r["to_addr"] == "alice@example.org" for r in imap_svc.store.outbox_rows())
    assert folder_counts(dovecot, user) == (0, 2)


# -- several daemons on one folder (issue 26) ------------------------------------------------

def daemon_homes(tmp_path, dovecot, user, daemons: int, db: str | None) -> list[Path]:
    """`daemons` homes reading one Dovecot folder: on one PostgreSQL database (one home per
    machine, one key), or one home (SQLite) served twice; GAMES games made in the first."""
    from test_daemons import new_games, run
    imap_cfg = (f'[imap]\nhost = "127.0.0.1"\nport = {dovecot.port}\nusername = "{user}"\npassword = "{PASSWORD}"\n'
                f'tls = false\nstarttls = false\ntimeout = 5\nidle_seconds = 30\n')
    config = ((f'db = "{db}"\n' if db else "") + 'poll_seconds = 0.5\nsend_lease_seconds = 3\nlog_format = "json"\n'
              + imap_cfg)
    homes = [tmp_path / f"machine{i}" for i in range(daemons if db else 1)]
    for i, home in enumerate(homes):
        home.mkdir(mode=0o700)
        (home / "pbem.toml").write_text(config)
        if i:
            shutil.copy2(homes[0] / "secret.key", home / "secret.key")
        run(home, "init")
    new_games(homes[0], tmp_path, DAEMON_GAMES, "imap")
    return homes if db else homes * daemons


DAEMON_GAMES = 8
STRANGERS = 100  # mails ahead of a round's answers where a daemon must still be busy when killed


def serve_logged(home: Path, log: Path) -> subprocess.Popen:
    from test_daemons import PBEM
    return subprocess.Popen([*PBEM, "--home", str(home), "serve"], stdout=subprocess.DEVNULL,
                            stderr=log.open("wb"))


def taken(logs: list[Path]) -> list[list[dict]]:
    """Per daemon, its "imap: taken" log lines."""
    import json
    out = []
    for path in logs:
        lines = [json.loads(ln) for ln in path.read_text().splitlines() if ln.startswith("{")]
        out.append([ln for ln in lines if ln.get("event") == "imap: taken"])
    return out


def serving(path: Path) -> bool:
    """The daemon has started its loop (its IMAP watcher and store listener are up)."""
    return path.exists() and '"serving"' in path.read_text()


def a_round(svc, rng) -> list[bytes]:
    """An answer for each game, each the one its open question waits for."""
    from conftest import legal
    out = []
    for g in sorted(svc.store.game_ids()):
        player, line = legal(svc, g)
        out.append(mail([line], sender=f"{player}@example.org", tok=token(svc, g, player), game=g))
    rng.shuffle(out)
    return out


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def shared_db(request) -> str | None:
    """Two daemons on one SQLite home, or two homes on one PostgreSQL (behind the marker)."""
    return request.getfixturevalue("pg_url") if request.param == "postgresql" else None


def test_two_daemons_on_one_folder_take_each_message_once(tmp_path, dovecot, user, shared_db):
    """Each message of the folder is claimed by its UID in the store before it is fetched:
    one of the two `pbem serve` processes takes it, stores it, plays it and moves it; the
    other passes it over. Without the claims both fetch and hand in every message."""
    import random

    from test_postgres import settled, wait_for

    from pbem.core.service import open_service
    homes = daemon_homes(tmp_path, dovecot, user, 2, shared_db)
    svc = open_service(homes[0])
    logs = [tmp_path / f"daemon{i}.log" for i in range(2)]
    procs = [serve_logged(h, log) for h, log in zip(homes, logs)]
    rng, rounds, sent = random.Random(26), 0, 0
    try:
        wait_for(lambda: all(serving(log) for log in logs), "both daemons serving")
        # Which daemon wakes first is the scheduler's: on a busy machine one may take a whole
        # round. Rounds go on (six at most) until each has taken some, so the claims are
        # really contended; what must hold in every round is that no message is taken twice.
        while rounds < 2 or (not all(taken(logs)) and rounds < 6):
            before = {g: svc.store.game(g)["moves"] for g in svc.store.game_ids()}
            batch = a_round(svc, rng)
            deliver(dovecot, user, batch)
            sent, rounds = sent + len(batch), rounds + 1
            wait_for(lambda: settled(svc, before, len(before)) and folder_counts(dovecot, user) == (0, sent),
                     "the round's answers, stored and moved")
    finally:
        from test_daemons import stop
        stop(procs)
    try:
        rows = svc.store.inbox_rows(limit=1000)
        assert len(rows) == sent and all(r["status"] == "processed" and r["source"] == "imap" for r in rows)
        for g in svc.store.game_ids():
            assert svc.store.verify_chain(g) == [] and svc.store.game(g)["moves"] == rounds
        by_daemon = taken(logs)
        uids = [t["uid"] for mine in by_daemon for t in mine]
        assert sorted(uids) == list(range(1, sent + 1)), uids  # each message taken once, by one daemon
        assert {t["status"] for mine in by_daemon for t in mine} == {"applied"}
        assert all(by_daemon), [len(mine) for mine in by_daemon]  # both took their share
        assert folder_counts(dovecot, user) == (0, sent)
    finally:
        svc.store.close()


@pytest.mark.postgres
def test_a_daemon_killed_while_it_takes_the_folder_leaves_the_rest_to_the_other(tmp_path, dovecot, user, pg_url):
    """Two daemons on one folder; the first to take a message is SIGKILLed in the middle of
    its batch: its claims run out (send_lease_seconds) and the other takes what it had not
    stored and moves what it had. Nothing lost, nothing applied twice, nothing moved twice.
    Strangers' mails come first, more than a daemon handles between its first "taken" and the
    kill (the test reads the logs every 0.1 s): with the answers alone, a fast daemon could take
    all eight before it was killed, leaving the other nothing to take over (a flake, 4 Dec)."""
    import random

    from test_daemons import stop
    from test_postgres import settled, wait_for

    from pbem.core.service import open_service
    homes = daemon_homes(tmp_path, dovecot, user, 2, pg_url)
    svc = open_service(homes[0])
    logs = [tmp_path / f"daemon{i}.log" for i in range(2)]
    procs = [serve_logged(h, log) for h, log in zip(homes, logs)]
    try:
        time.sleep(3)  # both started, both IDLE
        before = {g: svc.store.game(g)["moves"] for g in svc.store.game_ids()}
        batch = [mail(["hello"], sender=f"stranger{n}@example.net") for n in range(STRANGERS)]
        batch += a_round(svc, random.Random(7))
        deliver(dovecot, user, batch)
        first = lambda: next((i for i, mine in enumerate(taken(logs)) if mine), None)  # who took one first
        wait_for(lambda: first() is not None, "a first message taken")
        victim = first()
        procs[victim].send_signal(signal.SIGKILL)
        procs[victim].wait()
        wait_for(lambda: settled(svc, before, len(before)) and folder_counts(dovecot, user) == (0, len(batch)),
                 "every answer, stored and moved", timeout=40)  # a dead daemon's claim: taken when it runs out
    finally:
        stop(procs)
    try:
        rows = svc.store.inbox_rows(limit=1000)
        assert len(rows) == len(batch) and all(r["status"] == "processed" for r in rows)
        for g in svc.store.game_ids():
            assert svc.store.verify_chain(g) == [] and svc.store.game(g)["moves"] == 1  # applied once
        survived = taken(logs)[1 - victim]
        assert survived and {t["status"] for t in survived} <= {"applied", "duplicate", "refused"}
        assert folder_counts(dovecot, user) == (0, len(batch))
    finally:
        svc.store.close()
