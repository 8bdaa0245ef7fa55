"""Sending in batches (issue 28): rows claimed a batch at a time, each batch one durable commit
(its claim and each mail's mark committed without an fsync, one fsync when the batch is done),
no more rows claimed than the lease covers, the rest given back on a stop; the .eml written
whole without a temporary file; a long-lined ASCII part as it is (7bit). The exactly-once
guarantee under kills is tests/test_kill.py's and tests/test_daemons.py's."""
import asyncio
import email
import os
import sqlite3
import stat
from email.policy import default as default_policy
from html import unescape

import msgspec
import pytest
from conftest import legal

from pbem.moderate import moderator
from pbem.outbound import mime, outbox, sending


def queue(svc, n: int, start: int = 0) -> None:
    with svc.store.transaction():
        for i in range(start, start + n):
            outbox.enqueue(svc, kind="notice", message_id=f"<b{i}@example.org>", sender="talisman@example.org",
                           to="mod@example.org", to_name=None, subject=f"notice {i}", text=f"notice {i}\n")


def counted(svc, monkeypatch) -> dict:
    """The claims, the marks "sent" (one a mail, and those of a batch at once) and the fsyncs
    (Store.sync) a sending round makes."""
    seen = {"claims": [], "sent": 0, "marked": [], "syncs": 0}
    claim, mark, sync = svc.store.claim_outbox_rows, svc.store.outbox_sent, svc.store.sync
    mark_rows = svc.store.outbox_sent_rows

    def sent_rows(rows, owner):
        seen["marked"].append(len(rows))
        return mark_rows(rows, owner)

    def claim_rows(*args, **kwargs):
        rows = claim(*args, **kwargs)
        seen["claims"].append(len(rows))
        return rows

    def sent(*args, **kwargs):
        seen["sent"] += 1
        return mark(*args, **kwargs)

    def synced():
        seen["syncs"] += 1
        return sync()

    monkeypatch.setattr(svc.store, "claim_outbox_rows", claim_rows)
    monkeypatch.setattr(svc.store, "outbox_sent", sent)
    monkeypatch.setattr(svc.store, "outbox_sent_rows", sent_rows)
    monkeypatch.setattr(svc.store, "sync", synced)
    return seen


def files(svc) -> list[str]:
    return sorted(p.name for p in svc.settings.outbox_path.iterdir())


def test_a_batch_is_claimed_at_once_and_made_durable_once(make_service, monkeypatch):
    svc = make_service()
    queue(svc, 45)
    seen = counted(svc, monkeypatch)
    assert asyncio.run(sending.send_due(svc)) == 45
    assert seen["claims"] == [20, 20, 5]  # three batches; the short one says nothing is left
    # a statement marks a batch (written files, synced together), not one a mail; an fsync per batch
    assert seen["sent"] == 0 and seen["marked"] == [20, 20, 5] and seen["syncs"] == 3
    assert files(svc) == [sending.eml_name(i) for i in range(1, 46)]
    assert all(r["status"] == "sent" for r in svc.store.outbox_rows())
    claims = svc.store.query("SELECT claimed_by, claim_until FROM outbox WHERE claimed_by IS NOT NULL")
    assert claims == []


def test_a_round_with_nothing_to_send_makes_no_fsync(make_service, monkeypatch):
    """A daemon's idle cycle (nothing due) claims nothing and writes nothing: its group commit
    has nothing to make durable, and pays no fsync (it paid one every cycle)."""
    svc = make_service()
    seen = counted(svc, monkeypatch)
    assert asyncio.run(sending.send_due(svc)) == 0
    assert seen["claims"] == [0] and seen["syncs"] == 0
    queue(svc, 2)
    assert asyncio.run(sending.send_due(svc)) == 2
    assert seen["syncs"] == 1


