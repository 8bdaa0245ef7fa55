"""Mail out: the shape of every mail, and the outbox sent to a real SMTP server (aiosmtpd on
127.0.0.1): retries after 4xx and lost links, one arrival per mail, 5xx and bounces marking
a player undeliverable and telling the moderator."""
import asyncio
import email
import socket
from datetime import timedelta
from email.policy import default as default_policy
from html import unescape

import fake_engine
import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult
from conftest import Clock, game_config, legal, mail, token

from pbem.base import settings as settings_mod
from pbem.core import games
from pbem.inbound.process import handle
from pbem.moderate import moderator, newgame
from pbem.outbound import notices, outbox, sending


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Handler:
    """Accepts mail, after refusing the first `refuse` RCPTs (451) or dropping the first
    `drop` links; answers 550 for `reject` addresses; sleeps `slow` seconds in DATA once."""

    def __init__(self, refuse=0, drop=0, reject=(), slow=0.0):
        self.refuse, self.drop, self.reject, self.slow = refuse, drop, set(reject), slow
        self.received: list[email.message.EmailMessage] = []
        self.envelopes: list[tuple[str, list[str]]] = []

    async def handle_MAIL(self, server, session, envelope, address, options):
        if self.drop:
            self.drop -= 1
            session.transport.close()  # the link is lost
            return "421 gone"
        envelope.mail_from = address
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, options):
        if address in self.reject:
            return "550 5.1.1 no such user"
        if self.refuse:
            self.refuse -= 1
            return "451 4.7.1 try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.received.append(email.message_from_bytes(envelope.content, policy=default_policy))
        self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        if self.slow:  # the mail is taken, but the client gives up before it hears so
            delay, self.slow = self.slow, 0.0
            await asyncio.sleep(delay)
        return "250 OK"


_running: list[Controller] = []  # the servers the fixture started, latest last (an outage stops one)


@pytest.fixture
def smtp_server():
    started = []

    def start(handler, **kwargs):
        port = free_port()
        controller = Controller(handler, hostname="127.0.0.1", port=port, **kwargs)
        controller.start()
        started.append(controller)
        _running.append(controller)
        return port

    yield start
    for c in started:
        try:
            c.stop()
        except AssertionError:  # stopped by the test already
            pass
        _running.remove(c)


def smtp_service(make_service, port, clock, **smtp):
    smtp = {"starttls": False, "timeout": 5, **smtp}
    cfg = settings_mod.SmtpSettings(host="127.0.0.1", port=port, **smtp)
    return make_service(engine=fake_engine, smtp=cfg, clock=clock, moderator="mod@example.org")


def send_until_done(svc, clock, rounds=30) -> None:
    """Send, then let time pass past every backoff, until nothing waits."""
    for _ in range(rounds):
        asyncio.run(sending.send_due(svc))
        if not svc.store.outbox_rows(status="queued"):
            return
        clock.t += timedelta(hours=7)
    raise AssertionError("mail still queued")


def ids(msgs) -> list[str]:
    return [m["Message-ID"] for m in msgs]


# -- the shape of a mail -------------------------------------------------------------------

def test_every_mail_is_multipart_threaded_tagged_and_carries_the_token(fake_svc, fake_game):
    for row in fake_svc.store.outbox_rows():
        msg = email.message_from_bytes(bytes(outbox.build(fake_svc, outbox.mail(fake_svc, row["id"]))),
                                       policy=default_policy)
        assert msg.get_content_type() == "multipart/alternative"
        assert [p.get_content_type() for p in msg.iter_parts()] == ["text/plain", "text/html"]
        assert msg["Subject"].startswith(f"[{fake_game}] ")
        assert msg["Auto-Submitted"] == "auto-generated"
        root = f"<{fake_game}.{row['player']}@example.org>"
        assert msg["In-Reply-To"] == root and root in msg["References"].split()
        assert msg["Message-ID"] == row["message_id"]
        assert msg["Reply-To"] == f"talisman+{token(fake_svc, fake_game, row['player'])}@example.org"


