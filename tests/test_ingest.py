"""Each source feeds process.handle; the daemon loops over them and the outbox."""
import asyncio
import io
import mailbox
import os
import signal
import socket
import sqlite3
import threading

import fake_engine
import pytest
from aiosmtpd.controller import Controller
from conftest import game_config, legal, mail, token, turn_file

from pbem import daemon
from pbem.base import settings as settings_mod
from pbem.moderate import newgame
from pbem.outbound import sending
from pbem.sources import dropfolder, files, maildir, pipe, stdin


def answer(svc, game, **kw):
    player, line = legal(svc, game)
    return mail([line], sender=f"{player}@example.org", tok=token(svc, game, player), **kw)


def test_stdin(fake_svc, fake_game):
    result = stdin.ingest(fake_svc, io.BytesIO(answer(fake_svc, fake_game)))
    assert result.status == "applied" and stdin.exit_code(result) == 0
    refused = stdin.ingest(fake_svc, io.BytesIO(mail(["left"], tok="0" * 20)))
    assert refused.refused and stdin.exit_code(refused) == 0  # stored: the reply says no, the MTA must not bounce
    again = stdin.ingest(fake_svc, io.BytesIO(answer(fake_svc, fake_game, message_id="<dup@x>")))
    assert stdin.exit_code(stdin.ingest(fake_svc, io.BytesIO(b""))) == 0
    assert again.status == "applied" and len(fake_svc.store.moves(fake_game)) == 2


@pytest.mark.parametrize("name", ["answer.eml", "turn.toml", "turn.json"])
def test_files(fake_svc, fake_game, tmp_path, name):
    player, line = legal(fake_svc, fake_game)
    tok = token(fake_svc, fake_game, player)
    data = {"eml": mail([line], sender=f"{player}@example.org", tok=tok),
            "toml": turn_file(fake_game, player, tok, [line]),
            "json": (f'{{"game": "{fake_game}", "player": "{player}", "token": "{tok}", '
                     f'"answers": ["{line}"]}}').encode()}
    path = tmp_path / name
    path.write_bytes(data[name.rsplit(".", 1)[1]])
    assert files.ingest(fake_svc, path).status == "applied"
    assert fake_svc.store.inbox_rows()[0]["kind"] == ("mail" if name.endswith(".eml") else "turn")


def test_maildir(fake_svc, fake_game, tmp_path):
    box = mailbox.Maildir(str(tmp_path / "Maildir"), create=True)
    box.add(answer(fake_svc, fake_game))
    [result] = maildir.poll(fake_svc, tmp_path / "Maildir")
    assert result.status == "applied"
    assert os.listdir(tmp_path / "Maildir" / "new") == []
    [kept] = os.listdir(tmp_path / "Maildir" / "cur")
    assert kept.endswith(":2,S")  # kept, marked seen
    assert maildir.poll(fake_svc, tmp_path / "Maildir") == []


def test_a_maildir_batch_is_made_durable_once_before_any_message_is_acknowledged(fake_svc, fake_game, tmp_path,
                                                                              monkeypatch):
    """Group commit: the batch's commits skip their fsync, one sync() follows, and only then
    are the mails moved out of new/ (a power cut before it leaves them to be read again, and
    known again by their Message-IDs)."""
    box = mailbox.Maildir(str(tmp_path / "Maildir"), create=True)
    new = tmp_path / "Maildir" / "new"
    for n in range(3):
        box.add(answer(fake_svc, fake_game) if n == 0 else mail(["left"], message_id=f"<batch{n}@x>"))
    synced = []
    real_sync = fake_svc.store.sync
    monkeypatch.setattr(fake_svc.store, "sync", lambda: synced.append(len(os.listdir(new))) or real_sync())
    results = maildir.poll(fake_svc, tmp_path / "Maildir")
    assert [r.status for r in results][0] == "applied" and len(results) == 3
    assert synced == [3]  # one fsync, while all three still wait in new/
    assert os.listdir(new) == []
    assert fake_svc.store.db.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL again after the batch


def test_each_drop_folder_file_is_moved_after_its_own_durable_commit(fake_svc, fake_game, monkeypatch):
    """A file leaves new/ only once its own commit is durable (not at the end of the batch):
    a second connection sees its row committed when it is moved."""
    folder = dropfolder.ensure(fake_svc.settings.inbox_path)
    for n in range(3):
        raw = answer(fake_svc, fake_game) if n == 0 else mail(["left"], message_id=f"<each{n}@x>")
        dropfolder.drop(folder, f"m{n}.eml", raw)
    other = sqlite3.connect(str(fake_svc.settings.db_path))
    seen = []
    real = dropfolder.replace_with_stored

    def moved(svc, file, target, inbox_id):
        seen.append((len(os.listdir(folder / "new")),
                     other.execute("SELECT status FROM inbox WHERE id = ?", (inbox_id,)).fetchone()))
        return real(svc, file, target, inbox_id)

    monkeypatch.setattr(dropfolder, "replace_with_stored", moved)
    assert len(dropfolder.poll(fake_svc, folder)) == 3
    assert seen == [(3, ("processed",)), (2, ("processed",)), (1, ("processed",))]
    assert fake_svc.store.db.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL: each commit fsynced