def test_a_batch_claims_no_more_than_its_lease_covers(make_service, monkeypatch):
    """A send may take `one_send_seconds`: a lease of 2.5 s covers two of them (file sending:
    1 s each), and a mail that could outlast the claim is given back, not sent under it."""
    svc = make_service(send_lease_seconds=2.5)
    queue(svc, 5)
    seen = counted(svc, monkeypatch)
    now = [0.0]
    monkeypatch.setattr(sending, "monotonic", lambda: now[0])
    released = []
    release = svc.store.release_outbox
    monkeypatch.setattr(svc.store, "release_outbox", lambda owner, ids: released.append(list(ids)) or
                        release(owner, ids))
    assert asyncio.run(sending.send_due(svc)) == 5
    assert seen["claims"] == [2, 2, 1] and released == [] and seen["marked"] == [2, 2, 1]  # each batch within its lease
    # a send that takes long: the rest of its batch is given back, then claimed again
    queue(svc, 4, start=100)
    seen["claims"].clear()
    original = sending.FileSender.send

    async def slow(self, row, raw):
        await original(self, row, raw)
        now[0] += 2.0 if row["id"] == 6 else 0.1

    monkeypatch.setattr(sending.FileSender, "send", slow)
    assert asyncio.run(sending.send_due(svc)) == 4
    assert released == [[7]] and seen["claims"] == [2, 2, 1]  # 6 and 7 (7 given back), 7 and 8, 9
    assert len(files(svc)) == 9 and all(r["status"] == "sent" for r in svc.store.outbox_rows())


def test_a_stop_gives_the_rest_of_the_batch_back(make_service):
    svc = make_service()
    queue(svc, 5)
    stop = asyncio.Event()
    original = sending.FileSender.send

    async def send_then_stop(self, row, raw):
        await original(self, row, raw)
        stop.set()  # as SIGTERM does: the mail in hand is finished

    sender = sending.FileSender(svc.settings.outbox_path)
    sender.send = send_then_stop.__get__(sender)
    assert asyncio.run(sending.send_due(svc, sender, stop)) == 1
    rows = svc.store.query("SELECT id, status, claimed_by FROM outbox ORDER BY id")
    assert [(r["status"], r["claimed_by"]) for r in rows] == [("sent", None)] + [("queued", None)] * 4
    assert asyncio.run(sending.send_due(svc)) == 4  # free for the next round, no lease to wait out


@pytest.mark.parametrize("tmpfile", [True, False], ids=["O_TMPFILE", "rename"])
def test_the_eml_is_written_whole_private_and_again_in_place(make_service, monkeypatch, tmpfile):
    if not tmpfile:
        monkeypatch.setattr(sending, "_TMPFILE", 0)
    svc = make_service()
    queue(svc, 3)
    asyncio.run(sending.send_due(svc))
    folder = svc.settings.outbox_path
    assert files(svc) == ["000001.eml", "000002.eml", "000003.eml"]  # no temporary file left
    assert all(stat.S_IMODE(os.stat(folder / f).st_mode) == 0o600 for f in files(svc))
    row = svc.store.outbox_mail(2)
    sender = sending.FileSender(folder)
    asyncio.run(sender.send(row, b"Subject: again\n\nthe same row sent again\n"))  # a lease that ran out
    asyncio.run(sender.close())
    assert (folder / "000002.eml").read_bytes() == b"Subject: again\n\nthe same row sent again\n"
    assert files(svc) == ["000001.eml", "000002.eml", "000003.eml"]
    msg = email.message_from_bytes((folder / "000003.eml").read_bytes(), policy=default_policy)
    assert msg["Subject"] == "notice 2" and msg.get_body(("plain",)).get_content() == "notice 2\n"