def test_a_newline_in_a_name_or_subject_cannot_inject_a_header(fake_svc):
    outbox.enqueue(fake_svc, kind="report", message_id="<x@example.org>", sender="talisman@example.org",
                   to="eve@example.org", to_name="eve\r\nBcc: evil@example.org", subject="hi\nBcc: evil@example.org",
                   text="t", html="<p>t</p>", in_reply_to="<a@b>\r\nBcc: evil@example.org")
    raw = bytes(outbox.build(fake_svc, outbox.mail(fake_svc, fake_svc.store.outbox_rows()[-1]["id"])))
    msg = email.message_from_bytes(raw, policy=default_policy)
    assert "Bcc" not in msg and "evil" not in str(msg["To"]).split("<")[-1]
    assert [line for line in raw.split(b"\n") if line.lower().startswith(b"bcc")] == []


def test_a_player_named_with_a_newline_gets_no_extra_header(make_service):
    svc = make_service(engine=fake_engine)
    game = newgame.create(svc, game_config(players=[("eve\nBcc: evil@example.org", "eve@example.org"),
                                                  ("bob", "bob@example.org")]))
    for row in svc.store.outbox_rows():
        raw = bytes(outbox.build(svc, outbox.mail(svc, row["id"])))
        head = raw.split(b"\n\n", 1)[0]
        assert not any(line.lower().startswith(b"bcc") for line in head.split(b"\n")), (game, head)


LONG = "Turn 12: " + "the Storm River lies between you and the Chapel; " * 6  # one line, over 78 characters


@pytest.mark.parametrize("name, subject, text, html", [
    ("bob", "[g] Turn 3 report", "short lines\nonly ASCII\n", "<p>t</p>"),
    ("José Müller", "[g] Tour 3 : à vous — ↑ left → Chapel", "Ärger → Chapel\n" + LONG + "\n  \n",
     "<p>é</p>" * 40),
    ("Ann", "[g] " + "a long subject " * 8, "trailing space \nand tab\t\n.\nFrom here\n=3D is not a code\n",
     None),
])
def test_a_mail_written_directly_reads_back_as_written_and_is_7_bit_clean(name, subject, text, html):
    """pbem/outbound/mime.py writes headers and parts itself: the standard parser must read back the
    same names, subject and texts, and every line is ASCII and within SMTP's limit."""
    from pbem.outbound import mime
    headers = {"From": outbox.mailbox("Talisman g", "talisman@example.org"),
               "To": outbox.mailbox(name, "x@example.org"),
               "Subject": subject, "Message-ID": "<m@example.org>",
               "References": " ".join(f"<ref-{n}.player@example.org>" for n in range(12))}
    attached = [mime.Attachment("talisman-g.json", "application/json", ('{"seed": "é"}\n' * 300).encode())]
    raw = mime.message(headers, text, html, attached)
    assert raw.isascii() and max(len(line) for line in raw.split(b"\n")) <= 998
    msg = email.message_from_bytes(raw, policy=default_policy)
    assert msg["To"].addresses[0].display_name == name and msg["To"].addresses[0].addr_spec == "x@example.org"
    assert msg["Subject"] == subject and msg["References"].split() == headers["References"].split()
    assert msg.get_body(("plain",)).get_content() == text
    if html:  # the same characters: beyond ASCII as character references, as an HTML reader shows them
        assert unescape(msg.get_body(("html",)).get_content()) == unescape(html) + "\n"
    [part] = list(msg.iter_attachments())
    assert part.get_filename() == "talisman-g.json" and part.get_content() == attached[0].data


# -- SMTP ---------------------------------------------------------------------------------

def test_the_outbox_goes_out_by_smtp_with_a_keyed_return_path_of_the_game_address(make_service, smtp_server):
    handler, clock = Handler(), Clock()
    svc = smtp_service(make_service, smtp_server(handler), clock)
    newgame.create(svc, game_config())
    send_until_done(svc, clock)
    rows = svc.store.outbox_rows()
    assert sorted(ids(handler.received)) == sorted(r["message_id"] for r in rows)
    # VERP: the game address with a tag naming the row, keyed (pbem/outbound/bounces.py believes only these)
    by_id = {r["message_id"]: r for r in rows}
    assert [frm for frm, _ in handler.envelopes] == [
        sending.return_path(svc, svc.store.outbox_mail(by_id[m["Message-ID"]]["id"])) for m in handler.received]
    assert all(frm.startswith("talisman+bounce-") and frm.endswith("@example.org") for frm, _ in handler.envelopes)
    assert {tuple(to) for _, to in handler.envelopes} == {("alice@example.org",), ("bob@example.org",)}
    assert all(r["status"] == "sent" for r in rows)