def test_drop_folder(fake_svc, fake_game):
    folder = dropfolder.ensure(fake_svc.settings.inbox_path)
    (folder / "tmp" / "half-written.eml").write_bytes(b"From: x")  # never read
    dropfolder.drop(folder, "one.eml", answer(fake_svc, fake_game))
    [r1] = dropfolder.poll(fake_svc, folder)
    player, line = legal(fake_svc, fake_game)
    (folder / "two.toml").write_bytes(turn_file(fake_game, player, token(fake_svc, fake_game, player), [line]))
    [r2] = dropfolder.poll(fake_svc, folder)
    assert (r1.status, r2.status) == ("applied", "applied")
    kept = sorted(os.listdir(folder / "cur"))
    assert kept[0].startswith(f"{r1.inbox_id:06d}-") and kept[0].endswith("one.eml")
    assert kept[1] == f"{r2.inbox_id:06d}-two.toml"
    assert os.listdir(folder / "tmp") == ["half-written.eml"]
    assert token(fake_svc, fake_game, player) not in (folder / "cur" / kept[1]).read_text()  # kept masked
    assert os.listdir(folder / "new") == []


def test_the_pipe_spools_only_while_a_daemon_holds_the_home(fake_svc, fake_game):
    """No daemon: `hand_over` declines (the CLI stores and processes the mail itself). A
    daemon: the mail is written durably into the spool, 0600, and nothing else happens."""
    home = fake_svc.settings.home
    assert pipe.hand_over(home, io.BytesIO(b"x")) is None and pipe.waiting(fake_svc.settings) == []
    with pipe.serving(fake_svc.settings):
        assert pipe.daemon_running(fake_svc.settings)
        assert pipe.hand_over(home, io.BytesIO(answer(fake_svc, fake_game))) == 0
    assert not pipe.daemon_running(fake_svc.settings)  # the lock goes with the daemon
    [spooled] = pipe.waiting(fake_svc.settings)
    assert spooled.stat().st_mode & 0o777 == 0o600 and os.listdir(spooled.parent.parent / "tmp") == []
    assert fake_svc.store.inbox_rows() == []  # not stored yet: the daemon does that


def test_a_spool_that_cannot_be_written_defers_the_mail(fake_svc, capsys):
    with pipe.serving(fake_svc.settings):
        new = pipe.folder(fake_svc.settings) / "new"
        os.rmdir(new)
        new.write_text("")  # new/ is not a folder (as a full disk, a read-only mount): no copy is kept
        assert pipe.hand_over(fake_svc.settings.home, io.BytesIO(b"From: a@b\n\nleft\n")) == pipe.EX_TEMPFAIL
    assert "try again later" in capsys.readouterr().err
    assert os.listdir(pipe.folder(fake_svc.settings) / "tmp") == []  # no half-written copy left


def test_the_daemon_stores_the_spool_once_then_removes_it(fake_svc, fake_game, monkeypatch):
    """A batch in one group commit; each file is unlinked only after the batch's fsync, and a
    mail the MTA delivered twice (spooled twice) is one message."""
    raw = answer(fake_svc, fake_game, message_id="<twice@x>")
    with pipe.serving(fake_svc.settings):
        for _ in range(2):
            pipe.spool(fake_svc.settings, io.BytesIO(raw))
    synced = []
    real_sync = fake_svc.store.sync
    monkeypatch.setattr(fake_svc.store, "sync", lambda: synced.append(len(pipe.waiting(fake_svc.settings)))
                        or real_sync())
    results = pipe.poll(fake_svc)
    assert [r.status for r in results] == ["applied", "duplicate"] and synced == [2]
    assert pipe.waiting(fake_svc.settings) == [] and fake_svc.store.game(fake_game)["moves"] == 1
    [row] = fake_svc.store.inbox_rows()
    assert row["source"] == "stdin"


def test_serve_once_drains_what_the_pipe_spooled(fake_svc, fake_game):
    """A daemon stopped after the mail was spooled: the next `serve` (or `serve --once`)
    takes it first."""
    with pipe.serving(fake_svc.settings):
        pipe.spool(fake_svc.settings, io.BytesIO(answer(fake_svc, fake_game)))
    assert asyncio.run(daemon.serve(fake_svc, once=True)) == 1
    assert pipe.waiting(fake_svc.settings) == [] and fake_svc.store.game(fake_game)["moves"] == 1