@pytest.mark.parametrize("html, encoding", [
    ("<td style='font-size:11px'>" + "x" * 400 + "</td>\n" * 3, "7bit"),  # long lines, ASCII: as written
    ("<p>" + "y" * 1200 + "</p>", "quoted-printable"),  # over RFC 5322's 998
    ("<p>Müller: left → Chapel</p>", "7bit"),  # beyond ASCII: character references
    ("<p>a\x00b</p>", "quoted-printable"),  # 7bit holds no NUL
])
def test_a_part_goes_as_it_is_when_7bit_allows(html, encoding):
    raw = mime.message({"Subject": "s", "Message-ID": "<m@x>"}, "text → Müller\n", html)
    assert raw.isascii() and max(len(line) for line in raw.split(b"\n")) <= 998
    msg = email.message_from_bytes(raw, policy=default_policy)
    part = msg.get_body(("html",))
    assert part["Content-Transfer-Encoding"] == encoding
    assert unescape(part.get_content()) == html + ("" if html.endswith("\n") else "\n")
    assert msg.get_body(("plain",)).get_content() == "text → Müller\n"  # the text part as written (quoted-printable)


def test_serve_once_reads_the_outbox_only_by_page_and_due_time(make_service, monkeypatch):
    """`pbem serve` read every outbox row ever queued at start and again at the end of
    `--once` (182 ms CPU and 19 MiB at 13,000 rows): now it reads what is due, a batch at a
    time, and names the mails it could not send from what its own round saw."""
    from click.testing import CliRunner

    from pbem.cli import main
    from pbem.store.base import Store
    svc = make_service(send_attempts=1, send_for_hours=0)
    queue(svc, 30)
    asyncio.run(sending.send_due(svc))  # mail sent long ago: no concern of this run
    queue(svc, 3, start=100)
    home = str(svc.settings.home)
    svc.store.close()

    def every_row(*args, **kwargs):
        raise AssertionError("serve read every outbox row")

    monkeypatch.setattr(Store, "outbox_rows", every_row)
    monkeypatch.setattr(Store, "outbox_due", every_row)  # a page of every due row: only after a link fails
    real = sending.FileSender.send

    async def send(self, row, raw):
        if row["id"] == 32:
            raise OSError("disk full")  # the link's kind of failure for a file: every mail waits for a retry
        await real(self, row, raw)

    monkeypatch.setattr(sending.FileSender, "send", send)
    monkeypatch.setattr(sending, "verdict", lambda e: (True, True))  # final, about the recipient: this mail only
    result = CliRunner().invoke(main, ["--home", home, "serve", "--once"])
    assert result.exit_code == 1, result.output
    assert "error: mail 32 (notice to mod@example.org) failed: OSError: disk full" in result.stderr
    assert "mail 31" not in result.stderr and "mail 33" not in result.stderr  # they went


def test_a_round_claims_and_marks_in_single_statements_and_reads_a_frame_once(svc, game):
    """A claim and the batch's marks "sent" are each one statement, its own commit (no BEGIN
    and COMMIT around them; the file sender's marks follow its sync, so a kill before them writes
    the batch's files again, in place); a move's readers share its stored frame, read once a
    round, and their seat rows."""
    asyncio.run(sending.send_due(svc))  # the opening mails
    sql = "SELECT context FROM outbox WHERE status = 'queued' AND context LIKE '%\"stored\"%'"
    for _ in range(12):  # until a move is reported to both players (their reports share its frame)
        moderator.answer(svc, game, *legal(svc, game))
        if len(queued := svc.store.query(sql)) >= 2:
            break
    due = len(svc.store.query("SELECT id FROM outbox WHERE status = 'queued'"))
    assert len(queued) >= 2 and due <= sending.BATCH
    statements: list[str] = []
    svc.store.conn.set_trace_callback(statements.append)
    try:
        assert asyncio.run(sending.send_due(svc)) == due
    finally:
        svc.store.conn.set_trace_callback(None)
    assert [s for s in statements if s.startswith(("BEGIN", "COMMIT"))] == []
    assert len([s for s in statements if s.startswith("UPDATE outbox SET claimed_by")]) == 1
    assert len([s for s in statements if s.startswith("WITH m (mark_id")]) == 1  # a batch: one mark
    assert not [s for s in statements if s.startswith("UPDATE outbox SET text")]
    read = [s for s in statements if s.startswith("SELECT frame FROM report_frames")]
    stored = {msgspec.json.decode(r["context"])["board"]["stored"] for r in queued}
    assert len(read) == len(stored) < len(queued)
    # each mail fills in its reader's token from the seat row as it is now: one read of the
    # game's seats for the mails of one game that go together, not one a mail
    seats = [s for s in statements if s.startswith("SELECT * FROM players WHERE game")]
    assert due >= 3 and len(seats) == 1, seats