def test_refusals_for_a_while_then_every_mail_arrives_exactly_once(make_service, smtp_server):
    handler, clock = Handler(refuse=5, drop=2), Clock()
    svc = smtp_service(make_service, smtp_server(handler), clock)
    g = newgame.create(svc, game_config())
    for _ in range(3):  # more mail while the server refuses
        move = svc.engine.legal_moves(games.state(svc, games.get(svc, g)))[0]
        handle(svc, mail([f"{move.prompt}: {move.key}"], sender=f"{move.player}@example.org",
                         tok=token(svc, g, move.player)))
        asyncio.run(sending.send_due(svc))
    send_until_done(svc, clock)
    rows = svc.store.outbox_rows()
    assert handler.refuse == 0 and handler.drop == 0  # it did refuse, and drop the link
    assert sorted(ids(handler.received)) == sorted(r["message_id"] for r in rows)  # each exactly once
    assert any(r["attempts"] > 1 for r in rows) and all(r["status"] == "sent" for r in rows)


def test_backoff_grows_with_jitter():
    waits = [sending.backoff(n).total_seconds() / 60 for n in range(4) for _ in range(20)]
    for n in range(4):
        mine = waits[n * 20:(n + 1) * 20]
        assert all(2 ** n <= w <= 2 ** n * 1.2 for w in mine) and len(set(mine)) > 1
    assert sending.backoff(30) <= timedelta(hours=7.2)


def test_a_5xx_marks_the_mail_failed_and_the_player_undeliverable(make_service, smtp_server):
    handler, clock = Handler(reject={"bob@example.org"}), Clock()
    svc = smtp_service(make_service, smtp_server(handler), clock)
    g = newgame.create(svc, game_config(moderator="mod@example.org"))
    asyncio.run(sending.send_due(svc))
    bob_rows = [r for r in svc.store.outbox_rows() if r["to_addr"] == "bob@example.org"]
    assert bob_rows and all(r["status"] == "failed" and r["attempts"] == 1 and "550" in r["last_error"]
                            for r in bob_rows)
    assert "550" in svc.store.player(g, "bob")["undeliverable"]
    assert svc.store.player(g, "alice")["undeliverable"] is None
    assert notices.send_due(svc) == 1
    [digest] = [r for r in svc.store.outbox_rows() if r["kind"] == "digest"]  # one notice, however many mails failed
    assert digest["to_addr"] == "mod@example.org"
    send_until_done(svc, clock)
    [notice] = [m for m in handler.received if m["Message-ID"] == digest["message_id"]]
    text = notice.get_body(("plain",)).get_content()
    assert "Mail to bob cannot be delivered" in text and "bob <bob@example.org>" in text
    assert all(m["To"].addresses[0].addr_spec != "bob@example.org" for m in handler.received)


def test_a_timeout_after_data_retries_the_same_mail(make_service, smtp_server):
    handler, clock = Handler(slow=2.5), Clock()
    svc = smtp_service(make_service, smtp_server(handler), clock, timeout=1)
    newgame.create(svc, game_config())
    asyncio.run(sending.send_due(svc))
    first = svc.store.outbox_rows()[0]
    assert first["status"] == "queued" and first["attempts"] == 1  # ambiguous: it may have gone
    send_until_done(svc, clock)
    got = ids(handler.received)
    assert got.count(first["message_id"]) == 2  # twice, but as the same mail: a reader's client shows one
    assert sorted(set(got)) == sorted(r["message_id"] for r in svc.store.outbox_rows())


class Users:
    def __call__(self, server, session, envelope, mechanism, auth_data):
        ok = auth_data.login == b"talisman" and auth_data.password == b"s3cret"
        return AuthResult(success=ok)