def test_a_spooled_file_that_cannot_be_read_is_left_and_does_not_keep_the_daemon_awake(fake_svc, fake_game,
                                                                                          monkeypatch):
    import pbem.sources
    with pipe.serving(fake_svc.settings):
        bad = pipe.spool(fake_svc.settings, io.BytesIO(answer(fake_svc, fake_game)))
    monkeypatch.setattr(pbem.sources, "read_capped", lambda p: (_ for _ in ()).throw(PermissionError(p)))
    assert pipe.poll(fake_svc) == [] and bad.exists()  # left where it is, logged
    assert not pipe.arrived_since_poll(fake_svc.settings)  # tried: the daemon waits for new mail
    monkeypatch.undo()
    with pipe.serving(fake_svc.settings):
        pipe.spool(fake_svc.settings, io.BytesIO(mail(["left"], message_id="<later@x>")))
    assert pipe.arrived_since_poll(fake_svc.settings)  # came after the poll: the daemon does not wait
    assert len(pipe.poll(fake_svc)) == 2 and pipe.waiting(fake_svc.settings) == []  # readable again: both taken


@pytest.mark.parametrize("argv, home", [(["ingest"], "var"), (["--home", "h", "ingest"], "h"),
                                        (["--home=h", "ingest"], "h"), (["ingest", "a.eml"], None),
                                        (["--home", "h", "ingest", "--help"], None), (["game", "list"], None),
                                        (["--home"], None), (["--version", "ingest"], None)])
def test_only_the_pipes_command_line_takes_the_fast_path(argv, home, monkeypatch):
    monkeypatch.delenv("PBEM_HOME", raising=False)
    assert pipe.pipe_home(argv) == home


def test_serve_once_processes_and_sends(fake_svc, fake_game):
    dropfolder.drop(fake_svc.settings.inbox_path, "a.eml", answer(fake_svc, fake_game))
    assert asyncio.run(daemon.serve(fake_svc, once=True)) == 1
    assert all(r["status"] == "sent" for r in fake_svc.store.outbox_rows())
    assert len(list(fake_svc.settings.outbox_path.glob("*.eml"))) == len(fake_svc.store.outbox_rows())


def test_serve_reads_a_configured_maildir(make_service, tmp_path):
    svc = make_service(engine=fake_engine, maildir=str(tmp_path / "Maildir"))
    game = newgame.create(svc, game_config())
    mailbox.Maildir(str(tmp_path / "Maildir"), create=True).add(answer(svc, game))
    assert asyncio.run(daemon.serve(svc, once=True)) == 1


def test_sigterm_finishes_the_message_in_hand_then_stops(fake_svc, fake_game):
    async def run():
        loop = asyncio.get_running_loop()
        loop.call_later(0.5, dropfolder.drop, fake_svc.settings.inbox_path, "a.eml", answer(fake_svc, fake_game))
        loop.call_later(1.5, os.kill, os.getpid(), signal.SIGTERM)
        return await daemon.serve(fake_svc)

    fake_svc.settings.poll_seconds = 0.2
    assert asyncio.run(asyncio.wait_for(run(), 20)) == 1
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # handler given back


def test_stop_flag_ends_the_loop(fake_svc):
    stop = threading.Event()
    threading.Timer(0.3, stop.set).start()
    fake_svc.settings.poll_seconds = 10
    assert asyncio.run(asyncio.wait_for(daemon.serve(fake_svc, stop=stop), 10)) == 0


class Collect:
    def __init__(self):
        self.messages = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(envelope.content)
        return "250 OK"


def test_smtp_sender_delivers_with_token_in_reply_to(make_service):
    handler = Collect()
    with socket.socket() as s:  # a free port
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        smtp = settings_mod.SmtpSettings(host="127.0.0.1", port=port, starttls=False, timeout=5)
        svc = make_service(engine=fake_engine, smtp=smtp)
        game = newgame.create(svc, game_config())
        assert asyncio.run(sending.send_due(svc)) == 4
    finally:
        controller.stop()
    assert len(handler.messages) == 4
    welcome = next(m for m in handler.messages if b"Welcome, alice" in m)
    tok = token(svc, game, "alice").encode()
    assert b"token: " + tok in welcome and b"talisman+" + tok in welcome


def test_smtp_failure_is_retried_later_then_marked_failed(make_service):
    smtp = settings_mod.SmtpSettings(host="127.0.0.1", port=1, starttls=False, timeout=1)
    svc = make_service(engine=fake_engine, smtp=smtp, send_attempts=2, send_for_hours=0)
    newgame.create(svc, game_config())
    assert asyncio.run(sending.send_due(svc)) == 0
    rows = svc.store.outbox_rows()
    assert all(r["status"] == "queued" and r["attempts"] == 1 and r["last_error"] for r in rows)
    svc.store.db.execute("UPDATE outbox SET next_attempt_at = '2000-01-01T00:00:00Z'")
    asyncio.run(sending.send_due(svc))
    assert all(r["status"] == "failed" for r in svc.store.outbox_rows())
    assert svc.store.outbox_retry_failed() == 4