def test_a_mail_sent_makes_its_readers_token_once_and_reads_its_headers_once(svc, game, monkeypatch):
    """Issue 28: sending a mail made its reader's token twice (for the Reply-To and the texts, then
    again for their page's secret) and parsed its stored headers twice (its envelope sender, then
    the mail): once each now, the same mail."""
    asyncio.run(sending.send_due(svc))  # the opening mails
    moderator.answer(svc, game, *legal(svc, game))
    rows = svc.store.query("SELECT id, headers FROM outbox WHERE status = 'queued' AND player IS NOT NULL")
    assert rows
    tokens, headers, token, read = [], [], svc.token, outbox.headers_of
    monkeypatch.setattr(svc, "token", lambda player: tokens.append(player["name"]) or token(player))
    monkeypatch.setattr(outbox, "headers_of", lambda row: headers.append(row["id"]) or read(row))
    monkeypatch.setattr(sending, "headers_of", outbox.headers_of)
    assert asyncio.run(sending.send_due(svc)) >= len(rows)
    assert len(tokens) == len(rows)  # one a mail to a seat
    assert {r["id"] for r in rows} <= set(headers) and len(headers) == len(set(headers))  # once a mail


@pytest.mark.parametrize("tmpfile", [True, False], ids=["O_TMPFILE", "rename"])
def test_each_eml_is_durable_before_its_mail_is_marked_sent(make_service, monkeypatch, tmpfile):
    """A power cut must not keep a mark "sent" whose file it lost (written, never synced: an
    empty or missing .eml): every file of a batch is fdatasynced and the folder fsynced before
    the batch's first mark, and the store's one fsync of the batch comes after its marks."""
    if not tmpfile:
        monkeypatch.setattr(sending, "_TMPFILE", 0)
    svc = make_service()
    queue(svc, 3)
    events: list[tuple[str, str]] = []
    fdatasync, fsync, mark, sync = os.fdatasync, os.fsync, svc.store.outbox_sent_rows, svc.store.sync

    def named(fd):  # by inode: an O_TMPFILE's descriptor keeps its anonymous name once linked
        ino = os.fstat(fd).st_ino
        folder = svc.settings.outbox_path
        return next((p.name for p in folder.iterdir() if p.stat().st_ino == ino), None) or \
            ("outbox" if os.stat(folder).st_ino == ino else "other")

    monkeypatch.setattr(os, "fdatasync", lambda fd: events.append(("datasync", named(fd))) or fdatasync(fd))
    monkeypatch.setattr(os, "fsync", lambda fd: events.append(("fsync", named(fd))) or fsync(fd))
    monkeypatch.setattr(svc.store, "outbox_sent_rows", lambda rows, owner: events.append(
        ("sent", " ".join(str(r[0]) for r in rows))) or mark(rows, owner))
    monkeypatch.setattr(svc.store, "sync", lambda: events.append(("store sync", "")) or sync())
    assert asyncio.run(sending.send_due(svc)) == 3
    names = [sending.eml_name(i) for i in (1, 2, 3)]
    seen = [e for e in events if e[0] != "fsync" or e[1] == "outbox"]
    assert sorted(seen[:3]) == [("datasync", n) for n in names]  # side by side: in any order
    assert seen[3:] == [("fsync", "outbox"), ("sent", "1 2 3"), ("store sync", "")]  # the batch's marks at once
    assert files(svc) == names