@pytest.mark.filterwarnings("ignore:Requiring AUTH")
def test_login_from_the_config(make_service, smtp_server):
    handler, clock = Handler(), Clock()
    port = smtp_server(handler, authenticator=Users(), auth_required=True, auth_require_tls=False)
    wrong = smtp_service(make_service, port, clock, username="talisman", password="wrong", timeout=1)
    newgame.create(wrong, game_config())
    asyncio.run(sending.send_due(wrong))
    assert handler.received == [] and all(r["status"] == "queued" for r in wrong.store.outbox_rows())
    assert all(p["undeliverable"] is None for p in wrong.store.players("autumn"))  # our login, not their address
    right = smtp_service(make_service, port, clock, username="talisman", password="s3cret")
    right.store = wrong.store
    send_until_done(right, clock)
    assert len(handler.received) == len(wrong.store.outbox_rows())


class CountedUsers(Users):
    def __init__(self):
        self.logins = 0

    def __call__(self, *args):
        self.logins += 1
        return super().__call__(*args)


def queue_notices(svc, ids) -> None:
    with svc.store.transaction():
        for i in ids:
            outbox.enqueue(svc, kind="notice", message_id=f"<k{i}@example.org>", sender="talisman@example.org",
                           to="mod@example.org", to_name=None, subject=f"notice {i}", text=f"notice {i}\n")


@pytest.mark.filterwarnings("ignore:Requiring AUTH")
def test_a_kept_sender_logs_in_once_while_mail_goes_and_lets_go_when_idle(make_service, smtp_server):
    """A daemon's sender (issue 28): one connection, TLS and login for the rounds that send, not
    one a round; a round with nothing to send closes it (no link held while idle), the next
    round with mail connects again."""
    handler, users = Handler(), CountedUsers()
    port = smtp_server(handler, authenticator=users, auth_required=True, auth_require_tls=False)
    svc = smtp_service(make_service, port, Clock(), username="talisman", password="s3cret")
    sender = sending.sender_for(svc.settings)

    async def rounds() -> list[int]:
        sent = []
        for start in (0, 2, 4):
            queue_notices(svc, (start, start + 1))
            sent.append(await sending.send_due(svc, sender))
        assert users.logins == 1 and sender.client is not None and sender.client.is_connected
        sent.append(await sending.send_due(svc, sender))  # nothing due: idle
        assert sender.client is None
        queue_notices(svc, (6,))
        sent.append(await sending.send_due(svc, sender))
        await sender.close()
        return sent
    assert asyncio.run(rounds()) == [2, 2, 2, 0, 1]
    assert users.logins == 2 and len(handler.received) == 7


def test_a_daemon_keeps_one_sender_for_its_cycles(make_service, monkeypatch):
    """`serve` makes its sender once and hands it to every cycle's send_due."""
    import threading

    from pbem import daemon
    svc = make_service(engine=fake_engine, poll_seconds=0.05)
    made, rounds, stop = [], [], threading.Event()
    sender_for, send_due = sending.sender_for, sending.send_due

    def counted_sender(settings):
        made.append(sender_for(settings))
        return made[-1]

    async def counted_rounds(svc, sender=None, **kwargs):
        rounds.append(sender)
        if len(rounds) >= 3:
            stop.set()
        return await send_due(svc, sender, **kwargs)
    monkeypatch.setattr(sending, "sender_for", counted_sender)
    monkeypatch.setattr(sending, "send_due", counted_rounds)
    asyncio.run(daemon.serve(svc, stop=stop))
    assert len(rounds) >= 3 and len(made) == 1 and all(s is made[0] for s in rounds)


# -- bounces ------------------------------------------------------------------------------

def dsn(failed_rcpt: str, original_id: str | None, action="failed", to="talisman@example.org") -> bytes:
    """A delivery-status notification as Postfix writes one (RFC 3464), to the envelope
    sender of the failed mail (`to`), as the game's MTA delivers it (Delivered-To)."""
    original = (f"--B\nContent-Type: text/rfc822-headers\n\nFrom: talisman@example.org\nTo: {failed_rcpt}\n"
                f"Message-ID: {original_id}\nSubject: [autumn] Turn 1\n\n") if original_id else ""
    return f"""Delivered-To: {to}
Return-Path: <>
From: MAILER-DAEMON@mx.example.net (Mail Delivery System)
To: {to}
Subject: Undelivered Mail Returned to Sender
Message-ID: <dsn-{failed_rcpt}-{action}@mx.example.net>
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="B"

--B
Content-Type: text/plain

This is the mail system. Your message could not be delivered.

--B
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.net

Final-Recipient: rfc822; {failed_rcpt}
Action: {action}
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 unknown user

{original}--B--
""".encode()


def sent_report(svc, name: str) -> dict:
    """The latest report to `name`, sent (by the file sender)."""
    asyncio.run(sending.send_due(svc))
    return max((r for r in svc.store.outbox_rows() if r["player"] == name and r["status"] == "sent"),
               key=lambda r: r["id"])


def bounce_of(svc, row: dict, action="failed") -> bytes:
    """The bounce of outbox row `row` as it comes back to the mail's return path."""
    return dsn(row["to_addr"], row["message_id"], action=action,
               to=sending.return_path(svc, svc.store.outbox_mail(row["id"])))


def test_a_bounce_marks_the_player_undeliverable_and_tells_the_moderator(fake_svc):
    g = newgame.create(fake_svc, game_config(moderator="mod@example.org"))
    report = sent_report(fake_svc, "bob")
    result = handle(fake_svc, bounce_of(fake_svc, report))
    assert result.status == "bounce" and result.player == "bob", result.outcome
    assert "5.1.1" in fake_svc.store.player(g, "bob")["undeliverable"]
    notices.send_due(fake_svc)
    [digest] = [r for r in fake_svc.store.outbox_rows() if r["kind"] == "digest"]
    assert digest["to_addr"] == "mod@example.org" and "bob" in outbox.mail(fake_svc, digest["id"])["text"]
    assert not [r for r in fake_svc.store.outbox_rows() if r["kind"] == "stranger"]  # no reply to a bounce
    # a delay notice marks no one; mail from the player clears the mark
    alices = sent_report(fake_svc, "alice")
    assert handle(fake_svc, bounce_of(fake_svc, alices, action="delayed")).player is None
    assert fake_svc.store.player(g, "alice")["undeliverable"] is None
    move = fake_svc.engine.legal_moves(games.state(fake_svc, games.get(fake_svc, g)))[0]
    handle(fake_svc, mail([f"{move.prompt}: left"], sender=f"{move.player}@example.org",
                          tok=token(fake_svc, g, move.player)) if move.player == "bob" else
           mail(["hello"], sender="bob@example.org", tok=token(fake_svc, g, "bob")))
    assert fake_svc.store.player(g, "bob")["undeliverable"] is None


def test_a_bounced_report_leaves_its_events_for_the_next_report(fake_svc):
    """The bounced report's events were never read: the reader's next report starts where the
    bounced one started (reported_seq rewound to its since_seq)."""
    g = newgame.create(fake_svc, game_config(moderator="mod@example.org"))
    seen = {r["id"] for r in fake_svc.store.outbox_rows()}
    bounced = None
    for _ in range(12):  # answers until bob gets a report that catches him up on some moves
        player, line = legal(fake_svc, g)
        handle(fake_svc, mail([line], sender=f"{player}@example.org", tok=token(fake_svc, g, player)))
        new = [r for r in fake_svc.store.outbox_rows() if r["id"] not in seen]
        seen |= {r["id"] for r in new}
        rows = [fake_svc.store.outbox_by_message_id(r["message_id"]) for r in new if r["player"] == "bob"]
        bounced = next((r for r in rows if r["since_seq"] is not None
                        and r["since_seq"] < fake_svc.store.player(g, "bob")["reported_seq"]), None)
        if bounced:
            break
    assert bounced, "bob was never mailed a report"
    asyncio.run(sending.send_due(fake_svc))
    handle(fake_svc, bounce_of(fake_svc, bounced))
    assert fake_svc.store.player(g, "bob")["reported_seq"] == bounced["since_seq"]
    lost = outbox.mail(fake_svc, bounced["id"])["text"]
    for _ in range(12):  # play on until bob is mailed again: that report holds the bounced events
        player, line = legal(fake_svc, g)
        handle(fake_svc, mail([line], sender=f"{player}@example.org", tok=token(fake_svc, g, player)))
        latest = max(r["id"] for r in fake_svc.store.outbox_rows() if r["player"] == "bob")
        if latest != bounced["id"]:
            break
    assert latest != bounced["id"]
    again = outbox.mail(fake_svc, latest)["text"]
    events = [ln.strip() for ln in lost.split("Since your last report")[1].splitlines() if ln.strip().startswith("-")]
    assert events and all(ln in again for ln in events), (events, again)