def test_a_failed_sync_marks_nothing_sent_and_the_mails_go_again(make_service, monkeypatch):
    """The disk refusing to make the files durable is the link's kind of failure: none of the
    batch is marked sent, each waits with the error, and the next round writes them again, in
    place."""
    svc = make_service()
    queue(svc, 3)
    fdatasync = os.fdatasync

    def refused(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fdatasync", refused)
    unsent: list = []
    assert asyncio.run(sending.send_due(svc, unsent=unsent)) == 0
    rows = svc.store.query("SELECT status, attempts, last_error, claimed_by FROM outbox ORDER BY id")
    assert [(r["status"], r["attempts"], r["claimed_by"]) for r in rows] == [("queued", 1, None)] * 3
    assert all("Input/output error" in r["last_error"] for r in rows)
    assert sorted(u.id for u in unsent) == [1, 2, 3] and not any(u.final for u in unsent)
    monkeypatch.setattr(os, "fdatasync", fdatasync)
    svc.store.conn.execute("UPDATE outbox SET next_attempt_at = '2000-01-01'")  # the backoff passed
    assert asyncio.run(sending.send_due(svc)) == 3
    assert files(svc) == [sending.eml_name(i) for i in (1, 2, 3)]
    assert all(r["status"] == "sent" for r in svc.store.outbox_rows())


def test_a_mail_whose_claim_another_sender_took_is_not_marked_sent_by_the_first(make_service, monkeypatch):
    """A sync that outlasts the lease: another sender claims a row meanwhile (and will send
    it, under the same Message-ID). The first one's mark must not take it from them: the row
    stays theirs, queued, and the first round counts it as not sent; the batch's other rows,
    marked in the same statement, are sent."""
    svc = make_service()
    queue(svc, 3)
    fdatasync = os.fdatasync

    def slow(fd):  # while the file is synced, the lease runs out and another daemon claims the row
        svc.store.conn.execute("UPDATE outbox SET claimed_by = 'other', claim_until = '9999-01-01' WHERE id = 2")
        fdatasync(fd)

    monkeypatch.setattr(os, "fdatasync", slow)
    assert asyncio.run(sending.send_due(svc)) == 2
    rows = svc.store.query("SELECT status, claimed_by FROM outbox ORDER BY id")
    assert [(r["status"], r["claimed_by"]) for r in rows] == [("sent", None), ("queued", "other"), ("sent", None)]


def test_a_batch_whose_marks_fail_goes_again_under_the_same_message_ids(make_service, monkeypatch):
    """The store refusing the batch's mark (one statement for all): none is marked, each is put
    back with the reason and named unsent, and the next round writes the same files again, in
    place (the same mails: a receiver drops the copy by its Message-ID)."""
    svc = make_service()
    queue(svc, 3)
    mark = svc.store.outbox_sent_rows

    def refused(rows, owner):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(svc.store, "outbox_sent_rows", refused)
    unsent: list = []
    assert asyncio.run(sending.send_due(svc, unsent=unsent)) == 0
    rows = svc.store.query("SELECT status, attempts, last_error, claimed_by FROM outbox ORDER BY id")
    assert [(r["status"], r["attempts"], r["claimed_by"]) for r in rows] == [("queued", 1, None)] * 3
    assert all(r["last_error"].startswith("sent, but not marked sent: OperationalError") for r in rows)
    assert sorted(u.id for u in unsent) == [1, 2, 3] and not any(u.final for u in unsent)
    first = {n: (svc.settings.outbox_path / n).read_bytes() for n in files(svc)}
    monkeypatch.setattr(svc.store, "outbox_sent_rows", mark)
    assert asyncio.run(sending.send_due(svc)) == 3
    assert {n: (svc.settings.outbox_path / n).read_bytes() for n in files(svc)} == first
    assert all(r["status"] == "sent" for r in svc.store.outbox_rows())