def test_a_forged_bounce_is_not_believed(fake_svc):
    """Issue 21 (7): a stranger's mail shaped as a delivery report, naming a guessable outbox
    Message-ID (or only an address), marked the player undeliverable, mailed the moderator and
    rewound the player's report. Only a bounce to a sent mail's keyed return path counts."""
    g = newgame.create(fake_svc, game_config(moderator="mod@example.org"))
    report = sent_report(fake_svc, "bob")
    reported = fake_svc.store.player(g, "bob")["reported_seq"]
    before = len(fake_svc.store.outbox_rows())
    tag = sending.return_path(fake_svc, fake_svc.store.outbox_mail(report["id"]))
    forged_tag = tag.replace(tag.split("-")[-1].split("@")[0], "0" * 16)
    for forged in (dsn("bob@example.org", report["message_id"]),  # the Message-ID, guessed
                   dsn("bob@example.org", None),  # only the address
                   dsn("bob@example.org", report["message_id"], to=forged_tag),  # a made-up tag
                   dsn("alice@example.org", None, to=tag)):  # the right tag, another recipient
        result = handle(fake_svc, forged)
        assert result.player is None, result.outcome
    assert fake_svc.store.player(g, "bob")["undeliverable"] is None
    assert fake_svc.store.player(g, "bob")["reported_seq"] == reported
    assert len(fake_svc.store.outbox_rows()) == before  # no digest, no reply
    queued = next(r for r in fake_svc.store.outbox_rows() if r["status"] == "queued") \
        if any(r["status"] == "queued" for r in fake_svc.store.outbox_rows()) else None
    if queued:  # a mail not sent yet cannot have bounced
        assert handle(fake_svc, bounce_of(fake_svc, queued)).player is None


def test_a_replaced_address_clears_the_mark(fake_svc):
    g = newgame.create(fake_svc, game_config(moderator="mod@example.org"))
    result = handle(fake_svc, bounce_of(fake_svc, sent_report(fake_svc, "alice")))
    assert result.status == "bounce" and fake_svc.store.player(g, "alice")["undeliverable"]
    moderator.replace_player(fake_svc, g, "alice", "alice@new.example.org")  # a new address: the mark goes
    assert fake_svc.store.player(g, "alice")["undeliverable"] is None


# -- TLS -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    """A self-signed certificate for 127.0.0.1, made with the openssl command."""
    import shutil
    import subprocess
    if not shutil.which("openssl"):
        pytest.skip("needs the openssl command to make a test certificate")
    d = tmp_path_factory.mktemp("tls")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(d / "key.pem"), "-out", str(d / "cert.pem")],
                   check=True, capture_output=True)
    return d / "cert.pem", d / "key.pem"


def server_context(certificate):
    import ssl
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(*map(str, certificate))
    return ctx


@pytest.mark.parametrize("mode", ["starttls", "tls"])
def test_mail_goes_out_over_starttls_and_implicit_tls(make_service, smtp_server, certificate, mode):
    handler, clock = Handler(), Clock()
    context = server_context(certificate)
    port = (smtp_server(handler, tls_context=context, require_starttls=True) if mode == "starttls"
            else smtp_server(handler, ssl_context=context))
    svc = smtp_service(make_service, port, clock, starttls=mode == "starttls", tls=mode == "tls",
                       cert_bundle=str(certificate[0]))
    newgame.create(svc, game_config())
    send_until_done(svc, clock)
    rows = svc.store.outbox_rows()
    assert sorted(ids(handler.received)) == sorted(r["message_id"] for r in rows)


def test_an_untrusted_certificate_is_refused_and_retried(make_service, smtp_server, certificate):
    handler, clock = Handler(), Clock()
    port = smtp_server(handler, tls_context=server_context(certificate), require_starttls=True)
    svc = smtp_service(make_service, port, clock, starttls=True)  # no cert_bundle: not trusted
    newgame.create(svc, game_config())
    asyncio.run(sending.send_due(svc))
    assert handler.received == []
    assert all(r["status"] == "queued" and r["attempts"] >= 1 for r in svc.store.outbox_rows())


# -- long outages ------------------------------------------------------------------------

def test_a_three_day_outage_loses_no_mail_and_tells_the_moderator_once(make_service, smtp_server):
    """Issue 21 (4): after 8 attempts (about 2.5 hours) rows were set failed, no one was told
    and nothing went until `outbox retry`. A real server is stopped for three days of the
    clock while the daemon keeps trying; then every mail arrives once, and the moderator got
    one notice about the waiting mail."""
    handler, clock = Handler(), Clock()
    port = smtp_server(handler)
    svc = smtp_service(make_service, port, clock)
    newgame.create(svc, game_config())
    server = _running[-1]
    server.stop()  # the outage begins
    rounds = 0
    while clock.t < Clock().t + timedelta(days=3):
        notices.send_due(svc)  # as a daemon's cycle does
        asyncio.run(sending.send_due(svc))
        clock.t += timedelta(minutes=20)
        rounds += 1
    rows = svc.store.outbox_rows()
    assert not [r for r in rows if r["status"] == "failed"], "mail given up during the outage"
    waiting = [r for r in rows if r["kind"] == "digest"]
    assert len(waiting) == 1 and "wait to be sent" in waiting[0]["subject"]
    assert max(r["attempts"] for r in rows) > 8  # tried all along, with backoff (at most 6 hours apart)
    server = Controller(handler, hostname="127.0.0.1", port=port)  # the server is back, on the same port
    server.start()
    try:
        send_until_done(svc, clock)
    finally:
        server.stop()
    rows = svc.store.outbox_rows()
    assert all(r["status"] == "sent" for r in rows)
    assert sorted(ids(handler.received)) == sorted(r["message_id"] for r in rows)  # each once
    assert "mod@example.org" in {to for _, tos in handler.envelopes for to in tos}


def test_mail_is_given_up_only_after_send_for_hours_and_the_moderator_is_told(make_service, smtp_server):
    handler, clock = Handler(reject=()), Clock()
    svc = smtp_service(make_service, smtp_server(handler), clock)
    svc.settings.send_for_hours = 10
    newgame.create(svc, game_config())
    _running[-1].stop()
    for _ in range(120):  # 30 hours: the players' mails, then the moderator's digests, are given up
        notices.send_due(svc)
        asyncio.run(sending.send_due(svc))
        clock.t += timedelta(minutes=15)
    rows = svc.store.outbox_rows()
    given_up = [r for r in rows if r["status"] == "failed" and r["kind"] != "digest"]
    assert given_up
    told = [outbox.mail(svc, r["id"])["text"] for r in rows if r["kind"] == "digest"]
    assert any("given up" in t and "could not be sent" in t for t in told)
    # the digests go down with the outage too, but a digest given up raises no notice of its own
    assert any(r["status"] == "failed" for r in rows if r["kind"] == "digest")
    assert not any("(digest," in t for t in told)


def test_outbox_list_shows_what_waits_and_why(tmp_path):
    from click.testing import CliRunner

    from pbem.cli import main
    home = tmp_path / "home"

    def run(*args, code=0):
        result = CliRunner().invoke(main, ["--home", str(home), *args])
        assert result.exit_code == code, result.output
        return result.output

    run("init")
    (home / "pbem.toml").write_text(f'[smtp]\nhost = "127.0.0.1"\nport = {free_port()}\nstarttls = false\n'
                                    'timeout = 2\n')
    cfg = tmp_path / "game.toml"
    cfg.write_text('[game]\nname = "autumn"\nedition = "revised4"\n[[players]]\nname = "alice"\n'
                   'email = "alice@example.org"\n[[players]]\nname = "bob"\nemail = "bob@example.org"\n')
    run("game", "new", str(cfg))
    assert "waits for a retry" in run("serve", "--once", code=1)  # nothing listens on that port
    out = run("outbox", "list")
    assert "next_attempt_at" in out and "waiting since" in out and "Connect call failed" in out
